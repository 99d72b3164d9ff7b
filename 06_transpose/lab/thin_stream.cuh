// Chapter 06, lab: transpose_thin with a block that streams G chunks of the long side through two
// buffers, the next chunk's loads (cp.async) in flight while it stores the current one
// (LOG.md, "A block walking a long run of chunks"). Runs on the CPU backend too (its
// <cuda_pipeline.h>), unlike warps.cuh's warp-synchronous kernel.
#pragma once

#include <algorithm>

#include <cuda_pipeline.h>

#include "06_transpose/6_thin.cuh"
#include "common/launch.cuh"

namespace ch06lab {

// transpose_thin with a block that walks G chunks in a row of the long side (a long run of each
// segment), its next chunk's loads in flight (cp.async, no registers held) while it stores the
// current one from the other of two buffers. Its chunks are step 6's (turned at an odd thin side,
// ch06::chunk_word), since step 6's move_segments / move_contiguous store them.
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
          __pipeline_memcpy_async(&chunk[ch06::chunk_word(w.q * P + w.r, P == thin)], src + k, 4);
      } else {
        ch06::Walk v(threadIdx.x, THREADS, span);
        for (int k = threadIdx.x; k < thin * span; k += THREADS, v.next())
          __pipeline_memcpy_async(&chunk[ch06::chunk_word(v.r * P + v.q, P == thin)],
                                  in + size_t(v.q) * cols + first + v.r, 4);
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
