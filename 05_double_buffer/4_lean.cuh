// Chapter 05, step 4: lean_gemm, the load bookkeeping out of the main loop.
//
// What changed since step 3 (loads, stores and the main loop are otherwise the same):
//   - one 32-bit offset per matrix, computed once and advanced by one tile per step, instead
//     of a row * cols + col per load per tile;
//   - whether a row of A lies inside M is decided once (a predicate per load); columns of B
//     past N read the last valid float4 column instead (they only feed columns of C that are
//     never stored), so k is the only coordinate tested per tile.
// Why it is faster: fewer integer instructions between the FFMAs (what it is worth:
// lab/LOG.md#run-8). The tiles are dynamic shared memory, so tiles over 48 KB could be tried
// (BK = 32 spills at the 128-register cap of 2 blocks/SM: lab/LOG.md).
// What it still gets wrong: each tile starts with every warp waiting on shared memory for its
// first fragments, and many FFMAs read two operands from the same register bank. Step 5.
#pragma once

#include "05_double_buffer/warp_tile.cuh"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

// warp_tiled_gemm with the bookkeeping of the global loads taken out of the main loop.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    lean_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int M, int N, int K) {
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

  extern __shared__ float4 smem[];
  auto As = reinterpret_cast<float (*)[BK][LDA]>(smem);         // (2, BK, BM+PAD_A)
  auto Bs = reinterpret_cast<float (*)[BK][BN]>(&As[2][0][0]);  // (2, BK, BN)

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const Layout w;

  // Load i of a thread: A float4 at row rA0 + i * A_ROWS, k = kA of the tile; B float4 at
  // row kB0 + i * B_ROWS, column cB. offA/offB: the offset of load 0 in A/B in the current
  // tile, advanced by one tile per step (32-bit, like every index in this tutorial: these
  // kernels sit at the 128-register cap). Rows of A past M are skipped by a predicate
  // computed once; B's columns past N are clamped (they only feed columns never stored).
  constexpr int A_ROWS = THREADS / (BK / 4);
  constexpr int B_ROWS = THREADS / (BN / 4);
  static_assert(THREADS % (BK / 4) == 0, "the threads load whole rows of the A tile per pass");
  static_assert(THREADS % (BN / 4) == 0, "the threads load whole rows of the B tile per pass");
  const int rA0 = threadIdx.x / (BK / 4), kA = threadIdx.x % (BK / 4) * 4;
  const int kB0 = threadIdx.x / (BN / 4), cB = threadIdx.x % (BN / 4) * 4;
  int offA = (blockRow + rA0) * K + kA;
  // VEC: N % 4 == 0, so N - 4 is the last float4 column and stays 16-byte aligned.
  int offB = kB0 * N + (VEC ? min(blockCol + cB, N - 4) : blockCol + cB);
  bool rowInA[A_LOADS];
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) rowInA[i] = blockRow + rA0 + i * A_ROWS < M;

  float4 nextA[A_LOADS];
  float4 nextB[B_LOADS];
  auto loadNext = [&](int tileK) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const float* p = A + offA + i * A_ROWS * K;
      if (VEC) {
        nextA[i] = rowInA[i] && tileK + kA < K ? *reinterpret_cast<const float4*>(p)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        const int lim = rowInA[i] ? K - tileK - kA : 0;  // elements of this float4 inside A
        nextA[i] = make_float4(0 < lim ? p[0] : 0.0f, 1 < lim ? p[1] : 0.0f,
                               2 < lim ? p[2] : 0.0f, 3 < lim ? p[3] : 0.0f);
      }
    }
    offA += BK;
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int k = tileK + kB0 + i * B_ROWS;
      if (VEC) {
        nextB[i] = k < K ? *reinterpret_cast<const float4*>(B + offB + i * B_ROWS * N)
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        nextB[i] = load_float4<false>(B, k, blockCol + cB, K, N);
      }
    }
    offB += BK * N;
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
void launch_lean_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("lean_gemm", M, N, K);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(lean_gemm<BM, BN, BK, WM, WN, TM, TN, decltype(vec)::value>, grid, block,
                     warp_tiles_smem_bytes<BM, BN, BK, 2>(), A, B, C, M, N, K);
  });
}

}  // namespace ch05
