// The reference of exercise 05a's speed test (exercises/support/race_references.hpp): chapter
// 05's prefetch_gemm<128,128,8,8,8> on C = A^T B, A transposed back first by chapter 06's
// kernel.
#include "05_double_buffer/2_prefetch.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register prefetch(
    "ch05::prefetch_gemm<128,128,8,8,8> on A^T",
    exercise::race::with_a_transposed<ch05::launch_prefetch_gemm<128, 128, 8, 8, 8>>);
