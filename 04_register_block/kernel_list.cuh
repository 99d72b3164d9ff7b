// The kernels of chapter 04 as the harness sees them (table names, launchers, the DRAM model
// for the roofline column), and the lesson's arithmetic, which the host tests check.
#pragma once

#include <vector>

#include "04_register_block/kernels.cuh"
#include "common/gemm.hpp"

namespace ch04 {

// ---------------------------------------------------------------------------------------
// The lesson's arithmetic
// ---------------------------------------------------------------------------------------

// Shared-memory floats read per multiply-add, in the inner k loop of each kernel.
// Tiled (chapters 02/03): As[ty][k] and Bs[k][tx] for one FMA.
constexpr double smem_loads_per_fma_tiled() { return 2.0; }
// 1D: one Bs value and TM As values feed TM FMAs.
constexpr double smem_loads_per_fma_1d(int TM) { return (1.0 + TM) / TM; }
// 2D: TM values of A and TN of B feed TM*TN FMAs.
constexpr double smem_loads_per_fma_2d(int TM, int TN) { return double(TM + TN) / (TM * TN); }
// Vectorized: the same floats, moved as 16-byte LDS.128 instructions: (TM/4 + TN/4) of them
// per TM*TN FMAs. (Instructions, not bytes, are what a warp scheduler issues.)
constexpr double lds128_per_fma(int TM, int TN) { return (TM / 4 + TN / 4) / double(TM * TN); }

// DRAM model of a BM x BN block tile: BM*BN / (2*(BM + BN)) FLOP per byte, whatever BK
// (common/gemm.hpp, where chapter 05 finds it too).
using tutorial::block_tile_flop_per_byte;
using tutorial::block_tile_intensity;

// ---------------------------------------------------------------------------------------
// The shipped configurations
// ---------------------------------------------------------------------------------------

inline std::vector<tutorial::GemmKernel> chapter_kernels() {
  return {
      {"register_1d 64x64x8 TM=8", launch_register_1d_gemm<64, 64, 8, 8>,
       block_tile_intensity<64, 64>},
      {"register_1d 64x64x8 TM=16", launch_register_1d_gemm<64, 64, 8, 16>,
       block_tile_intensity<64, 64>},
      // Twice the k depth: twice the FMAs between two barriers (lab/LOG.md: the 1D kernel is bound
      // by its barriers and global-load waits, not by shared memory).
      {"register_1d 64x64x16 TM=16", launch_register_1d_gemm<64, 64, 16, 16>,
       block_tile_intensity<64, 64>},
      {"register_2d 128x128x8 8x8", launch_register_2d_gemm<128, 128, 8, 8, 8>,
       block_tile_intensity<128, 128>},
      {"vectorized 128x128x8 8x8", launch_vectorized_gemm<128, 128, 8, 8, 8>,
       block_tile_intensity<128, 128>},
      // The one-warp layout: a 32 x 32 tile, one warp per block, 8 x 4 results per thread.
      {"vectorized 32x32x32 8x4 (one warp)", launch_vectorized_gemm<32, 32, 32, 8, 4>,
       block_tile_intensity<32, 32>},
  };
}

// The kernel chapter 05 builds on and races against.
inline tutorial::GemmKernel best_kernel() {
  return {"ch04::vectorized 128x128x8 8x8", launch_vectorized_gemm<128, 128, 8, 8, 8>,
          block_tile_intensity<128, 128>};
}

}  // namespace ch04
