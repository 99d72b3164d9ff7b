// The reference of exercise 03a's speed test (exercises/support/race_references.hpp): chapter
// 03's tiled_gemm<32> on C = A^T B, A transposed back first by chapter 06's kernel.
#include "03_bounds/kernels.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register tiled(
    "ch03::tiled_gemm<32> on A^T",
    exercise::race::with_a_transposed<ch03::launch_tiled_gemm<32>>);
