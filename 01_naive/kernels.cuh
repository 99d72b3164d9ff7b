// Chapter 01: one thread per element of C, every operand read from global memory.
//
// What changed: nothing yet, this is the baseline. Thread (row, col) computes
//   C[row][col] = sum over k of A[row][k] * B[k][col]
// with a K-long loop that loads one A element and one B element per multiply-add.
//
// Why it runs as fast as it does: naive_gemm takes col from threadIdx.x, so the 32 threads of
// a warp hold 32 consecutive columns of one row. At every k they load the same A[row][k] (one
// broadcast) and 32 consecutive floats of B (one 128-byte line), and at the end they write 32
// consecutive floats of C. naive_gemm_swapped is the same code with x and y exchanged: a warp
// then holds 32 rows of one column, so each A load touches 32 different lines and each C store
// 32 different lines. Run both to see what coalescing is worth.
//
// What it still gets wrong: nothing is reused on purpose. Every multiply-add (2 FLOP) issues two
// loads, 8 bytes: A[row][k] is loaded again by each of the N threads of that row, B[k][col] by
// each of the M threads of that column. The caches catch most of them, so DRAM is not its limit
// (31.5 FLOP per DRAM byte measured, not the model's 0.25: README); the two load instructions
// per FMA through L1 and L2 are. Chapter 02 stages tiles of A and B in shared memory and reuses
// them.
#pragma once

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"

namespace ch01 {

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

// Row from y, column from x: a warp (32 consecutive threadIdx.x) spans 32 columns of C.
__global__ void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  // The grid is rounded up to whole blocks; threads past the edge of C have nothing to do.
  // No thread of this kernel waits for another, so returning early is safe.
  if (row >= M || col >= N) return;

  // BEGIN QUOTE naive-loop
  float regC = 0.0f;
  for (int k = 0; k < K; ++k)
    regC += A[row * K + k] * B[k * N + col];  // A: same address warp-wide; B: 32 consecutive
  C[row * N + col] = regC;                     // 32 consecutive floats per warp
  // END QUOTE naive-loop
}

// The same kernel with x and y exchanged: a warp spans 32 rows of one column of C.
__global__ void naive_gemm_swapped(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;

  float regC = 0.0f;
  for (int k = 0; k < K; ++k)
    regC += A[row * K + k] * B[k * N + col];  // A: 32 addresses K floats apart; B: one address
  C[row * N + col] = regC;                     // 32 floats N apart: 32 separate lines
}

// ---------------------------------------------------------------------------------------
// Launchers (tutorial::GemmLauncher: row-major C = A * B, any M, N, K >= 1)
// ---------------------------------------------------------------------------------------

// Blocks are BLOCK_DIM x BLOCK_DIM threads. 32 makes one warp exactly one row of the block,
// so in naive_gemm a warp's B load and C store are one full 128-byte line each. (16 x 16 would
// be as fast here; a warp would cover two half rows, two 64-byte pieces.) 1024 threads per
// block is the CUDA maximum, and 2 such blocks fill an SM's 2048 threads.
constexpr int BLOCK_DIM = 32;

inline void launch_naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("naive_gemm", M, N, K);
  const dim3 block(BLOCK_DIM, BLOCK_DIM);
  const dim3 grid(tutorial::ceil_div(N, BLOCK_DIM), tutorial::ceil_div(M, BLOCK_DIM));  // x: columns
  tutorial::launch(naive_gemm, grid, block, 0, A, B, C, M, N, K);
}

inline void launch_naive_gemm_swapped(const float* A, const float* B, float* C, int M, int N,
                                      int K) {
  tutorial::check_gemm_shape("naive_gemm_swapped", M, N, K);
  const dim3 block(BLOCK_DIM, BLOCK_DIM);
  const dim3 grid(tutorial::ceil_div(M, BLOCK_DIM), tutorial::ceil_div(N, BLOCK_DIM));  // x: rows
  tutorial::launch(naive_gemm_swapped, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ch01
