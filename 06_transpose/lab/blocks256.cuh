// Chapter 06, lab: transpose_blocks256, each input row read in whole aligned 256-byte blocks
// (an experiment).
//
// transpose_vec4 runs slower when the input's row pitch is not a multiple of 256 bytes, whatever
// the offset (16, 32 or 64 bytes cost the same; lab/LOG.md#row-pitch); its 256-byte pieces then
// straddle two aligned 256-byte blocks. This tile reads, in each of its
// 64 rows, the aligned 256-byte blocks that hold its 64 columns: one block where the row's
// piece starts on 256 bytes, two otherwise (a warp loads 32 float4 = 512 bytes, from the block
// boundary before the piece). The floats outside the piece are dropped; the neighbouring tile
// reads them again, most likely from the L2. WHOLE = false loads only the float4s that hold the
// piece's floats (the same tile without the extra reads: the control).
// The stores: output row c's 64 floats, one float per lane (STORE4 = false), or one float4 per
// lane where every output row starts on 16 bytes (STORE4 = true; else the block stores floats).
// Any rows, cols and pointers; a float4 that would reach outside the matrix loads its floats one
// at a time.
// As it stands it is far slower than transpose_vec4 at every shape, the control included: a
// warp loads one row at a time, so it keeps about half of transpose_vec4's bytes in flight
// (lab/LOG.md#row-pitch). It does not answer its question yet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/4_vec4.cuh"  // BlockOrder
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06lab {

constexpr int kBlocksTile = 64;     // the tile: 64 input rows x 64 input columns
constexpr int kBlocksThreads = 256; // 8 warps, 8 tile rows each

// A lane's float4 of input row `row`: position q = 4 lane of the 128-float window that starts
// at the 256-byte boundary at or before in[row][C0], `off` floats before it. Its floats belong
// to tile columns q - off .. q - off + 3, where those are columns of the tile.
template <bool WHOLE>
__device__ __forceinline__ void load_row(const float* __restrict__ in, size_t total, int row,
                                         int cols, int C0, int lane, float4& v, int& off) {
  const ptrdiff_t piece = ptrdiff_t(row) * cols + C0;  // in[piece]: the piece's first float
  off = int(((reinterpret_cast<uintptr_t>(in) >> 2) + size_t(piece)) & 63);  // past a boundary
  const ptrdiff_t first = piece - off + 4 * lane;       // this lane's float4: in[first .. + 3]
  const int q = 4 * lane;                               // its position in the window
  const int width = min(kBlocksTile, cols - C0);        // the piece's floats
  v = make_float4(0.f, 0.f, 0.f, 0.f);
  const bool needed = q + 3 >= off && q < off + width;
  const bool inBlocks = off == 0 ? q < kBlocksTile : true;  // the blocks that hold the piece
  if (!(WHOLE ? inBlocks : needed)) return;
  // The window may start before `in` or end past its last float: those float4s go float by
  // float, and only the piece's floats.
  if (first >= 0 && size_t(first) + 4 <= total) {
    v = ch06::load4(in + first);
  } else {
    float f[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (q + i >= off && q + i < off + width) f[i] = in[first + i];
    v = make_float4(f[0], f[1], f[2], f[3]);
  }
}

// Element i of v (i in 0..3) without indexing a register array at run time.
__device__ __forceinline__ float pick(const float4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// MIN_BLOCKS resident blocks an SM asked of ptxas: at 8 (32 registers) the 8 float4 a thread
// holds spill.
template <bool WHOLE, bool STORE4, ch06::BlockOrder ORDER, int MIN_BLOCKS>
__global__ void __launch_bounds__(kBlocksThreads, MIN_BLOCKS)
    transpose_blocks256(const float* __restrict__ in, float* __restrict__ out, int rows,
                        int cols) {
  constexpr int TILE = kBlocksTile, WARPS = kBlocksThreads / 32, ROWS_PER_WARP = TILE / WARPS;
  __shared__ float tile[TILE][TILE + 1];  // tile[r][c]: input row R0 + r, column C0 + c
  const bool byInputRows = ORDER == ch06::BlockOrder::InputRows;
  const int R0 = (byInputRows ? blockIdx.y : blockIdx.x) * TILE;
  const int C0 = (byInputRows ? blockIdx.x : blockIdx.y) * TILE;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const size_t total = size_t(rows) * cols;

  // Every load first: ROWS_PER_WARP float4 per thread in flight.
  float4 v[ROWS_PER_WARP];
  int off[ROWS_PER_WARP];
#pragma unroll
  for (int k = 0; k < ROWS_PER_WARP; ++k) {
    const int r = warp + k * WARPS;
    off[k] = 0;
    v[k] = make_float4(0.f, 0.f, 0.f, 0.f);
    if (R0 + r < rows) load_row<WHOLE>(in, total, R0 + r, cols, C0, lane, v[k], off[k]);
  }
  // Into the tile. Lane l holds columns 4l + i - off: for a fixed i the lanes are 4 words
  // apart (4 lanes to a bank); starting at i = l / 8 puts the 32 lanes on 32 banks.
#pragma unroll
  for (int k = 0; k < ROWS_PER_WARP; ++k) {
    const int r = warp + k * WARPS;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int i = (s + lane / 8) % 4;
      const int c = 4 * lane + i - off[k];
      if (c >= 0 && c < TILE) tile[r][c] = pick(v[k], i);
    }
  }
  // Every thread reads what other threads wrote.
  __syncthreads();
  const int width = min(TILE, cols - C0), height = min(TILE, rows - R0);
  const bool vec = STORE4 && rows % 4 == 0 && (reinterpret_cast<uintptr_t>(out) & 15) == 0;
  if (vec) {
    // A warp: output rows c and c + 1, 16 lanes each, a float4 (4 input rows) a lane.
    const int half = lane / 16, p = 4 * (lane % 16);
    for (int c = 2 * warp + half; c < width; c += 2 * WARPS)
      if (p < height) {
        float* dst = out + size_t(C0 + c) * rows + R0 + p;
        if (p + 4 <= height)
          ch06::store4(dst,
                       make_float4(tile[p][c], tile[p + 1][c], tile[p + 2][c], tile[p + 3][c]));
        else
          for (int i = 0; p + i < height; ++i) dst[i] = tile[p + i][c];
      }
  } else {
    for (int c = warp; c < width; c += WARPS) {
      float* dst = out + size_t(C0 + c) * rows + R0;
      if (lane < height) dst[lane] = tile[lane][c];
      if (lane + 32 < height) dst[lane + 32] = tile[lane + 32][c];
    }
  }
}

template <bool WHOLE = true, bool STORE4 = true,
          ch06::BlockOrder ORDER = ch06::BlockOrder::OutputRows, int MIN_BLOCKS = 4>
void launch_blocks256(const float* in, float* out, int rows, int cols) {
  const int across = tutorial::ceil_div(cols, kBlocksTile);
  const int down = tutorial::ceil_div(rows, kBlocksTile);
  const bool byInputRows = ORDER == ch06::BlockOrder::InputRows;
  if ((byInputRows ? down : across) > tutorial::kMaxGridY)
    throw tutorial::UnsupportedShape("transpose_blocks256: too many tiles along grid.y for " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const dim3 grid = byInputRows ? dim3(across, down) : dim3(down, across);
  tutorial::launch(transpose_blocks256<WHOLE, STORE4, ORDER, MIN_BLOCKS>, grid,
                   dim3(kBlocksThreads), 0, in, out, rows, cols);
}

}  // namespace ch06lab
