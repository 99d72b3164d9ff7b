// Chapter 06, lab: step 6's transpose_thin_bulk with more loads a warp in flight (an experiment).
//
// At an even number of rows, step 6's wide chunk kernel has each warp load U pieces of 32
// floats of one input row, store them to shared memory, then go to its next row: U loads a lane
// in flight at a time (U = 4: 4 KB a block of 256 threads). Here a warp loads the pieces of K
// rows (K * U loads a lane) before it stores any of them, K times the bytes in flight a warp
// (LOG.md#thin-ceiling). Odd rows take step 6's float4 segments unchanged.
#pragma once

#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int THREADS, int MIN_BLOCKS, int U, int K>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_bulk_deep(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols, int span_max) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span_max][rows] words
  const int first = blockIdx.x * span_max;
  const int span = min(span_max, cols - first);
  if (rows % 2 == 1) {
    ch06::move_segments<THREADS, true, const float*, false>(in + first, size_t(cols), chunk, rows,
                                                            span);
  } else {
    constexpr int WARPS = THREADS / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int groups = (span + 32 * U - 1) / (32 * U);
    const int items = rows * groups;  // (row c, group) pairs, c = item / groups
    for (int g0 = warp; g0 < items; g0 += WARPS * K) {
      float x[K][U] = {};
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int g = g0 + k * WARPS;
        const int gc = g < items ? g : items - 1;  // a pointer inside the matrix, unused past it
        const int c = gc / groups, i0 = (gc % groups) * 32 * U + lane;
        const float* src = in + size_t(c) * cols + first + i0;
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (g < items && i0 + 32 * u < span) x[k][u] = ch06::load1_line(src + 32 * u);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int g = g0 + k * WARPS;
        const int c = g / groups, i0 = (g % groups) * 32 * U + lane;
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (g < items && i0 + 32 * u < span) chunk[(i0 + 32 * u) * rows + c] = x[k][u];
      }
    }
  }
  ch06::store_range<THREADS>(out + size_t(first) * rows, chunk, span * rows);
}

// Wide matrices only, as step 6's launch_thin_bulk (no filled span).
template <int THREADS, int CHUNK, int MIN_BLOCKS, int U, int K>
void launch_thin_bulk_deep(const float* in, float* out, int rows, int cols) {
  if (rows >= cols || 32 * (rows | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_deep: wide matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " rows, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, rows);
  tutorial::launch(transpose_thin_bulk_deep<THREADS, MIN_BLOCKS, U, K>,
                   dim3(tutorial::ceil_div(cols, span)), dim3(THREADS),
                   size_t(span) * rows * sizeof(float), in, out, rows, cols, span);
}

}  // namespace ch06lab
