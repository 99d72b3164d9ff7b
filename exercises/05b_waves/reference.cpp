// The checker's answers for exercise 05b (support/host_references.hpp): the arithmetic of
// chapter 05's waves (6_any_shape.cuh's comments), the chapter's own slice_k and
// plan_any_shape (exercises/support/chapter_plans.hpp), and best_slices: every wanted count cut
// by that slice_k and timed by the exercise's model. Compiled into the checker only.
#include <stdexcept>

#include "common/ceil_div.hpp"
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

int arg(const Args& a, size_t i) { return i < a.size() ? int(a[i]) : 0; }
long long count(const Args& a, size_t i) { return i < a.size() ? (long long)a[i] : 0; }

const exercise::HostReferences references(
    "05b_waves",
    {{"grid_blocks",
      [](const Args& a) {
        return Args{double((long long)tutorial::ceil_div(arg(a, 0), arg(a, 2)) *
                           tutorial::ceil_div(arg(a, 1), arg(a, 3)) * arg(a, 4))};
      }},
     {"wave_slots", [](const Args& a) { return Args{double(arg(a, 0)) * arg(a, 1)}; }},
     {"waves", [](const Args& a) { return Args{double(count(a, 0)) / double(count(a, 1))}; }},
     {"waves_of_time",
      [](const Args& a) { return Args{double((count(a, 0) + count(a, 1) - 1) / count(a, 1))}; }},
     {"last_wave_fill",
      [](const Args& a) {
        const long long blocks = count(a, 0), slots = count(a, 1);
        const long long before = (blocks - 1) / slots;  // full waves before the last one
        return Args{double(blocks - before * slots) / double(slots)};
      }},
     {"slice_k", [](const Args& a) { return exercise::chapter05_slice_k(arg(a, 0), arg(a, 1)); }},
     {"partial_sum_bytes",
      [](const Args& a) {
        const int slices = arg(a, 2);
        return Args{slices > 1 ? (2.0 * slices + 1.0) * arg(a, 0) * arg(a, 1) * 4.0 : 0.0};
      }},
     {"plan",
      [](const Args& a) {
        return exercise::chapter05_plan(arg(a, 0), arg(a, 1), arg(a, 2), arg(a, 3));
      }},
     {"best_slices", best_slices}});

}  // namespace
