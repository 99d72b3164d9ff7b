// Chapter 06, lab: step 6's chunk kernels with the copy engine on more sides (experiments);
// step 6's transpose_thin_bulk (the wide chunk's output by the engine) came out of them.
//
// (The wide chunk's output by the engine is step 6's transpose_thin_bulk.)
// One side of every chunk is one contiguous range of global memory: a tall chunk's input rows,
// a wide chunk's output rows. From sm_90 on, one thread can hand such a range to the bulk copy
// engine (PTX `cp.async.bulk`): no instruction per element; the block's other threads wait on an
// mbarrier (a load) or go on (a store). Here:
//   - transpose_thin_bulk_tall: a tall chunk's input rows in by the engine, then the cut's
//     segments (transpose_thin_cut) stored by warps a row at a time, U pieces of 32 floats;
//   - transpose_thin_bulk_segs: the same input, turned in shared memory into one sector-aligned
//     range per output row, each range out by the engine;
//   - transpose_thin_bulk_out: the input rows by the threads, stored straight into those ranges
//     (one buffer), each range out by the engine;
// The engine copies words as they lie, so the chunk is the range itself: element (i, c) at word
// i * thin + c, no pad, no turn (gcd(thin, 32)-way bank conflicts at an even thin side).
// Ranges not in whole 16 bytes, or not aligned, are moved by the threads in part or in whole;
// before sm_90 (and on the CPU backend) by the threads alone.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CH06_BULK_COPY 1
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// Global -> shared, `bytes` (whole 16 bytes, both ends aligned) counted on mbarrier `bar`.
__device__ __forceinline__ void bulk_load(float* dst, const float* src, unsigned bytes,
                                          uint64_t* bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(shared_address(bar)), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
      :: "r"(shared_address(dst)), "l"(src), "r"(bytes), "r"(shared_address(bar)) : "memory");
}
__device__ __forceinline__ void bulk_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n wait:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait;\n}"
      :: "r"(shared_address(bar)), "r"(parity) : "memory");
}
#endif

// Tall (cols < rows): input rows [lo, hi) into the chunk by the engine, then output row c over
// [first - s_c, first - s_c + span) as transpose_thin_cut, a warp a row, U pieces of 32 floats.
template <int THREADS, int MIN_BLOCKS, int U>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_bulk_tall(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols, int span) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span + 8][cols] words
  const int first = blockIdx.x * span;
  const int lo = max(first - 8, 0), hi = min(first + span, rows);
  float* base = chunk + (lo - (first - 8)) * cols;  // chunk row of input row lo
  const float* src = in + size_t(lo) * cols;
  const int count = (hi - lo) * cols;
  int k0 = 0;  // where the threads' share starts
#ifdef CH06_BULK_COPY
  __shared__ uint64_t bar;
  const int whole = reinterpret_cast<uintptr_t>(src) % 16 == 0 ? count / 4 * 4 : 0;
  if (whole > 0) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(shared_address(&bar)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      bulk_load(base, src, unsigned(whole) * 4u, &bar);
    }
    k0 = whole;
  }
#endif
  for (int k = k0 + threadIdx.x; k < count; k += THREADS) base[k] = ch06::load1_line(src + k);
  __syncthreads();
#ifdef CH06_BULK_COPY
  if (whole > 0) bulk_wait(&bar, 0);
#endif
  const uintptr_t start = reinterpret_cast<uintptr_t>(out) / sizeof(float);
  constexpr int WARPS = THREADS / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int groups = tutorial::ceil_div(span, 32 * U);
  ch06::Walk v(warp, WARPS, groups);
  for (int g = warp; g < cols * groups; g += WARPS, v.next()) {
    const int c = v.q, j0 = v.r * 32 * U + lane;  // offset j0 in output row c's window
    const int o0 = first - int((start + size_t(c) * rows) % 8) + j0;  // its output o
    auto inside = [&](int u) {
      const int o = o0 + 32 * u;
      return j0 + 32 * u < span && o >= 0 && o < rows;
    };
    float x[U] = {};
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (inside(u)) x[u] = base[(o0 + 32 * u - lo) * cols + c];
    float* row = out + size_t(c) * rows;
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (inside(u)) row[o0 + 32 * u] = x[u];
  }
}

