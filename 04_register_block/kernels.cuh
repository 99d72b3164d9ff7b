// Chapter 04: register blocking. Each thread computes a TM x TN tile of C in registers.
//
// What changed since chapter 03: in the tiled kernel every thread owns one element of C, so
// each multiply-add reads two floats from shared memory (As[ty][k] and Bs[k][tx]): two shared
// loads per FMA. Shared memory can deliver about 32 floats per clock per SM while the SM can
// do 128 FMA per clock, so the tiled kernel waits on shared memory, not on arithmetic.
// Here a thread keeps a strip or tile of C in registers and reuses every value it reads:
//   register_1d_gemm   TM results per thread (a column strip): one Bs value serves TM FMAs,
//                      (1 + TM) / TM shared loads per FMA, 9/8 for TM = 8.
//   register_2d_gemm   TM x TN results: TM values of A and TN of B serve TM*TN FMAs,
//                      (TM + TN) / (TM * TN) loads per FMA, 1/4 for 8 x 8.
//   vectorized_gemm    the 2D kernel with float4 everywhere: 16-byte global loads, and A
//                      stored transposed in shared memory (As[k][m]) so that a thread's TM
//                      values of A are contiguous too. Per k step a thread issues TM/4 + TN/4
//                      LDS.128 instructions for TM*TN FMAs: 4 per 64, 1/16 instruction per FMA.
// Bigger tiles also cut global traffic: a BM x BN block tile loads BM*BK + BK*BN floats per
// 2*BM*BN*BK FLOP, BM*BN / (2*(BM+BN)) FLOP per byte: 32 for 128 x 128.
//
// Correct for any M, N, K >= 1: loads outside A or B fill the tile with zeros (they add
// nothing to the dot products) and stores outside C are skipped. vectorized_gemm reads and
// writes 16 bytes at a time only where every row starts on a 16-byte boundary (K % 4 == 0
// and N % 4 == 0); its launcher picks the scalar variant (VEC = false) otherwise.
//
// What it still gets wrong: loads and compute take turns. Between the two __syncthreads()
// of a k step the whole block either waits for global memory or computes; only other
// resident blocks fill the gap, and a 256-thread block holding 64 accumulators per thread
// leaves room for few of them (see the README's occupancy table). The 2D kernels also read
// shared memory with bank conflicts: a 16-byte shared load is served a quarter warp (8 lanes)
// per pass, and the 8 lanes of a quarter that read TN = 8 consecutive floats each start 32
// bytes apart, so lanes c and c + 4 meet in the same banks. Chapter 05 overlaps the next
// tile's loads with the current tile's math (double buffering) and lays threads out by warp.
#pragma once

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch04 {

// The 16-byte global accesses of vectorized_gemm (common/vector_access.cuh).
using tutorial::load_float4;
using tutorial::store_float4;

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

// 1D register tiling: a thread owns TM consecutive rows of one column of the block tile.
//   BM, BN  block tile of C (rows, columns); BK  depth of one k step.
//   TM      results per thread, down a column.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM / TM * BN, 3)
    register_1d_gemm(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K) {
  static_assert(BM % TM == 0, "a thread owns TM whole rows: BM must be a multiple of TM");
  constexpr int THREADS = BM / TM * BN;
  static_assert(THREADS % 32 == 0 && THREADS <= 1024,
                "(BM / TM) * BN threads must be whole warps and at most 1024 per block");
  static_assert(THREADS % BK == 0 && BM % (THREADS / BK) == 0,
                "the threads load the A tile as (THREADS / BK) rows of BK at a time: THREADS "
                "must be a multiple of BK and BM a multiple of THREADS / BK");
  static_assert(THREADS % BN == 0 && BK % (THREADS / BN) == 0,
                "the threads load the B tile as (THREADS / BN) rows of BN at a time: THREADS "
                "must be a multiple of BN and BK a multiple of THREADS / BN");

  __shared__ alignas(16) float As[BM][BK];
  __shared__ alignas(16) float Bs[BK][BN];

  const int blockRow = blockIdx.y * BM;  // first row of C this block computes
  const int blockCol = blockIdx.x * BN;
  // BN threads in a row, so a warp spans 32 consecutive columns of one strip of rows.
  const int threadRow = threadIdx.x / BN;  // owns tile rows threadRow*TM .. threadRow*TM+TM-1
  const int threadCol = threadIdx.x % BN;

  float regC[TM] = {};

  // Each thread loads the same column of A at rows loadRowA + i*STRIDE_A of every tile, and
  // the same column of B at rows loadRowB + i*STRIDE_B: a warp reads whole row segments.
  constexpr int STRIDE_A = THREADS / BK, STRIDE_B = THREADS / BN;
  const int loadRowA = threadIdx.x / BK, loadColA = threadIdx.x % BK;
  const int loadRowB = threadIdx.x / BN, loadColB = threadIdx.x % BN;

  for (int tileK = 0; tileK < K; tileK += BK) {
#pragma unroll
    for (int i = 0; i < BM / STRIDE_A; ++i) {
      const int r = loadRowA + i * STRIDE_A;
      const int row = blockRow + r, kk = tileK + loadColA;
      As[r][loadColA] = (row < M && kk < K) ? A[row * K + kk] : 0.0f;  // (BM, BK)
    }
#pragma unroll
    for (int i = 0; i < BK / STRIDE_B; ++i) {
      const int k = loadRowB + i * STRIDE_B;
      const int kk = tileK + k, col = blockCol + loadColB;
      Bs[k][loadColB] = (kk < K && col < N) ? B[kk * N + col] : 0.0f;  // (BK, BN)
    }
    __syncthreads();  // the tiles are complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][threadCol];  // (BK, BN) read once, used TM times
#pragma unroll
      for (int i = 0; i < TM; ++i)
        regC[i] += As[threadRow * TM + i][k] * b;  // (BM, BK) same address warp-wide: broadcast
    }
    __syncthreads();  // a fast thread must not overwrite As/Bs while a slow one still reads them
  }

  const int col = blockCol + threadCol;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
    if (row < M && col < N) C[row * N + col] = regC[i];
  }
}

