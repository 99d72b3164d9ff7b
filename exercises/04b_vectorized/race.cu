// The reference of exercise 04b's speed test (exercises/support/race_references.hpp): chapter
// 04's vectorized_gemm<128,128,8,8,8> on C = A B^T, B transposed back first by chapter 06's
// kernel.
#include "04_register_block/kernels.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register vectorized(
    "ch04::vectorized_gemm<128,128,8,8,8> on B^T",
    exercise::race::with_b_transposed<ch04::launch_vectorized_gemm<128, 128, 8, 8, 8>>);
