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
//   transpose_thin     fewer than 8 rows or columns: a chunk of whole rows (or columns) is
//                      one contiguous range on one side, a few on the other; copied through
//                      shared memory in the order that keeps both sides contiguous.
// launch_vec4 (the chapter's best) picks: a copy for one row or column, transpose_vec4 where
// float4 fits, else transpose_thin, transpose_sector_aligned or transpose_padded.
// What none of them can fix: a transpose must read every byte and write every byte once,
// so it can at best tie with a copy.
#pragma once

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
// threads beat 64 × 64, 64 × 32, 96 × 32 and 128 × 64 (7 extra rows are 5.5% of 128).
template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
__global__ void transpose_sector_aligned(const float* __restrict__ in, float* __restrict__ out,
                                         int rows, int cols) {
  static_assert(TILE_COLS % 32 == 0 && TILE_ROWS % TILE_COLS == 0,
                "a warp moves 32 floats of a row: TILE_COLS a multiple of 32, TILE_ROWS of "
                "TILE_COLS");
  static_assert(TILE_COLS % BLOCK_ROWS == 0,
                "each thread moves TILE_COLS / BLOCK_ROWS output rows");
  static_assert(TILE_COLS * BLOCK_ROWS <= 1024, "a block has at most 1024 threads");
  constexpr int SHIFT = 7;  // a 32-byte sector holds 8 floats: segments move back 0..7
  constexpr int ROWS = TILE_ROWS + SHIFT;
  __shared__ float tile[ROWS][TILE_COLS + 1];
  const int firstRow = blockIdx.y * TILE_ROWS - SHIFT;  // input row of tile row 0 (may be < 0)
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
    // s: how far out[outRow][SPAN·b] lies past the start of its sector, in floats.
    const int s = int((reinterpret_cast<uintptr_t>(dst) / sizeof(float) +
                       size_t(blockIdx.y) * TILE_ROWS) % 8);
#pragma unroll
    for (int h = 0; h < TILE_ROWS; h += TILE_COLS) {
      const int outCol = blockIdx.y * TILE_ROWS - s + h + threadIdx.x;  // an input row
      if (outCol >= 0 && outCol < rows)
        dst[outCol] = tile[SHIFT - s + h + threadIdx.x][threadIdx.y + j];  // (TILE_ROWS + 7, ..)
    }
  }
}

// 6. Thin matrices: fewer than 8 rows or 8 columns. A 64 × 64 tile holds only a few of them,
// and each output row (or input row) piece is a few floats: stores of 12 bytes per warp.
// Seen as flat arrays, though, a chunk of SPAN input rows (tall: `cols` small) is one
// contiguous range of `in`, and its transpose is `cols` contiguous ranges of `out`; a chunk of
// SPAN input columns (wide: `rows` small) is `rows` contiguous ranges of `in` and one
// contiguous range of `out`. The block copies its chunk through shared memory in the order
// that makes both sides contiguous. SMALL is the thin side's bound (rows or cols < SMALL).
template <int THREADS, int SPAN, int SMALL>
__global__ void transpose_thin(const float* __restrict__ in, float* __restrict__ out, int rows,
                               int cols) {
  __shared__ float chunk[SMALL * (SPAN + 1)];  // (thin, SPAN + 1): + 1 against bank conflicts
  const bool tall = cols < SMALL;              // else wide: rows < SMALL
  const int thin = tall ? cols : rows;
  const int first = blockIdx.x * SPAN;         // first input row (tall) or column (wide)
  const int span = min(SPAN, (tall ? rows : cols) - first);
  const int count = thin * span;
  if (tall) {
    // in[first .. first + span)[0 .. cols): contiguous; element k is (row k / cols, col k % cols)
    const float* src = in + size_t(first) * cols;
    for (int k = threadIdx.x; k < count; k += THREADS)
      chunk[(k % cols) * (SPAN + 1) + k / cols] = src[k];
    __syncthreads();
    // out[c][first .. first + span) for each c: `cols` contiguous pieces
    for (int k = threadIdx.x; k < count; k += THREADS) {
      const int c = k / span, j = k - c * span;
      out[size_t(c) * rows + first + j] = chunk[c * (SPAN + 1) + j];
    }
  } else {
    // in[r][first .. first + span) for each r: `rows` contiguous pieces
    for (int k = threadIdx.x; k < count; k += THREADS) {
      const int r = k / span, j = k - r * span;
      chunk[r * (SPAN + 1) + j] = in[size_t(r) * cols + first + j];
    }
    __syncthreads();
    // out[first .. first + span)[0 .. rows): contiguous; element k is (col k / rows, row k % rows)
    float* dst = out + size_t(first) * rows;
    for (int k = threadIdx.x; k < count; k += THREADS)
      dst[k] = chunk[(k % rows) * (SPAN + 1) + k / rows];
  }
}

