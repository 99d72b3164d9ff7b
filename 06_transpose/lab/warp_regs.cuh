// Chapter 06, lab: thin matrices of 17 to 64 rows or columns with every load in flight at once.
//   - regsN: step 6's transpose_thin_regs at THIN = 32 or 64 (one row or column a thread, its
//     scattered side one float a lane).
//   - wregsN_W: the same loads (one row or column a lane, all THIN issued before the first
//     store), then the warp turns its 32 x thin piece around in shared memory of its own
//     (__syncwarp, no block barrier), so that the scattered side is written (wide) or read
//     (tall) as 32 consecutive floats a warp. Layout: element (i, c) of the piece, i < 32 along
//     the long side, c < thin, at piece[i * P + c], P = thin | 1.
#pragma once

#include <algorithm>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int THIN>
void launch_thin_regs_wide(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (thin > THIN) throw tutorial::UnsupportedShape("regs: too many rows or columns");
  tutorial::launch(ch06::transpose_thin_regs<THIN, 1>,
                   dim3(tutorial::ceil_div(along, ch06::kThinRegsThreads)),
                   dim3(ch06::kThinRegsThreads), 0, in, out, rows, cols);
}

template <int THIN, int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
    transpose_thin_warp_regs(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols) {
  extern __shared__ float pieces[];
  const bool tall = cols < rows;
  const int thin = tall ? cols : rows, along = tall ? rows : cols, P = thin | 1;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long first = (static_cast<long long>(blockIdx.x) * WARPS + warp) * 32;
  if (first >= along) return;
  const int span = along - first < 32 ? int(along - first) : 32;
  float* piece = pieces + warp * 32 * P;
  float v[THIN];
  if (!tall) {  // wide: lane i reads column first + i of every row (32 floats a row a warp)
    if (lane < span) {
#pragma unroll
      for (int c = 0; c < THIN; ++c)
        if (c < thin) v[c] = in[size_t(c) * cols + first + lane];
#pragma unroll
      for (int c = 0; c < THIN; ++c)
        if (c < thin) piece[lane * P + c] = v[c];
    }
    __syncwarp();
    // Output rows first .. first + span: span * thin consecutive floats.
    float* dst = out + first * thin;
    ch06::Walk w(lane, 32, thin);
    for (int k = lane; k < span * thin; k += 32, w.next()) dst[k] = piece[w.q * P + w.r];
  } else {  // tall: input rows first .. first + span, span * thin consecutive floats
    const float* src = in + first * thin;
#pragma unroll
    for (int j = 0; j < THIN; ++j) {
      const int k = lane + 32 * j;
      if (j < thin && k < span * thin) v[j] = src[k];
    }
    ch06::Walk w(lane, 32, thin);
#pragma unroll
    for (int j = 0; j < THIN; ++j, w.next()) {
      const int k = lane + 32 * j;
      if (j < thin && k < span * thin) piece[w.q * P + w.r] = v[j];
    }
    __syncwarp();
    if (lane < span)
      for (int c = 0; c < thin; ++c) out[size_t(c) * rows + first + lane] = piece[lane * P + c];
  }
}

template <int THIN, int WARPS>
void launch_thin_warp_regs(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (thin > THIN) throw tutorial::UnsupportedShape("wregs: too many rows or columns");
  const size_t smem = size_t(WARPS) * 32 * (thin | 1) * sizeof(float);
  tutorial::launch(transpose_thin_warp_regs<THIN, WARPS>,
                   dim3(tutorial::ceil_div(along, 32 * WARPS)), dim3(WARPS * 32), smem, in, out,
                   rows, cols);
}

}  // namespace ch06lab
