// Chapter 06, lab: transposes that keep loads in flight while they store (experiments).
//
// Candidates measured against the chapter's kernels (lab/explore.cu):
//   - tile_of_block: one integer, `group`, orders the blocks: the blocks resident together
//     sweep `group` rows of tiles at a time (1: step 4's InputRows; all rows: OutputRows);
//   - transpose_vec4_grouped: step 4's kernel with that order;
//   - transpose_vec4_staged: persistent blocks, each moving tile after tile; the input tile of
//     the next tile is copied into shared memory (cp.async) while the current one is written out;
//   - transpose_sector_staged: the same pipeline for step 5's sector-aligned tile (any shape).
#pragma once

#include <cuda_pipeline.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "06_transpose/4_vec4.cuh"
#include "06_transpose/5_sector_aligned.cuh"
#include "common/ceil_div.hpp"
#include "common/device_facts.hpp"
#include "common/launch.cuh"

namespace ch06lab {

using ch06::load4;
using ch06::store4;

// Block b's tile when the blocks sweep `group` rows of tiles at a time: the first group x across
// blocks cover tile rows 0 .. group-1 column by column (down a column of `group` tiles, then the
// next column), and so on. group = 1: along rows of tiles; group >= down: down whole columns.
__host__ __device__ inline void tile_of_block(long long b, int down, int across, int group,
                                              int& tileRow, int& tileCol) {
  const long long perGroup = (long long)group * across;
  const int first = int(b / perGroup) * group;
  const int rowsHere = down - first < group ? down - first : group;  // the last group: fewer
  const long long inGroup = b % perGroup;
  tileRow = first + int(inGroup % rowsHere);
  tileCol = int(inGroup / rowsHere);
}

// Step 4's kernel, blocks ordered by tile_of_block.
template <int TILE, int THREADS>
__global__ void __launch_bounds__(THREADS, 2048 / THREADS)
    transpose_vec4_grouped(const float* __restrict__ in, float* __restrict__ out, int rows,
                           int cols, int group) {
  constexpr int CHUNKS = TILE / 4;
  constexpr int PER_THREAD = CHUNKS * CHUNKS / THREADS;
  __shared__ float4 tileT[TILE][CHUNKS];
  int tileRow = 0, tileCol = 0;
  tile_of_block(blockIdx.x, tutorial::ceil_div(rows, TILE), tutorial::ceil_div(cols, TILE), group,
                tileRow, tileCol);
  const int blockRow = tileRow * TILE, blockCol = tileCol * TILE;
  float4 v[PER_THREAD][4];
#pragma unroll
  for (int p = 0; p < PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int row = blockRow + 4 * (b / CHUNKS);
    const int col = blockCol + 4 * (b % CHUNKS);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      v[p][k] = (row < rows && col < cols) ? load4(in + size_t(row + k) * cols + col)
                                           : make_float4(0.f, 0.f, 0.f, 0.f);
  }
#pragma unroll
  for (int p = 0; p < PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int i = b / CHUNKS, j = b % CHUNKS;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      tileT[4 * j + k][ch06::swizzled_chunk(4 * j + k, i)] = ch06::column(v[p], k);
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < 4 * PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int r = b / CHUNKS, c = b % CHUNKS;
    const int outRow = blockCol + r, outCol = blockRow + 4 * c;
    if (outRow < cols && outCol < rows)
      store4(out + size_t(outRow) * rows + outCol, tileT[r][ch06::swizzled_chunk(r, c)]);
  }
}

// Persistent float4 transpose: block x moves tiles x, x + gridDim.x, ... (in tile_of_block's
// order), STAGES input tiles in shared memory: while tile t is written out, the copies of the
// next STAGES - 1 tiles are in flight (cp.async, no registers held). Tile s holds input rows
// as they are, chunk c of row r at r's chunk c ^ (r / 4 % 8); a thread then reads a 4 x 4
// block (4 rows, one chunk), transposes it in registers and stores 4 float4 into 4 output rows.
template <int STAGES>
__global__ void __launch_bounds__(256)
    transpose_vec4_staged(const float* __restrict__ in, float* __restrict__ out, int rows,
                          int cols, int group) {
  constexpr int TILE = 64, CHUNKS = 16, THREADS = 256;
  extern __shared__ float4 staged[];  // [STAGES][TILE][CHUNKS]
  const int down = tutorial::ceil_div(rows, TILE), across = tutorial::ceil_div(cols, TILE);
  const long long tiles = (long long)down * across;
  // Copies tile t (if any) into stage s: thread copies chunks threadIdx.x + 256 p, p < 4.
  auto copy_tile = [&](long long t, int s) {
    if (t < tiles) {
      int tileRow = 0, tileCol = 0;
      tile_of_block(t, down, across, group, tileRow, tileCol);
      float4* tile = staged + s * TILE * CHUNKS;
#pragma unroll
      for (int p = 0; p < TILE * CHUNKS / THREADS; ++p) {
        const int e = threadIdx.x + p * THREADS;
        const int r = e / CHUNKS, c = e % CHUNKS;
        const int row = tileRow * TILE + r, col = tileCol * TILE + 4 * c;
        if (row < rows && col < cols)
          __pipeline_memcpy_async(&tile[r * CHUNKS + (c ^ (r / 4 % 8))],
                                  in + size_t(row) * cols + col, 16);
      }
    }
    __pipeline_commit();  // (an empty batch past the last tile keeps the count)
  };
  for (int s = 0; s < STAGES - 1; ++s) copy_tile(blockIdx.x + (long long)s * gridDim.x, s);
  const int j = threadIdx.x % CHUNKS, q = threadIdx.x / CHUNKS;  // 4 x 4 block (j: rows, q: cols)
  int s = 0;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    copy_tile(t + (long long)(STAGES - 1) * gridDim.x, (s + STAGES - 1) % STAGES);
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();  // every thread's copies of tile t have landed
    int tileRow = 0, tileCol = 0;
    tile_of_block(t, down, across, group, tileRow, tileCol);
    const float4* tile = staged + s * TILE * CHUNKS;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = tile[(4 * j + k) * CHUNKS + (q ^ (j % 8))];
    const int outCol = tileRow * TILE + 4 * j;  // an input row
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int outRow = tileCol * TILE + 4 * q + k;  // an input column
      if (outRow < cols && outCol < rows)
        store4(out + size_t(outRow) * rows + outCol, ch06::column(v, k));
    }
    __syncthreads();  // tile t is read: the next iteration's copies may overwrite its stage
    s = (s + 1) % STAGES;
  }
  __pipeline_wait_prior(0);
}

