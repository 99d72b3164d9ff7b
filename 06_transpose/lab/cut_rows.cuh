// Chapter 06, lab: transpose_thin_cut with its segments stored a warp a row (an experiment).
//
// Nsight Compute found step 6's cut kernel issuing several times the copy's instructions at tall
// shapes (LOG.md#cut-rows). On its store side each float4 (odd cols) or float (even cols) of a
// segment recomputed its row, its sector shift in 64 bits, its bounds and, at an odd thin side,
// four turned chunk words (step 6 now stores an even side as below: write_cut_rows). Here a warp
// stores U pieces of 32 consecutive floats of one output row: the row, its shift (32-bit) and the
// chunk column are the warp's, and in a block whose windows lie inside [0, rows) (all but the first
// and the last) the pieces need no bounds but the span's. The chunk is not turned (a warp reads
// words P apart): at an odd thin side its input comes in as plain float4s; at an even one PAD
// chooses between P = cols + 1 (conflict-free reads, move_contiguous' padded float4 path) and P =
// cols (plain float4s in, gcd(cols, 32)-way conflicts out). transpose_thin_cut_swz: a thin side
// that is a multiple of 8 without the pad, its columns swizzled.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int THREADS, int MIN_BLOCKS, int U, bool PAD>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_cut_rows(const float* __restrict__ in, float* __restrict__ out, int rows,
                            int cols, int span) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span + 8][P] words, unturned
  const int P = PAD ? (cols | 1) : cols;
  const int first = blockIdx.x * span;
  const int lo = max(first - 8, 0), hi = min(first + span, rows);
  float* base = chunk + (lo - (first - 8)) * P;  // 16-byte aligned: 8 * P words is
  const float* src = in + size_t(lo) * cols;
  if (P != cols) {
    ch06::move_contiguous<THREADS, true>(src, base, cols, hi - lo);  // even cols: padded path
  } else {
    const int count = (hi - lo) * cols;
    int k0 = 0;
    if (reinterpret_cast<uintptr_t>(src) % 16 == 0) {
      float4* words = reinterpret_cast<float4*>(base);
#pragma unroll 4
      for (int k = threadIdx.x; k < count / 4; k += THREADS)
        words[k] = ch06::load4_line(src + 4 * k);
      k0 = count / 4 * 4;
    }
    for (int k = k0 + threadIdx.x; k < count; k += THREADS) base[k] = ch06::load1_line(src + k);
  }
  __syncthreads();
  // Output row c over [first - s_c, first - s_c + span): s_c = (address of out[c][0] / 4) % 8.
  const unsigned s0 = unsigned(reinterpret_cast<uintptr_t>(out) / sizeof(float) % 8);
  const unsigned r8 = unsigned(rows % 8);
  const bool edge = first < 8 || first + span > rows;  // a window clipped at 0 or rows
  constexpr int WARPS = THREADS / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int groups = tutorial::ceil_div(span, 32 * U);  // groups of U pieces in a window
  ch06::Walk v(warp, WARPS, groups);
  for (int g = warp; g < cols * groups; g += WARPS, v.next()) {
    const int c = v.q, j = v.r * 32 * U;  // the group's first offset in the window
    const int o0 = first - int((s0 + unsigned(c) * r8) % 8) + j;  // its output (input row)
    const float* from = base + (o0 - lo + lane) * P + c;
    float* row = out + size_t(c) * rows;  // indexed by o: no pointer before `out` formed
    float x[U];
    if (!edge && j + 32 * U <= span) {  // whole pieces, inside the matrix
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = from[32 * u * P];
#pragma unroll
      for (int u = 0; u < U; ++u) row[o0 + lane + 32 * u] = x[u];
    } else {
      auto inside = [&](int u) {
        const int o = o0 + lane + 32 * u;
        return j + lane + 32 * u < span && o >= 0 && o < rows;
      };
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = inside(u) ? from[32 * u * P] : 0.0f;
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (inside(u)) row[o0 + lane + 32 * u] = x[u];
    }
  }
}

// Tall matrices only (cols < rows), fewer than CHUNK / 32 columns; smem (span + 8) x P words.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1, int U = 4, bool PAD = true>
void launch_thin_cut_rows(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_cut_rows: tall matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span)
    throw tutorial::UnsupportedShape("transpose_thin_cut_rows: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const int P = PAD ? (cols | 1) : cols;
  const size_t smem = size_t(span + 8) * P * sizeof(float);
  tutorial::launch(transpose_thin_cut_rows<THREADS, MIN_BLOCKS, U, PAD>,
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem, in, out, rows,
                   cols, span);
}

