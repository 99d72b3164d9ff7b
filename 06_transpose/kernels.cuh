// Chapter 06: matrix transpose, out = inᵀ (in is rows×cols row-major, out is cols×rows).
//
// What changed since chapter 05: the GEMM chapters were about REUSE (each byte of A and B
// feeds many FLOPs, so tiling cut the bytes). A transpose has no reuse and no arithmetic:
// every element is read once and written once, exactly the bytes of a copy. What is left
// to optimize is HOW the bytes move, and a copy of the same matrix is the ceiling.
//
//   transpose_naive    reads coalesced, writes with a stride of `rows` floats: each lane of
//                      a warp stores 4 bytes into a different 32-byte sector.
//   transpose_tiled    stages a TILE×TILE tile in shared memory, so the block reads rows
//                      and writes rows: both sides coalesced. Still wrong: reading a tile
//                      COLUMN hits one bank 32 times (tile rows are 32 words apart).
//   transpose_padded   the one-token fix, tile[TILE][TILE + 1]: each row shifts by one bank.
//                      With TILE = 64 each thread keeps 16 loads in flight instead of 4.
//   transpose_vec4     float4 on both global sides (needs rows, cols multiples of 4), each
//                      thread transposing 4×4 blocks in registers; a swizzled tile keeps the
//                      16-byte shared-memory accesses conflict-free. Its BlockOrder decides
//                      which side streams through DRAM: with OutputRows the blocks resident
//                      together write whole output rows, the last few percent.
//   transpose_sector_aligned  for shapes float4 cannot take: cuts each output row at 32-byte
//                      sector boundaries, so no store writes part of a sector (odd row counts
//                      lose a third of the bandwidth to partial-sector writes otherwise).
//   transpose_thin     fewer than 64 rows or columns: a chunk of whole rows (or columns) is
//                      one contiguous range on one side, a few on the other; copied through
//                      shared memory, float4 on both sides where the addresses allow.
// launch_vec4 (the chapter's best) picks: a copy for one row or column, transpose_thin below
// 16 rows or columns, transpose_vec4 where float4 fits, else transpose_thin (short and wide,
// or tall and narrow), transpose_sector_aligned or transpose_padded. Past 65,535 tiles along y
// the sector-aligned kernel loops over its bands and transpose_vec4 turns its grid round.
// What none of them can fix: a transpose must read every byte and write every byte once,
// so it can at best tie with a copy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/access_patterns.cuh"  // launch_copy, for a single row or column
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06 {

// =====================================================================================
// Kernels
// =====================================================================================

// Every transpose here moves a TILE×TILE patch per block with a block of TILE×BLOCK_ROWS
// threads; thread (threadIdx.x, threadIdx.y) handles rows threadIdx.y, threadIdx.y +
// BLOCK_ROWS, … of the patch, so a warp always covers 32 consecutive columns of one row.

// 1. Naive: each thread copies in[row + j][col] straight to out[col][row + j].
// A warp's 32 lanes have 32 consecutive `col`s: the load is one 128-byte line, the store
// lands in 32 different output rows, 4 useful bytes in each 32-byte sector.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  const int col = blockIdx.x * TILE + threadIdx.x;
  const int row = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols)
      out[size_t(col) * rows + (row + j)] = in[size_t(row + j) * cols + col];
}

// 2. Tiled: read a tile row by row, write it row by row; the transpose happens in shared
// memory, where a strided access costs bank conflicts instead of DRAM sectors.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  __shared__ float tile[TILE][TILE];
  int col = blockIdx.x * TILE + threadIdx.x;
  int row = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols)
      tile[threadIdx.y + j][threadIdx.x] = in[size_t(row + j) * cols + col];  // (TILE, TILE)
  // Every thread reads elements that other threads wrote.
  __syncthreads();
  // The block now walks the OUTPUT tile: its rows are input columns, its columns input rows.
  col = blockIdx.y * TILE + threadIdx.x;
  row = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < cols && col < rows)
      out[size_t(row + j) * rows + col] = tile[threadIdx.x][threadIdx.y + j];  // (TILE, TILE)
}

