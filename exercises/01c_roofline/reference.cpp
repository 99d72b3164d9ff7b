// The checker's answers for exercise 01c's rectangular tiles (support/host_references.hpp):
// the intensity from the block's bytes and FLOP counted over one k step, and the smallest BM
// found by search against the ridge. Compiled into the checker only.
#include <stdexcept>

#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

double intensity(double BM, double BN) {
  const double flop = 2.0 * BM * BN;        // one k: every element of the tile, one FMA
  const double bytes = 4.0 * BM + 4.0 * BN;  // one column of A's strip, one row of B's
  return flop / bytes;
}

const exercise::HostReferences references(
    "01c_roofline",
    {{"block_intensity",
      [](const Args& a) {
        if (a.size() != 2 || a[0] < 1 || a[1] < 1) throw std::invalid_argument("(BM, BN) >= 1");
        return Args{intensity(a[0], a[1])};
      }},
     {"smallest_block_rows",
      [](const Args& a) {
        if (a.size() != 3 || a[0] < 1 || a[1] <= 0 || a[2] <= 0)
          throw std::invalid_argument("(BN, bandwidth, peak)");
        const double ridge = a[2] / a[1];
        for (int BM = 1; BM <= 1000000; ++BM)
          if (intensity(BM, a[0]) >= ridge) return Args{double(BM)};
        return Args{-1.0};
      }}});

}  // namespace
