// Chapter 06, step 1: transpose_naive, the copy that transposes.
//
// What it does: each thread copies in[row + j][col] straight to out[col][row + j]. The reads
// are coalesced (a warp reads one 128-byte line of a row).
// What it gets wrong: the writes. A warp's 32 lanes store into 32 different output rows, 4
// useful bytes in each 32-byte sector: eight times the bytes the store needs. Step 2 stages a
// tile in shared memory so that both sides move whole rows.
#pragma once

#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Every transpose of steps 1-3 moves a TILE×TILE patch per block with a block of TILE×BLOCK_ROWS
// threads; thread (threadIdx.x, threadIdx.y) handles rows threadIdx.y, threadIdx.y +
// BLOCK_ROWS, … of the patch, so a warp always covers 32 consecutive columns of one row.

// Naive: each thread copies in[row + j][col] straight to out[col][row + j].
// A warp's 32 lanes have 32 consecutive `col`s: the load is one 128-byte line, the store
// lands in 32 different output rows, 4 useful bytes in each 32-byte sector.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  // BEGIN QUOTE naive
  const int col = blockIdx.x * TILE + threadIdx.x;
  const int row = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols)
      out[size_t(col) * rows + (row + j)] = in[size_t(row + j) * cols + col];
  // END QUOTE naive
}

template <int TILE = 32, int BLOCK_ROWS = 8>
void launch_naive(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  tutorial::launch(transpose_naive<TILE, BLOCK_ROWS>, grid, dim3(TILE, BLOCK_ROWS), 0, in, out,
                   rows, cols);
}

}  // namespace ch06
