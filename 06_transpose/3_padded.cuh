// Chapter 06, step 3: transpose_padded, the +1.
//
// What changed since step 2: one token, tile[TILE][TILE + 1]: each row of the tile shifts by
// one bank, so the 32 lanes reading a column hit 32 different banks. With TILE = 64 (64 x 4
// threads) each thread keeps 16 loads in flight instead of 4.
// What it still gets wrong: one float per access, four times the instructions of float4 for
// the same sectors; and where the output's rows do not start on a 32-byte sector (rows not a
// multiple of 8), a 64-float piece of an output row touches 9 sectors. Steps 4 and 5.
#pragma once

#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Every transpose of steps 1-3 moves a TILE×TILE patch per block with a block of TILE×BLOCK_ROWS
// threads; thread (threadIdx.x, threadIdx.y) handles rows threadIdx.y, threadIdx.y +
// BLOCK_ROWS, … of the patch, so a warp always covers 32 consecutive columns of one row.

// Padded: identical to transpose_tiled but for the + 1. Word (r, c) of the tile now
// lives in bank (r·(TILE + 1) + c) % 32 = (r + c) % 32, so the 32 lanes reading column c
// (r = lane) hit 32 different banks.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int rows,
                                 int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  __shared__ float tile[TILE][TILE + 1];
  int col = blockIdx.x * TILE + threadIdx.x;
  int row = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols)
      tile[threadIdx.y + j][threadIdx.x] = in[size_t(row + j) * cols + col];  // (TILE, TILE + 1)
  // Every thread reads elements that other threads wrote.
  __syncthreads();
  // The block now walks the OUTPUT tile: its rows are input columns, its columns input rows.
  col = blockIdx.y * TILE + threadIdx.x;
  row = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < cols && col < rows)
      out[size_t(row + j) * rows + col] = tile[threadIdx.x][threadIdx.y + j];  // (TILE, TILE + 1)
}

template <int TILE = 32, int BLOCK_ROWS = 8>
void launch_padded(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  tutorial::launch(transpose_padded<TILE, BLOCK_ROWS>, grid, dim3(TILE, BLOCK_ROWS), 0, in, out,
                   rows, cols);
}

}  // namespace ch06
