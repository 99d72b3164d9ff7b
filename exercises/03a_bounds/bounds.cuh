// Exercise 03a: bounds checks, so that a tiled kernel handles any M, N, K >= 1 (chapter 03).
//
// tiled_gemm below is chapter 02's tiled kernel for another product: C = A^T B, where the
// buffer A holds the transpose of the left operand, K rows of M floats (A[k * M + m] is
// element (m, k) of the product's left factor). Its A tile is copied along those rows, As[k][m],
// so that a warp's copy is coalesced, and the inner loop reads As[k][threadRow]. Like chapter
// 02's kernel it reads and writes out of bounds unless M, N and K are multiples of
// TILE_WIDTH, so its launcher refuses every other shape.
//
//        A (K x M, stored)              B (K x N)
//   k  +--------------------+      k  +-------------+
//      |  tile: rows tileK.. |         |  tile: rows  |
//      |  columns of this    |         |  tileK..,    |
//      |  block's rows of C  |         |  its columns |
//      +--------------------+         +-------------+
//   C[row][col] = sum over k of A[k][row] * B[k][col]
//
// Your task: make it correct for every M, N, K >= 1 without changing the inner loop:
//   * round the grid up to whole tiles (tutorial::ceil_div) and drop the refusal;
//   * a tile element that falls outside A or B is filled with 0.0f instead of loaded
//     (a zero adds nothing to the dot product): mind which index of A is a row of C here;
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
  const int row = blockIdx.y * TILE_WIDTH + threadRow;  // this thread's element of C
  const int col = blockIdx.x * TILE_WIDTH + threadCol;
  // The row of C whose A value this thread copies: along a row of the stored A (consecutive
  // threadCol, consecutive addresses), not down a column.
  const int copyRow = blockIdx.y * TILE_WIDTH + threadCol;

  float regC = 0.0f;
  for (int tileK = 0; tileK < K; tileK += TILE_WIDTH) {
    As[threadRow][threadCol] = A[(tileK + threadRow) * M + copyRow];  // As[k][m]
    Bs[threadRow][threadCol] = B[(tileK + threadRow) * N + col];      // (TILE_WIDTH, TILE_WIDTH)
    __syncthreads();  // the tiles are complete before anyone reads them
    for (int k = 0; k < TILE_WIDTH; ++k)
      regC += As[k][threadRow] * Bs[k][threadCol];  // a warp's As reads: one word (broadcast)
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