// 3. Padded: identical to transpose_tiled but for the + 1. Word (r, c) of the tile now
// lives in bank (r·(TILE + 1) + c) % 32 = (r + c) % 32, so the 32 lanes reading column c
// (r = lane) hit 32 different banks.
template <int TILE, int BLOCK_ROWS>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int rows,
                                 int cols) {
  static_assert(TILE % 32 == 0,
                "TILE must be a multiple of 32 so that a warp reads whole 128-byte row pieces");
  static_assert(TILE % BLOCK_ROWS == 0,
                "TILE must be a multiple of BLOCK_ROWS: each thread moves TILE/BLOCK_ROWS rows");
  static_assert(TILE * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  __shared__ float tile[TILE][TILE + 1];
  int col = blockIdx.x * TILE + threadIdx.x;
  int row = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols)
      tile[threadIdx.y + j][threadIdx.x] = in[size_t(row + j) * cols + col];  // (TILE, TILE + 1)
  // Every thread reads elements that other threads wrote.
  __syncthreads();
  // The block now walks the OUTPUT tile: its rows are input columns, its columns input rows.
  col = blockIdx.y * TILE + threadIdx.x;
  row = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < cols && col < rows)
      out[size_t(row + j) * rows + col] = tile[threadIdx.x][threadIdx.y + j];  // (TILE, TILE + 1)
}

// 5. Sector-aligned stores, for output rows that do not start on a 32-byte sector (rows not a
// multiple of 8 floats, or a misaligned `out`). The padded kernel then writes each 64-float
// piece of an output row across 9 sectors, the first and the last partly; their other parts
// come from a neighbouring block, and those partial writes cost a third of the bandwidth
// (README, section 6). Here output row c is cut at sector boundaries instead: block b writes
// out[c][SPAN·b − s .. SPAN·b − s + SPAN), SPAN = TILE_ROWS, with s = (float index of
// out[c][SPAN·b]) mod 8 the same for every b (SPAN is a multiple of 8), so every warp's store
// starts a sector. The segment moves back by up to SHIFT = 7 floats, so the block stages input
// rows SPAN·b − 7 .. SPAN·b + SPAN − 1 (7 more than it writes, read again by the block above:
// 7 / SPAN more reads, mostly L2 hits), and the grid has a block for the last 7 columns.
// TILE_ROWS input rows (output columns) by TILE_COLS input columns, TILE_COLS × BLOCK_ROWS
// threads. Measured on the H100 at odd shapes (README, section 6): 128 × 32 tiles with 32 × 8
// threads tie with 96 × 32 (within 0.2 points) and beat 64 × 64, 64 × 32 and 128 × 64; of the
// two we keep 128, whose 7 extra rows are 5.5% of the tile instead of 7.3%.
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
                                              int band, Tile& tile) {
    const int firstRow = band * TILE_ROWS - SHIFT;  // input row of tile row 0 (may be < 0)
    const int col = blockIdx.x * TILE_COLS + threadIdx.x;
    for (int j = threadIdx.y; j < ROWS; j += BLOCK_ROWS) {
      const int row = firstRow + j;
      if (row >= 0 && row < rows && col < cols)
        tile[j][threadIdx.x] = in[size_t(row) * cols + col];  // (TILE_ROWS + 7, TILE_COLS + 1)
    }
    // Every thread reads elements that other threads wrote.
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE_COLS; j += BLOCK_ROWS) {
      const int outRow = blockIdx.x * TILE_COLS + threadIdx.y + j;  // an input column
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
  }
};

// One band per block: block (x, y) moves band y of column block x.
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
__global__ void transpose_sector_aligned(const float* __restrict__ in, float* __restrict__ out,
                                         int rows, int cols) {
  using Kernel = SectorAligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS>;
  __shared__ typename Kernel::Tile tile;
  Kernel::band(in, out, rows, cols, blockIdx.y, tile);
}