// Thin sides that are multiples of 8 without the pad: chunk row ir keeps its words, but column c
// sits at c ^ f(ir), f(ir) = (ir / (32 / g)) % g, g = gcd(cols, 32). A warp reading one column
// (32 consecutive rows) then finds 32 banks: rows with the same cols·ir mod 32 (g of them among
// 32) differ in f. The XOR stays inside aligned groups of g >= 8 words, so each input float4
// lands on one aligned float4 of the chunk, its components permuted (turn4): one 16-byte shared
// store, where the pad needs four scattered ones. And f is the same for rows 32 apart: a warp's
// 4 pieces share it.
template <int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_cut_swz(const float* __restrict__ in, float* __restrict__ out, int rows,
                           int cols, int span) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span + 8][cols] words, swizzled
  constexpr int U = 4;
  const int g = min(cols & -cols, 32);          // gcd(cols, 32): 8, 16 or 32
  const int sh = g == 8 ? 2 : g == 16 ? 1 : 0;  // log2(32 / g)
  auto f = [&](int ir) { return (ir >> sh) & (g - 1); };
  const int first = blockIdx.x * span;
  const int lo = max(first - 8, 0), hi = min(first + span, rows);
  const int r0 = lo - (first - 8);  // chunk row of input row lo
  const float* src = in + size_t(lo) * cols;
  const int count = (hi - lo) * cols;
  int k0 = 0;
  if (reinterpret_cast<uintptr_t>(src) % 16 == 0) {
    ch06::Walk w(4 * threadIdx.x, 4 * THREADS, cols);  // (row, column) of float 4k
#pragma unroll 4
    for (int k = threadIdx.x; k < count / 4; k += THREADS, w.next()) {
      const int ir = r0 + w.q, t = f(ir);
      const float4 v = ch06::load4_line(src + 4 * k);
      *reinterpret_cast<float4*>(chunk + ir * cols + (w.r ^ (t & ~3))) = ch06::turn4(v, t & 3);
    }
    k0 = count / 4 * 4;
  }
  ch06::Walk w(k0 + threadIdx.x, THREADS, cols);
  for (int k = k0 + threadIdx.x; k < count; k += THREADS, w.next()) {
    const int ir = r0 + w.q;
    chunk[ir * cols + (w.r ^ f(ir))] = ch06::load1_line(src + k);
  }
  __syncthreads();
  const unsigned s0 = unsigned(reinterpret_cast<uintptr_t>(out) / sizeof(float) % 8);
  const unsigned r8 = unsigned(rows % 8);
  const bool edge = first < 8 || first + span > rows;
  constexpr int WARPS = THREADS / 32;
  const int lane = threadIdx.x % 32;
  const int groups = tutorial::ceil_div(span, 32 * U);
  ch06::Walk v(threadIdx.x / 32, WARPS, groups);
  for (int gi = threadIdx.x / 32; gi < cols * groups; gi += WARPS, v.next()) {
    const int c = v.q, j = v.r * 32 * U;
    const int o0 = first - int((s0 + unsigned(c) * r8) % 8) + j + lane;  // the lane's output
    const int ir0 = o0 - (first - 8);  // its chunk row (rows 32 apart share f)
    const float* from = chunk + ir0 * cols + (c ^ f(ir0));
    float* row = out + size_t(c) * rows;
    float x[U];
    if (!edge && j + 32 * U <= span) {
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = from[32 * u * cols];
#pragma unroll
      for (int u = 0; u < U; ++u) row[o0 + 32 * u] = x[u];
    } else {
      auto inside = [&](int u) {
        const int o = o0 + 32 * u;
        return j + lane + 32 * u < span && o >= 0 && o < rows;
      };
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = inside(u) ? from[32 * u * cols] : 0.0f;
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (inside(u)) row[o0 + 32 * u] = x[u];
    }
  }
}

// Tall matrices whose thin side is a multiple of 8 (and below CHUNK / 32); smem (span + 8) x cols.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1>
void launch_thin_cut_swz(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || cols % 8 != 0 || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_cut_swz: tall matrices of a multiple of 8 "
                                     "columns below " + std::to_string(CHUNK / 32) + ", got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span)
    throw tutorial::UnsupportedShape("transpose_thin_cut_swz: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const size_t smem = size_t(span + 8) * cols * sizeof(float);
  tutorial::launch(transpose_thin_cut_swz<THREADS, MIN_BLOCKS>,
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem, in, out, rows,
                   cols, span);
}

}  // namespace ch06lab
