// Chapter 06, lab: step 4's and step 5's tiles with an L2 prefetch-size hint on their loads
// (an experiment).
//
// transpose_vec4 runs slower where the input's row pitch is not a multiple of 256 bytes
// (lab/LOG.md#row-pitch): a half-warp's 256-byte piece of a row then covers parts of two aligned
// 256-byte blocks, and the other parts are read by another block, later. PTX lets a load ask
// the L2 to fetch more than the sectors it touches: `ld.global.nc.L2::256B` hints that the L2
// fetch 256 bytes around the access (L2::64B and L2::128B the same for 64 and 128). If the
// loss comes from DRAM serving each aligned 256-byte block in two visits, the hint should win
// it back: the first visit brings the whole block into the L2, the second hits there.
// HINT = 0: plain loads, as step 4 loads and as step 5 loaded before it took the 128-byte hint
// (whole_lines.md): the control. (h128secOut loads as step 5 now does; a copy.)
// The kernels are copies of steps 4 and 5 with only their loads changed; the step files stay as
// the lesson quotes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/4_vec4.cuh"
#include "06_transpose/5_sector_aligned.cuh"
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06lab {

// A float4 (16-byte aligned p) and a float, loaded through the read-only path with the L2
// prefetch-size hint HINT (0, 64, 128 or 256 bytes; 0: no hint).
template <int HINT>
__device__ __forceinline__ float4 load4_hint(const float* p) {
  static_assert(HINT == 0 || HINT == 64 || HINT == 128 || HINT == 256, "HINT: 0, 64, 128, 256");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (HINT != 0) {
    float4 v;
    if constexpr (HINT == 64)
      asm("ld.global.nc.L2::64B.v4.f32 {%0, %1, %2, %3}, [%4];"
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (HINT == 128)
      asm("ld.global.nc.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else
      asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
  }
#endif
  return ch06::load4(p);
}

// What a scalar load with the 128-byte hint asks of the L1 (lab/LOG.md#l1-share): Cached, the
// read-only path as step 5 loads (the line is allocated in the L1); NoAllocate, the same path
// told not to keep the line (`.L1::no_allocate`); L2Only, the L2 alone (`ld.global.cg`).
enum class L1Policy { Cached, NoAllocate, L2Only };

template <L1Policy P>
__device__ __forceinline__ float load1_l1(const float* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float v;
  if constexpr (P == L1Policy::Cached)
    asm("ld.global.nc.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  else if constexpr (P == L1Policy::NoAllocate)
    asm("ld.global.nc.L1::no_allocate.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  else
    asm("ld.global.cg.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}

template <int HINT>
__device__ __forceinline__ float load1_hint(const float* p) {
  static_assert(HINT == 0 || HINT == 64 || HINT == 128 || HINT == 256, "HINT: 0, 64, 128, 256");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (HINT != 0) {
    float v;
    if constexpr (HINT == 64)
      asm("ld.global.nc.L2::64B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    else if constexpr (HINT == 128)
      asm("ld.global.nc.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    else
      asm("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
  }
#endif
  return *p;
}

// Step 4's transpose_vec4 (64 x 64 tile, 256 threads), its loads hinted.
template <int HINT, ch06::BlockOrder ORDER>
__global__ void __launch_bounds__(256, 8)
    transpose_vec4_hint(const float* __restrict__ in, float* __restrict__ out, int rows,
                        int cols) {
  constexpr int TILE = 64, THREADS = 256, CHUNKS = TILE / 4;
  constexpr int PER_THREAD = CHUNKS * CHUNKS / THREADS;
  __shared__ float4 tileT[TILE][CHUNKS];
  const bool byInputRows = ORDER == ch06::BlockOrder::InputRows;
  const int blockRow = (byInputRows ? blockIdx.y : blockIdx.x) * TILE;
  const int blockCol = (byInputRows ? blockIdx.x : blockIdx.y) * TILE;
  float4 v[PER_THREAD][4];
#pragma unroll
  for (int p = 0; p < PER_THREAD; ++p) {
    const int b = threadIdx.x + p * THREADS;
    const int row = blockRow + 4 * (b / CHUNKS), col = blockCol + 4 * (b % CHUNKS);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      v[p][k] = (row < rows && col < cols) ? load4_hint<HINT>(in + size_t(row + k) * cols + col)
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
      ch06::store4(out + size_t(outRow) * rows + outCol, tileT[r][ch06::swizzled_chunk(r, c)]);
  }
}

// Step 5's sector-aligned tile (128 x 32, 32 x 8 threads), its loads hinted.
template <int HINT, ch06::BlockOrder ORDER, L1Policy P = L1Policy::Cached>
__global__ void transpose_sector_hint(const float* __restrict__ in, float* __restrict__ out,
                                      int rows, int cols) {
  constexpr int TILE_ROWS = 128, TILE_COLS = 32, BLOCK_ROWS = 8, SHIFT = 7;
  constexpr int ROWS = TILE_ROWS + SHIFT, LOADS = (ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
  __shared__ float tile[ROWS][TILE_COLS + 1];
  const bool byInputRows = ORDER == ch06::BlockOrder::InputRows;
  const int band = byInputRows ? blockIdx.y : blockIdx.x;
  const int colBlock = byInputRows ? blockIdx.x : blockIdx.y;
  const int firstRow = band * TILE_ROWS - SHIFT;
  const int col = colBlock * TILE_COLS + threadIdx.x;
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int j = threadIdx.y + i * BLOCK_ROWS;
    const int row = firstRow + j;
    if (j < ROWS && row >= 0 && row < rows && col < cols)
      tile[j][threadIdx.x] = P == L1Policy::Cached
                                 ? load1_hint<HINT>(in + size_t(row) * cols + col)
                                 : load1_l1<P>(in + size_t(row) * cols + col);
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TILE_COLS; j += BLOCK_ROWS) {
    const int outRow = colBlock * TILE_COLS + threadIdx.y + j;
    if (outRow >= cols) continue;
    float* dst = out + size_t(outRow) * rows;
    const int s = int((reinterpret_cast<uintptr_t>(dst) / sizeof(float) +
                       size_t(band) * TILE_ROWS) % 8);
#pragma unroll
    for (int h = 0; h < TILE_ROWS; h += TILE_COLS) {
      const int outCol = band * TILE_ROWS - s + h + threadIdx.x;
      if (outCol >= 0 && outCol < rows)
        dst[outCol] = tile[SHIFT - s + h + threadIdx.x][threadIdx.y + j];
    }
  }
}

// The grid of either order; a shape whose tiles along grid.y pass 65,535 is refused (the lab
// times large squares and the listed shapes, not million-row matrices).
inline dim3 hint_grid(int across, int down, bool byInputRows, const char* name, int rows,
                      int cols) {
  if ((byInputRows ? down : across) > tutorial::kMaxGridY)
    throw tutorial::UnsupportedShape(std::string(name) + ": too many tiles along grid.y for " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  return byInputRows ? dim3(across, down) : dim3(down, across);
}

template <int HINT, ch06::BlockOrder ORDER = ch06::BlockOrder::OutputRows>
void launch_vec4_hint(const float* in, float* out, int rows, int cols) {
  if (!ch06::float4_aligned(in, out, rows, cols))
    throw tutorial::UnsupportedShape(
        "transpose_vec4: float4 needs rows and cols multiples of 4 and 16-byte aligned pointers "
        "(the lab's copy with an L2 hint)");
  const dim3 grid = hint_grid(tutorial::ceil_div(cols, 64), tutorial::ceil_div(rows, 64),
                              ORDER == ch06::BlockOrder::InputRows, "transpose_vec4_hint", rows,
                              cols);
  tutorial::launch(transpose_vec4_hint<HINT, ORDER>, grid, dim3(256), 0, in, out, rows, cols);
}

template <int HINT, ch06::BlockOrder ORDER = ch06::BlockOrder::OutputRows,
          L1Policy P = L1Policy::Cached>
void launch_sector_hint(const float* in, float* out, int rows, int cols) {
  static_assert(P == L1Policy::Cached || HINT == 128, "the L1 policies load with the 128-byte hint");
  const int bands = int((static_cast<long long>(rows) + 7 + 128 - 1) / 128);
  const dim3 grid = hint_grid(tutorial::ceil_div(cols, 32), bands,
                              ORDER == ch06::BlockOrder::InputRows, "transpose_sector_hint", rows,
                              cols);
  tutorial::launch(transpose_sector_hint<HINT, ORDER, P>, grid, dim3(32, 8), 0, in, out, rows,
                   cols);
}

}  // namespace ch06lab
