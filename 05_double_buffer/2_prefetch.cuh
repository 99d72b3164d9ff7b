// Chapter 05, step 2: prefetch_gemm, double buffering through registers.
//
// What changed since step 1: the loads of tile t+1 go into registers (nextA, nextB) at the top
// of step t, and only after the math of step t are they written to the other shared buffer.
// Why it is faster: a load's latency now hides behind the 512 FMAs per thread of a step instead
// of stalling the warp. Rows of the transposed A tile are padded by PAD_A floats, which removes
// chapter 04's 2-way bank conflict on the transposing stores.
// What it still gets wrong: the threads' 8 x 8 tiles are laid out by thread, so the 16 lanes
// of a half warp read TN = 8 consecutive floats each, 32 bytes apart: bank conflicts on every
// LDS.128 of B. Step 3 lays the threads out by warp.
#pragma once

#include "05_double_buffer/padding.cuh"  // PAD_A
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

using tutorial::load_float4;
using tutorial::store_float4;

// Double buffering through registers: tile t+1 is loaded into registers (nextA, nextB) at the
// top of step t and stored to the other shared buffer after the math of step t.
template <int BM, int BN, int BK, int TM, int TN, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    prefetch_gemm(const float* __restrict__ A, const float* __restrict__ B,
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
  constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of A per thread per tile
  constexpr int B_LOADS = BK * BN / 4 / THREADS;

  __shared__ alignas(16) float As[2][BK][BM + PAD_A];  // (2, BK, BM+PAD_A)
  __shared__ alignas(16) float Bs[2][BK][BN];          // (2, BK, BN)

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  float4 nextA[A_LOADS];  // the next tile, in flight in registers
  float4 nextB[B_LOADS];
  auto loadNext = [&](int tileK) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextA[i] = load_float4<VEC>(A, blockRow + idx / (BK / 4), tileK + idx % (BK / 4) * 4, M, K);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextB[i] = load_float4<VEC>(B, tileK + idx / (BN / 4), blockCol + idx % (BN / 4) * 4, K, N);
    }
  };
  auto storeNext = [&](int stage) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int r = idx / (BK / 4), k = idx % (BK / 4) * 4;
      As[stage][k + 0][r] = nextA[i].x;  // (2, BK, BM+PAD_A): the padding spreads these
      As[stage][k + 1][r] = nextA[i].y;  // over 32 banks
      As[stage][k + 2][r] = nextA[i].z;
      As[stage][k + 3][r] = nextA[i].w;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      *reinterpret_cast<float4*>(&Bs[stage][idx / (BN / 4)][idx % (BN / 4) * 4]) = nextB[i];
    }
  };

  float regC[TM][TN] = {};
  float regM[TM];
  float regN[TN];

  // BEGIN QUOTE main-loop
  loadNext(0);
  storeNext(0);
  __syncthreads();
  int stage = 0;
  for (int tileK = 0; tileK < K; tileK += BK) {
    const bool hasNext = tileK + BK < K;
    if (hasNext) loadNext(tileK + BK);  // in flight during the math below

    // BEGIN ELIDE main-loop: the BK steps of chapter 04's k loop, from buffer `stage`
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        // (2, BK, BM+PAD_A)
        const float4 a = *reinterpret_cast<const float4*>(&As[stage][k][threadRow * TM + i]);
        regM[i + 0] = a.x;
        regM[i + 1] = a.y;
        regM[i + 2] = a.z;
        regM[i + 3] = a.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        // (2, BK, BN)
        const float4 b = *reinterpret_cast<const float4*>(&Bs[stage][k][threadCol * TN + j]);
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
    // END ELIDE main-loop

    // The other buffer was last read in the previous step, which the barrier below ended.
    if (hasNext) storeNext(stage ^ 1);
    __syncthreads();  // the new tile is complete, and everyone is done with this buffer
    stage ^= 1;
  }
  // END QUOTE main-loop

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      store_float4<VEC>(C, row, blockCol + threadCol * TN + j, M, N,
                        make_float4(regC[i][j], regC[i][j + 1], regC[i][j + 2], regC[i][j + 3]));
  }
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_prefetch_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("prefetch_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(prefetch_gemm<BM, BN, BK, TM, TN, decltype(vec)::value>, grid, block, 0, A,
                     B, C, M, N, K);
  });
}

}  // namespace ch05
