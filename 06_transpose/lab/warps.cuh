// Chapter 06, lab: transpose_thin with a warp, not a block, per chunk. Each warp copies its
// own chunk of 32 * J elements along the long side through its own piece of shared memory and
// waits only for itself (__syncwarp), never for the block: no warp's stores wait for another
// warp's loads, and a warp issues its next chunk's loads while others store. GPU only: the CPU
// backend has no warp-level primitives (common/cpu_backend/README.md).
// Layout as transpose_thin's: element (i, c) of a chunk (i along the long side, c along the thin
// side) at chunk[i * P + c], P = thin | 1.
#pragma once

#include <algorithm>

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
