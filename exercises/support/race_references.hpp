// The reference kernels of the speed tests, registered by the exercises they race.
//
// A speed test ("race" in an exercise's tests.json) names its reference; the reference timer
// (reference_main.cu) times that launcher with the same loop as the student's runner. Each
// exercise keeps its references beside it, in <exercise>/race.cu, compiled into the reference
// timer only (never into a runner):
//
//   #include "03_bounds/kernels.cuh"
//   #include "exercises/support/race_references.hpp"
//   static const exercise::race::Register ref("ch03::tiled_gemm<32>",
//                                             ch03::launch_tiled_gemm<32>);
//
// An exercise that asks for another product of the same buffers (spec.py's "op") races the
// chapter's kernel on that product: with_a_transposed<L> first transposes A (stored K x M)
// into a scratch buffer with chapter 06's padded transpose, then runs L on A B, so the
// reference's answers (and its checksums) are those of A^T B; with_b_transposed<L> likewise
// for A B^T. The transpose moves M*K (or K*N) floats once per GEMM of M*N*K multiply-adds: a
// few percent of the time at the speed tests' shapes, charged to the reference.
#pragma once

#include "exercises/support/entry.hpp"

namespace exercise::race {

struct Reference {
  std::string name;
  GemmLauncher gemm = nullptr;
  TransposeLauncher transpose = nullptr;
};

// Every registered reference (a name registered twice is an error at start-up).
const std::vector<Reference>& references();

struct Register {
  Register(const char* name, GemmLauncher gemm);
  Register(const char* name, TransposeLauncher transpose);
};

// A scratch buffer of the reference timer's own, at least `floats` long (kept between calls).
float* scratch(int which, size_t floats);
// out (cols x rows) = in (rows x cols)^T, with chapter 06's padded transpose.
void transpose(const float* in, float* out, int rows, int cols);

// C = A^T B, A stored K x M: transposed into M x K, then the chapter's A B.
template <GemmLauncher L>
void with_a_transposed(const float* A, const float* B, float* C, int M, int N, int K) {
  float* a = scratch(0, size_t(M) * size_t(K));
  transpose(A, a, K, M);
  L(a, B, C, M, N, K);
}

// C = A B^T, B stored N x K: transposed into K x N, then the chapter's A B.
template <GemmLauncher L>
void with_b_transposed(const float* A, const float* B, float* C, int M, int N, int K) {
  float* b = scratch(1, size_t(K) * size_t(N));
  transpose(B, b, N, K);
  L(A, b, C, M, N, K);
}

}  // namespace exercise::race
