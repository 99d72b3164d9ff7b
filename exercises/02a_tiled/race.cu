// The reference of exercise 02a's speed test (exercises/support/race_references.hpp): chapter
// 02's tiled_gemm<32> on C = A B^T, B transposed back first by chapter 06's kernel (the
// exercise's kernel reads B^T where it lies).
#include "02_tiled/kernels.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register tiled(
    "ch02::tiled_gemm<32> on B^T",
    exercise::race::with_b_transposed<ch02::launch_tiled_gemm<32>>);