// More than 8.4 million rows: more bands than a grid may have blocks along y (65,535). Each
// block takes every gridDim.y-th band. A separate kernel, because the loop costs the common
// case 15 points of the copy's speed (H200, 4100×4096: 70.0% against 87.4% without it).
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
__global__ void transpose_sector_aligned_bands(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols) {
  using Kernel = SectorAligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS>;
  __shared__ typename Kernel::Tile tile;
  const int bands = (rows + Kernel::SHIFT + TILE_ROWS - 1) / TILE_ROWS;
  for (int band = blockIdx.y; band < bands; band += gridDim.y) {  // the same for the whole block
    Kernel::band(in, out, rows, cols, band, tile);
    // The next band overwrites the tile: every thread must be done reading it.
    __syncthreads();
  }
}

// The 16-byte accesses of the float4 kernels. `p` must be 16-byte aligned.
__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

// 6. Thin matrices: fewer than 64 rows or 64 columns. A 64 × 64 tile holds only a few of them,
// and each output row (or input row) piece is a few floats: stores of 12 bytes per warp.
// Seen as flat arrays, though, a chunk of `span` input rows (tall: `cols` small) is one
// contiguous range of `in`, and its transpose is `cols` contiguous ranges ("segments") of
// `out`, `rows` floats apart; a chunk of `span` input columns (wide: `rows` small) is `rows`
// segments of `in` and one contiguous range of `out`. The block copies its chunk through shared
// memory (dynamic: the launcher sizes it), from one side to the other.
//
// Element (i, c) of a chunk, i along the long side (< span), c along the thin side (< thin),
// is chunk[i * P + c] with P = thin | 1: an odd pitch puts 32 consecutive i of one c in 32
// different banks. Both sides move float4 where the addresses allow (a third fewer
// instructions, and whole sectors on the segments):
//   - the contiguous side whenever its start is 16-byte aligned;
//   - each segment from its first 16-byte boundary on, a few floats before and after it one at
//     a time, when P == thin. With an even thin side, P = thin + 1 breaks the contiguous
//     side's float4s into scattered shared-memory accesses, and float4 segments on top of
//     that measured slower than one float per lane (README, section 6).
// Element k of a walk is (k / n, k % n) for the walk's row length n; a thread steps k by
// THREADS, so it steps the pair by (THREADS / n, THREADS % n) instead of dividing each time
// (an integer division costs about 20 instructions, as much as the copy's whole budget).
struct Walk {
  int q, r;          // k / n and k % n of the thread's current k
  int dq, dr, n;
  __device__ Walk(int k, int step, int n_) : q(k / n_), r(k % n_), dq(step / n_), dr(step % n_), n(n_) {}
  __device__ void next() {
    q += dq;
    r += dr;
    if (r >= n) {
      r -= n;
      ++q;
    }
  }
};

// One float, or four, between global memory and the chunk: TO_CHUNK reads global memory
// (the side a chunk is loaded from), else writes it. G is const float* or float*.
template <bool TO_CHUNK, class G>
__device__ __forceinline__ void move1(G global, float& shared) {
  if constexpr (TO_CHUNK) shared = *global;
  else *global = shared;
}
template <bool TO_CHUNK, class G>
__device__ __forceinline__ void move4(G global, float& s0, float& s1, float& s2, float& s3) {
  if constexpr (TO_CHUNK) {
    const float4 v = load4(global);
    s0 = v.x, s1 = v.y, s2 = v.z, s3 = v.w;
  } else {
    store4(global, make_float4(s0, s1, s2, s3));
  }
}

