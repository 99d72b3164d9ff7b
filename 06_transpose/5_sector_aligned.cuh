// Chapter 06, step 5: transpose_sector_aligned, stores that start on a sector.
//
// What changed since step 4: this one is for output rows off the sectors, mostly in shapes float4
// cannot take (and float4 matrices whose rows % 8 == 4). Where the output's
// rows do not start on a 32-byte sector (rows not a multiple of 8, or a misaligned `out`), step
// 3's padded kernel writes each 64-float piece of an output row across 9 sectors, the first and
// the last partly, and those partial writes cost a third of the bandwidth. Here each output row
// is cut at sector boundaries instead, so no store writes part of a sector; one float per access,
// a thread's 16 or 17 loads of a band unrolled so that they issue in groups ahead of their stores.
// Its input rows start anywhere too, so each load asks the L2 for its whole 128-byte line
// (load1_line, float4.cuh; whole_lines.md).
// Its blocks run in either of step 4's orders (BlockOrder): which is faster depends on the shape
// and the GPU.
// What it still gets wrong: a thin matrix (a few dozen rows or columns) leaves most of each
// 128 x 32 tile empty.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/4_vec4.cuh"  // BlockOrder
#include "06_transpose/float4.cuh"   // load1_line
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Sector-aligned stores, for output rows that do not start on a 32-byte sector (rows not a
// multiple of 8 floats, or a misaligned `out`). The padded kernel then writes each 64-float
// piece of an output row across 9 sectors, the first and the last partly; their other parts
// come from a neighbouring block, and those partial writes cost a third of the bandwidth
// (every_shape.md, part 2). Here output row c is cut at sector boundaries instead: block b writes
// out[c][SPAN·b − s .. SPAN·b − s + SPAN), SPAN = TILE_ROWS, with s = (float index of
// out[c][SPAN·b]) mod 8 the same for every b (SPAN is a multiple of 8), so every warp's store
// starts a sector. The segment moves back by up to SHIFT = 7 floats, so the block stages input
// rows SPAN·b − 7 .. SPAN·b + SPAN − 1 (7 more than it writes, read again by the block above:
// 7 / SPAN more reads, mostly L2 hits), and the grid has a block for the last 7 columns.
// TILE_ROWS input rows (output columns) by TILE_COLS input columns, TILE_COLS × BLOCK_ROWS
// threads. 128 × 32 tiles with 32 × 8 threads measured best of the shapes tried
// (lab/LOG.md#every-shape): the taller the tile, the smaller the share of its 7 extra rows.
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
struct SectorAligned {
  static_assert(TILE_COLS % 32 == 0 && TILE_ROWS % TILE_COLS == 0,
                "a warp moves 32 floats of a row: TILE_COLS a multiple of 32, TILE_ROWS of "
                "TILE_COLS");
  static_assert(TILE_COLS % BLOCK_ROWS == 0,
                "each thread moves TILE_COLS / BLOCK_ROWS output rows");
  static_assert(TILE_COLS * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  static constexpr int SHIFT = 7;  // a 32-byte sector holds 8 floats: segments move back 0..7
  static constexpr int ROWS = TILE_ROWS + SHIFT;
  using Tile = float[ROWS][TILE_COLS + 1];

  // One band: input rows band·TILE_ROWS − 7 .. band·TILE_ROWS + TILE_ROWS − 1 of the block's
  // TILE_COLS columns, staged in the tile, written out sector-aligned.
  static __device__ __forceinline__ void band(const float* __restrict__ in,
                                              float* __restrict__ out, int rows, int cols,
                                              int band, int colBlock, Tile& tile) {
    const int firstRow = band * TILE_ROWS - SHIFT;  // input row of tile row 0 (may be < 0)
    const int col = colBlock * TILE_COLS + threadIdx.x;
    // Unrolled, so that ptxas can put the loads ahead of the shared-memory stores: rolled, it kept
    // 4 in flight, unrolled it issues them in groups of 3 and 7 (lab/LOG.md#loads-in-flight).
    constexpr int LOADS = (ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
    // BEGIN QUOTE line-loads
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int j = threadIdx.y + i * BLOCK_ROWS;
      const int row = firstRow + j;
      if (j < ROWS && row >= 0 && row < rows && col < cols)
        tile[j][threadIdx.x] = load1_line(in + size_t(row) * cols + col);  // a warp: 32 floats of a row
    }
    // END QUOTE line-loads
    // Every thread reads elements that other threads wrote.
    __syncthreads();
    // BEGIN QUOTE sector-store
#pragma unroll
    for (int j = 0; j < TILE_COLS; j += BLOCK_ROWS) {
      const int outRow = colBlock * TILE_COLS + threadIdx.y + j;  // an input column
      if (outRow >= cols) continue;
      float* dst = out + size_t(outRow) * rows;
      // s: how far out[outRow][SPAN·band] lies past the start of its sector, in floats.
      const int s = int((reinterpret_cast<uintptr_t>(dst) / sizeof(float) +
                         size_t(band) * TILE_ROWS) % 8);
#pragma unroll
      for (int h = 0; h < TILE_ROWS; h += TILE_COLS) {
        const int outCol = band * TILE_ROWS - s + h + threadIdx.x;  // an input row
        if (outCol >= 0 && outCol < rows)
          dst[outCol] = tile[SHIFT - s + h + threadIdx.x][threadIdx.y + j];  // (TILE_ROWS + 7, ..)
      }
    }
    // END QUOTE sector-store
  }
};

// One band per block. InputRows: block (x, y) moves band y of column block x, so the blocks
// resident together read whole input rows; OutputRows: band x of column block y, so together
// they write whole output rows (step 4's BlockOrder).
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS,
          BlockOrder ORDER = BlockOrder::InputRows>
__global__ void transpose_sector_aligned(const float* __restrict__ in, float* __restrict__ out,
                                         int rows, int cols) {
  using Kernel = SectorAligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS>;
  __shared__ typename Kernel::Tile tile;
  if (ORDER == BlockOrder::InputRows)
    Kernel::band(in, out, rows, cols, blockIdx.y, blockIdx.x, tile);
  else
    Kernel::band(in, out, rows, cols, blockIdx.x, blockIdx.y, tile);
}

// More than 8.4 million rows: more bands than a grid may have blocks along y (65,535). Each
// block takes every gridDim.y-th band. A separate kernel, because the loop slows the common
// case down (lab/LOG.md#loads-in-flight).
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
__global__ void transpose_sector_aligned_bands(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols) {
  using Kernel = SectorAligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS>;
  __shared__ typename Kernel::Tile tile;
  const int bands = int((static_cast<long long>(rows) + Kernel::SHIFT + TILE_ROWS - 1) / TILE_ROWS);
  for (int band = blockIdx.y; band < bands; band += gridDim.y) {  // the same for the whole block
    Kernel::band(in, out, rows, cols, band, blockIdx.x, tile);
    // The next band overwrites the tile: every thread must be done reading it.
    __syncthreads();
  }
}

// The grid's rows cover rows + 7 output columns: the last segments move back by up to 7.
// At most max_grid_y blocks along y (the hardware's 65,535; a test passes less to exercise the
// kernel's loop over bands): any number of rows fits, but for the last TILE_ROWS + 7 below
// INT_MAX, whose bands would start past it (band · TILE_ROWS is an int).
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS,
          BlockOrder ORDER = BlockOrder::InputRows>
void launch_sector_aligned_capped(const float* in, float* out, int rows, int cols,
                                  int max_grid_y) {
  if (rows > INT_MAX - 2 * TILE_ROWS)
    throw tutorial::UnsupportedShape("transpose_sector_aligned: " + std::to_string(rows) +
                                     " rows: its bands would start past INT_MAX");
  const int bands = int((static_cast<long long>(rows) + 7 + TILE_ROWS - 1) / TILE_ROWS);
  const int colBlocks = tutorial::ceil_div(cols, TILE_COLS);
  const dim3 block(TILE_COLS, BLOCK_ROWS);
  if (ORDER == BlockOrder::OutputRows && colBlocks <= max_grid_y)
    tutorial::launch(
        transpose_sector_aligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS, BlockOrder::OutputRows>,
        dim3(bands, colBlocks), block, 0, in, out, rows, cols);
  else if (bands <= max_grid_y)
    tutorial::launch(
        transpose_sector_aligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS, BlockOrder::InputRows>,
        dim3(colBlocks, bands), block, 0, in, out, rows, cols);
  else
    tutorial::launch(transpose_sector_aligned_bands<TILE_ROWS, TILE_COLS, BLOCK_ROWS>,
                     dim3(tutorial::ceil_div(cols, TILE_COLS), max_grid_y), block, 0, in, out,
                     rows, cols);
}

template <int TILE_ROWS = 128, int TILE_COLS = 32, int BLOCK_ROWS = 8,
          BlockOrder ORDER = BlockOrder::InputRows>
void launch_sector_aligned(const float* in, float* out, int rows, int cols) {
  launch_sector_aligned_capped<TILE_ROWS, TILE_COLS, BLOCK_ROWS, ORDER>(in, out, rows, cols,
                                                                       tutorial::kMaxGridY);
}

}  // namespace ch06
