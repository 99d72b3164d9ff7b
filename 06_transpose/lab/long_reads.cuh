// Chapter 06, lab: step 5's tile turned on its side, for input rows whose pitch is off 128 bytes
// (LOG.md#engine-lanes-dram: with the same bytes, step 5's tile loses DRAM throughput where the
// input rows start off a line, not where the output rows do). Step 5 reads 128 bytes of each of
// 135 input rows and writes 512 bytes of each of 32 output rows; this tile reads COLS floats
// (512 bytes at 128) of each of ROWS + 7 input rows and writes ROWS floats of each of COLS output
// rows, each output piece moved back to start on a 32-byte sector as in step 5 (the 7 extra
// rows). A warp stores one output piece: ROWS = 32, one float a lane. Refuses (rather than loops
// over bands) a grid side past 65,535 blocks, and rows near INT_MAX.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/4_vec4.cuh"   // BlockOrder
#include "06_transpose/float4.cuh"   // load1_line
#include "common/ceil_div.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int COLS, int THREADS, ch06::BlockOrder ORDER>
__global__ void __launch_bounds__(THREADS)
    transpose_long_reads(const float* __restrict__ in, float* __restrict__ out, int rows,
                         int cols) {
  constexpr int ROWS = 32, SHIFT = 7, STAGED = ROWS + SHIFT;
  constexpr int WARPS = THREADS / 32, ROW_STEP = THREADS / COLS;  // input rows a load step
  static_assert(COLS % 32 == 0 && THREADS % COLS == 0 && COLS % WARPS == 0,
                "a load step covers whole input pieces; each warp stores COLS / WARPS pieces");
  __shared__ float tile[STAGED][COLS + 1];  // +1: a warp reads a column, 32 rows apart
  const bool byInput = ORDER == ch06::BlockOrder::InputRows;
  const int band = byInput ? blockIdx.y : blockIdx.x;
  const int colBlock = byInput ? blockIdx.x : blockIdx.y;
  const int firstRow = band * ROWS - SHIFT;  // input row of tile row 0 (may be < 0)
  const int c = threadIdx.x % COLS, col = colBlock * COLS + c;
  // Unrolled with a fixed count, as step 5's, so that the loads issue ahead of their stores.
  constexpr int LOADS = (STAGED + ROW_STEP - 1) / ROW_STEP;
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int j = threadIdx.x / COLS + i * ROW_STEP, row = firstRow + j;
    if (j < STAGED && row >= 0 && row < rows && col < cols)
      tile[j][c] = ch06::load1_line(in + size_t(row) * cols + col);
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 4
  for (int k = warp; k < COLS; k += WARPS) {
    const int outRow = colBlock * COLS + k;  // an input column
    if (outRow >= cols) break;               // (the same for the whole warp)
    float* dst = out + size_t(outRow) * rows;
    const int s = int((reinterpret_cast<uintptr_t>(dst) / sizeof(float) +
                       size_t(band) * ROWS) % 8);
    const int outCol = band * ROWS - s + lane;  // an input row
    if (outCol >= 0 && outCol < rows) dst[outCol] = tile[SHIFT - s + lane][k];
  }
}

template <int COLS, int THREADS, ch06::BlockOrder ORDER = ch06::BlockOrder::OutputRows>
void launch_long_reads(const float* in, float* out, int rows, int cols) {
  constexpr int ROWS = 32;
  if (rows > INT_MAX - 2 * ROWS)
    throw tutorial::UnsupportedShape("transpose_long_reads: " + std::to_string(rows) +
                                     " rows: its bands would start past INT_MAX");
  const int bands = int((static_cast<long long>(rows) + 7 + ROWS - 1) / ROWS);
  const int colBlocks = tutorial::ceil_div(cols, COLS);
  const bool byInput = ORDER == ch06::BlockOrder::InputRows;
  if ((byInput ? bands : colBlocks) > tutorial::kMaxGridY)
    throw tutorial::UnsupportedShape("transpose_long_reads: more than 65,535 blocks along y");
  tutorial::launch(transpose_long_reads<COLS, THREADS, ORDER>,
                   byInput ? dim3(colBlocks, bands) : dim3(bands, colBlocks), dim3(THREADS), 0,
                   in, out, rows, cols);
}

}  // namespace ch06lab
