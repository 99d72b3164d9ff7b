// Exercise 02b: the banks of the tiled kernel's shared accesses (chapter 02). Host only: no
// GPU needed.
//
// Chapter 02's rule: shared memory has 32 banks of 4-byte words, word w in bank w % 32. A
// warp's 4-byte access is served in wavefronts: one when no bank holds two DIFFERENT words the
// lanes ask for (lanes asking for the same word share it, a broadcast), n when some bank holds
// n different words and none more.
//
// The kernel of this chapter runs blocks of TILE x TILE threads; thread (ty, tx) has the
// linear index ty * TILE + tx, and warp w is the threads with linear indices 32w .. 32w + 31
// (the last warp is partial when TILE * TILE is not a multiple of 32). A tile lives in
// `float s[TILE][pitch]`: element (r, c) is word r * pitch + c (pitch >= TILE words per row:
// TILE for a plain array, more for a padded one). The block's four kinds of access:
//
//   access 0   s[ty][tx]   each thread its own element, by rows      (the tile copies)
//   access 1   s[tx][ty]   the same, transposed: down the columns    (exercise 02a's B tile)
//   access 2   s[ty][k]    all threads of a row, one word            (the inner loop's As read)
//   access 3   s[k][tx]    all rows, the same row k of the tile      (the inner loop's Bs read)
//
//   TILE 16, pitch 16, access 1, warp 0: lanes (0, 0..15) and (1, 0..15) read words 16c + r:
//   bank 0 holds words 0, 32, 64, ... 224 (c = 0, 2, .., 14 of row 0): 8 different words: 8.
//
// Your task: wavefronts() for any TILE 1..32, pitch >= TILE, warp and k of the block; then
// smallest_pitch(), the padding that makes an access conflict-free. A loop over the lanes is
// the way: work out each lane's word, then count. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex02b {

constexpr int kBanks = 32;
constexpr int kWarp = 32;

// Wavefronts of warp `warp` of a TILE x TILE block making access `access` (0..3 above) at
// step k (access 2 and 3; ignored by 0 and 1) on `float s[TILE][pitch]`.
inline int wavefronts(int tile, int pitch, int access, int warp, int k) {
  return exercise::todo<int>("02b_banks: wavefronts", tile, pitch, access, warp, k);
}

// The smallest pitch >= TILE for which `access` takes one wavefront for every warp of the
// block and every k, or -1 if none does. (The banks repeat every 32 words: if no pitch of
// TILE .. TILE + 31 works, none does.)
inline int smallest_pitch(int tile, int access) {
  return exercise::todo<int>("02b_banks: smallest_pitch", tile, access);
}

}  // namespace ex02b
