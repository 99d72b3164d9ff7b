// Chapter 06, lab: step 5's sector-aligned tile with its output pieces aligned to ALIGN floats
// (an experiment). ALIGN = 8: step 5 (32-byte sectors); ALIGN = 32: 128-byte lines, so that
// inside an output row no line is written by two blocks (a line holding the end of one row and
// the start of the next still is). The band stages ALIGN - 1 more input rows. Refuses (rather
// than loops over bands) a grid side past 65,535 blocks, and rows near INT_MAX.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "06_transpose/4_vec4.cuh"  // BlockOrder
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS, int ALIGN, ch06::BlockOrder ORDER>
__global__ void transpose_line_aligned(const float* __restrict__ in, float* __restrict__ out,
                                       int rows, int cols) {
  static_assert(TILE_ROWS % ALIGN == 0 && TILE_ROWS % TILE_COLS == 0 && TILE_COLS % 32 == 0,
                "segments of TILE_ROWS floats keep their offset in ALIGN from band to band");
  static_assert(TILE_COLS % BLOCK_ROWS == 0 && TILE_COLS * BLOCK_ROWS <= 1024,
                "each thread moves TILE_COLS / BLOCK_ROWS output rows; at most 1024 threads");
  constexpr int SHIFT = ALIGN - 1, ROWS = TILE_ROWS + SHIFT;
  __shared__ float tile[ROWS][TILE_COLS + 1];
  const bool byInput = ORDER == ch06::BlockOrder::InputRows;
  const int band = byInput ? blockIdx.y : blockIdx.x;
  const int colBlock = byInput ? blockIdx.x : blockIdx.y;
  const int firstRow = band * TILE_ROWS - SHIFT;
  const int col = colBlock * TILE_COLS + threadIdx.x;
  constexpr int LOADS = (ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int j = threadIdx.y + i * BLOCK_ROWS;
    const int row = firstRow + j;
    if (j < ROWS && row >= 0 && row < rows && col < cols)
      tile[j][threadIdx.x] = in[size_t(row) * cols + col];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TILE_COLS; j += BLOCK_ROWS) {
    const int outRow = colBlock * TILE_COLS + threadIdx.y + j;
    if (outRow >= cols) continue;
    float* dst = out + size_t(outRow) * rows;
    const int s = int((reinterpret_cast<uintptr_t>(dst) / sizeof(float) +
                       size_t(band) * TILE_ROWS) % ALIGN);
#pragma unroll
    for (int h = 0; h < TILE_ROWS; h += TILE_COLS) {
      const int outCol = band * TILE_ROWS - s + h + threadIdx.x;
      if (outCol >= 0 && outCol < rows) dst[outCol] = tile[SHIFT - s + h + threadIdx.x][threadIdx.y + j];
    }
  }
}

template <int TILE_ROWS = 128, int TILE_COLS = 32, int BLOCK_ROWS = 8, int ALIGN = 32,
          ch06::BlockOrder ORDER = ch06::BlockOrder::InputRows>
void launch_line_aligned(const float* in, float* out, int rows, int cols) {
  const int bands = int(((long long)rows + ALIGN - 1 + TILE_ROWS - 1) / TILE_ROWS);
  const int colBlocks = tutorial::ceil_div(cols, TILE_COLS);
  const bool byInput = ORDER == ch06::BlockOrder::InputRows;
  if ((byInput ? bands : colBlocks) > tutorial::kMaxGridY || rows > INT_MAX - 2 * TILE_ROWS)
    throw tutorial::UnsupportedShape("transpose_line_aligned: too many blocks for grid.y");
  const dim3 grid = byInput ? dim3(colBlocks, bands) : dim3(bands, colBlocks);
  tutorial::launch(transpose_line_aligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS, ALIGN, ORDER>, grid,
                   dim3(TILE_COLS, BLOCK_ROWS), 0, in, out, rows, cols);
}

}  // namespace ch06lab
