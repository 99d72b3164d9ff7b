// Exercise 01a: make the naive kernel coalesced (chapter 01).
//
// naive_gemm below is chapter 01's kernel with its thread mapping turned around: a thread
// takes its row of C from threadIdx.x and its column from threadIdx.y. The 32 threads of a
// warp (32 consecutive threadIdx.x) then own 32 ROWS of one column: at every k their loads
// of A are 32 floats K apart (32 different 128-byte lines), and their final stores to C are
// 32 floats N apart. The answer is still right; only the speed is wrong.
//
// Your task: map the threads so that a warp owns 32 consecutive COLUMNS of one row, make the
// launcher's grid agree with the new mapping, then delete the exercise::todo() line.
// Test with `make check` in this folder; the speed test races chapter 01's naive_gemm.
#pragma once

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex01a {

// Blocks are BLOCK_DIM x BLOCK_DIM threads: with 32, one warp is exactly one row of a block.
constexpr int BLOCK_DIM = 32;

__global__ void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // lanes of a warp: 32 rows
  const int col = blockIdx.y * blockDim.y + threadIdx.y;  // ... of one column
  if (row >= M || col >= N) return;  // the grid is rounded up to whole blocks

  float regC = 0.0f;
  for (int k = 0; k < K; ++k) regC += A[row * K + k] * B[k * N + col];
  C[row * N + col] = regC;
}

inline void launch_naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("01a_coalesce: fix the thread mapping of naive_gemm and its grid, then delete this line");
  tutorial::check_gemm_shape("ex01a::naive_gemm", M, N, K);
  const dim3 block(BLOCK_DIM, BLOCK_DIM);
  const dim3 grid(tutorial::ceil_div(M, BLOCK_DIM), tutorial::ceil_div(N, BLOCK_DIM));  // x: rows
  tutorial::launch(naive_gemm, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ex01a