// The contiguous side: flat[k] is element (k / thin, k % thin), k < thin * span.
template <int THREADS, bool TO_CHUNK, class G>
__device__ void move_contiguous(G flat, float* chunk, int thin, int span) {
  const int P = thin | 1, count = thin * span;
  int k0 = 0;  // where the one-float loop starts
  if (reinterpret_cast<uintptr_t>(flat) % 16 == 0) {
    // float4 k holds elements 4k .. 4k + 3: (q, r) .. (q, r + 3), wrapping to row q + 1 at
    // most once (thin >= 3, or thin = 2 and r = 0). Element 4k + j sits at 4k + j + (P -
    // thin) * (its row), and P = thin for odd thin sides (1 and 3 included).
    const int pad = P - thin;
    Walk w(4 * threadIdx.x, 4 * THREADS, thin);
#pragma unroll 4
    for (int k = threadIdx.x; k < count / 4; k += THREADS, w.next()) {
      float* e = chunk + 4 * k + pad * w.q;
      const int wrap = thin - w.r;  // elements j >= wrap are on the next row
      move4<TO_CHUNK>(flat + 4 * k, e[0], e[1 + pad * (1 >= wrap)], e[2 + pad * (2 >= wrap)],
                      e[3 + pad * (3 >= wrap)]);
    }
    k0 = count / 4 * 4;
  }
  Walk w(k0 + threadIdx.x, THREADS, thin);
  for (int k = k0 + threadIdx.x; k < count; k += THREADS, w.next())
    move1<TO_CHUNK>(flat + k, chunk[w.q * P + w.r]);
}

