// Chapter 06, lab: transpose_shifted, 16-byte loads and stores at any shape (an experiment).
//
// Step 5's sector-aligned tile moves one float per access wherever a row of the input or of the
// output does not start on 16 bytes. Here every global access is a float4 on a 16-byte
// boundary, whatever rows, cols and the pointers are:
//   - load side: the float4s that cover input row r's columns C0 .. C0 + TC - 1 start
//     a_r = (address of in[r][C0] / 4) % 4 floats before C0: TC / 4 + 1 of them, the first and
//     the last partly outside the block's columns (those floats are dropped);
//   - store side: the block writes output row c from column R0 - b_c, where
//     b_c = (address of out[c][R0] / 4) % 4, a segment of TR floats that starts on 16 bytes, so
//     it needs input rows R0 - 3 .. R0 + TR - 1 (3 more than it writes, read again by the band
//     above: step 5's idea at 16 bytes instead of 32);
//   - shared memory absorbs both shifts: element (input row R0 - b_c + p, column C0 + c) sits at
//     position p of tile row c, so a float4 of the output is a float4 of the tile. The tile's
//     float4 chunks are XOR-swizzled by (c / 4) % 8: the scalar stores of one warp (lanes 4
//     columns apart) spread over the banks, and the 16-byte reads along a row stay
//     conflict-free.
// Only a float4 that would reach outside the whole matrix (its first or last floats) or a row
// of the output (its ends) goes one float at a time.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/4_vec4.cuh"  // BlockOrder
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06lab {

template <int TR, int TC, int THREADS>
struct Shifted {
  static_assert(TR % 32 == 0, "TR / 4 float4 chunks a tile row, a multiple of 8 for the swizzle");
  static_assert(TC % 4 == 0, "the tile's columns come in float4s");
  static_assert((TC * TR / 4) % THREADS == 0, "the store side: whole float4s per thread");
  static constexpr int CHUNKS = TR / 4;          // float4 chunks in a row of the tile
  static constexpr int PER_ROW = TC / 4 + 1;     // float4 loads covering TC shifted columns
  static constexpr int LOAD_ROWS = TR + 3;       // input rows R0 - 3 .. R0 + TR - 1
  static constexpr int LOADS = (LOAD_ROWS * PER_ROW + THREADS - 1) / THREADS;
  static constexpr int STORES = TC * CHUNKS / THREADS;

  // Word of the tile holding position p of tile row c.
  static __device__ __forceinline__ int slot(int c, int p) {
    return c * TR + (((p >> 2) ^ ((c >> 2) & 7)) << 2) + (p & 3);
  }
  // Chunk k of tile row c (as a float4 index).
  static __device__ __forceinline__ int chunk(int c, int k) {
    return c * CHUNKS + (k ^ ((c >> 2) & 7));
  }

  static __device__ __forceinline__ void tile(const float* __restrict__ in,
                                              float* __restrict__ out, int rows, int cols,
                                              int band, int colBlock, float* smem) {
    const int R0 = band * TR, C0 = colBlock * TC;
    const int inMis = int((reinterpret_cast<uintptr_t>(in) >> 2) & 3);
    const int outMis = int((reinterpret_cast<uintptr_t>(out) >> 2) & 3);
    const long long total = (long long)rows * cols;
    const int lim = cols - C0 < TC ? cols - C0 : TC;  // columns of this block inside the matrix
    // Every load first.
    float4 v[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int item = threadIdx.x + i * THREADS;
      const int j = item / PER_ROW, q = item % PER_ROW;
      const int r = R0 - 3 + j;
      const int a = (inMis + (r & 3) * (cols & 3) + C0) & 3;
      const int lo = 4 * q - a;  // column (from C0) of the float4's first float
      v[i] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (j < LOAD_ROWS && r >= 0 && r < rows && lo < lim) {
        const long long g = (long long)r * cols + C0 + lo;  // flat index of its first float
        if (g >= 0 && g + 4 <= total) {
          v[i] = ch06::load4(in + g);
        } else {  // the matrix's first or last float4: only the floats inside it
          if (g + 0 >= 0 && g + 0 < total) v[i].x = in[g + 0];
          if (g + 1 >= 0 && g + 1 < total) v[i].y = in[g + 1];
          if (g + 2 >= 0 && g + 2 < total) v[i].z = in[g + 2];
          if (g + 3 >= 0 && g + 3 < total) v[i].w = in[g + 3];
        }
      }
    }
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int item = threadIdx.x + i * THREADS;
      const int j = item / PER_ROW, q = item % PER_ROW;
      const int r = R0 - 3 + j;
      if (j >= LOAD_ROWS || r < 0 || r >= rows) continue;
      const int a = (inMis + (r & 3) * (cols & 3) + C0) & 3;  // recomputed: fewer registers
      const float e4[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int c = 4 * q + e - a;
        if (c < 0 || c >= lim) continue;
        const int b = (outMis + ((C0 + c) & 3) * (rows & 3)) & 3;
        const int p = j - 3 + b;
        if (p >= 0 && p < TR) smem[slot(c, p)] = e4[e];
      }
    }
    // Every thread writes out floats that other threads loaded.
    __syncthreads();
    const float4* smem4 = reinterpret_cast<const float4*>(smem);
#pragma unroll
    for (int i = 0; i < STORES; ++i) {
      const int item = threadIdx.x + i * THREADS;
      const int c = item / CHUNKS, k = item % CHUNKS;  // consecutive lanes: consecutive chunks
      if (c >= lim) continue;
      const int b = (outMis + ((C0 + c) & 3) * (rows & 3)) & 3;
      const int x = R0 - b + 4 * k;  // output column of the chunk's first float
      if (x + 3 < 0 || x >= rows) continue;
      const float4 w = smem4[chunk(c, k)];
      const size_t rowStart = (size_t)(C0 + c) * rows;  // out[C0 + c][0]
      if (x >= 0 && x + 3 < rows) {
        ch06::store4(out + rowStart + x, w);
      } else {  // the ends of an output row: the floats of this row only
        if (x + 0 >= 0 && x + 0 < rows) out[rowStart + x + 0] = w.x;
        if (x + 1 >= 0 && x + 1 < rows) out[rowStart + x + 1] = w.y;
        if (x + 2 >= 0 && x + 2 < rows) out[rowStart + x + 2] = w.z;
        if (x + 3 >= 0 && x + 3 < rows) out[rowStart + x + 3] = w.w;
      }
    }
  }
};