// 2D register tiling: a thread owns a TM x TN tile of C.
//   BM, BN, BK  block tile and k step, as above; TM x TN  results per thread.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    register_2d_gemm(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K) {
  static_assert(BM % TM == 0 && BN % TN == 0,
                "a thread owns a whole TM x TN tile: BM and BN must be multiples of TM and TN");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024,
                "(BM/TM)*(BN/TN) threads must be whole warps and at most 1024 per block");
  static_assert(THREADS % BK == 0 && BM % (THREADS / BK) == 0,
                "the threads load the A tile as (THREADS / BK) rows of BK at a time: THREADS "
                "must be a multiple of BK and BM a multiple of THREADS / BK");
  static_assert(THREADS % BN == 0 && BK % (THREADS / BN) == 0,
                "the threads load the B tile as (THREADS / BN) rows of BN at a time: THREADS "
                "must be a multiple of BN and BK a multiple of THREADS / BN");

  __shared__ alignas(16) float As[BM][BK];
  __shared__ alignas(16) float Bs[BK][BN];

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);  // owns rows threadRow*TM .. +TM-1
  const int threadCol = threadIdx.x % (BN / TN);  // owns columns threadCol*TN .. +TN-1

  float regC[TM][TN] = {};
  float regM[TM];  // a column of the A tile, reused TN times
  float regN[TN];  // a row of the B tile, reused TM times

  // Loads as in register_1d_gemm.
  constexpr int STRIDE_A = THREADS / BK, STRIDE_B = THREADS / BN;
  const int loadRowA = threadIdx.x / BK, loadColA = threadIdx.x % BK;
  const int loadRowB = threadIdx.x / BN, loadColB = threadIdx.x % BN;

  for (int tileK = 0; tileK < K; tileK += BK) {
#pragma unroll
    for (int i = 0; i < BM / STRIDE_A; ++i) {
      const int r = loadRowA + i * STRIDE_A;
      const int row = blockRow + r, kk = tileK + loadColA;
      As[r][loadColA] = (row < M && kk < K) ? A[row * K + kk] : 0.0f;  // (BM, BK)
    }
#pragma unroll
    for (int i = 0; i < BK / STRIDE_B; ++i) {
      const int k = loadRowB + i * STRIDE_B;
      const int kk = tileK + k, col = blockCol + loadColB;
      Bs[k][loadColB] = (kk < K && col < N) ? B[kk * N + col] : 0.0f;  // (BK, BN)
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[threadRow * TM + i][k];  // (BM, BK)
#pragma unroll
      for (int j = 0; j < TN; ++j) regN[j] = Bs[k][threadCol * TN + j];  // (BK, BN)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) regC[i][j] += regM[i] * regN[j];  // outer product
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = blockCol + threadCol * TN + j;
      if (row < M && col < N) C[row * N + col] = regC[i][j];
    }
  }
}

