// Exercise 03c: dynamic shared memory, with a size known only at launch (chapter 03).
//
// strip_gemm is the "whole strips" kernel of chapter 02's README, for C = A^T B: the buffer A
// holds the transpose of the left factor, K rows of M floats (A[k * M + m] is its element
// (m, k)). Each BLOCK × BLOCK block of C copies the K × BLOCK strip of the stored A (columns
// row0 .. row0 + BLOCK - 1 of its K rows) and the K × BLOCK strip of B it needs into shared
// memory once, waits at one barrier, then computes C[row][col] = sum over k of
// A[k][row] * B[k][col]. Its shared memory, 2 · BLOCK · K floats, depends on K, which only the
// launch knows, so it cannot be a `__shared__ float As[..][..]` array:
//   * declare one unsized array, `extern __shared__ float strips[];`, and carve both strips
//     from it: As = strips (K rows of BLOCK), Bs = strips + BLOCK * K (K rows of BLOCK);
//   * pass its size in bytes as the launch's dynamic shared memory (tutorial::launch's fourth
//     argument, the third of <<<grid, block, bytes>>>).
// Above 48 KB a kernel must be allowed more dynamic shared memory before it is launched
// (cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
// tutorial::launch does it, and refuses, with the limit named, a size this GPU cannot give a
// block (227 KB on an H100: K up to 1816 at BLOCK 16). Both happen only if the launch asks
// for the right size. Any M, N, K >= 1: zero-fill outside A and B, store only inside C.
//
// Your task: the kernel body and the launcher. Test with `make check` in this folder.
#pragma once

#include <cstddef>
#include <string>

#include "common/ceil_div.hpp"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex03c {

// The dynamic shared memory strip_gemm<BLOCK> needs for a given K, in bytes.
template <int BLOCK>
size_t strip_bytes(int K) {
  return exercise::todo<size_t>("03c_strips: strip_bytes", K);
}

template <int BLOCK>
__global__ void strip_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  static_assert(BLOCK * BLOCK <= 1024, "one thread per element of the C tile");
}

template <int BLOCK>
void launch_strip_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("03c_strips: write strip_gemm and its launch, then delete this line");
  const std::string name = "ex03c::strip_gemm<" + std::to_string(BLOCK) + ">";
  tutorial::check_gemm_shape(name, M, N, K);
  const dim3 block(BLOCK, BLOCK);
  const dim3 grid(tutorial::ceil_div(N, BLOCK), tutorial::ceil_div(M, BLOCK));
  tutorial::launch(strip_gemm<BLOCK>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ex03c
