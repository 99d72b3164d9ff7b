// The checker's answer for exercise 05b's best_slices (support/host_references.hpp): every
// wanted count cut by the chapter's own slice_k (exercises/support/chapter_plans.hpp) and
// timed by the exercise's model. Compiled into the checker only.
#include <stdexcept>

#include "exercises/support/chapter_plans.hpp"
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

Args best_slices(const Args& a) {
  if (a.size() != 3 || a[0] < 1 || a[1] < 1 || a[2] < 1)
    throw std::invalid_argument("best_slices takes (tiles, K, slots) >= 1");
  const long long tiles = (long long)a[0], slots = (long long)a[2];
  const int K = int(a[1]);
  double bestSlices = 0, bestSliceK = 0;
  long long bestTime = -1;
  for (int wanted = 1; wanted <= 64; ++wanted) {
    const std::vector<double> cut = exercise::chapter05_slice_k(K, wanted);  // (S, sliceK)
    const long long blocks = tiles * (long long)cut[0];
    const long long time = (blocks + slots - 1) / slots * (long long)cut[1];
    if (bestTime < 0 || time < bestTime || (time == bestTime && cut[0] < bestSlices)) {
      bestTime = time;
      bestSlices = cut[0];
      bestSliceK = cut[1];
    }
  }
  return {bestSlices, bestSliceK};
}

const exercise::HostReferences references("05b_waves", {{"best_slices", best_slices}});

}  // namespace
