// Chapter 06, lab: step 6's chunk kernel for tall matrices with every output segment cut at
// sector boundaries (step 5's idea inside step 6; an experiment, after thin_sector.cuh).
//
// A tall matrix (cols < rows) is written as `cols` output rows of `rows` floats. Where rows is
// not a multiple of 8 (or `out` is off a sector), output row c starts s_c floats past a 32-byte
// sector, and step 6's chunk [first, first + span) writes each output row from `first` on: the
// first and the last sector of every segment are written in part, the rest by the neighbouring
// chunk (every_shape.md, part 2). Here the block that owns [first, first + span) writes output row
// c over [first − s_c, first − s_c + span) instead, so every segment starts on a sector and its
// float4 stores cover whole sectors (lab/LOG.md#thin-cut). It stages 8 input rows before its
// chunk for that (7 would do; 8 keeps the chunk's float4 groups aligned), 8 / span more reads.
// The contiguous side is step 6's move_contiguous, unchanged; the segment side is below. In
// thin_sector.cuh's simpler (and much slower) kernel the cut showed no odd-row penalty.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06lab {

// Output row c (< thin) over [first − s_c, first − s_c + span) ∩ [0, rows). Element o (an input
// row) is chunk row o − lo of `base`, word (o − lo) · P + c, turned at an odd thin side as step 6
// turns it (its move_contiguous filled `base`). Odd thin: a float4 a lane, 4 consecutive o of one
// c (sector-aligned, so 16-byte aligned), a float at a time only where a float4 crosses 0 or rows.
// Even thin: one float a lane, 32 consecutive o of one c a warp (words P apart: 32 banks).
template <int THREADS>
__device__ void write_segments_cut(float* out, int rows, const float* base, int thin, int lo,
                                   int first, int span) {
  const int P = thin | 1;
  const bool turn = P == thin;
  const uintptr_t start = reinterpret_cast<uintptr_t>(out) / sizeof(float);
  auto word = [&](int o, int c) { return base[ch06::chunk_word((o - lo) * P + c, turn)]; };
  if (!turn) {
    ch06::Walk v(threadIdx.x, THREADS, span);
    for (int k = threadIdx.x; k < thin * span; k += THREADS, v.next()) {
      const int c = v.q;
      const int s = static_cast<int>((start + static_cast<size_t>(c) * rows) % 8);
      const int o = first - s + v.r;
      if (o >= 0 && o < rows) out[static_cast<size_t>(c) * rows + o] = word(o, c);
    }
    return;
  }
  const int n4 = span / 4;
  ch06::Walk v(threadIdx.x, THREADS, n4);
#pragma unroll 4
  for (int k = threadIdx.x; k < thin * n4; k += THREADS, v.next()) {
    const int c = v.q;
    const int s = static_cast<int>((start + static_cast<size_t>(c) * rows) % 8);
    const int o = first - s + 4 * v.r;
    float* dst = out + static_cast<size_t>(c) * rows;
    if (o >= 0 && o + 3 < rows) {
      ch06::store4(dst + o, make_float4(word(o, c), word(o + 1, c), word(o + 2, c), word(o + 3, c)));
    } else {
      for (int u = 0; u < 4; ++u)
        if (o + u >= 0 && o + u < rows) dst[o + u] = word(o + u, c);
    }
  }
}

template <int THREADS, int MIN_BLOCKS = 1>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_cut(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                       int span) {
  extern __shared__ float4 chunk4[];  // float4: 16-byte aligned (move_contiguous' float4s)
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span + 8][cols | 1] words
  const int P = cols | 1;
  const int first = blockIdx.x * span;  // the block owns outputs [first, first + span), shifted
  const int lo = max(first - 8, 0), hi = min(first + span, rows);  // input rows staged
  // Chunk row j holds input row first − 8 + j; `base` is the row of input row lo (a multiple of
  // 8 rows from `chunk`: its float4 groups stay aligned).
  float* base = chunk + (lo - (first - 8)) * P;
  ch06::move_contiguous<THREADS, true>(in + static_cast<size_t>(lo) * cols, base, cols, hi - lo);
  __syncthreads();
  write_segments_cut<THREADS>(out, rows, base, cols, lo, first, span);
}

// Tall matrices only (cols < rows), cols below CHUNK / 32 as step 6's launch_thin_sized.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1>
void launch_thin_cut(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_cut: tall matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = std::max(32, CHUNK / (cols | 1) / 32 * 32);
  if (rows > INT_MAX - 2 * span)
    throw tutorial::UnsupportedShape("transpose_thin_cut: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const size_t smem = size_t(span + 8) * (cols | 1) * sizeof(float);
  tutorial::launch(transpose_thin_cut<THREADS, MIN_BLOCKS>,
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem, in, out, rows,
                   cols, span);
}

}  // namespace ch06lab