// The 2D kernel with 16-byte accesses: float4 loads from A and B, A stored transposed so a
// thread reads its TM values of A as TM/4 LDS.128, B read as TN/4 LDS.128, float4 stores to C.
//   VEC  true: 16-byte global loads and stores (needs K % 4 == 0, N % 4 == 0, aligned
//        pointers); false: the same kernel with 4-byte global accesses, for any shape.
template <int BM, int BN, int BK, int TM, int TN, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    vectorized_gemm(const float* __restrict__ A, const float* __restrict__ B,
                    float* __restrict__ C, int M, int N, int K) {
  static_assert(BM % TM == 0 && BN % TN == 0,
                "a thread owns a whole TM x TN tile: BM and BN must be multiples of TM and TN");
  static_assert(TM % 4 == 0 && TN % 4 == 0,
                "a thread reads its TM values of A and TN values of B as float4: TM and TN "
                "must be multiples of 4");
  static_assert(BK % 4 == 0 && BN % 4 == 0,
                "tiles are loaded as float4 along k (A) and along n (B): BK and BN must be "
                "multiples of 4");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024,
                "(BM/TM)*(BN/TN) threads must be whole warps and at most 1024 per block");
  static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                "the float4 counts of the A and B tiles must be multiples of the thread count");

  __shared__ alignas(16) float As[BK][BM];  // transposed: column k of the A tile is a row
  __shared__ alignas(16) float Bs[BK][BN];

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  float regC[TM][TN] = {};
  float regM[TM];
  float regN[TN];

  for (int tileK = 0; tileK < K; tileK += BK) {
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / THREADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int r = idx / (BK / 4), k = idx % (BK / 4) * 4;
      const float4 a = load_float4<VEC>(A, blockRow + r, tileK + k, M, K);
      // Four scalar stores: the transpose. (Threads 2t and 2t+1 hit the same bank here;
      // chapter 05 pads the rows of As to fix that.)
      As[k + 0][r] = a.x;  // (BK, BM)
      As[k + 1][r] = a.y;
      As[k + 2][r] = a.z;
      As[k + 3][r] = a.w;
    }
#pragma unroll
    for (int i = 0; i < BK * BN / 4 / THREADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int k = idx / (BN / 4), c = idx % (BN / 4) * 4;
      *reinterpret_cast<float4*>(&Bs[k][c]) =
          load_float4<VEC>(B, tileK + k, blockCol + c, K, N);  // (BK, BN)
    }
    __syncthreads();

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
    __syncthreads();
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

// ---------------------------------------------------------------------------------------
// Launchers (tutorial::GemmLauncher: row-major C = A * B, any M, N, K >= 1)
// ---------------------------------------------------------------------------------------

// The grid covers C with BM x BN tiles, x along columns; the block size follows from the
// same template constants the kernel checks.
template <int BM, int BN, int BK, int TM>
void launch_register_1d_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("register_1d_gemm", M, N, K);
  const dim3 block(BM / TM * BN);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::launch(register_1d_gemm<BM, BN, BK, TM>, grid, block, 0, A, B, C, M, N, K);
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_register_2d_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("register_2d_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::launch(register_2d_gemm<BM, BN, BK, TM, TN>, grid, block, 0, A, B, C, M, N, K);
}

// Picks the 16-byte variant when the shape allows it and the 4-byte variant otherwise: the
// same kernel source, so both are tested by the same suite.
template <int BM, int BN, int BK, int TM, int TN>
void launch_vectorized_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("vectorized_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(vectorized_gemm<BM, BN, BK, TM, TN, decltype(vec)::value>, grid, block, 0, A,
                     B, C, M, N, K);
  });
}

}  // namespace ch04
