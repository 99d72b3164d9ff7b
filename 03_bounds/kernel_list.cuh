// The kernels of chapter 03 as the harness sees them: table names, launchers, and the lesson's
// model of DRAM traffic for the roofline column.
#pragma once

#include <string>
#include <vector>

#include "03_bounds/kernels.cuh"
#include "common/gemm.hpp"

namespace ch03 {

// Per phase a block copies two TILE_WIDTH^2 tiles (8 * TILE_WIDTH^2 bytes) and its
// TILE_WIDTH^2 threads do TILE_WIDTH multiply-adds each (2 * TILE_WIDTH^3 FLOP):
// TILE_WIDTH / 4 FLOP/B, TILE_WIDTH times the naive 0.25. (Zero-filled edge elements are
// neither loaded nor useful; the model ignores them.)
template <int TILE_WIDTH>
double tiled_intensity(int /*M*/, int /*N*/, int /*K*/) {
  const double flop = 2.0 * TILE_WIDTH * TILE_WIDTH * TILE_WIDTH;
  const double bytes = 2.0 * TILE_WIDTH * TILE_WIDTH * sizeof(float);
  return flop / bytes;
}

template <int TILE_WIDTH>
tutorial::GemmKernel tiled_kernel(const std::string& prefix = "") {
  return {prefix + "tiled_gemm<" + std::to_string(TILE_WIDTH) + ">", launch_tiled_gemm<TILE_WIDTH>,
          tiled_intensity<TILE_WIDTH>};
}

inline std::vector<tutorial::GemmKernel> chapter_kernels() {
  return {tiled_kernel<8>(), tiled_kernel<16>(), tiled_kernel<32>()};
}

// The kernel the next chapter races against: the largest tile, the highest modelled
// intensity (named with its namespace so that its rows stay apart from the next chapter's).
inline tutorial::GemmKernel best_kernel() { return tiled_kernel<32>("ch03::"); }

}  // namespace ch03
