// Chapter 06, lab: step 5's sector-aligned tile with its output segments stored by the copy
// engine (experiment, prepared for a GPU run; not yet measured).
//
// Step 5's block writes TILE_COLS output rows, each a segment of SPAN = TILE_ROWS floats that
// starts on a 32-byte sector, with 4 warp stores a segment (TILE_ROWS / 32) and their address
// arithmetic. Page 5 (thin_bulk.md) measured a wide chunk's output written by the bulk copy
// engine faster than by the threads. Here the tile is kept in the output's order: output row c
// of the block (input column colBlock·TILE_COLS + c) at words c·P + a_c + j, j the tile row, so
// that its segment [7 − s_c, 7 − s_c + SPAN) of tile rows starts on 16 bytes in shared memory:
// a_c = (s_c + 1) mod 4 (then a_c + 7 − s_c is a multiple of 4), P a multiple of 4 that holds
// ROWS + 3 words. One lane of the first warp a row hands each whole segment to the engine
// (`cp.async.bulk`, 16-byte aligned at both ends: the global start is on a sector); segments
// that leave the matrix (the first and last bands) and every segment before sm_90 or on the CPU
// backend are stored by the threads. The loads write the tile down its columns: lanes c = 0..31
// write words c·P + ..., gcd(P, 32)-way conflicts at least 4-way (P a multiple of 4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/4_vec4.cuh"  // BlockOrder
#include "06_transpose/float4.cuh"   // load1_line
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS>
struct TileBulk {
  static_assert(TILE_COLS == 32 && TILE_ROWS % 32 == 0, "a warp a row of the input; SPAN whole warps");
  static_assert(TILE_COLS % BLOCK_ROWS == 0, "each thread moves TILE_COLS / BLOCK_ROWS output rows");
  static constexpr int SHIFT = 7;                      // segments move back 0..7 (a sector)
  static constexpr int ROWS = TILE_ROWS + SHIFT;       // input rows staged
  static constexpr int P = (ROWS + 3 + 3) / 4 * 4;     // words an output row, a multiple of 4
  static constexpr int WORDS = TILE_COLS * P;
};

template <int TILE_ROWS, int TILE_COLS, int BLOCK_ROWS, ch06::BlockOrder ORDER>
__global__ void __launch_bounds__(TILE_COLS * BLOCK_ROWS)
    transpose_tile_bulk(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  using K = TileBulk<TILE_ROWS, TILE_COLS, BLOCK_ROWS>;
  __shared__ __align__(16) float tileT[K::WORDS];  // tileT[c·P + a_c + j]
  const bool byInputRows = ORDER == ch06::BlockOrder::InputRows;
  const int band = byInputRows ? blockIdx.y : blockIdx.x;
  const int colBlock = byInputRows ? blockIdx.x : blockIdx.y;
  const int firstRow = band * TILE_ROWS - K::SHIFT;  // input row of tile row 0 (may be < 0)
  const int col = colBlock * TILE_COLS + threadIdx.x;
  // s and a of the output row this lane's column becomes (c = threadIdx.x).
  // (In integers: no pointer past `out` is formed for output rows that do not exist.)
  auto shift_of = [&](int c) {
    const size_t at = reinterpret_cast<uintptr_t>(out) / sizeof(float) +
                      size_t(colBlock * TILE_COLS + c) * rows + size_t(band) * TILE_ROWS;
    return int(at % 8);
  };
  const int myA = (shift_of(threadIdx.x) + 1) % 4;
  constexpr int LOADS = (K::ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int j = threadIdx.y + i * BLOCK_ROWS;
    const int row = firstRow + j;
    if (j < K::ROWS && row >= 0 && row < rows && col < cols)
      tileT[threadIdx.x * K::P + myA + j] = ch06::load1_line(in + size_t(row) * cols + col);
  }
  const int tid = threadIdx.y * TILE_COLS + threadIdx.x;
  constexpr int THREADS = TILE_COLS * BLOCK_ROWS;
  // Which segments the engine takes: inside the matrix (both ends) and an output row that exists.
  auto whole = [&](int c, int s) {
    const int outRow = colBlock * TILE_COLS + c, o0 = band * TILE_ROWS - s;
    return outRow < cols && o0 >= 0 && o0 + TILE_ROWS <= rows;
  };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (tid < TILE_COLS) {  // one lane a segment
    const int c = tid, s = shift_of(c);
    if (whole(c, s)) {
      float* dst = out + size_t(colBlock * TILE_COLS + c) * rows + (band * TILE_ROWS - s);
      const int a = (s + 1) % 4;
      const unsigned from = static_cast<unsigned>(
          __cvta_generic_to_shared(tileT + c * K::P + a + K::SHIFT - s));
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   :: "l"(dst), "r"(from), "r"(unsigned(TILE_ROWS) * 4u) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
  constexpr bool ENGINE = true;
#else
  __syncthreads();
  constexpr bool ENGINE = false;
#endif
  // The threads: every segment the engine did not take, a warp 32 consecutive outputs.
  for (int k = tid; k < TILE_COLS * TILE_ROWS; k += THREADS) {
    const int c = k / TILE_ROWS, h = k % TILE_ROWS;
    const int s = shift_of(c);
    if (ENGINE && whole(c, s)) continue;
    const int outRow = colBlock * TILE_COLS + c, o = band * TILE_ROWS - s + h;
    if (outRow < cols && o >= 0 && o < rows)
      out[size_t(outRow) * rows + o] = tileT[c * K::P + (s + 1) % 4 + K::SHIFT - s + h];
  }
}

// As step 5's launcher: rows + 7 output columns of bands, at most 65,535 blocks along y.
template <int TILE_ROWS = 128, int TILE_COLS = 32, int BLOCK_ROWS = 8,
          ch06::BlockOrder ORDER = ch06::BlockOrder::OutputRows>
void launch_tile_bulk(const float* in, float* out, int rows, int cols) {
  const int bands = int((static_cast<long long>(rows) + 7 + TILE_ROWS - 1) / TILE_ROWS);
  const int colBlocks = tutorial::ceil_div(cols, TILE_COLS);
  const bool byInputRows = ORDER == ch06::BlockOrder::InputRows;
  if ((byInputRows ? bands : colBlocks) > tutorial::kMaxGridY)
    throw tutorial::UnsupportedShape("transpose_tile_bulk: more than 65,535 blocks along y, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const dim3 grid = byInputRows ? dim3(colBlocks, bands) : dim3(bands, colBlocks);
  tutorial::launch(transpose_tile_bulk<TILE_ROWS, TILE_COLS, BLOCK_ROWS, ORDER>, grid,
                   dim3(TILE_COLS, BLOCK_ROWS), 0, in, out, rows, cols);
}

}  // namespace ch06lab
