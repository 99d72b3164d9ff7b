// The reference of exercise 05d's speed test (exercises/support/race_references.hpp):
// chapter 05's prefetch_gemm in the exercise's tile (64 x 64 x 16, 4 x 4 per thread: register
// double buffering) on C = A^T B, A transposed back first by chapter 06's kernel.
#include "05_double_buffer/2_prefetch.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register prefetch(
    "ch05::prefetch_gemm<64,64,16,4,4> on A^T",
    exercise::race::with_a_transposed<ch05::launch_prefetch_gemm<64, 64, 16, 4, 4>>);
