// Exercise 06b: shared-memory bank conflicts, with and without padding (chapter 06).
// Host only: no GPU needed.
//
// Shared memory is split into 32 banks of 4-byte words: word w lives in bank w % 32, and each
// bank serves one word per clock. When the threads of a warp need k DIFFERENT words of the
// same bank, that bank serves them one after the other: a k-way conflict (degree k; 1 means
// conflict-free). Threads that read the SAME word share one broadcast and cost nothing extra.
//
// `float tile[R][W]` stores element (r, c) in word r * W + c. A warp reading a row is
// conflict-free; a warp reading a column, lane t at (t, c), needs words t * W + c.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex06b {

constexpr int kBanks = 32;

// The bank of a 4-byte word.
inline int bank_of(int word) {
  return exercise::todo<int>("06b_bank_conflicts: bank_of", word);
}

// Degree of a warp access in which lane t (0..31) reads word t * stride (stride >= 0;
// stride 0: every lane reads word 0).
inline int strided_degree(int stride) {
  return exercise::todo<int>("06b_bank_conflicts: strided_degree", stride);
}

// Degree of 32 lanes reading one column of `float tile[32][row_words]`.
inline int column_read_degree(int row_words) {
  return exercise::todo<int>("06b_bank_conflicts: column_read_degree", row_words);
}

// A block of block_dim x block_dim threads (block_dim = 8, 16 or 32) reads the transposed
// element tile[threadIdx.x][threadIdx.y] of `float tile[block_dim][row_words]`. Degree of the
// block's first warp: threads 0..31, threadIdx.x = t % block_dim, threadIdx.y = t / block_dim.
inline int transposed_read_degree(int block_dim, int row_words) {
  return exercise::todo<int>("06b_bank_conflicts: transposed_read_degree", block_dim, row_words);
}

// The smallest row length >= block_dim that makes transposed_read_degree 1: the padding.
inline int padded_row_words(int block_dim) {
  return exercise::todo<int>("06b_bank_conflicts: padded_row_words", block_dim);
}

}  // namespace ex06b
