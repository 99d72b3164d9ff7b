// Chapter 05, appendix: async_gemm, asynchronous copies several stages deep.
//
// What it changes against step 3: the loads become asynchronous copies (cp.async through
// <cuda_pipeline.h>) straight from global to shared memory, STAGES tiles deep: no registers
// hold tiles in flight and no thread waits for a load it issued. Shipped in cuBLAS's own
// geometry (128 x 256 tiles, 8 warps of 64 x 64, 8 x 16 per thread, one block per SM).
// Measured, not a step: on the H200 it does not beat warp_tiled_gemm; the copies were never
// the bottleneck (README.md; lab/LOG.md#main-loop).
#pragma once

#include <cuda_pipeline.h>

#include "05_double_buffer/warp_tile.cuh"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

// 16 bytes of zeros in global memory: the source of the asynchronous copies of elements that
// lie outside A or B (a copy can also zero-fill its destination, as step 5's copies of B do;
// here every copy reads, from A, B or these zeros).
__device__ alignas(16) const float kZeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};

// Block tile (blockRow, blockCol) of block b when blocks run in groups of GROUP_M block rows:
// the first GROUP_M * tilesN blocks cover GROUP_M block rows column by column, and so on.
// Blocks that run at the same time then read GROUP_M row strips of A and a few column strips
// of B, which fit in L2, instead of one strip of A and all of B. (Measured on the H200 at
// 4096 and 8192: no difference; its 60 MB L2 apparently holds enough either way.)
// (Host and device: a host test checks that every tile is visited exactly once.)
template <int BM, int BN, int GROUP_M>
__host__ __device__ __forceinline__ void grouped_tile(int b, int M, int N, int& blockRow,
                                                      int& blockCol) {
  const int tilesM = tutorial::ceil_div(M, BM), tilesN = tutorial::ceil_div(N, BN);
  const int perGroup = GROUP_M * tilesN;
  const int firstM = b / perGroup * GROUP_M;
  const int groupRows = tilesM - firstM < GROUP_M ? tilesM - firstM : GROUP_M;  // last: shorter
  const int inGroup = b % perGroup;
  blockRow = (firstM + inGroup % groupRows) * BM;
  blockCol = inGroup / groupRows * BN;
}

// Warp tiles fed by a STAGES-deep ring of shared tiles filled with asynchronous copies.
//   A: 4-byte copies, each into its transposed place As[k][m]; a warp copies 4 rows x 8
//      consecutive k (four 32-byte sectors) and writes 32 different banks.
//   B: 16-byte copies (VEC) or 4-byte copies, row by row.
// Past K the tiles are copied from a block of zeros; rows past M and columns past N are
// copied from the last valid row or column (see below).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int GROUP_M,
          bool VEC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    async_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
  using Layout = WarpLayout<BM, BN, WM, WN, TM, TN>;
  constexpr int THREADS = Layout::THREADS;
  static_assert(STAGES >= 2, "a pipeline needs at least two stages: one loading, one computing");
  static_assert(BK % 8 == 0, "a warp copies A in runs of 8 consecutive k: BK % 8 == 0");
  static_assert(BM % 4 == 0 && (BM * BK) % THREADS == 0,
                "every thread copies the same number of A elements");
  static_assert((BK * BN / 4) % THREADS == 0, "every thread copies the same number of B float4s");
  static_assert(GROUP_M >= 1, "GROUP_M is a number of block rows");
  constexpr int LDA = BM + PAD_A;
  constexpr int A_COPIES = BM * BK / THREADS;       // 4-byte copies per thread
  constexpr int B_COPIES = BK * BN / 4 / THREADS;   // 16-byte copies per thread (or 4x4 bytes)

  extern __shared__ float4 smem[];
  auto As = reinterpret_cast<float (*)[BK][LDA]>(smem);              // (STAGES, BK, BM+PAD_A)
  auto Bs = reinterpret_cast<float (*)[BK][BN]>(&As[STAGES][0][0]);  // (STAGES, BK, BN)

  int blockRow, blockCol;
  grouped_tile<BM, BN, GROUP_M>(blockIdx.x, M, N, blockRow, blockCol);
  const Layout w;

  // Which elements a thread copies is the same for every tile, so the source addresses are
  // computed once and advanced by one tile per step (kept in registers: the compiler cannot
  // recompute a value that changes every iteration).
  //   A: lane group tid/8 owns tile rows tid/8 + i*(THREADS/8) (mod BM), at k = tid%8 (+8 per
  //      wrap around BM): a warp copies 4 rows x 8 consecutive k, into 32 different banks.
  //   B: thread owns float4 column (tid % (BN/4)) * 4 of rows tid/(BN/4) + i*(THREADS/(BN/4)).
  // Edges need no per-tile row or column test: a row of A past M only feeds rows of C past M,
  // which are never stored, so such rows (and columns of B past N) are copied from the last
  // valid row (column) instead. Only k needs zeros: past K, both tiles are copied from kZeros,
  // 16 bytes of zeros in global memory, so that every product there is 0 * 0.
  constexpr int A_ROWS_PER_PASS = THREADS / 8;
  constexpr int B_ROWS_PER_PASS = THREADS / (BN / 4);
  static_assert(THREADS % 8 == 0 && BM % A_ROWS_PER_PASS == 0,
                "the threads copy A in passes of THREADS/8 rows: BM must be a multiple of that");
  static_assert(THREADS % (BN / 4) == 0, "the threads copy whole rows of the B tile per pass");
  const float* srcA[A_COPIES];  // &A[row][tileK + kA]
  int mA[A_COPIES], kA[A_COPIES];
