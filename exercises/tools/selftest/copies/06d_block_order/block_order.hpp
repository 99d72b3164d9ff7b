// A copy of the repository's own code for exercise 06d (selftest/copies.py): chapter 06's block
// orders (06_transpose/4_vec4.cuh, the #block-order lines, with the launch's grid: blockIdx.x
// along a row of tiles for InputRows, down a column of tiles for OutputRows) and the lesson's
// words for what a block touches (every_shape.md, prediction 1: "each writing 512-byte pieces
// of its own 32 output rows"), counted block by block, re-typed under the exercise's names;
// the diagonal order, which the repository names but does not code, stays as the stub has it;
// the order with the fewest segments is the chapter's preference on squares, output rows.
// It must score no more than the stub.
#pragma once

#include <algorithm>

#include "exercises/support/exercise.hpp"

namespace ex06d {

constexpr int kInputRows = 0, kOutputRows = 1, kDiagonal = 2;
constexpr int kInput = 0, kOutput = 1;

struct Tile {
  long long row, col;
};

inline Tile tile_of(long long n, long long tilesDown, long long tilesAcross, int order) {
  if (order == kInputRows) {  // grid (tilesAcross, tilesDown): blockIdx.y is the tile row
    const long long blockIdxX = n % tilesAcross, blockIdxY = n / tilesAcross;
    return {blockIdxY, blockIdxX};
  }
  if (order == kOutputRows) {  // grid (tilesDown, tilesAcross): blockIdx.x is the tile row
    const long long blockIdxX = n % tilesDown, blockIdxY = n / tilesDown;
    return {blockIdxX, blockIdxY};
  }
  return exercise::todo<Tile>("06d_block_order: tile_of", n, tilesDown, tilesAcross, order);
}

// Each block: one piece per input row of its tile on the input, one per output row (input
// column) on the output.
inline long long wave_segments(long long rows, long long cols, long long th, long long tw,
                               int order, long long resident, long long wave, int side) {
  const long long tilesDown = (rows + th - 1) / th, tilesAcross = (cols + tw - 1) / tw;
  const long long first = wave * resident;
  const long long last = std::min(first + resident, tilesDown * tilesAcross);
  long long pieces = 0;
  for (long long n = first; n < last; ++n) {
    const Tile t = tile_of(n, tilesDown, tilesAcross, order);
    pieces += side == kInput ? std::min(th, rows - t.row * th) : std::min(tw, cols - t.col * tw);
  }
  return pieces;
}

// The rows of each block's pieces, block by block.
inline long long wave_rows(long long rows, long long cols, long long th, long long tw, int order,
                           long long resident, long long wave, int side) {
  return wave_segments(rows, cols, th, tw, order, resident, wave, side);
}

// The chapter's measured preference on squares: output rows (whole output rows written).
inline int fewest_segments_order(long long rows, long long cols, long long th, long long tw,
                                 long long resident) {
  (void)rows, (void)cols, (void)th, (void)tw, (void)resident;
  return kOutputRows;
}

}  // namespace ex06d
