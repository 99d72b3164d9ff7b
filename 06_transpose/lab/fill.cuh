// Chapter 06, lab: step 6's chunk kernels with their chunks cut short on small matrices, so that
// the grid fills the GPU's resident blocks once (experiments).
//
// A chunk kernel's grid is along / span blocks. Where that is fewer than the blocks the GPU holds
// at once (SMs x resident blocks an SM), part of the GPU idles and each block's loads wait their
// round trip with few others in flight. Here the span shrinks (a multiple of 32, at least
// min(FLOOR, the chunk's own span), at most the chunk's own span) until the grid has at most a
// block for every resident slot (ch06::filled_span). Where the grid already fills a wave the grid
// is no larger than step 6's. The filled bulk kernel became step 6's (launch_thin_bulk's FILL);
// the cut here takes any floor, where step 6's takes cut_fill_floor.
#pragma once

#include <algorithm>
#include <climits>
#include <string>

#include "06_transpose/6_thin.cuh"
#include "common/ceil_div.hpp"
#include "common/device_facts.hpp"
#include "common/launch.cuh"

namespace ch06lab {

// The three kernels at a given span (a multiple of 32, at most the chunk's own).
template <int THREADS, int MIN_BLOCKS>
void thin_at(const float* in, float* out, int rows, int cols, int span) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  tutorial::launch(ch06::transpose_thin<THREADS, MIN_BLOCKS>, dim3(tutorial::ceil_div(along, span)),
                   dim3(THREADS), size_t(span) * (thin | 1) * sizeof(float), in, out, rows, cols,
                   span);
}
template <int THREADS, int MIN_BLOCKS>
void thin_bulk_at(const float* in, float* out, int rows, int cols, int span) {
  tutorial::launch(ch06::transpose_thin_bulk<THREADS, MIN_BLOCKS>,
                   dim3(tutorial::ceil_div(cols, span)), dim3(THREADS),
                   size_t(span) * rows * sizeof(float), in, out, rows, cols, span);
}
template <int THREADS, int MIN_BLOCKS>
void thin_cut_at(const float* in, float* out, int rows, int cols, int span) {
  tutorial::launch(ch06::thin_cut_kernel<THREADS, MIN_BLOCKS>(cols),
                   dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS),
                   size_t(span + 8) * ch06::cut_pitch(cols) * sizeof(float), in, out, rows, cols,
                   span);
}

template <int THREADS, int CHUNK, int MIN_BLOCKS, int FLOOR = 32>
void launch_thin_fill(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (32 * (thin | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin (fill): too thick");
  const int span_max = ch06::thin_span(CHUNK, thin);
  const long long slots = tutorial::resident_blocks(
      ch06::transpose_thin<THREADS, MIN_BLOCKS>, THREADS,
      size_t(span_max) * (thin | 1) * sizeof(float));
  thin_at<THREADS, MIN_BLOCKS>(in, out, rows, cols,
                               ch06::filled_span(along, slots, span_max, FLOOR));
}

template <int THREADS, int CHUNK, int MIN_BLOCKS, int FLOOR = 32>
void launch_thin_cut_fill(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_cut (fill): tall and thin only");
  const int span_max = ch06::thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span_max)
    throw tutorial::UnsupportedShape("transpose_thin_cut (fill): too many rows");
  const long long slots = tutorial::resident_blocks(
      ch06::thin_cut_kernel<THREADS, MIN_BLOCKS>(cols), THREADS,
      size_t(span_max + 8) * ch06::cut_pitch(cols) * sizeof(float));
  thin_cut_at<THREADS, MIN_BLOCKS>(in, out, rows, cols,
                                   ch06::filled_span(rows + 7, slots, span_max, FLOOR));
}

// Fixed spans, for the tests (every span a multiple of 32 must be right).
template <int SPAN>
void thin_span_test(const float* in, float* out, int rows, int cols) {
  thin_at<256, 8>(in, out, rows, cols, SPAN);
}
template <int SPAN>
void thin_bulk_span_test(const float* in, float* out, int rows, int cols) {
  thin_bulk_at<256, 8>(in, out, rows, cols, SPAN);
}
template <int SPAN>
void thin_cut_span_test(const float* in, float* out, int rows, int cols) {
  thin_cut_at<512, 4>(in, out, rows, cols, SPAN);
}

}  // namespace ch06lab
