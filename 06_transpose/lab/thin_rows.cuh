// Chapter 06, lab: the wide side of step 6's chunk kernel with its segment loads unrolled along
// each input row (an experiment).
//
// A wide matrix (rows = thin < cols) is read as `rows` segments of the chunk's span, one per
// input row. Step 6's move_segments walks (row, element) pairs one element a lane at a time: at
// an even thin side every float costs a walk step, a 64-bit address and a chunk index besides
// its load and its shared store, and the thin chunk kernel was measured issue-bound on such
// integer work (lab/LOG.md#thin-stalls). Here a warp takes U 32-float pieces of one row at a
// time: one walk step for 32 x U floats, then U loads at constant strides (all issued before the
// U shared stores). The contiguous side is step 6's move_contiguous, unchanged.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int THREADS, int MIN_BLOCKS, int U>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_rows(const float* __restrict__ in, float* __restrict__ out, int rows,
                        int cols, int span_max) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span_max][rows | 1] words
  constexpr int WARPS = THREADS / 32;
  const int thin = rows, P = thin | 1;
  const bool turn = P == thin;
  const int first = blockIdx.x * span_max;  // the block's input columns [first, first + span)
  const int span = min(span_max, cols - first);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int groups = tutorial::ceil_div(span, 32 * U);  // groups of U pieces in a segment
  ch06::Walk v(warp, WARPS, groups);
  for (int g = warp; g < thin * groups; g += WARPS, v.next()) {
    const int c = v.q, i0 = v.r * 32 * U + lane;  // input row c, element i0 of its segment
    const float* src = in + size_t(c) * cols + first + i0;
    float x[U] = {};  // (each one stored is loaded first; zero quiets the compilers)
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + 32 * u < span) x[u] = ch06::load1_line(src + 32 * u);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + 32 * u < span) chunk[ch06::chunk_word((i0 + 32 * u) * P + c, turn)] = x[u];
  }
  __syncthreads();
  ch06::move_contiguous<THREADS, false>(out + size_t(first) * rows, chunk, thin, span);
}

// Wide matrices only (rows < cols), rows below CHUNK / 32 as step 6's launch_thin_sized.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1, int U = 4>
void launch_thin_rows(const float* in, float* out, int rows, int cols) {
  if (rows >= cols || 32 * (rows | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_rows: wide matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " rows, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span_max = ch06::thin_span(CHUNK, rows);
  const size_t smem = size_t(span_max) * (rows | 1) * sizeof(float);
  tutorial::launch(transpose_thin_rows<THREADS, MIN_BLOCKS, U>,
                   dim3(tutorial::ceil_div(cols, span_max)), dim3(THREADS), smem, in, out, rows,
                   cols, span_max);
}

}  // namespace ch06lab
