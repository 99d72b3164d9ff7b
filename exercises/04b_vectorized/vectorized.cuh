// Exercise 04b: 16-byte loads into transposed tiles, for C = A B^T (chapter 04).
//
// Here B is stored by columns: the buffer B holds N rows of K floats (B[n * K + k] is element
// (k, n) of the product's right factor), and C = A B^T: C[row][col] = sum over k of
// A[row][k] * B[col][k]. A thread of this kernel reads, per k, TM values of column k of the A
// tile and TN values of row k of the B tile. Stored in shared memory as loaded, both would be
// columns: TM + TN scalar shared loads. Stored TRANSPOSED (As[k][m] and Bs[k][n]), they are
// rows: (TM + TN) / 4 16-byte loads (LDS.128). So both tile copies transpose: each thread
// loads a float4 of one row of A, or of one row of the stored B (4 consecutive k), from global
// memory and writes its four values down one column of As, or of Bs:
//
//        A (row r, columns k .. k+3)            As (transposed, BK x BM)
//        [ a.x a.y a.z a.w ]         ---->      As[k + 0][r] = a.x
//                                               As[k + 1][r] = a.y  ...
//        B (row n, columns k .. k+3)            Bs (BK x BN): the same, down column n
//
// load_float4<VEC>(P, row, col, rows, cols) (common/vector_access.cuh) reads P[row][col .. +3]
// as one float4 when VEC (16-byte aligned and in bounds by the launcher's checks), else as
// four guarded floats, zeros outside the matrix: use it for both, so the kernel stays correct
// for any M, N, K >= 1 (the launcher picks VEC).
//
// Your task: the two tile copies at the top of the k loop (the compute and the store are
// written) in place of the placeholder that zeroes the tiles, then delete the exercise::todo()
// line. Test with `make check` in this folder.
#pragma once

#include "common/ceil_div.hpp"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"
#include "exercises/support/exercise.hpp"

namespace ex04b {

using tutorial::load_float4;
using tutorial::store_float4;

template <int BM, int BN, int BK, int TM, int TN, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    vectorized_gemm(const float* __restrict__ A, const float* __restrict__ B,
                    float* __restrict__ C, int M, int N, int K) {
  static_assert(BM % TM == 0 && BN % TN == 0 && TM % 4 == 0 && TN % 4 == 0,
                "a thread owns a TM x TN tile and reads it as float4: multiples of 4");
  static_assert(BK % 4 == 0, "both tiles are loaded as float4 along k");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
  static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                "every thread copies the same number of float4 of each tile");
  constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4 of the A tile per thread
  constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4 of the B tile per thread

  __shared__ alignas(16) float As[BK][BM];  // transposed: column k of the A tile is a row
  __shared__ alignas(16) float Bs[BK][BN];  // transposed: row n of the stored B is a column

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  float regC[TM][TN] = {};
  float regM[TM];
  float regN[TN];

  for (int tileK = 0; tileK < K; tileK += BK) {
    // TODO(04b): the two tile copies, in place of this placeholder: A_LOADS float4 of A
    // per thread, each written down a column of As, and B_LOADS float4 of the stored B,
    // each written down a column of Bs. The placeholder fills the tiles with zeros: in a
    // kernel that never writes them, nvcc hoists every shared load out of the k loop and
    // spills.
    for (int i = threadIdx.x; i < BK * BM; i += THREADS) (&As[0][0])[i] = 0.0f;
    for (int i = threadIdx.x; i < BK * BN; i += THREADS) (&Bs[0][0])[i] = 0.0f;
    (void)A_LOADS;
    (void)B_LOADS;
    __syncthreads();  // both tiles complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 a = *reinterpret_cast<const float4*>(&As[k][threadRow * TM + i]);  // (BK, BM)
        regM[i + 0] = a.x;
        regM[i + 1] = a.y;
        regM[i + 2] = a.z;
        regM[i + 3] = a.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = *reinterpret_cast<const float4*>(&Bs[k][threadCol * TN + j]);  // (BK, BN)
        regN[j + 0] = b.x;
        regN[j + 1] = b.y;
        regN[j + 2] = b.z;
        regN[j + 3] = b.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) regC[i][j] += regM[i] * regN[j];
    }
    __syncthreads();  // nobody overwrites the tiles while a slow thread still reads them
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      store_float4<VEC>(C, row, blockCol + threadCol * TN + j, M, N,
                        make_float4(regC[i][j], regC[i][j + 1], regC[i][j + 2], regC[i][j + 3]));
  }
}

// 16-byte accesses where the shape and the pointers allow them (K % 4 == 0: the rows of A and
// of the stored B; N % 4 == 0: the rows of C; 16-byte aligned), the 4-byte variant of the
// same kernel otherwise.
template <int BM, int BN, int BK, int TM, int TN>
void launch_vectorized_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("04b_vectorized: write the two tile copies, then delete this line");
  tutorial::check_gemm_shape("ex04b::vectorized_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(vectorized_gemm<BM, BN, BK, TM, TN, decltype(vec)::value>, grid, block, 0, A,
                     B, C, M, N, K);
  });
}

}  // namespace ex04b
