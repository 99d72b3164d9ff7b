// Exercise 04a: register blocking for C = A^T B, each thread a TM x TN tile of C (chapter 04).
//
// Here A is stored transposed: the buffer A holds K rows of M floats (A[k * M + m] is element
// (m, k) of the product's left factor), and C = A^T B: C[row][col] = sum over k of
// A[k][row] * B[k][col]. The block stages a BK x BM tile of A, As[k][m], exactly as it lies
// in memory (column k of the left factor is a row of As), and a BK x BN tile of B in shared
// memory (the B copy is written for you, bounds included). Its (BM/TM) x (BN/TN) threads each
// own a TM x TN piece of the BM x BN tile of C, kept in registers (regC). Per k of the shared
// tiles a thread reads
//   TM values of row k of As  (its rows of C)     into regM,
//   TN values of row k of Bs  (its columns of C)  into regN,
// and adds their outer product regM x regN to regC: TM*TN multiply-adds for TM + TN shared
// loads, instead of 2 loads per multiply-add in the tiled kernel.
//
//   As (BK x BM) -> regM: TM values of row k        Bs (BK x BN) -> regN: TN values of row k
//   regC (TM x TN) += regM * regN
//
// Your task: the copy of the A tile (coalesced: consecutive threads read consecutive floats of
// a row of the stored A; zeros outside A, any M, N, K >= 1), the k loop between the two
// barriers, and the store of regC to C (skip the elements outside C). TN = 1 is the 1D
// variant of the chapter. Then delete the exercise::todo() line.
// Test with `make check` in this folder.
#pragma once

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex04a {

// BM, BN: block tile of C (rows, columns); BK: depth of one k step; TM x TN: per thread.
// __launch_bounds__(threads, 2): at least two resident blocks per SM, so the compiler keeps
// the registers per thread low enough for that (as chapter 04 does).
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    register_2d_gemm(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K) {
  static_assert(BM % TM == 0 && BN % TN == 0,
                "a thread owns a whole TM x TN tile: BM and BN must be multiples of TM and TN");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024,
                "(BM/TM)*(BN/TN) threads must be whole warps and at most 1024 per block");
  static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0,
                "BM*BK and BK*BN must be multiples of the thread count so each thread loads "
                "the same number of A and B elements");

  __shared__ float As[BK][BM];  // As[k][m]: the tile of the stored A, as it lies in memory
  __shared__ float Bs[BK][BN];

  const int blockRow = blockIdx.y * BM;            // first row of C of this block
  const int blockCol = blockIdx.x * BN;            // first column
  const int threadRow = threadIdx.x / (BN / TN);  // owns rows threadRow*TM .. +TM-1 of the tile
  const int threadCol = threadIdx.x % (BN / TN);  // owns columns threadCol*TN .. +TN-1

  float regC[TM][TN] = {};

  for (int tileK = 0; tileK < K; tileK += BK) {
    // TODO(04a): copy the BK x BM tile of the stored A into As[k][m], BM * BK / THREADS
    // elements per thread, consecutive threads along a row of A; 0.0f outside A.
    // The B tile: cooperative, coalesced; zero outside B.
#pragma unroll
    for (int i = 0; i < BK * BN / THREADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int k = idx / BN, c = idx % BN;
      const int kk = tileK + k, col = blockCol + c;
      Bs[k][c] = (kk < K && col < N) ? B[kk * N + col] : 0.0f;  // (BK, BN)
    }
    __syncthreads();  // the tiles are complete before anyone reads them

    // TODO(04a): for k in 0..BK-1: load TM values of row k of As and TN values of row
    // k of Bs into registers, then regC[i][j] += regM[i] * regN[j] for the whole tile.
    __syncthreads();  // nobody overwrites the tiles while a slow thread still reads them
  }

  // TODO(04a): store regC to C, skipping the elements that fall outside C.
  // Delete the next line when you use them: until then the compiler would warn that
  // the tiles are written and never read, and the others never used.
  (void)As, (void)Bs, (void)regC, (void)blockRow, (void)threadRow, (void)threadCol;
}

// The grid covers C with BM x BN tiles (x: columns); the block size follows from the same
// template constants the kernel checks.
template <int BM, int BN, int BK, int TM, int TN>
void launch_register_2d_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("04a_register_block: write the k loop and the store, then delete this line");
  tutorial::check_gemm_shape("ex04a::register_2d_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::launch(register_2d_gemm<BM, BN, BK, TM, TN>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ex04a
