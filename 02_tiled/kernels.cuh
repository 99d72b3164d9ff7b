// Chapter 02: shared-memory tiling.
//
// What changed since chapter 01: a block of TILE_WIDTH x TILE_WIDTH threads computes a
// TILE_WIDTH x TILE_WIDTH tile of C in phases. In each phase the block copies one tile of A
// and one tile of B into shared memory (one element per thread), waits, and every thread
// takes TILE_WIDTH multiply-adds from shared memory.
//
// Why it is faster: each element copied from global memory is used by TILE_WIDTH threads,
// so global traffic falls TILE_WIDTH-fold: 0.25 FLOP/B becomes TILE_WIDTH/4 FLOP/B (4 at 16,
// 8 at 32), and the loads of both tiles stay coalesced.
//
// What it still gets wrong: sizes must be multiples of TILE_WIDTH (the launcher refuses the
// others; chapter 03 adds the bounds checks). And the bottleneck has only moved: each
// multiply-add still needs its own shared-memory loads, so shared-memory bandwidth and
// instruction issue, not DRAM, now cap the speed (chapter 04: register blocking).
#pragma once

#include <string>

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"

namespace ch02 {

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
    As[threadRow][threadCol] = A[row * K + tileK + threadCol];    // (TILE_WIDTH, TILE_WIDTH)
    Bs[threadRow][threadCol] = B[(tileK + threadRow) * N + col];  // (TILE_WIDTH, TILE_WIDTH)
    // First barrier (read after write): the loop below reads elements that other threads
    // copied; none may start before every copy has landed.
    __syncthreads();

    for (int k = 0; k < TILE_WIDTH; ++k)
      regC += As[threadRow][k] * Bs[k][threadCol];  // (TILE_WIDTH, TILE_WIDTH) each
    // Second barrier (write after read): the next phase overwrites As and Bs; a fast thread
    // must not do so while a slow one is still reading this phase's tiles.
    __syncthreads();
  }
  C[row * N + col] = regC;
}

// ---------------------------------------------------------------------------------------
// Launchers (tutorial::GemmLauncher: row-major C = A * B)
// ---------------------------------------------------------------------------------------

// M, N and K must be multiples of TILE_WIDTH: the kernel has no bounds checks, so the
// launcher refuses every other shape rather than read and write out of bounds.
template <int TILE_WIDTH>
void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const std::string name = "tiled_gemm<" + std::to_string(TILE_WIDTH) + ">";
  tutorial::check_gemm_shape(name, M, N, K);
  if (M % TILE_WIDTH != 0 || N % TILE_WIDTH != 0 || K % TILE_WIDTH != 0)
    throw tutorial::UnsupportedShape(
        name + " needs M, N and K to be multiples of TILE_WIDTH=" + std::to_string(TILE_WIDTH) +
        ", got " + tutorial::gemm_shape_string(M, N, K) +
        "; chapter 03 (03_bounds) adds the bounds checks that handle any size");
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  // One block per tile of C (x: columns, y: rows).
  const dim3 grid(N / TILE_WIDTH, M / TILE_WIDTH);
  tutorial::launch(tiled_gemm<TILE_WIDTH>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ch02
