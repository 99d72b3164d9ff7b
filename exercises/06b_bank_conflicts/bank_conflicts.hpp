// Exercise 06b: banks for 8- and 16-byte accesses; where padding fails, the XOR swizzle
// (chapter 06, parts 2 and 3). Host only: no GPU needed.
//
// Chapter 02's bank model (exercise 02b) for wider accesses. A lane that moves 8 bytes (a
// float2) touches two banks and a warp asks for 256 bytes: the hardware serves a HALF warp (16
// lanes) per pass; 16 bytes (a float4: a "chunk", banks 4(c % 8) .. 4(c % 8) + 3 for the chunk
// at words 4c .. 4c + 3), a QUARTER warp (8 lanes) per pass, and two quarters of a half warp
// share one when together they ask for at most four distinct chunks and meet in no bank
// (exercise 04c). A pass serves a bank once: a phase takes as many passes as its busiest bank
// has different words. The fewest for a full warp: 1, 2 and 4 wavefronts.
//
// The column store of a transpose: lane t writes `bytes` at row t * rows_apart, column 0, of a
// tile whose rows are `pitch` words long (chapter 06's transpose_vec4 stores float4 into rows 4
// apart). Padding (pitch 33 for floats) spreads the rows over the banks; for 16-byte stores
// the pitch must stay a multiple of 4 words, and then no pad spreads rows an even number apart
// over the 8 bank groups. An XOR swizzle does: keep the tile unpadded, rows of `chunks`
// float4 positions (chunks a multiple of 8), and store chunk c of row r at position
// c ^ ((r / rows_apart) % 8): 8 rows rows_apart apart get 8 different masks, and a row is only
// permuted within its groups of 8 positions, so reading 8 consecutive chunks of one row stays
// free too.
//
// Your task: the three functions below. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex06b {

// Wavefronts of the column store above: lane t writes `bytes` (4, 8 or 16) at word
// t * rows_apart * pitch (pitch a multiple of bytes / 4).
inline int column_wavefronts(int bytes, int pitch, int rows_apart) {
  return exercise::todo<int>("06b_bank_conflicts: column_wavefronts", bytes, pitch, rows_apart);
}

// The smallest pitch >= 32, a multiple of bytes / 4, at which the column store takes its
// fewest wavefronts (1, 2 or 4 for 4, 8 or 16 bytes), or -1 if none of 32 .. 63 does (the
// banks repeat every 32 words: none beyond does either).
inline int smallest_pitch(int bytes, int rows_apart) {
  return exercise::todo<int>("06b_bank_conflicts: smallest_pitch", bytes, rows_apart);
}

// Where chunk `chunk` of row `row` is stored, among the `chunks` float4 positions of an
// unpadded row (chunks: a multiple of 8), such that: every row holds each of its chunks once;
// a quarter warp storing chunk c of 8 rows rows_apart apart (rows r0, r0 + rows_apart, ...)
// takes one pass; a quarter warp reading chunks 8q .. 8q + 7 of one row takes one pass.
inline int swizzled_position(int row, int chunk, int chunks, int rows_apart) {
  return exercise::todo<int>("06b_bank_conflicts: swizzled_position", row, chunk, chunks, rows_apart);
}

}  // namespace ex06b
