// The kernels of chapter 05 as the harness sees them: table names, launchers, and the DRAM
// model for the roofline column.
#pragma once

#include <vector>

#include "05_double_buffer/kernels.cuh"
#include "common/gemm.hpp"

namespace ch05 {

using tutorial::block_tile_intensity;  // common/gemm.hpp

inline std::vector<tutorial::GemmKernel> chapter_kernels() {
  return {
      // The straightforward double buffer on chapter 04's best, and the tile size at which
      // its doubled shared memory costs resident blocks (single buffer as the control).
      {"double_buffer 128x128x8 8x8", launch_double_buffer_gemm<128, 128, 8, 8, 8, 2>,
       block_tile_intensity<128, 128>},
      {"single_buffer 128x128x64 8x8", launch_double_buffer_gemm<128, 128, 64, 8, 8, 1>,
       block_tile_intensity<128, 128>},
      {"double_buffer 128x128x64 8x8", launch_double_buffer_gemm<128, 128, 64, 8, 8, 2>,
       block_tile_intensity<128, 128>},
      // The versions that win: double buffering through registers, then warp tiles.
      {"prefetch 128x128x8 8x8", launch_prefetch_gemm<128, 128, 8, 8, 8>,
       block_tile_intensity<128, 128>},
      {"warp_tiled 128x128x8 w64x32 8x8", launch_warp_tiled_gemm<128, 128, 8, 64, 32, 8, 8>,
       block_tile_intensity<128, 128>},
      {"warp_tiled 128x128x16 w64x32 8x8", launch_warp_tiled_gemm<128, 128, 16, 64, 32, 8, 8>,
       block_tile_intensity<128, 128>},
      // Asynchronous copies, 3 stages, in cuBLAS's own geometry (128 x 256 tiles, 8 warps of
      // 64 x 64, 8 x 16 per thread, 1 block per SM).
      {"async 128x256x8 w64x64 8x16 s3 g8",
       launch_async_gemm<128, 256, 8, 64, 64, 8, 16, 3, 8>, block_tile_intensity<128, 256>},
      {"async 128x256x16 w64x64 8x16 s3 g8",
       launch_async_gemm<128, 256, 16, 64, 64, 8, 16, 3, 8>, block_tile_intensity<128, 256>},
      // warp_tiled 128x128x16 with the load bookkeeping hoisted out of the main loop.
      {"lean 128x128x16 w64x32 8x8", launch_lean_gemm<128, 128, 16, 64, 32, 8, 8>,
       block_tile_intensity<128, 128>},
      // lean_gemm with fragments double-buffered across the barrier, two tiles per loop trip
      // and the FMA order that avoids register-bank conflicts: the main loop of the next two.
      {"pipelined 128x128x16 w32x64 8x8", launch_pipelined_gemm<128, 128, 16, 32, 64, 8, 8>,
       block_tile_intensity<128, 128>},
      // pipelined_gemm's loop, with the tile (128 x 128, 64 x 64 or 32 x 128) and the slices of K
      // chosen from the shape and the SM count; the slices' partial sums added in a fixed order.
      // (The DRAM model of its 128 x 128 tile: the tile it runs at the table's sizes.)
      {"any_shape 128x128|64x64|32x128 split-K", launch_any_shape_gemm,
       block_tile_intensity<128, 128>},
      // any_shape_gemm, with stream-K for the last wave where 128 x 128 tiles fill more than
      // one wave and leave the last one partial (K >= 1536).
      {"stream-K 128x128 + any_shape", launch_stream_k_gemm, block_tile_intensity<128, 128>},
      // stream-K + any_shape, with thin_gemm or a vector kernel where the roofline says memory
      // binds.
      {"thin|vector where memory binds, else stream-K", launch_thin_gemm,
       block_tile_intensity<128, 128>},
      // Every path above (three more tiles: 128 x 32, 64 x 128 and 128 x 64) and thin_gemm,
      // ranked by an estimate, the closest timed on a shape's first call: the chapter's final
      // launcher. (The DRAM model of its 128 x 128 tile, which runs at the table's sizes.)
      {"planned: tiles|stream-K|split-K|thin", launch_planned_gemm,
       block_tile_intensity<128, 128>},
  };
}

// The chapter's final GEMM: for each shape, the plan that runs fastest on this GPU among those
// its estimate ranks closest (step 9).
inline tutorial::GemmKernel best_kernel() {
  return {"ch05::planned: tiles|stream-K|split-K|thin", launch_planned_gemm};
}

}  // namespace ch05