// Tall, both sides by the engine: the input rows in as transpose_thin_bulk_tall, then warps
// turn them into a second buffer, output row c's window [first - s_c, first - s_c + span) as
// TP = span + 4 consecutive words (16-byte aligned: span is a multiple of 32), and one thread a
// row hands each window to the engine: a sector-aligned range of whole sectors. Blocks whose
// windows reach past row 0 or `rows` (the first and the last) store through the threads.
template <int THREADS, int MIN_BLOCKS, int U>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_bulk_segs(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols, int span) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span + 8][cols] words, then [cols][TP]
  const int TP = span + 4;
  float* turned = chunk + (span + 8) * cols;  // (span + 8) * cols is a multiple of 4
  const int first = blockIdx.x * span;
  const int lo = max(first - 8, 0), hi = min(first + span, rows);
  float* base = chunk + (lo - (first - 8)) * cols;
  const float* src = in + size_t(lo) * cols;
  const int count = (hi - lo) * cols;
  int k0 = 0;
#ifdef CH06_BULK_COPY
  __shared__ uint64_t bar;
  const int whole = reinterpret_cast<uintptr_t>(src) % 16 == 0 ? count / 4 * 4 : 0;
  if (whole > 0) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(shared_address(&bar)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      bulk_load(base, src, unsigned(whole) * 4u, &bar);
    }
    k0 = whole;
  }
#endif
  for (int k = k0 + threadIdx.x; k < count; k += THREADS) base[k] = ch06::load1_line(src + k);
  __syncthreads();
#ifdef CH06_BULK_COPY
  if (whole > 0) bulk_wait(&bar, 0);
#endif
  const uintptr_t start = reinterpret_cast<uintptr_t>(out) / sizeof(float);
  auto shift = [&](int c) { return int((start + size_t(c) * rows) % 8); };  // s_c
  constexpr int WARPS = THREADS / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int groups = tutorial::ceil_div(span, 32 * U);
  ch06::Walk v(warp, WARPS, groups);
  for (int g = warp; g < cols * groups; g += WARPS, v.next()) {
    const int c = v.q, j0 = v.r * 32 * U + lane;
    const int o0 = first - shift(c) + j0;
    auto inside = [&](int u) {
      const int o = o0 + 32 * u;
      return j0 + 32 * u < span && o >= 0 && o < rows;
    };
    float x[U] = {};
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (inside(u)) x[u] = base[(o0 + 32 * u - lo) * cols + c];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (inside(u)) turned[c * TP + j0 + 32 * u] = x[u];
  }
  const bool edge = first < 8 || first + span > rows;  // a window clipped at 0 or rows
#ifdef CH06_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (!edge) {
    for (int c = threadIdx.x; c < cols; c += THREADS)
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   :: "l"(out + size_t(c) * rows + (first - shift(c))),
                      "r"(shared_address(turned + c * TP)), "r"(unsigned(span) * 4u)
                   : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    return;
  }
#else
  __syncthreads();
#endif
  (void)edge;
  ch06::Walk w(threadIdx.x, THREADS, span);
  for (int k = threadIdx.x; k < cols * span; k += THREADS, w.next()) {
    const int c = w.q, o = first - shift(c) + w.r;
    if (o >= 0 && o < rows) out[size_t(c) * rows + o] = turned[c * TP + w.r];
  }
}