// The segments: seg[c * stride + i] is element (i, c), c < thin, i < span.
template <int THREADS, bool TO_CHUNK, class G>
__device__ void move_segments(G seg, size_t stride, float* chunk, int thin, int span) {
  const int P = thin | 1;
  if (P != thin) {  // one float per lane, 32 consecutive i of a segment per warp
    Walk v(threadIdx.x, THREADS, span);
#pragma unroll 4
    for (int k = threadIdx.x; k < thin * span; k += THREADS, v.next())
      move1<TO_CHUNK>(seg + v.q * stride + v.r, chunk[v.r * P + v.q]);
    return;
  }
  // Segment c's float4 j covers i = head + 4j .. + 3, head < 4 floats before its first 16-byte
  // boundary; n4 = span / 4 - 1 of them fit every segment whatever its head.
  auto head = [&](int c) {
    return int((16 - reinterpret_cast<uintptr_t>(seg + c * stride) % 16) % 16 / 4);
  };
  const int n4 = span / 4 - 1;
  if (n4 > 0) {
    Walk v(threadIdx.x, THREADS, n4);
#pragma unroll 4
    for (int k = threadIdx.x; k < thin * n4; k += THREADS, v.next()) {
      const int c = v.q, i = head(c) + 4 * v.r;
      float* e = chunk + i * P + c;
      move4<TO_CHUNK>(seg + c * stride + i, e[0], e[P], e[2 * P], e[3 * P]);
    }
  }
  // The rest of each segment, i < head and i >= head + 4 * n4: at most 7 floats.
  constexpr int REST = 8;
  Walk v(threadIdx.x, THREADS, REST);
  for (int k = threadIdx.x; k < thin * REST; k += THREADS, v.next()) {
    const int c = v.q, h = n4 > 0 ? head(c) : 0;
    const int i = v.r < h ? v.r : v.r + 4 * max(n4, 0);
    if (i < span) move1<TO_CHUNK>(seg + c * stride + i, chunk[i * P + c]);
  }
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    transpose_thin(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                   int span_max) {
  extern __shared__ float chunk[];  // [span_max][thin | 1]
  const bool tall = cols < rows;    // the thin side is cols (tall) or rows (wide)
  const int thin = tall ? cols : rows;
  const int first = blockIdx.x * span_max;  // first input row (tall) or column (wide)
  const int span = min(span_max, (tall ? rows : cols) - first);
  if (tall) {
    move_contiguous<THREADS, true>(in + size_t(first) * cols, chunk, thin, span);
    __syncthreads();
    move_segments<THREADS, false>(out + first, size_t(rows), chunk, thin, span);
  } else {
    move_segments<THREADS, true>(in + first, size_t(cols), chunk, thin, span);
    __syncthreads();
    move_contiguous<THREADS, false>(out + size_t(first) * rows, chunk, thin, span);
  }
}

// Row k of the transposed 4×4 block held in v[0..3] (v[r] is row r): column k of v.
__device__ __forceinline__ float4 column(const float4 (&v)[4], int k) {
  switch (k) {
    case 0: return make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
    case 1: return make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
    case 2: return make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
    default: return make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
  }
}

// Where chunk `chunk` (a float4) of row `row` of the transposed tile is stored. A quarter
// of a warp (8 lanes: one shared-memory pass for 16-byte accesses) writes the same chunk of
// 8 rows 4 apart; XOR-ing with (row / 4) % 8 sends them to 8 different 4-bank groups. A row
// is read along its chunks, which the XOR only permutes: both sides are conflict-free.
__host__ __device__ constexpr int swizzled_chunk(int row, int chunk) {
  return chunk ^ ((row / 4) % 8);
}

// Which tile a block moves. Blocks start roughly in blockIdx order, so the ~1000 blocks
// resident at one time (132 SMs × 8 on an H100/H200) have consecutive blockIdx.x:
//   InputRows   blockIdx.x walks along a row of tiles: together the resident blocks read
//               whole input rows (one contiguous stream) and write short pieces of every
//               output row.
//   OutputRows  blockIdx.x walks down a column of tiles: together they write whole output
//               rows and read short pieces of every input row. DRAM takes scattered reads
//               better than scattered writes, so this order is the faster one.
enum class BlockOrder { InputRows, OutputRows };

// 4. float4 + swizzled tile. A tile is (TILE/4)² blocks of 4×4; block (i, j) covers input
// rows 4i..4i+3 and columns 4j..4j+3. Its thread loads 4 float4 (one per row), transposes
// the 4×4 block in registers and stores 4 float4 into the transposed tile, which the whole
// block then writes out one float4 per lane. Needs rows % 4 == 0, cols % 4 == 0 and 16-byte
// aligned pointers (the launcher checks). The second __launch_bounds__ argument asks for
// 2048 / THREADS resident blocks, i.e. a full SM (at most 32 registers for 256 threads).
template <int TILE, int THREADS, BlockOrder ORDER>
__global__ void __launch_bounds__(THREADS, 2048 / THREADS)
    transpose_vec4(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int CHUNKS = TILE / 4;                       // float4s per tile row
  constexpr int PER_THREAD = CHUNKS * CHUNKS / THREADS;  // 4×4 blocks per thread
  static_assert(TILE % 32 == 0, "TILE must be a multiple of 32: 8 float4 chunks per row at least, "
                                "so that the XOR swizzle over 8 bank groups stays inside a row");
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS must be whole warps, at most 1024");
  static_assert((CHUNKS * CHUNKS) % THREADS == 0,
                "(TILE/4)^2 4x4 blocks must divide evenly among THREADS threads");
  __shared__ float4 tileT[TILE][CHUNKS];  // tileT[c][i]: input rows 4i..4i+3 of column c

  const bool byInputRows = ORDER == BlockOrder::InputRows;
  const int blockRow = (byInputRows ? blockIdx.y : blockIdx.x) * TILE;  // first input row
  const int blockCol = (byInputRows ? blockIdx.x : blockIdx.y) * TILE;  // first input column

  // Every load first: 4·PER_THREAD float4 per thread in flight before any of them is used.
  float4 v[PER_THREAD][4];
#pragma unroll
  for (int p = 0; p < PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int row = blockRow + 4 * (b / CHUNKS);  // consecutive lanes walk along a row
    const int col = blockCol + 4 * (b % CHUNKS);
#pragma unroll
    for (int k = 0; k < 4; ++k)  // rows % 4 == 0: the 4 rows are all inside or all outside
      v[p][k] = (row < rows && col < cols) ? load4(in + size_t(row + k) * cols + col)
                                           : make_float4(0.f, 0.f, 0.f, 0.f);
  }
#pragma unroll
  for (int p = 0; p < PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int i = b / CHUNKS, j = b % CHUNKS;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      tileT[4 * j + k][swizzled_chunk(4 * j + k, i)] = column(v[p], k);  // (TILE, TILE/4)
  }
  // Every thread writes out chunks that other threads transposed.
  __syncthreads();
#pragma unroll
  for (int p = 0; p < 4 * PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int r = b / CHUNKS, c = b % CHUNKS;  // row r of the output tile, chunk c of it
    const int outRow = blockCol + r;            // output row = input column
    const int outCol = blockRow + 4 * c;        // output column = input row
    if (outRow < cols && outCol < rows)
      store4(out + size_t(outRow) * rows + outCol, tileT[r][swizzled_chunk(r, c)]);  // (TILE, TILE/4)
  }
}

// =====================================================================================
// Launchers: grid and block from the same template constants the kernels use.
// =====================================================================================

template <int TILE = 32, int BLOCK_ROWS = 8>
void launch_naive(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  tutorial::launch(transpose_naive<TILE, BLOCK_ROWS>, grid, dim3(TILE, BLOCK_ROWS), 0, in, out,
                   rows, cols);
}

template <int TILE = 32, int BLOCK_ROWS = 8>
void launch_tiled(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  tutorial::launch(transpose_tiled<TILE, BLOCK_ROWS>, grid, dim3(TILE, BLOCK_ROWS), 0, in, out,
                   rows, cols);
}

template <int TILE = 32, int BLOCK_ROWS = 8>
void launch_padded(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE), tutorial::ceil_div(rows, TILE));
  tutorial::launch(transpose_padded<TILE, BLOCK_ROWS>, grid, dim3(TILE, BLOCK_ROWS), 0, in, out,
                   rows, cols);
}

