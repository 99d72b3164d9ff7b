// Chapter 06, lab: step 6's transpose_thin compiled for one side only (an experiment).
//
// transpose_thin decides at run time whether its matrix is tall or wide and carries the code of
// both paths; the cut kernel (transpose_thin_cut, tall only) ran faster than it even where its
// cut moves nothing (lab/LOG.md#thin-cut). One candidate difference: a kernel with one path
// needs fewer registers and less integer work around the branch. transpose_thin_sided is
// transpose_thin with the side a template parameter, the body otherwise the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int THREADS, int MIN_BLOCKS, bool TALL>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_sided(const float* __restrict__ in, float* __restrict__ out, int rows,
                         int cols, int span_max) {
  extern __shared__ float4 chunk4[];
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span_max][thin | 1] words
  const int thin = TALL ? cols : rows;
  const int first = blockIdx.x * span_max;
  const int span = min(span_max, (TALL ? rows : cols) - first);
  if constexpr (TALL) {
    ch06::move_contiguous<THREADS, true>(in + size_t(first) * cols, chunk, thin, span);
    __syncthreads();
    ch06::move_segments<THREADS, false>(out + first, size_t(rows), chunk, thin, span);
  } else {
    ch06::move_segments<THREADS, true>(in + first, size_t(cols), chunk, thin, span);
    __syncthreads();
    ch06::move_contiguous<THREADS, false>(out + size_t(first) * rows, chunk, thin, span);
  }
}

// launch_thin_sized's launch, the kernel picked by the side.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1>
void launch_thin_sided(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (32 * (thin | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_sided: a thin side of " +
                                     std::to_string(thin) + " is too wide for its chunk");
  const int span_max = ch06::thin_span(CHUNK, thin);
  const size_t smem = size_t(span_max) * (thin | 1) * sizeof(float);
  if (cols < rows)
    tutorial::launch(transpose_thin_sided<THREADS, MIN_BLOCKS, true>,
                     dim3(tutorial::ceil_div(along, span_max)), dim3(THREADS), smem, in, out,
                     rows, cols, span_max);
  else
    tutorial::launch(transpose_thin_sided<THREADS, MIN_BLOCKS, false>,
                     dim3(tutorial::ceil_div(along, span_max)), dim3(THREADS), smem, in, out,
                     rows, cols, span_max);
}

}  // namespace ch06lab
