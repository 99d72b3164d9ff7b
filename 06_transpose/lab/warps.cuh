// Chapter 06, lab: two variants of transpose_thin. First, a warp, not a block, per chunk. Each warp copies its
// own chunk of 32 * J elements along the long side through its own piece of shared memory and
// waits only for itself (__syncwarp), never for the block: no warp's stores wait for another
// warp's loads, and a warp issues its next chunk's loads while others store.
// Layout as transpose_thin's: element (i, c) of a chunk (i along the long side, c along the thin
// side) at chunk[i * P + c], P = thin | 1.
#pragma once

#include <algorithm>

#include <cuda_pipeline.h>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int WARPS, int J, int UNROLL>
__global__ void __launch_bounds__(WARPS * 32)
    transpose_thin_warps(const float* __restrict__ in, float* __restrict__ out, int rows,
                         int cols) {
  extern __shared__ float pieces[];
  const bool tall = cols < rows;
  const int thin = tall ? cols : rows, along = tall ? rows : cols, P = thin | 1;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long first = (static_cast<long long>(blockIdx.x) * WARPS + warp) * 32 * J;
  if (first >= along) return;
  const int span = along - first < 32 * J ? int(along - first) : 32 * J;
  float* chunk = pieces + warp * 32 * J * P;
  if (tall) {  // input rows first .. first + span: one contiguous range; out: thin segments
    const float* src = in + first * thin;
    ch06::Walk w(lane, 32, thin);
#pragma unroll UNROLL
    for (int k = lane; k < span * thin; k += 32, w.next()) chunk[w.q * P + w.r] = src[k];
    __syncwarp();
#pragma unroll UNROLL
    for (int c = 0; c < thin; ++c)
      for (int i = lane; i < span; i += 32) out[size_t(c) * rows + first + i] = chunk[i * P + c];
  } else {  // wide: thin segments of input rows; out: one contiguous range
#pragma unroll UNROLL
    for (int c = 0; c < thin; ++c)
      for (int i = lane; i < span; i += 32) chunk[i * P + c] = in[size_t(c) * cols + first + i];
    __syncwarp();
    float* dst = out + first * thin;
    ch06::Walk w(lane, 32, thin);
#pragma unroll UNROLL
    for (int k = lane; k < span * thin; k += 32, w.next()) dst[k] = chunk[w.q * P + w.r];
  }
}

template <int WARPS, int J, int UNROLL>
void launch_thin_warps(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (thin > 255)
    throw tutorial::UnsupportedShape("transpose_thin_warps: at most 255 rows or columns");
  const size_t smem = size_t(WARPS) * 32 * J * (thin | 1) * sizeof(float);
  const long long chunks = (along + 32LL * J - 1) / (32LL * J);
  tutorial::launch(transpose_thin_warps<WARPS, J, UNROLL>, dim3(unsigned((chunks + WARPS - 1) / WARPS)),
                   dim3(WARPS * 32), smem, in, out, rows, cols);
}

}  // namespace ch06lab

namespace ch06lab {

// transpose_thin with a block that walks G chunks in a row of the long side (a long run of each
// segment), its next chunk's loads in flight (cp.async, no registers held) while it stores the
// current one from the other of two buffers.
template <int THREADS, int G>
__global__ void __launch_bounds__(THREADS)
    transpose_thin_stream(const float* __restrict__ in, float* __restrict__ out, int rows,
                          int cols, int span_max) {
  extern __shared__ float buffers[];  // 2 x [span_max][thin | 1]
  const bool tall = cols < rows;
  const int thin = tall ? cols : rows, along = tall ? rows : cols, P = thin | 1;
  const long long chunks = (along + span_max - 1) / span_max;
  const long long begin = static_cast<long long>(blockIdx.x) * G;
  const long long end = begin + G < chunks ? begin + G : chunks;
  auto issue = [&](long long c, float* chunk) {  // chunk c's loads, asynchronous
    if (c < end) {
      const long long first = c * span_max;
      const int span = along - first < span_max ? int(along - first) : span_max;
      if (tall) {
        const float* src = in + first * thin;
        ch06::Walk w(threadIdx.x, THREADS, thin);
        for (int k = threadIdx.x; k < span * thin; k += THREADS, w.next())
          __pipeline_memcpy_async(&chunk[w.q * P + w.r], src + k, 4);
      } else {
        ch06::Walk v(threadIdx.x, THREADS, span);
        for (int k = threadIdx.x; k < thin * span; k += THREADS, v.next())
          __pipeline_memcpy_async(&chunk[v.r * P + v.q], in + size_t(v.q) * cols + first + v.r, 4);
      }
    }
    __pipeline_commit();  // (an empty batch past the last chunk keeps the count)
  };
  issue(begin, buffers);
  for (long long c = begin; c < end; ++c) {
    float* chunk = buffers + (c - begin) % 2 * span_max * P;
    issue(c + 1, buffers + (c - begin + 1) % 2 * span_max * P);
    __pipeline_wait_prior(1);  // chunk c has arrived (this thread's part)
    __syncthreads();           // (every thread's part)
    const long long first = c * span_max;
    const int span = along - first < span_max ? int(along - first) : span_max;
    if (tall)
      ch06::move_segments<THREADS, false>(out + first, size_t(rows), chunk, thin, span);
    else
      ch06::move_contiguous<THREADS, false>(out + first * thin, chunk, thin, span);
    __syncthreads();  // the buffer is free before chunk c + 2 is loaded into it
  }
  __pipeline_wait_prior(0);
}

template <int THREADS, int CHUNK, int G>
void launch_thin_stream(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (32 * (thin | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_stream: too many rows or columns");
  const int span_max = ch06::thin_span(CHUNK, thin);
  const size_t smem = 2 * size_t(span_max) * (thin | 1) * sizeof(float);
  const long long chunks = (along + span_max - 1) / span_max;
  tutorial::launch(transpose_thin_stream<THREADS, G>, dim3(unsigned((chunks + G - 1) / G)),
                   dim3(THREADS), smem, in, out, rows, cols, span_max);
}

}  // namespace ch06lab
