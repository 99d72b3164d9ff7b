// Chapter 06, lab: step 6's chunks for tall matrices, each output segment cut at sector
// boundaries (step 5's idea applied to step 6; an experiment).
//
// A tall matrix (rows >> cols = THIN) is written as THIN output rows of `rows` floats. Where
// rows is not a multiple of 8 (or `out` is off a sector), output row c starts off a 32-byte
// sector, and step 6's chunk of input rows [i0, i0 + span) writes each output row from i0 on:
// the first and the last sector of every segment are written in part, the rest by the
// neighbouring chunk (every_shape.md, part 2: partial writes cost). Here the block of chunk k
// writes output row c over [k·SPAN − s_c, (k + 1)·SPAN − s_c), s_c the floats by which
// out[c][0] lies past its sector, so every warp's store covers whole sectors; it stages the 7
// input rows before its chunk for that (7 / SPAN more reads; whether they hit in the L2 was not
// measured).
// Simple on purpose: one float per access on both sides (the loads step 5's load1_line), THIN a
// template parameter (the index arithmetic divides by constants), SPAN a multiple of 32.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06lab {

constexpr int kThinSectorThreads = 256;

template <int THIN, int SPAN>
__global__ void __launch_bounds__(kThinSectorThreads)
    transpose_thin_sector(const float* __restrict__ in, float* __restrict__ out, int rows) {
  static_assert(SPAN % 32 == 0, "a warp stores 32 floats of one output row");
  constexpr int P = THIN | 1, SHIFT = 7, ROWS = SPAN + SHIFT;
  extern __shared__ float chunk[];  // [ROWS][P]: element (input row r, column c) at r * P + c
  const long long first = static_cast<long long>(blockIdx.x) * SPAN - SHIFT;  // chunk row 0
  const long long lo = std::max(first, 0LL);
  const long long hi = std::min(first + ROWS, static_cast<long long>(rows));
  const int r0 = static_cast<int>(lo - first);
  // Input rows lo .. hi - 1 are one contiguous range of `in`.
  const float* src = in + static_cast<size_t>(lo) * THIN;
  const int count = static_cast<int>(hi - lo) * THIN;
  // Eight loads a thread in flight before their shared-memory stores (Little's law: one a
  // thread would leave each SM a few KB on their way).
  constexpr int BATCH = 8;
  for (int e0 = threadIdx.x; e0 < count; e0 += BATCH * kThinSectorThreads) {
    float v[BATCH];
#pragma unroll
    for (int j = 0; j < BATCH; ++j) {
      const int e = e0 + j * kThinSectorThreads;
      v[j] = e < count ? ch06::load1_line(src + e) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < BATCH; ++j) {
      const int e = e0 + j * kThinSectorThreads;
      const int r = e / THIN, c = e - r * THIN;
      if (e < count) chunk[(r0 + r) * P + c] = v[j];
    }
  }
  __syncthreads();
  const uintptr_t base = reinterpret_cast<uintptr_t>(out) / sizeof(float);
  for (int idx = threadIdx.x; idx < THIN * SPAN; idx += kThinSectorThreads) {
    const int c = idx / SPAN, t = idx % SPAN;  // a warp: one c, 32 consecutive t
    const int s = static_cast<int>((base + static_cast<size_t>(c) * rows) % 8);
    const long long o = static_cast<long long>(blockIdx.x) * SPAN - s + t;  // an input row
    if (o >= 0 && o < rows) out[static_cast<size_t>(c) * rows + o] = chunk[(t + SHIFT - s) * P + c];
  }
}

// Tall matrices of exactly THIN columns; refuses every other shape.
template <int THIN, int SPAN>
void launch_thin_sector(const float* in, float* out, int rows, int cols) {
  if (cols != THIN || rows <= cols)
    throw tutorial::UnsupportedShape("transpose_thin_sector<" + std::to_string(THIN) +
                                     ">: tall matrices of " + std::to_string(THIN) +
                                     " columns only, not " + std::to_string(rows) + "x" +
                                     std::to_string(cols));
  const long long blocks = (static_cast<long long>(rows) + 7 + SPAN - 1) / SPAN;
  const size_t smem = size_t(SPAN + 7) * (THIN | 1) * sizeof(float);
  tutorial::launch(transpose_thin_sector<THIN, SPAN>, dim3(static_cast<unsigned>(blocks)),
                   dim3(kThinSectorThreads), smem, in, out, rows);
}

}  // namespace ch06lab