// The thin side transpose_thin takes (below kThinMax), the one below which the chapter's best
// always uses it, and below which it also takes tall matrices float4 cannot.
constexpr int kThinMax = 64, kThinSmall = 16, kThinTall = 48;

// The most blocks a grid may have along y (and z); along x it is 2^31 - 1.
constexpr int kMaxGridY = 65535;

// The grid's rows cover rows + 7 output columns: the last segments move back by up to 7.
// At most max_grid_y blocks along y (the hardware's 65,535; a test passes less to exercise the
// kernel's loop over bands): any number of rows fits.
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
void launch_sector_aligned_capped(const float* in, float* out, int rows, int cols,
                                  int max_grid_y) {
  const int bands = tutorial::ceil_div(rows + 7, TILE_ROWS);
  const dim3 block(TILE_COLS, BLOCK_ROWS);
  if (bands <= max_grid_y)
    tutorial::launch(transpose_sector_aligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS>,
                     dim3(tutorial::ceil_div(cols, TILE_COLS), bands), block, 0, in, out, rows,
                     cols);
  else
    tutorial::launch(transpose_sector_aligned_bands<TILE_ROWS, TILE_COLS, BLOCK_ROWS>,
                     dim3(tutorial::ceil_div(cols, TILE_COLS), max_grid_y), block, 0, in, out,
                     rows, cols);
}

template <int TILE_ROWS = 128, int TILE_COLS = 32, int BLOCK_ROWS = 8>
void launch_sector_aligned(const float* in, float* out, int rows, int cols) {
  launch_sector_aligned_capped<TILE_ROWS, TILE_COLS, BLOCK_ROWS>(in, out, rows, cols, kMaxGridY);
}

// One block per chunk of span_max rows (tall) or columns (wide), span_max a multiple of 32:
// the chunk holds at most CHUNK floats whatever the thin side.
template <int THREADS, int CHUNK>
void launch_thin_sized(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (thin >= kThinMax)
    throw tutorial::UnsupportedShape("transpose_thin: needs fewer than " + std::to_string(kThinMax) +
                                     " rows or columns, got " + std::to_string(rows) + "x" +
                                     std::to_string(cols));
  const int span_max = std::max(32, CHUNK / (thin | 1) / 32 * 32);
  const size_t smem = size_t(span_max) * (thin | 1) * sizeof(float);
  tutorial::launch(transpose_thin<THREADS>, dim3(tutorial::ceil_div(along, span_max)),
                   dim3(THREADS), smem, in, out, rows, cols, span_max);
}