// Tall, one buffer: the input rows by the threads (float4 where `in` allows), each float stored
// straight into its output row's window: element (o, c) to word c * TP + o - (first - s_c), TP =
// span + 4 (a multiple of 4: every window 16-byte aligned), dropped outside the window; then one
// thread a row hands each window to the engine, as transpose_thin_bulk_segs does, without its
// second buffer (as many blocks an SM as transpose_thin_cut) and without the engine's loads
// (LOG.md#thin-bulk). The scattered shared stores are the price: 4 a float4.
template <int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_bulk_out(const float* __restrict__ in, float* __restrict__ out, int rows,
                            int cols, int span) {
  extern __shared__ float4 chunk4[];
  float* win = reinterpret_cast<float*>(chunk4);  // [cols][TP] words
  const int TP = span + 4;
  const int first = blockIdx.x * span;
  const int lo = max(first - 8, 0), hi = min(first + span, rows);  // the input rows staged
  const float* src = in + size_t(lo) * cols;
  const int count = (hi - lo) * cols;
  const unsigned s0 = unsigned(reinterpret_cast<uintptr_t>(out) / sizeof(float) % 8);
  const unsigned r8 = unsigned(rows % 8);
  auto shift = [&](int c) { return int((s0 + unsigned(c) * r8) % 8); };  // s_c
  // Element (o, c) of value x into output row c's window, if it falls there.
  auto put = [&](int o, int c, float x) {
    const unsigned j = unsigned(o - first + shift(c));
    if (j < unsigned(span)) win[c * TP + j] = x;
  };
  int k0 = 0;
  if (reinterpret_cast<uintptr_t>(src) % 16 == 0) {
    ch06::Walk w(4 * threadIdx.x, 4 * THREADS, cols);
#pragma unroll 4
    for (int k = threadIdx.x; k < count / 4; k += THREADS, w.next()) {
      const float4 v = ch06::load4_line(src + 4 * k);
      const float x[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        int o = lo + w.q, c = w.r + u;
        while (c >= cols) c -= cols, ++o;  // once at most from 4 columns on
        put(o, c, x[u]);
      }
    }
    k0 = count / 4 * 4;
  }
  ch06::Walk w(k0 + threadIdx.x, THREADS, cols);
  for (int k = k0 + threadIdx.x; k < count; k += THREADS, w.next())
    put(lo + w.q, w.r, ch06::load1_line(src + k));
  const bool edge = first < 8 || first + span > rows;  // a window clipped at 0 or rows
#ifdef CH06_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (!edge) {
    // Window c starts on a sector: (out + c * rows + first - s_c) is, since first % 8 == 0.
    for (int c = threadIdx.x; c < cols; c += THREADS)
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   :: "l"(out + size_t(c) * rows + (first - shift(c))),
                      "r"(shared_address(win + c * TP)), "r"(unsigned(span) * 4u)
                   : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    return;
  }
#else
  __syncthreads();
#endif
  (void)edge;
  ch06::Walk v(threadIdx.x, THREADS, span);
  for (int k = threadIdx.x; k < cols * span; k += THREADS, v.next()) {
    const int c = v.q, o = first - shift(c) + v.r;
    if (o >= 0 && o < rows) out[size_t(c) * rows + o] = win[c * TP + v.r];
  }
}

// Tall matrices only (cols < rows), fewer than CHUNK / 32 columns; smem (span + 8) x cols.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1, int U = 4>
void launch_thin_bulk_tall(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_tall: tall matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_tall: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const size_t smem = size_t(span + 8) * cols * sizeof(float);
  tutorial::launch(transpose_thin_bulk_tall<THREADS, MIN_BLOCKS, U>,
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem, in, out, rows,
                   cols, span);
}

// Tall matrices only (cols < rows), fewer than CHUNK / 32 columns; smem (span + 8) x cols
// and cols x (span + 4).
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1, int U = 4>
void launch_thin_bulk_segs(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_segs: tall matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_segs: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const size_t smem = (size_t(span + 8) * cols + size_t(cols) * (span + 4)) * sizeof(float);
  tutorial::launch(transpose_thin_bulk_segs<THREADS, MIN_BLOCKS, U>,
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem, in, out, rows,
                   cols, span);
}

// Tall matrices only (cols < rows), fewer than CHUNK / 32 columns; smem cols x (span + 4).
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1>
void launch_thin_bulk_out(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_out: tall matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span)
    throw tutorial::UnsupportedShape("transpose_thin_bulk_out: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const size_t smem = size_t(cols) * (span + 4) * sizeof(float);
  tutorial::launch(transpose_thin_bulk_out<THREADS, MIN_BLOCKS>,
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem, in, out, rows,
                   cols, span);
}

// Step 6's transpose_thin_bulk with U fixed, whatever the span (step 6's launcher fits U to the
// span: thin_bulk_kernel): the U = 3 against U = 4 comparison at a span of 96 (LOG.md#bulk-fit).
template <int THREADS, int CHUNK, int MIN_BLOCKS, int U>
void launch_thin_bulk_fixed(const float* in, float* out, int rows, int cols) {
  if (rows >= cols || 32 * (rows | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_bulk (U fixed): wide matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " rows, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span = ch06::thin_span(CHUNK, rows);
  tutorial::launch(ch06::transpose_thin_bulk<THREADS, MIN_BLOCKS, U>,
                   dim3(tutorial::ceil_div(cols, span)), dim3(THREADS),
                   size_t(span) * rows * sizeof(float), in, out, rows, cols, span);
}

}  // namespace ch06lab
