// Exercise 06a: the padded shared-memory transpose (chapter 06).
//
// out = in^T, where `in` is rows x cols (row-major) and `out` is cols x rows. A block of
// TILE x BLOCK_ROWS threads moves one TILE x TILE patch; thread (threadIdx.x, threadIdx.y)
// handles rows threadIdx.y, threadIdx.y + BLOCK_ROWS, ... of the patch, so a warp always
// covers 32 consecutive columns of one row.
//
//   1. read the input patch row by row into a shared tile   (coalesced reads)
//   2. __syncthreads(): each thread will write elements other threads read
//   3. write the output patch row by row, taking the tile's COLUMNS   (coalesced writes)
//
// Reading a column of a `float tile[TILE][TILE]` sends the 32 lanes of a warp to one bank
// (rows are 32 words apart): a 32-way bank conflict. One extra column, tile[TILE][TILE + 1],
// shifts each row by one bank and removes it.
//
// Your task: the body of transpose_padded, correct for any rows, cols >= 1 (guard every
// global access). Then delete the exercise::todo() line. Test with `make check` here.
#pragma once

#include <cstddef>

#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex06a {

// TILE: side of the square patch a block moves; BLOCK_ROWS: rows of threads in the block.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int rows,
                                 int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  // TODO(06a): declare the padded shared tile, copy the input patch into it, wait,
  // then write its columns as rows of the output patch. Guard every global access.
}

template <int TILE, int BLOCK_ROWS>
void launch_transpose_padded(const float* in, float* out, int rows, int cols) {
  exercise::todo("06a_transpose: write transpose_padded, then delete this line");
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  const dim3 block(TILE, BLOCK_ROWS);
  tutorial::launch(transpose_padded<TILE, BLOCK_ROWS>, grid, block, 0, in, out, rows, cols);
}

}  // namespace ex06a