// MIN_BLOCKS: the resident blocks an SM asks of ptxas (__launch_bounds__), a register cap.
template <int TR, int TC, int THREADS, ch06::BlockOrder ORDER, int MIN_BLOCKS = 1>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_shifted(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ __align__(16) float smem[TC * TR];
  if (ORDER == ch06::BlockOrder::InputRows)
    Shifted<TR, TC, THREADS>::tile(in, out, rows, cols, blockIdx.y, blockIdx.x, smem);
  else
    Shifted<TR, TC, THREADS>::tile(in, out, rows, cols, blockIdx.x, blockIdx.y, smem);
}

// Bands of TR input rows: ceil((rows + 3) / TR), the last segments move back by up to 3.
template <int TR = 128, int TC = 32, int THREADS = 256,
          ch06::BlockOrder ORDER = ch06::BlockOrder::InputRows, int MIN_BLOCKS = 1>
void launch_shifted(const float* in, float* out, int rows, int cols) {
  if (reinterpret_cast<uintptr_t>(in) % 4 || reinterpret_cast<uintptr_t>(out) % 4)
    throw tutorial::UnsupportedShape("transpose_shifted: pointers must be 4-byte aligned");
  if (rows > INT_MAX - 2 * TR)  // band * TR + TR + 3 stays an int
    throw tutorial::UnsupportedShape("transpose_shifted: more rows than its int indices hold");
  const int bands = int(((long long)rows + 3 + TR - 1) / TR);
  const int colBlocks = tutorial::ceil_div(cols, TC);
  const bool inputRows = ORDER == ch06::BlockOrder::InputRows ? bands <= tutorial::kMaxGridY
                                                              : colBlocks > tutorial::kMaxGridY;
  if (inputRows ? bands > tutorial::kMaxGridY : colBlocks > tutorial::kMaxGridY)
    throw tutorial::UnsupportedShape("transpose_shifted: " + std::to_string(rows) + "x" +
                                     std::to_string(cols) + " needs more blocks than a grid side");
  if (inputRows)
    tutorial::launch(transpose_shifted<TR, TC, THREADS, ch06::BlockOrder::InputRows, MIN_BLOCKS>,
                     dim3(colBlocks, bands), dim3(THREADS), 0, in, out, rows, cols);
  else
    tutorial::launch(transpose_shifted<TR, TC, THREADS, ch06::BlockOrder::OutputRows, MIN_BLOCKS>,
                     dim3(bands, colBlocks), dim3(THREADS), 0, in, out, rows, cols);
}

}  // namespace ch06lab
