// The reference of exercise 04a's speed test (exercises/support/race_references.hpp): chapter
// 04's register_2d_gemm<128,128,8,8,8> on C = A^T B, A transposed back first by chapter 06's
// kernel.
#include "04_register_block/kernels.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register register_2d(
    "ch04::register_2d_gemm<128,128,8,8,8> on A^T",
    exercise::race::with_a_transposed<ch04::launch_register_2d_gemm<128, 128, 8, 8, 8>>);
