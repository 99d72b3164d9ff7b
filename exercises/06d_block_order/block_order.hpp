// Exercise 06d: the order of a transpose's blocks, and the memory each wave of them touches
// (chapter 06, every_shape.md part 1 and prediction 1). Host only: no GPU needed.
//
// A transpose of a rows x cols float matrix: the input is row-major with pitch cols, the
// output (cols x rows) row-major with pitch rows, so input column c is output row c. Each block
// moves one tile of th input rows by tw input columns; the tiles of the last tile row and the
// last tile column stop where the matrix does. tilesDown = ceil(rows / th) tile rows,
// tilesAcross = ceil(cols / tw) tile columns, one block per tile.
//
// Blocks start in launch order n = 0, 1, 2, ... and `resident` of them run at once (about 1,056
// on an H100: 132 SMs x 8). Wave w is blocks w * resident .. min((w + 1) * resident, total) - 1.
// The block order says which tile block n moves:
//   0, input rows (BlockOrder::InputRows):   tile row n / tilesAcross, tile column n % tilesAcross;
//   1, output rows (BlockOrder::OutputRows): tile column n / tilesDown, tile row n % tilesDown;
//   2, diagonal: Ruetsch and Micikevicius ("Optimizing Matrix Transpose in CUDA", NVIDIA, 2009)
//      gave it for partition camping. Their form for any grid, in these terms: walk down the tile
//      rows as order 1 does, tile row = n % tilesDown, and push each block's tile column right
//      by its tile row, wrapping around the right edge: tile column = (n / tilesDown + tile row)
//      % tilesAcross. Blocks that start together then sit on a diagonal band of the tile grid,
//      in different tile rows, and in different tile columns while the grid is at least as wide
//      as it is tall. Every tile still gets one block: the blocks of
//      one tile row have distinct n / tilesDown, all pushed by the same amount.
//
// What a wave touches on one side (0: the input it reads, 1: the output it writes) is every
// element of its blocks' tiles, at address row * pitch + column of that side's matrix. A
// segment is a maximal range of consecutive addresses among them: pieces that meet or overlap
// are one segment, also across the end of a row (a piece that ends row r and one that starts
// row r + 1 are one: whole consecutive rows are one segment). The model counts a segment as one
// stream and each further one as a jump, whatever its length: it ranks orders, it does not time
// them (the chapter's lab log compares it with measured orders).
//
// Worked cases (answers of the checker's code):
//   * The chapter's prediction 1: 3630 x 71894 through the sector-aligned kernel's 128 x 32 tile
//     (5_sector_aligned.cuh, without its 7 extra rows), 1,056 resident: tilesDown 29 (the last
//     46 rows tall), tilesAcross 2,247. Input order, wave 0: blocks 0..1055 all in tile row 0,
//     tile columns 0..1055: input rows 0..127, columns 0..33,791 of each: 128 segments, 128
//     rows read. Each block writes 128 floats (512 bytes) into each of its own 32 output rows:
//     33,792 segments, 33,792 rows written. Output order, wave 0: tile columns 0..35 whole
//     (36 x 29 = 1,044 blocks), then tile rows 0..11 of tile column 36: output rows 0..1151
//     whole, and columns 0..1535 of rows 1152..1183. Rows 0..1151 and the start of row 1152 are
//     one segment, rows 1153..1183 one each: 32 segments, 1,184 rows written; it reads pieces of
//     all 3,630 input rows: 3,630 segments. The diagonal reads 3,630 and writes 1,761.
//   * A square, 256 x 256 in 64 x 64 tiles (4 x 4), 8 resident: input order wave 0 is tile rows
//     0 and 1, input rows 0..127 whole: 1 segment read, and 256 output rows written (columns
//     0..127 of each): 256 segments. Output order is the mirror (256 read, 1 written). Diagonal,
//     as (tile row, tile column): (0,0) (1,1) (2,2) (3,3) (0,1) (1,2) (2,3) (3,0). On the input,
//     tile rows 0, 1 and 2 hold two neighbouring tiles each, one range per row: 64 segments
//     each. Tile row 3 holds tile columns 0 and 3, two pieces per row, but each row's last piece
//     runs on into the next row's first, and tile row 2's last row (which ends at column 255)
//     into tile row 3's first: 128 pieces, 64 joins, 64 segments. 256 read, and 256 written:
//     the diagonal streams neither side.
//   * Edges and later waves: 100 x 40 in 32 x 32 tiles (4 x 2: the bottom tiles 4 rows tall, the
//     right ones 8 wide), input order, 3 resident. Wave 1 is tiles (1,1) (2,0) (2,1): columns
//     32..39 of input rows 32..63, then rows 64..95 whole. Each of rows 32..62 is a segment of
//     its own; row 63's piece ends its row, so it runs on through rows 64..95: 32 segments, 64
//     rows. Wave 2, tiles (3,0) (3,1): rows 96..99 whole, 1 segment (and all 40 output rows,
//     columns 96..99: 40 segments). Wave 3 is past the last block: 0.
//   * The order with the fewest segments on both sides, wave 0: 3630 x 71894 above, input
//     order 128 + 33,792, output order 3,630 + 32, diagonal 3,630 + 1,761: output order. Its
//     transpose, 71894 x 3630 in the same tiles: input order 128 + 3,630, output order
//     71,894 + 32: input order. 4096 x 4096 in 64 x 64 tiles, 1,056 resident: input and output
//     order 64 + 4,096 each, a tie; output order writes 64 segments, not 4,096: output order.
//
// Your task: the four functions below. Test with `make check` in this folder.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "exercises/support/exercise.hpp"

namespace ex06d {

constexpr int kInputRows = 0, kOutputRows = 1, kDiagonal = 2;  // the block orders
constexpr int kInput = 0, kOutput = 1;                           // the sides

struct Tile {
  long long row, col;  // tile row (0 .. tilesDown - 1), tile column (0 .. tilesAcross - 1)
};

// The tile block n moves in the given order (above).
inline Tile tile_of(long long n, long long tilesDown, long long tilesAcross, int order) {
  return exercise::todo<Tile>("06d_block_order: tile_of", n, tilesDown, tilesAcross,
                               order);
}

// The segments wave `wave` touches on `side` (0 for a wave past the last block). rows, cols up
// to about a million each: addresses need 64 bits.
inline long long wave_segments(long long rows, long long cols, long long th, long long tw,
                               int order, long long resident, long long wave, int side) {
  return exercise::todo<long long>("06d_block_order: wave_segments", rows, cols, th, tw,
                                    order, resident, wave, side);
}

// The distinct rows of the side's matrix that wave `wave` touches.
inline long long wave_rows(long long rows, long long cols, long long th, long long tw, int order,
                           long long resident, long long wave, int side) {
  return exercise::todo<long long>("06d_block_order: wave_rows", rows, cols, th, tw, order,
                                    resident, wave, side);
}

// The order (0, 1 or 2) whose first wave touches the fewest segments on both sides together
// (the input's plus the output's); between orders with as many, the one with fewer segments
// written (whole output rows won on squares, every_shape.md part 1); then the lower order.
inline int fewest_segments_order(long long rows, long long cols, long long th, long long tw,
                                 long long resident) {
  return exercise::todo<int>("06d_block_order: fewest_segments_order", rows, cols, th, tw,
                              resident);
}

}  // namespace ex06d
