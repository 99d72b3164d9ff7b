// Chapter 03: the tiled kernel of chapter 02, for any M, N, K >= 1.
//
// What changed since chapter 02: bounds checks, nothing else. The grid is rounded up to whole
// tiles; a tile element that falls outside A or B is filled with zero instead of loaded, and
// only threads inside C store. A zero adds nothing to a dot product, so the inner loop and
// both barriers stay exactly as they were.
//
// Why it is (almost) as fast: the checks are a few integer compares per phase, against
// TILE_WIDTH multiply-adds. The cost is in the edge tiles: a block that hangs over the edge
// of C still runs all its threads, and those outside do no useful work.
//
// What it still gets wrong: the same as chapter 02. Each multiply-add needs its own
// shared-memory loads, so shared-memory bandwidth and instruction issue, not DRAM, cap the
// speed; and a block of TILE_WIDTH^2 threads holds only TILE_WIDTH^2 accumulators. Chapter 04
// gives each thread several elements of C in registers (register blocking).
#pragma once

#include <string>

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"

namespace ch03 {

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

// TILE_WIDTH: side of the square tile of C a block computes, of the A and B tiles it stages
// in shared memory, and of the block itself (one thread per element of the tile).
template <int TILE_WIDTH>
__global__ void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  static_assert(TILE_WIDTH * TILE_WIDTH <= 1024,
                "one thread per element of the C tile, and a block holds at most 1024 threads");
  static_assert(TILE_WIDTH * TILE_WIDTH % 32 == 0,
                "TILE_WIDTH^2 must be a multiple of the warp size (32), or the last warp of "
                "every block runs partly empty");

  __shared__ float As[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];

  const int threadRow = threadIdx.y;  // this thread's element within the tile
  const int threadCol = threadIdx.x;
  const int row = blockIdx.y * TILE_WIDTH + threadRow;  // and within C
  const int col = blockIdx.x * TILE_WIDTH + threadCol;

  float regC = 0.0f;
  // Phase loop: tileK is the first column of the A tile and the first row of the B tile.
  for (int tileK = 0; tileK < K; tileK += TILE_WIDTH) {
    // Each thread copies one element of each tile; consecutive threadCol read consecutive
    // addresses, so both copies are coalesced.
    // Outside A or B the element is zero: it adds nothing to the dot product, so the loop
    // below runs TILE_WIDTH steps in every tile, edge tiles included.
    if (row < M && tileK + threadCol < K)
      As[threadRow][threadCol] = A[row * K + tileK + threadCol];    // (TILE_WIDTH, TILE_WIDTH)
    else
      As[threadRow][threadCol] = 0.0f;
    if (tileK + threadRow < K && col < N)
      Bs[threadRow][threadCol] = B[(tileK + threadRow) * N + col];  // (TILE_WIDTH, TILE_WIDTH)
    else
      Bs[threadRow][threadCol] = 0.0f;
    // First barrier (read after write): the loop below reads elements that other threads
    // copied; none may start before every copy has landed.
    __syncthreads();

    for (int k = 0; k < TILE_WIDTH; ++k)
      regC += As[threadRow][k] * Bs[k][threadCol];  // (TILE_WIDTH, TILE_WIDTH) each
    // Second barrier (write after read): the next phase overwrites As and Bs; a fast thread
    // must not do so while a slow one is still reading this phase's tiles.
    __syncthreads();
  }
  // Threads outside C stayed to the end: they copied their share of every tile, which threads
  // inside C read, and __syncthreads() must be reached by every thread of the block.
  if (row < M && col < N) C[row * N + col] = regC;
}

// ---------------------------------------------------------------------------------------
// Launchers (tutorial::GemmLauncher: row-major C = A * B, any M, N, K >= 1)
// ---------------------------------------------------------------------------------------

template <int TILE_WIDTH>
void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const std::string name = "tiled_gemm<" + std::to_string(TILE_WIDTH) + ">";
  tutorial::check_gemm_shape(name, M, N, K);
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  // One block per tile of C (x: columns, y: rows), rounded up: the last ones hang over the edge.
  const dim3 grid(tutorial::ceil_div(N, TILE_WIDTH), tutorial::ceil_div(M, TILE_WIDTH));
  tutorial::launch(tiled_gemm<TILE_WIDTH>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ch03