#pragma unroll
  for (int i = 0; i < A_COPIES; ++i) {
    const int pass = threadIdx.x / 8 + i * A_ROWS_PER_PASS;
    mA[i] = pass % BM;
    kA[i] = pass / BM * 8 + threadIdx.x % 8;
    srcA[i] = A + min(blockRow + mA[i], M - 1) * K + kA[i];
  }
  const int nB = threadIdx.x % (BN / 4) * 4;
  const float* srcB[B_COPIES];  // &B[tileK + kB][column]
  int kB[B_COPIES];
#pragma unroll
  for (int i = 0; i < B_COPIES; ++i) {
    kB[i] = threadIdx.x / (BN / 4) + i * B_ROWS_PER_PASS;
    // VEC: N % 4 == 0, so N - 4 is the last float4 column and stays 16-byte aligned.
    srcB[i] = B + kB[i] * N + (VEC ? min(blockCol + nB, N - 4) : blockCol + nB);
  }
  const size_t strideB = size_t(BK) * N;  // one tile down B

  auto copyTile = [&](int tileK, int stage) {
#pragma unroll
    for (int i = 0; i < A_COPIES; ++i) {
      const float* src = tileK + kA[i] < K ? srcA[i] : kZeros;
      __pipeline_memcpy_async(&As[stage][kA[i]][mA[i]], src,
                              sizeof(float));  // (STAGES, BK, BM+PAD_A)
      srcA[i] += BK;
    }
#pragma unroll
    for (int i = 0; i < B_COPIES; ++i) {
      float* dst = &Bs[stage][kB[i]][nB];  // (STAGES, BK, BN)
      const bool inK = tileK + kB[i] < K;
      if (VEC) {
        __pipeline_memcpy_async(dst, inK ? srcB[i] : kZeros, sizeof(float4));
      } else {
        // 4-byte copies, each column clamped on its own.
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int shift = min(blockCol + nB + c, N - 1) - (blockCol + nB);
          __pipeline_memcpy_async(dst + c, inK ? srcB[i] + shift : kZeros, sizeof(float));
        }
      }
      srcB[i] += strideB;
    }
  };

  float regC[TM][TN] = {};
  const int numTiles = tutorial::ceil_div(K, BK);

  // BEGIN QUOTE main-loop
  // Fill the pipeline: tiles 0 .. STAGES-2 in flight, one commit group each.
  // BEGIN ELIDE main-loop: for s < STAGES - 1: copyTile(s * BK, s); __pipeline_commit();
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < numTiles) copyTile(s * BK, s);
    __pipeline_commit();
  }
  // END ELIDE main-loop

  int stage = 0;  // the stage computed in this step: t % STAGES
  for (int t = 0; t < numTiles; ++t) {
    // Groups are committed in order, so "at most STAGES-2 pending" means tile t has landed.
    __pipeline_wait_prior(STAGES - 2);
    // Every thread's copies of tile t are visible, and every thread has finished step t-1,
    // whose stage the copy below overwrites.
    __syncthreads();
    const int next = t + STAGES - 1;
    const int nextStage = stage == 0 ? STAGES - 1 : stage - 1;  // (t - 1) % STAGES
    if (next < numTiles) copyTile(next * BK, nextStage);
    __pipeline_commit();  // possibly empty, so the group count stays one per step

    multiply_tiles<BK, LDA, BN>(&As[stage][0][0], &Bs[stage][0][0], w, regC);
    stage = stage + 1 == STAGES ? 0 : stage + 1;
  }
  // END QUOTE main-loop

  store_lane_tile<TM, TN, VEC>(C, M, N, blockRow, blockCol, w, regC);
}

// One-dimensional grid: grouped_tile turns the block index into a tile.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int GROUP_M>
void launch_async_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("async_gemm", M, N, K);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(M, BM) * tutorial::ceil_div(N, BN));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(async_gemm<BM, BN, BK, WM, WN, TM, TN, STAGES, GROUP_M, decltype(vec)::value>,
                     grid, block, warp_tiles_smem_bytes<BM, BN, BK, STAGES>(), A, B, C, M, N, K);
  });
}

}  // namespace ch05