// The 16-byte accesses of the float4 kernels. `p` must be 16-byte aligned.
__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

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

// The grid's rows cover rows + 7 output columns: the last segments move back by up to 7.
template <int TILE_ROWS = 128, int TILE_COLS = 32, int BLOCK_ROWS = 8>
void launch_sector_aligned(const float* in, float* out, int rows, int cols) {
  const dim3 grid(tutorial::ceil_div(cols, TILE_COLS), tutorial::ceil_div(rows + 7, TILE_ROWS));
  tutorial::launch(transpose_sector_aligned<TILE_ROWS, TILE_COLS, BLOCK_ROWS>, grid,
                   dim3(TILE_COLS, BLOCK_ROWS), 0, in, out, rows, cols);
}

// One block per SPAN rows (tall) or columns (wide). Needs rows < SMALL or cols < SMALL.
constexpr int kThinThreads = 256, kThinSpan = 1024, kThinSmall = 8;
inline void launch_thin(const float* in, float* out, int rows, int cols) {
  if (rows >= kThinSmall && cols >= kThinSmall)
    throw tutorial::UnsupportedShape("transpose_thin: needs fewer than 8 rows or 8 columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int along = cols < kThinSmall ? rows : cols;
  tutorial::launch(transpose_thin<kThinThreads, kThinSpan, kThinSmall>,
                   dim3(tutorial::ceil_div(along, kThinSpan)), dim3(kThinThreads), 0, in, out,
                   rows, cols);
}

// float4 needs every row start of `in` and `out` on a 16-byte boundary: both pointers
// aligned and both row lengths (cols for in, rows for out) multiples of 4 floats.
inline bool float4_aligned(const float* in, const float* out, int rows, int cols) {
  return rows % 4 == 0 && cols % 4 == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

// A single row or a single column: its transpose holds the same floats in the same order, so
// the launcher copies them (copy_vec4, access_patterns.cuh) instead of moving 64×64 tiles of
// which one row or column is real. Where float4 is impossible (a shape not a multiple of 4,
// a misaligned pointer) it runs the scalar sector-aligned kernel: the same 64-wide tile, one
// float per access, every store starting a 32-byte sector.
template <int TILE = 64, int THREADS = 256, BlockOrder ORDER = BlockOrder::OutputRows>
void launch_vec4(const float* in, float* out, int rows, int cols) {
  const bool aligned_pointers =
      reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if ((rows == 1 || cols == 1) && aligned_pointers) {
    launch_copy(in, out, rows, cols);
    return;
  }
  if (!float4_aligned(in, out, rows, cols)) {
    if (rows < kThinSmall || cols < kThinSmall)
      launch_thin(in, out, rows, cols);
    else if (rows % 8 != 0 || reinterpret_cast<uintptr_t>(out) % 32 != 0)
      launch_sector_aligned<128, 32, 8>(in, out, rows, cols);  // output rows off the sectors
    else
      launch_padded<64, 4>(in, out, rows, cols);  // only the input rows are: measured cheaper
    return;
  }
  const int tilesAcross = tutorial::ceil_div(cols, TILE), tilesDown = tutorial::ceil_div(rows, TILE);
  const dim3 grid = ORDER == BlockOrder::InputRows ? dim3(tilesAcross, tilesDown)
                                                   : dim3(tilesDown, tilesAcross);
  tutorial::launch(transpose_vec4<TILE, THREADS, ORDER>, grid, dim3(THREADS), 0, in, out, rows,
                   cols);
}

}  // namespace ch06
