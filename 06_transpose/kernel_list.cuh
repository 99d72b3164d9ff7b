// The chapter's kernels as the table, the tests and the benchmarks list them.
#pragma once

#include <vector>

#include "06_transpose/copy.cuh"
#include "06_transpose/kernels.cuh"
#include "common/transpose.hpp"

namespace ch06 {

inline std::vector<tutorial::TransposeKernel> chapter_kernels() {
  return {
      {"naive 32x32, 32x8 threads", launch_naive<32, 8>},
      {"tiled 32x32 (bank conflicts)", launch_tiled<32, 8>},
      {"padded 32x(32+1)", launch_padded<32, 8>},
      {"padded 64x(64+1), 64x4 threads", launch_padded<64, 4>},
      {"sector-aligned stores 128x32, 32x8 threads", launch_sector_aligned<128, 32, 8>},
      {"sector-aligned stores 128x32, blocks along output rows",
       launch_sector_aligned<128, 32, 8, BlockOrder::OutputRows>},
      // transpose_vec4 alone: shapes float4 cannot take are skipped rows.
      {"vec4 64x64, blocks along input rows", launch_vec4<64, 256, BlockOrder::InputRows>},
      {"vec4 64x64, blocks along output rows", launch_vec4<64, 256, BlockOrder::OutputRows>},
      // The chapter's final launcher: for each shape, the fastest of the kernels above that can
      // run it (and transpose_thin_regs, and a copy for a single row or column), timed on this
      // GPU among those its estimate ranks closest.
      {"dispatch: fastest of copy|thin|vec4|sector-aligned|padded", dispatch_transpose},
  };
}

inline tutorial::TransposeKernel best_kernel() { return chapter_kernels().back(); }

// The ceiling that is a kernel: a copy of the same bytes with float4 on both sides.
inline tutorial::TransposeKernel copy_kernel() { return {"copy kernel (float4)", launch_copy}; }

}  // namespace ch06