// Tall matrices measured fastest with 512 threads and 12,288-float chunks, wide ones with 256
// threads and 8,192 floats (H100, README section 6: 1000001x47 92 against 84, 4x5000000 97
// against 88). Both stay within the 48 KB of shared memory any GPU gives a block unasked.
inline void launch_thin(const float* in, float* out, int rows, int cols) {
  if (cols < rows)
    launch_thin_sized<512, 12288>(in, out, rows, cols);
  else
    launch_thin_sized<256, 8192>(in, out, rows, cols);
}

// float4 needs every row start of `in` and `out` on a 16-byte boundary: both pointers
// aligned and both row lengths (cols for in, rows for out) multiples of 4 floats.
inline bool float4_aligned(const float* in, const float* out, int rows, int cols) {
  return rows % 4 == 0 && cols % 4 == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

// A single row or a single column: its transpose holds the same floats in the same order, so
// the launcher copies them (copy_vec4, access_patterns.cuh) instead of moving 64×64 tiles of
// which one row or column is real. Fewer than 16 rows or columns: transpose_thin, float4 or
// not (a 64 × 64 tile would hold a quarter of real data at best). Where float4 is impossible
// (a shape not a multiple of 4, a misaligned pointer) it runs transpose_thin for fewer than 64
// rows or 48 columns, else a scalar tile kernel, one float per access: the sector-aligned
// 128 × 32 tile where the output's rows do not start on 32-byte sectors, else the padded
// 64 × 64 tile. Each choice is the fastest measured on an H100 for its kind of shape (README,
// section 6).
template <int TILE = 64, int THREADS = 256, BlockOrder ORDER = BlockOrder::OutputRows>
void launch_vec4(const float* in, float* out, int rows, int cols) {
  const bool aligned_pointers =
      reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if ((rows == 1 || cols == 1) && aligned_pointers) {
    launch_copy(in, out, rows, cols);
    return;
  }
  if (std::min(rows, cols) < kThinSmall) {
    launch_thin(in, out, rows, cols);
    return;
  }
  if (!float4_aligned(in, out, rows, cols)) {
    if (rows < kThinMax && rows < cols)
      launch_thin(in, out, rows, cols);  // wide and short: a 128-row band would be mostly empty
    else if (cols < kThinTall && cols < rows)
      launch_thin(in, out, rows, cols);  // tall and narrow: most of a 32-column band is empty
    else if (rows % 8 != 0 || reinterpret_cast<uintptr_t>(out) % 32 != 0 ||
             tutorial::ceil_div(rows, 64) > kMaxGridY)  // (the padded grid has no room)
      launch_sector_aligned<128, 32, 8>(in, out, rows, cols);  // output rows off the sectors
    else
      launch_padded<64, 4>(in, out, rows, cols);  // only the input rows are: measured cheaper
    return;
  }
  const int tilesAcross = tutorial::ceil_div(cols, TILE), tilesDown = tutorial::ceil_div(rows, TILE);
  // The grid's y side holds at most 65,535 blocks: a matrix too long for the chosen order
  // takes the other one (both cannot overflow: that would be more than 2^44 floats).
  const bool input_rows = ORDER == BlockOrder::InputRows ? tilesDown <= kMaxGridY
                                                         : tilesAcross > kMaxGridY;
  if (input_rows)
    tutorial::launch(transpose_vec4<TILE, THREADS, BlockOrder::InputRows>,
                     dim3(tilesAcross, tilesDown), dim3(THREADS), 0, in, out, rows, cols);
  else
    tutorial::launch(transpose_vec4<TILE, THREADS, BlockOrder::OutputRows>,
                     dim3(tilesDown, tilesAcross), dim3(THREADS), 0, in, out, rows, cols);
}

}  // namespace ch06