// Persistent sector-aligned transpose (step 5's tile: TILE_ROWS + 7 input rows x 32 columns,
// stores cut at 32-byte sectors), STAGES tiles in shared memory, 4-byte asynchronous copies.
template <int STAGES>
__global__ void __launch_bounds__(256)
    transpose_sector_staged(const float* __restrict__ in, float* __restrict__ out, int rows,
                            int cols, int group) {
  constexpr int TILE_ROWS = 128, TILE_COLS = 32, BLOCK_ROWS = 8, SHIFT = 7;
  constexpr int ROWS = TILE_ROWS + SHIFT, PITCH = TILE_COLS + 1;
  extern __shared__ float sector_staged[];  // [STAGES][ROWS][PITCH]
  const int down = tutorial::ceil_div(rows + SHIFT, TILE_ROWS);  // bands
  const int across = tutorial::ceil_div(cols, TILE_COLS);
  const long long tiles = (long long)down * across;
  auto copy_tile = [&](long long t, int s) {
    if (t < tiles) {
      int band = 0, colBlock = 0;
      tile_of_block(t, down, across, group, band, colBlock);
      float* tile = sector_staged + s * ROWS * PITCH;
      const int firstRow = band * TILE_ROWS - SHIFT;
      const int col = colBlock * TILE_COLS + threadIdx.x;
      constexpr int LOADS = (ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
#pragma unroll
      for (int i = 0; i < LOADS; ++i) {
        const int jr = threadIdx.y + i * BLOCK_ROWS, row = firstRow + jr;
        if (jr < ROWS && row >= 0 && row < rows && col < cols)
          __pipeline_memcpy_async(&tile[jr * PITCH + threadIdx.x], in + size_t(row) * cols + col,
                                  4);
      }
    }
    __pipeline_commit();
  };
  for (int s = 0; s < STAGES - 1; ++s) copy_tile(blockIdx.x + (long long)s * gridDim.x, s);
  int s = 0;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    copy_tile(t + (long long)(STAGES - 1) * gridDim.x, (s + STAGES - 1) % STAGES);
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    int band = 0, colBlock = 0;
    tile_of_block(t, down, across, group, band, colBlock);
    const float* tile = sector_staged + s * ROWS * PITCH;
#pragma unroll
    for (int jj = 0; jj < TILE_COLS; jj += BLOCK_ROWS) {
      const int outRow = colBlock * TILE_COLS + threadIdx.y + jj;
      if (outRow >= cols) continue;
      float* dst = out + size_t(outRow) * rows;
      const int sh = int((reinterpret_cast<uintptr_t>(dst) / sizeof(float) +
                          size_t(band) * TILE_ROWS) % 8);
#pragma unroll
      for (int h = 0; h < TILE_ROWS; h += TILE_COLS) {
        const int outCol = band * TILE_ROWS - sh + h + threadIdx.x;
        if (outCol >= 0 && outCol < rows)
          dst[outCol] = tile[(SHIFT - sh + h + threadIdx.x) * PITCH + threadIdx.y + jj];
      }
    }
    __syncthreads();
    s = (s + 1) % STAGES;
  }
  __pipeline_wait_prior(0);
}

