// Exercise 03a: bounds checks, so that the tiled kernel handles any M, N, K >= 1 (chapter 03).
//
// tiled_gemm below is chapter 02's kernel: it reads and writes out of bounds unless M, N and
// K are multiples of TILE_WIDTH, so its launcher refuses every other shape.
//
// Your task: make it correct for every M, N, K >= 1 without changing the inner loop:
//   * round the grid up to whole tiles (tutorial::ceil_div) and drop the refusal;
//   * a tile element that falls outside A or B is filled with 0.0f instead of loaded
//     (a zero adds nothing to the dot product);
//   * only threads inside C store;
//   * every thread, even one outside C, still copies its share of each tile and reaches both
//     barriers (a thread that returns early leaves the others waiting at __syncthreads()).
// Then delete the exercise::todo() line. Test with `make check` in this folder.
#pragma once

#include <string>

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex03a {

template <int TILE_WIDTH>
__global__ void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  static_assert(TILE_WIDTH * TILE_WIDTH <= 1024,
                "one thread per element of the C tile, and a block holds at most 1024 threads");
  static_assert(TILE_WIDTH * TILE_WIDTH % 32 == 0,
                "TILE_WIDTH^2 must be a multiple of the warp size (32)");

  __shared__ float As[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];

  const int threadRow = threadIdx.y;
  const int threadCol = threadIdx.x;
  const int row = blockIdx.y * TILE_WIDTH + threadRow;
  const int col = blockIdx.x * TILE_WIDTH + threadCol;

  float regC = 0.0f;
  for (int tileK = 0; tileK < K; tileK += TILE_WIDTH) {
    As[threadRow][threadCol] = A[row * K + tileK + threadCol];    // (TILE_WIDTH, TILE_WIDTH)
    Bs[threadRow][threadCol] = B[(tileK + threadRow) * N + col];  // (TILE_WIDTH, TILE_WIDTH)
    __syncthreads();  // the tiles are complete before anyone reads them
    for (int k = 0; k < TILE_WIDTH; ++k)
      regC += As[threadRow][k] * Bs[k][threadCol];  // (TILE_WIDTH, TILE_WIDTH) each
    __syncthreads();  // nobody overwrites the tiles while a slow thread still reads them
  }
  C[row * N + col] = regC;
}

template <int TILE_WIDTH>
void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("03a_bounds: add the bounds checks, then delete this line");
  const std::string name = "ex03a::tiled_gemm<" + std::to_string(TILE_WIDTH) + ">";
  tutorial::check_gemm_shape(name, M, N, K);
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  if (M % TILE_WIDTH != 0 || N % TILE_WIDTH != 0 || K % TILE_WIDTH != 0)
    throw tutorial::UnsupportedShape(name + " needs multiples of TILE_WIDTH, got " +
                                     tutorial::gemm_shape_string(M, N, K));
  const dim3 grid(N / TILE_WIDTH, M / TILE_WIDTH);
  tutorial::launch(tiled_gemm<TILE_WIDTH>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ex03a
