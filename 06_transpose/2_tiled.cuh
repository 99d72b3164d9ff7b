// Chapter 06, step 2: transpose_tiled, the tile trick.
//
// What changed since step 1: the block reads a tile of the input row by row into shared
// memory and writes it out row by row; the transpose happens in shared memory, where a strided
// access costs bank conflicts instead of DRAM sectors. Both global sides are coalesced.
// What it still gets wrong: reading a COLUMN of the tile (tile[threadIdx.x][...]) hits one bank
// 32 times, since its rows are 32 words apart. Step 3 pads each row by one word.
#pragma once

#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Every transpose of steps 1-3 moves a TILE×TILE patch per block with a block of TILE×BLOCK_ROWS
// threads; thread (threadIdx.x, threadIdx.y) handles rows threadIdx.y, threadIdx.y +
// BLOCK_ROWS, … of the patch, so a warp always covers 32 consecutive columns of one row.

// Tiled: read a tile row by row, write it row by row; the transpose happens in shared
// memory, where a strided access costs bank conflicts instead of DRAM sectors.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  // BEGIN QUOTE tiled
  __shared__ float tile[TILE][TILE];
  int col = blockIdx.x * TILE + threadIdx.x;
  int row = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols)
      tile[threadIdx.y + j][threadIdx.x] = in[size_t(row + j) * cols + col];  // (TILE, TILE)
  // Every thread reads elements that other threads wrote.
  __syncthreads();
  // The block now walks the OUTPUT tile: its rows are input columns, its columns input rows.
  col = blockIdx.y * TILE + threadIdx.x;
  row = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < cols && col < rows)
      out[size_t(row + j) * rows + col] = tile[threadIdx.x][threadIdx.y + j];  // (TILE, TILE)
  // END QUOTE tiled
}

template <int TILE = 32, int BLOCK_ROWS = 8>
void launch_tiled(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  tutorial::launch(transpose_tiled<TILE, BLOCK_ROWS>, grid, dim3(TILE, BLOCK_ROWS), 0, in, out,
                   rows, cols);
}

}  // namespace ch06