// ---- launchers (GROUP: 0 = all rows of tiles, i.e. down whole columns) ----------------

inline int group_or_all(int group, int down) { return group <= 0 ? down : std::min(group, down); }

template <int GROUP>
void launch_vec4_grouped(const float* in, float* out, int rows, int cols) {
  if (!ch06::float4_aligned(in, out, rows, cols))
    throw tutorial::UnsupportedShape("transpose_vec4: float4 needs rows and cols multiples of 4");
  const int down = tutorial::ceil_div(rows, 64), across = tutorial::ceil_div(cols, 64);
  tutorial::launch(transpose_vec4_grouped<64, 256>, dim3(unsigned(down) * unsigned(across)),
                   dim3(256), 0, in, out, rows, cols, group_or_all(GROUP, down));
}

// Resident blocks of a kernel on this GPU (common/device_facts.hpp).
inline long long resident(const void* kernel, int threads, size_t smem) {
  return tutorial::resident_blocks(kernel, threads, smem);
}

template <int STAGES, int GROUP>
void launch_vec4_staged(const float* in, float* out, int rows, int cols) {
  if (!ch06::float4_aligned(in, out, rows, cols))
    throw tutorial::UnsupportedShape("transpose_vec4: float4 needs rows and cols multiples of 4");
  const int down = tutorial::ceil_div(rows, 64), across = tutorial::ceil_div(cols, 64);
  const size_t smem = size_t(STAGES) * 64 * 16 * sizeof(float4);
  const long long tiles = (long long)down * across;
  const long long grid =
      std::min(tiles, resident(reinterpret_cast<const void*>(transpose_vec4_staged<STAGES>), 256,
                               smem));
  tutorial::launch(transpose_vec4_staged<STAGES>, dim3(unsigned(grid)), dim3(256), smem, in, out,
                   rows, cols, group_or_all(GROUP, down));
}

template <int STAGES, int GROUP>
void launch_sector_staged(const float* in, float* out, int rows, int cols) {
  const int down = tutorial::ceil_div(rows + 7, 128), across = tutorial::ceil_div(cols, 32);
  const size_t smem = size_t(STAGES) * 135 * 33 * sizeof(float);
  const long long tiles = (long long)down * across;
  const long long grid =
      std::min(tiles, resident(reinterpret_cast<const void*>(transpose_sector_staged<STAGES>),
                               256, smem));
  tutorial::launch(transpose_sector_staged<STAGES>, dim3(unsigned(grid)), dim3(32, 8), smem, in,
                   out, rows, cols, group_or_all(GROUP, down));
}

}  // namespace ch06lab
