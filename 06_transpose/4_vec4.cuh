// Chapter 06, step 4: transpose_vec4, float4 on both sides and a swizzled tile.
//
// What changed since step 3: every global access moves 16 bytes (a warp covers 512 contiguous
// bytes with one instruction: a quarter of the instructions for the same sectors). Each thread
// loads 4 float4 of 4 input rows, transposes the 4×4 block in registers and stores 4 float4 into
// a transposed tile; an XOR swizzle of the tile's float4 chunks keeps those 16-byte
// shared-memory accesses conflict-free. The blocks' order (BlockOrder, every_shape.md, part 1)
// decides which side streams through DRAM: with OutputRows the blocks resident together write
// whole output rows, the last few percent.
// What it still gets wrong: float4 needs rows and cols multiples of 4 and 16-byte aligned
// pointers (float4_aligned); launch_vec4 refuses every other shape (UnsupportedShape), and on a
// matrix of fewer than 64 rows or columns most of each 64 x 64 tile is empty. Steps 5 and 6.
#pragma once

#include <string>

#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06 {

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
// resident at one time (a GPU of 132 SMs holds 132 × 8) have consecutive blockIdx.x:
//   InputRows   blockIdx.x walks along a row of tiles: together the resident blocks read
//               whole input rows (one contiguous stream) and write short pieces of every
//               output row.
//   OutputRows  blockIdx.x walks down a column of tiles: together they write whole output
//               rows and read short pieces of every input row. DRAM takes scattered reads
//               better than scattered writes, so this order is usually the faster one; not
//               always (a tall matrix whose column of tiles outnumbers the resident blocks).
enum class BlockOrder { InputRows, OutputRows };

// float4 + swizzled tile. A tile is (TILE/4)² blocks of 4×4; block (i, j) covers input
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

  // BEGIN QUOTE block-order
  const bool byInputRows = ORDER == BlockOrder::InputRows;
  const int blockRow = (byInputRows ? blockIdx.y : blockIdx.x) * TILE;  // first input row
  const int blockCol = (byInputRows ? blockIdx.x : blockIdx.y) * TILE;  // first input column
  // END QUOTE block-order

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
  // BEGIN QUOTE vec4-tile
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
  // END QUOTE vec4-tile
}

// transpose_vec4 where float4 fits; any other shape or pointer is refused with the reason.
template <int TILE = 64, int THREADS = 256, BlockOrder ORDER = BlockOrder::OutputRows>
void launch_vec4(const float* in, float* out, int rows, int cols) {
  if (!float4_aligned(in, out, rows, cols))
    throw tutorial::UnsupportedShape(
        "transpose_vec4: float4 needs rows and cols multiples of 4 and 16-byte aligned "
        "pointers, got " + std::to_string(rows) + "x" + std::to_string(cols) +
        (rows % 4 == 0 && cols % 4 == 0 ? " at a misaligned pointer" : ""));
  const int tilesAcross = tutorial::ceil_div(cols, TILE);
  const int tilesDown = tutorial::ceil_div(rows, TILE);
  // The grid's y side holds at most 65,535 blocks: a matrix too long for the chosen order
  // takes the other one (both cannot overflow: that would be more than 2^44 floats).
  const bool input_rows = ORDER == BlockOrder::InputRows ? tilesDown <= tutorial::kMaxGridY
                                                         : tilesAcross > tutorial::kMaxGridY;
  if (input_rows)
    tutorial::launch(transpose_vec4<TILE, THREADS, BlockOrder::InputRows>,
                     dim3(tilesAcross, tilesDown), dim3(THREADS), 0, in, out, rows, cols);
  else
    tutorial::launch(transpose_vec4<TILE, THREADS, BlockOrder::OutputRows>,
                     dim3(tilesDown, tilesAcross), dim3(THREADS), 0, in, out, rows, cols);
}

}  // namespace ch06
