// Exercise 05d: a STAGES-deep pipeline of asynchronous copies, for C = A^T B (chapter 05,
// part 1 and its appendix).
//
// Here A is stored transposed: the buffer A holds K rows of M floats (A[k * M + m] is element
// (m, k) of the left factor), and C = A^T B. Each block computes a BM x BN tile of C, 4 x 4
// per thread, walking K in tiles BK deep. Instead of loading a tile into registers and storing
// it to shared memory (chapter 05's prefetch_gemm), the tiles travel from global to shared
// memory by asynchronous copies (cp.async, LDGSTS in the machine code) through <cuda_pipeline.h>:
//
//   __pipeline_memcpy_async(dst, src, 4, zfill)   queue a copy of 4 bytes, src -> dst (shared);
//                                                 zfill = 4: write 4 zero bytes instead, src
//                                                 unread (it must still be a valid pointer)
//   __pipeline_commit()                           close this thread's batch of queued copies
//   __pipeline_wait_prior(n)                      wait until at most n of this thread's
//                                                 committed batches are still in flight
//
// A copy's data is visible only after its batch is waited for, and only to the thread that
// issued it: other threads see it after a barrier. STAGES shared buffers form a ring: while
// the block multiplies tile t from stage t % STAGES, the copies of the next STAGES - 1 tiles
// are in flight into the other stages:
//
//   before the loop:  tiles 0 .. STAGES-2 copied, one batch each
//   step t:  wait until tile t's batch has landed; barrier (every thread's copies of tile t
//            visible, every thread done with step t-1); copy tile t + STAGES - 1 into the stage
//            step t-1 used; commit; multiply stage t % STAGES
//
// computeTile() and the store of C are written for you. (The CPU backend performs a thread's
// queued copies when it waits for them, exactly then: a wait too shallow reads a stage before
// its data lands, and the tests see it.)
//
// Your task: copyTile(), the copies of one tile (coalesced: consecutive threads along a row of
// the stored A, and of B; zero-filled outside A and B, so that any M, N, K >= 1 works), and the
// pipeline: the copies before the loop and the main loop, with its one wait, one barrier and
// one commit per step. Then delete the exercise::todo() line. Test with `make check` in this
// folder.
#pragma once

#include <cuda_pipeline.h>

#include "common/ceil_div.hpp"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex05d {

constexpr int BM = 64, BN = 64, BK = 16;  // the block's tile of C, the depth of a k step
constexpr int TM = 4, TN = 4;             // per thread
constexpr int THREADS = (BM / TM) * (BN / TN);

template <int STAGES>
__global__ void __launch_bounds__(THREADS)
    pipelined_gemm(const float* __restrict__ A, const float* __restrict__ B,
                   float* __restrict__ C, int M, int N, int K) {
  static_assert(STAGES >= 2, "one stage being computed, at least one being copied");
  __shared__ alignas(16) float As[STAGES][BK][BM];  // As[k][m]: tiles of the stored A
  __shared__ alignas(16) float Bs[STAGES][BK][BN];

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);
  const int tiles = tutorial::ceil_div(K, BK);

  // The copies of tile t (k from t * BK) into stage `stage`, queued, not committed.
  auto copyTile = [&](int t, int stage) {
    // TODO(05d): BM * BK / THREADS 4-byte copies of the stored A into As[stage][k][m] and
    // BK * BN / THREADS of B into Bs[stage][k][n], zero-filled outside A and B.
    (void)t, (void)stage;
  };

  float regC[TM][TN] = {};
  // regC += this thread's share of the product of stage `stage`.
  auto computeTile = [&](int stage) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float regM[TM], regN[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[stage][k][threadRow * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) regN[j] = Bs[stage][k][threadCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) regC[i][j] += regM[i] * regN[j];
    }
  };

  // TODO(05d): copy tiles 0 .. STAGES-2 (one commit each) before the loop; per step t:
  // wait for tile t, one __syncthreads(), copy tile t + STAGES - 1 into the stage that
  // step t-1 used, commit, computeTile(t % STAGES).
  (void)copyTile, (void)computeTile, (void)tiles;

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = blockCol + threadCol * TN + j;
      if (row < M && col < N) C[size_t(row) * N + col] = regC[i][j];
    }
  }
}

template <int STAGES>
void launch_pipelined_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("05d_async_pipeline: write copyTile and the pipeline, then delete this line");
  tutorial::check_gemm_shape("ex05d::pipelined_gemm", M, N, K);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::launch(pipelined_gemm<STAGES>, grid, dim3(THREADS), 0, A, B, C, M, N, K);
}

}  // namespace ex05d
