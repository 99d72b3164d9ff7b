// The checker's answers for exercise 01c (support/host_references.hpp): the lessons'
// formulas, the harness's roofline (common/device_info.hpp), and for rectangular tiles the
// intensity from the block's bytes and FLOP counted over one k step and the smallest BM solved
// for against the ridge. A GPU is (bandwidth GB/s, peak GFLOP/s). Compiled into the
// checker only.
#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "common/device_info.hpp"

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
    {{"naive_intensity", [](const Args&) { return Args{2.0 / 8.0}; }},
     {"tiled_intensity", [](const Args& a) { return Args{2.0 * a.at(0) / 8.0}; }},
     {"attainable_gflops",
      [](const Args& a) { return Args{tutorial::roofline_gflops(a.at(0), a.at(1), a.at(2))}; }},
     {"percent_of_peak",
      [](const Args& a) {
        return Args{100.0 * tutorial::roofline_gflops(a.at(0), a.at(1), a.at(2)) / a.at(2)};
      }},
     {"ridge_point", [](const Args& a) { return Args{a.at(1) / a.at(0)}; }},
     {"smallest_compute_bound_tile",
      [](const Args& a) {
        int tile = 1;
        while (2.0 * tile / 8.0 < a.at(1) / a.at(0)) ++tile;
        return Args{double(tile)};
      }},
     {"naive_global_loads", [](const Args& a) { return Args{2.0 * a.at(0) * a.at(1) * a.at(2)}; }},
     {"tiled_global_loads",
      [](const Args& a) { return Args{2.0 * a.at(0) * a.at(1) * a.at(2) / a.at(3)}; }},
     {"block_intensity",
      [](const Args& a) {
        if (a.size() != 2 || a[0] < 1 || a[1] < 1) throw std::invalid_argument("(BM, BN) >= 1");
        return Args{intensity(a[0], a[1])};
      }},
     {"smallest_block_rows",
      [](const Args& a) {
        if (a.size() != 3 || a[0] < 1 || a[1] <= 0 || a[2] <= 0)
          throw std::invalid_argument("(BN, bandwidth, peak)");
        // BM BN / (2 (BM + BN)) >= r  <=>  BM (BN - 2r) >= 2 r BN: none where BN <= 2r, else
        // from 2 r BN / (BN - 2r) on, which can be millions of rows where the ridge lies just
        // under BN / 2 (no search cap). The intensity itself, rounded as computed, settles the
        // exact first BM from that estimate (near INT_MAX many rows round to one intensity, so
        // the estimate is clamped there, not trusted); past INT_MAX no int BM reaches it: -1.
        const double BN = a[0], ridge = a[2] / a[1];
        if (BN / 2.0 <= ridge) return Args{-1.0};
        double BM = std::ceil(2.0 * ridge * BN / (BN - 2.0 * ridge));
        BM = std::min(INT_MAX + 1.0, std::max(1.0, BM));
        while (BM > 1 && intensity(BM - 1, BN) >= ridge) --BM;
        while (BM <= INT_MAX && intensity(BM, BN) < ridge) ++BM;
        return Args{BM <= INT_MAX ? BM : -1.0};
      }}});

}  // namespace
