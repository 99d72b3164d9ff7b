// Chapter 05, step 3: warp_tiled_gemm, the threads laid out by warp.
//
// What changed since step 2: the same pipeline (next tile in registers during the math), with
// the block's threads organised by warp (warp_tile.cuh): each warp owns a WM x WN piece of the
// block tile and each lane TM/4 x TN/4 sub-tiles of 4 x 4 spread across it.
// Why it is faster: a warp's LDS.128 reads of a fragment touch a few consecutive float4s, so no
// quarter warp has a bank conflict, where step 2's threads read 16 strided ones.
// What it still gets wrong: every load recomputes its address and edge tests inside the main
// loop (integer instructions between the FFMAs). Step 4 hoists them.
#pragma once

#include "05_double_buffer/warp_tile.cuh"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

// prefetch_gemm with the threads organised by warp (see WarpLayout).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    warp_tiled_gemm(const float* __restrict__ A, const float* __restrict__ B,
                    float* __restrict__ C, int M, int N, int K) {
  using Layout = WarpLayout<BM, BN, WM, WN, TM, TN>;
  constexpr int THREADS = Layout::THREADS;
  static_assert(BK % 4 == 0 && BN % 4 == 0,
                "tiles are loaded as float4 along k (A) and along n (B): BK and BN must be "
                "multiples of 4");
  static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                "the float4 counts of the A and B tiles must be multiples of the thread count");
  constexpr int A_LOADS = BM * BK / 4 / THREADS;
  constexpr int B_LOADS = BK * BN / 4 / THREADS;
  constexpr int LDA = BM + PAD_A;

  __shared__ alignas(16) float As[2][BK][LDA];  // (2, BK, BM+PAD_A)
  __shared__ alignas(16) float Bs[2][BK][BN];   // (2, BK, BN)

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const Layout w;

  float4 nextA[A_LOADS];
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
      As[stage][k + 0][r] = nextA[i].x;  // (2, BK, BM+PAD_A)
      As[stage][k + 1][r] = nextA[i].y;
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

  loadNext(0);
  storeNext(0);
  __syncthreads();
  int stage = 0;
  for (int tileK = 0; tileK < K; tileK += BK) {
    const bool hasNext = tileK + BK < K;
    if (hasNext) loadNext(tileK + BK);
    multiply_tiles<BK, LDA, BN>(&As[stage][0][0], &Bs[stage][0][0], w, regC);
    if (hasNext) storeNext(stage ^ 1);
    __syncthreads();
    stage ^= 1;
  }

  store_lane_tile<TM, TN, VEC>(C, M, N, blockRow, blockCol, w, regC);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch_warp_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("warp_tiled_gemm", M, N, K);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(warp_tiled_gemm<BM, BN, BK, WM, WN, TM, TN, decltype(vec)::value>, grid,
                     block, 0, A, B, C, M, N, K);
  });
}

}  // namespace ch05
