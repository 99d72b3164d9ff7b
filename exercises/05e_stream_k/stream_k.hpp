// Exercise 05e: stream-K, the last wave shared out by k-iterations (chapter 05, part 4 and
// step 7). Host only: no GPU needed.
//
// A GEMM of `tiles` output tiles, each kIters k-iterations deep (BK values of k per
// iteration), on a GPU with `slots` resident blocks (SMs x blocks per SM). One block per tile
// runs the tiles in waves of `slots`; when the last wave is partial, most of the GPU idles
// through it (05b). Stream-K, as chapter 05's step 7 does it:
//   * the full waves stay one block per tile: tiles 0 .. dp - 1, dp = tiles - R, where
//     R = tiles % slots is the last wave's tiles (R = 0: whole waves, no stream-K at all);
//   * the last wave's R * kIters iterations, numbered on from dp * kIters in tile order, are
//     cut into `slots` contiguous ranges, one per stream-K block b = 0 .. slots - 1, as equal
//     as whole iterations allow: block b starts at iteration dp * kIters + floor(R * kIters *
//     b / slots) and ends where block b + 1 starts;
//   * a range that covers part of a tile leaves a partial sum; the tile's pieces are added up
//     afterwards (the fixup).
//
//   3072^3 in 128 x 128 tiles, BK 16, 264 slots: 576 tiles, 192 iterations each; 2 full waves
//   (528 tiles), R = 48: 48 * 192 = 9,216 iterations for 264 blocks, 34 or 35 each, so every
//   one of those 48 tiles is cut into 6 or 7 pieces.
//
// Your task: the four functions below. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex05e {

// The first iteration (numbered over all tiles, tile t's being t * kIters .. (t+1) * kIters - 1)
// of stream-K block b, 0 <= b <= slots (b = slots: the end of the last range). With whole
// waves (R = 0) there are no stream-K iterations: tiles * kIters for every b.
inline long long range_begin(long long tiles, long long kIters, long long slots, long long b) {
  return exercise::todo<long long>("05e_stream_k: range_begin", tiles, kIters, slots, b);
}

// Into how many pieces tile t is computed: 1 for a whole tile, the number of stream-K blocks
// whose (non-empty) range overlaps its iterations otherwise.
inline long long pieces(long long tiles, long long kIters, long long slots, long long t) {
  return exercise::todo<long long>("05e_stream_k: pieces", tiles, kIters, slots, t);
}

// How many tiles need the fixup: those computed in more than one piece.
inline long long split_tiles(long long tiles, long long kIters, long long slots) {
  return exercise::todo<long long>("05e_stream_k: split_tiles", tiles, kIters, slots);
}

// The iterations of the busiest slot: the time of the launch, in k-iterations, if every
// iteration costs the same. mode 0: one block per tile (waves of `slots` tiles); mode 1:
// stream-K as above (the full waves, then the busiest stream-K range).
inline long long busiest_iterations(long long tiles, long long kIters, long long slots, int mode) {
  return exercise::todo<long long>("05e_stream_k: busiest_iterations", tiles, kIters, slots, mode);
}

}  // namespace ex05e
