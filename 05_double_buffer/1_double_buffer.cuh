// Chapter 05, step 1: double_buffer_gemm, the straightforward double buffer.
//
// What changed since chapter 04 (vectorized_gemm): two shared buffers instead of one. The loads
// of tile t+1 go into one buffer while tile t is multiplied from the other, so a k step needs
// one barrier instead of two. STAGES = 1 is chapter 04's algorithm (the control).
// Why it is hardly faster: the loads are plain C++ (global -> register -> shared in one
// statement), so a warp still stalls on each load before it reaches the math; only a barrier
// is saved. And it doubles the shared memory, which costs resident blocks exactly when shared
// memory is what limits them (README.md; the full table: lab/LOG.md#occupancy).
// What it still gets wrong: the global-memory latency is not hidden. Step 2 fixes that.
#pragma once

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

using tutorial::load_float4;
using tutorial::store_float4;

// Chapter 04's vectorized_gemm with STAGES shared buffers (dynamic shared memory, so that
// tiles above 48 KB are possible). STAGES = 1 is chapter 04's algorithm; STAGES = 2 is the
// straightforward double buffer.
template <int BM, int BN, int BK, int TM, int TN, int STAGES, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    double_buffer_gemm(const float* __restrict__ A, const float* __restrict__ B,
                       float* __restrict__ C, int M, int N, int K) {
  static_assert(STAGES == 1 || STAGES == 2, "one buffer (chapter 04) or two (double buffer)");
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

  extern __shared__ float4 smem[];  // float4: 16-byte aligned
  auto As = reinterpret_cast<float (*)[BK][BM]>(smem);                 // (STAGES, BK, BM)
  auto Bs = reinterpret_cast<float (*)[BK][BN]>(&As[STAGES][0][0]);   // (STAGES, BK, BN)

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  // Global -> shared, as in chapter 04. The shared stores need the loaded values, so a warp
  // waits here for global memory before it goes on.
  // "unroll 2": at BK = 64 a thread loads 16 float4s per tile; all in flight at once would
  // need 64 registers besides the 64 accumulators, more than the 128 that 2 blocks/SM allow.
  auto loadTile = [&](int tileK, int stage) {
#pragma unroll 2
    for (int i = 0; i < BM * BK / 4 / THREADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int r = idx / (BK / 4), k = idx % (BK / 4) * 4;
      const float4 a = load_float4<VEC>(A, blockRow + r, tileK + k, M, K);
      As[stage][k + 0][r] = a.x;  // (STAGES, BK, BM)
      As[stage][k + 1][r] = a.y;
      As[stage][k + 2][r] = a.z;
      As[stage][k + 3][r] = a.w;
    }
#pragma unroll 2
    for (int i = 0; i < BK * BN / 4 / THREADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int k = idx / (BN / 4), c = idx % (BN / 4) * 4;
      *reinterpret_cast<float4*>(&Bs[stage][k][c]) =
          load_float4<VEC>(B, tileK + k, blockCol + c, K, N);  // (STAGES, BK, BN)
    }
  };

  float regC[TM][TN] = {};
  float regM[TM];
  float regN[TN];

  const int numTiles = tutorial::ceil_div(K, BK);
  for (int t = 0; t < numTiles; ++t) {
    const int stage = t % STAGES;
    if (STAGES == 1 || t == 0) {
      loadTile(t * BK, stage);
      __syncthreads();
    }
    // Double buffer: the other buffer was last read in step t-1, and the barrier that ended
    // step t-1 guarantees every thread is done with it.
    if (STAGES == 2 && t + 1 < numTiles) loadTile((t + 1) * BK, (t + 1) % STAGES);

#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        // (STAGES, BK, BM)
        const float4 a = *reinterpret_cast<const float4*>(&As[stage][k][threadRow * TM + i]);
        regM[i + 0] = a.x;
        regM[i + 1] = a.y;
        regM[i + 2] = a.z;
        regM[i + 3] = a.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        // (STAGES, BK, BN)
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
    // One buffer: nobody may overwrite it while a slow thread still reads it. Two buffers:
    // tile t+1 must be complete before step t+1 reads it, and step t must be done with this
    // buffer before step t+1 refills it.
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

template <int BM, int BN, int BK, int STAGES>
constexpr size_t double_buffer_smem_bytes() {
  return size_t(STAGES) * (BK * BM + BK * BN) * sizeof(float);
}

template <int BM, int BN, int BK, int TM, int TN, int STAGES>
void launch_double_buffer_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("double_buffer_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(double_buffer_gemm<BM, BN, BK, TM, TN, STAGES, decltype(vec)::value>, grid,
                     block, double_buffer_smem_bytes<BM, BN, BK, STAGES>(), A, B, C, M, N, K);
  });
}

}  // namespace ch05
