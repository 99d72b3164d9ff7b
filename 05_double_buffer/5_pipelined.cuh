// Chapter 05, step 5: pipelined_gemm, the chapter's main loop.
//
// What changed since step 4: the main loop only; loads, stores and edges are the same. The
// loop is a function of its own (product_over_k: the product over a range of K), so that
// steps 6 and 7 run this same loop over slices of K instead of a copy of it:
//   - fragments double-buffered in registers: at step k a lane loads the fragments of step
//     k + 1 while it multiplies those of step k. The barrier moves before the last step of a
//     tile, and the next tile's first fragments load while that step's FFMAs run, so no warp
//     starts a tile waiting on shared memory. The second set of fragments costs TM + TN = 16
//     registers; ptxas fits the kernel in 125 (step 4: 128);
//   - two tiles per loop trip, so the buffer a tile lives in is a compile-time constant and
//     every shared-memory address a fixed offset; the last tile is peeled off the loop (it
//     loads and stores nothing and needs no barrier), so the loop body tests nothing;
//   - the FMAs of a step column by column (outer_product_by_columns), with which ptxas finds a
//     register assignment with few bank conflicts. Each of the three alone measured slower or
//     no better; together they bring the kernel level with cuBLAS at 8192 (warp_tiles.md;
//     lab/LOG.md#main-loop).
// What it still gets wrong: one 128 x 128 tile for every problem, so a problem with too few
// tiles to fill the GPU (small sizes, small M, long K) runs far below cuBLAS; and it is FP32 on
// the CUDA cores: the same GPU multiplies TF32, BF16 or FP8 matrices on its tensor cores many
// times faster (another tutorial).
#pragma once

#include <cuda_pipeline.h>

#include <type_traits>

#include "05_double_buffer/warp_tile.cuh"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

// The main loop of lean_gemm with the fragments pipelined across the barrier, over the Ks
// values of k from k0: regC += A[tile rows][k0, k0 + Ks) * B[k0, k0 + Ks)[tile columns] for the
// BM x BN tile of C at (blockRow, blockCol). pipelined_gemm below runs it over all of K; step 6
// runs it over one slice of K, step 7 over a range of k-iterations. A caller that runs it again
// must first __syncthreads() (it refills the shared tiles).
// k0 goes into the loads' 32-bit offsets (offA, offB), not into the pointers: A and B stay the
// kernel's parameters, which ptxas reloads from the constant bank (LDC) where a load needs
// them instead of keeping them in registers. Compiled for sm_90, pipelined_gemm's main loop is
// the same instructions as when it was written inside the kernel (k0 = 0 folds away); moving k0
// into the pointers instead (A + k0, B + k0 * N) adds 12 instructions per 2,048 FFMAs to
// stream_k_gemm's float4 loop and 24 to sliced_gemm's, and measured slower
// (lab/LOG.md#stream-k: fix 1, and the SASS counts).
// VEC_A, VEC_B: A's and B's tiles are read 16 bytes at a time; else 4 bytes at a time, or, in
// the 8 x 4-lane tiles, 8 where the rows start on 8 bytes (pairsA, pairsB below). The 8 x 4-lane
// tiles 64 or 128 wide copy a narrow B's tile straight to shared memory instead (ASYNC_B below),
// in 8-byte copies where pairsB, else 4-byte. One flag for both here, each operand its own from
// step 6 on (tutorial::vec_operands).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_A, bool VEC_B = VEC_A>
__device__ __forceinline__ void product_over_k(const float* __restrict__ A,
                                               const float* __restrict__ B, int M, int N,
                                               int K, int k0, int Ks, int blockRow,
                                               int blockCol, float (&regC)[TM][TN]) {
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

  const Layout w;

  // Load i of a thread: A float4 at row rA0 + i * A_ROWS, k = kA of the tile; B float4 (without
  // ASYNC_B) at row kB0 + i * B_ROWS, column cB. offA/offB: the offset of load 0 in A/B in the
  // current tile, advanced by one tile per step (32-bit, like every index in this tutorial: these
  // kernels sit at the 128-register cap). Rows of A past M are skipped by a predicate
  // computed once; B's columns past N are clamped (they only feed columns never stored).
  constexpr int A_ROWS = THREADS / (BK / 4);
  constexpr int B_ROWS = THREADS / (BN / 4);
  static_assert(THREADS % (BK / 4) == 0, "the threads load whole rows of the A tile per pass");
  static_assert(THREADS % (BN / 4) == 0, "the threads load whole rows of the B tile per pass");
  const int rA0 = threadIdx.x / (BK / 4), kA = threadIdx.x % (BK / 4) * 4;
  const int kB0 = threadIdx.x / (BN / 4), cB = threadIdx.x % (BN / 4) * 4;
  int offA = (blockRow + rA0) * K + k0 + kA;
  // VEC_B: N % 4 == 0, so N - 4 is the last float4 column and stays 16-byte aligned.
  int offB = (k0 + kB0) * N + (VEC_B ? min(blockCol + cB, N - 4) : blockCol + cB);
  bool rowInA[A_LOADS];
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) rowInA[i] = blockRow + rA0 + i * A_ROWS < M;
  // Without float4, a row that starts on 8 bytes can still be read in pairs (tutorial::
  // load_4_floats): A's with K, k0 and Ks even, B's with N even. Lanes of 8 x 4 results do;
  // those of 8 x 8 (this step's kernel, the 128 x 128 tile and its halves, stream-K) keep 4-byte
  // loads: with pairs the 128 x 128 tile gained at mid-size shapes but lost at large ones with a
  // short K, even where no pairs were taken (lab/LOG.md#pairs). B's are loaded in pairs by the
  // 128 x 32 tile only; the 64- and 128-wide tiles take pairsB as the width of their copies.
  constexpr bool PAIRS = TM * TN == 32;
  const bool pairsA = PAIRS && !VEC_A && (K | k0 | Ks) % 2 == 0 && starts_on_8_bytes(A);
  const bool pairsB = PAIRS && !VEC_B && N % 2 == 0 && starts_on_8_bytes(B);
  // ASYNC_B: the 8 x 4-lane tiles with B tiles 64 or 128 wide copy B's tile without float4
  // straight to shared memory (cp.async, copyB below): each pair or float lands in its own place,
  // so consecutive lanes copy consecutive ones, 128 or 256 bytes of a row a warp instruction,
  // where a lane's float4 in registers puts a warp's loads 16 bytes apart; and no register holds
  // them in flight. Each copy costs its own address and bound: the 8 x 8 lanes, which issue an
  // instruction almost every clock at the register cap, and the 128 x 32 tile measured slower
  // with the copies and keep their loads (lab/LOG.md#async-b).
  constexpr bool ASYNC_B = PAIRS && !VEC_B && BN >= 64;

  float4 nextA[A_LOADS];
  float4 nextB[ASYNC_B ? 1 : B_LOADS];
  // Tile tileK of B, rows [k0 + tileK, + BK), into Bs[stage] in copies of W floats: copy i of a
  // thread is row k + i * ROWS, columns c .. c + W - 1. Rows past the slice, columns past N: W * 4
  // bytes of zeros (zfill, nothing read).
  auto copyB = [&](auto width, int tileK, int stage) {
    constexpr int W = decltype(width)::value, PER_ROW = BN / W, ROWS = THREADS / PER_ROW;
    static_assert(THREADS % PER_ROW == 0, "the threads copy whole rows of the B tile per pass");
    const int k = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW * W;
    const int rowsLeft = blockCol + c < N ? Ks - tileK - k : 0;  // (N % W == 0)
#pragma unroll
    for (int i = 0; i < BK / ROWS; ++i) {
      const bool inside = i * ROWS < rowsLeft;
      __pipeline_memcpy_async(&Bs[stage][k + i * ROWS][c],
                              B + (inside ? (k0 + tileK + k + i * ROWS) * N + blockCol + c : 0),
                              W * 4, inside ? 0 : W * 4);
    }
  };
  // Tile tileK: A (and B, but where ASYNC_B) into registers, B with ASYNC_B into Bs[stage].
  auto loadNext = [&](int tileK, int stage) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const float* p = A + offA + i * A_ROWS * K;
      if (VEC_A) {
        nextA[i] = rowInA[i] && tileK + kA < Ks ? *reinterpret_cast<const float4*>(p)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        const int lim = rowInA[i] ? Ks - tileK - kA : 0;  // elements of this float4 inside A
        nextA[i] = load_4_floats(p, lim, pairsA);
      }
    }
    offA += BK;
    if constexpr (ASYNC_B) {
      if (pairsB)
        copyB(std::integral_constant<int, 2>{}, tileK, stage);
      else
        copyB(std::integral_constant<int, 1>{}, tileK, stage);
      __pipeline_commit();
    } else {
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) {
        const int k = tileK + kB0 + i * B_ROWS;
        if (VEC_B) {
          nextB[i] = k < Ks ? *reinterpret_cast<const float4*>(B + offB + i * B_ROWS * N)
                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        } else if (pairsB) {
          const int lim = k < Ks ? N - blockCol - cB : 0;  // elements of this float4 inside B
          nextB[i] = load_4_floats(B + (k0 + k) * N + blockCol + cB, lim, true);
        } else {
          nextB[i] = load_float4<false>(B, k0 + k, blockCol + cB, k0 + Ks, N);
        }
      }
      offB += BK * N;
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
    if constexpr (ASYNC_B) {
      __pipeline_wait_prior(0);  // this thread's copies have landed (the barrier: everyone's)
    } else {
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) {
        const int idx = threadIdx.x + i * THREADS;
        *reinterpret_cast<float4*>(&Bs[stage][idx / (BN / 4)][idx % (BN / 4) * 4]) = nextB[i];
      }
    }
  };

  loadNext(0, 0);
  storeNext(0);
  __syncthreads();
  static_assert(BK % 2 == 0, "the two fragment buffers alternate with k, and across tiles");
  float regM[2][TM], regN[2][TN];  // fragments of step k in [k % 2], of k + 1 in the other
  load_fragments<LDA, BN>(&As[0][0][0], &Bs[0][0][0], 0, w, regM[0], regN[0]);
  // One tile from buffer BUF; the caller has issued the next tile's global loads. With
  // HAS_NEXT they go to the other buffer before the barrier, its first fragments after it.
  // BEGIN QUOTE pipelined-loop
  auto tile = [&](auto buffer, auto hasNext) {
    constexpr int BUF = decltype(buffer)::value;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k < BK - 1) {
        load_fragments<LDA, BN>(&As[BUF][0][0], &Bs[BUF][0][0], k + 1, w, regM[(k + 1) % 2],
                                regN[(k + 1) % 2]);
      } else if (decltype(hasNext)::value) {
        storeNext(BUF ^ 1);
        __syncthreads();  // the next tile is complete, and nobody reads this one any more
        load_fragments<LDA, BN>(&As[BUF ^ 1][0][0], &Bs[BUF ^ 1][0][0], 0, w,
                                regM[(k + 1) % 2], regN[(k + 1) % 2]);
      }
      outer_product_by_columns(regM[k % 2], regN[k % 2], regC);
    }
  };
  // END QUOTE pipelined-loop
  using Buffer0 = std::integral_constant<int, 0>;
  using Buffer1 = std::integral_constant<int, 1>;
  int tileK = 0;
  // Tiles tileK and tileK + BK per trip, each with a successor.
  for (; tileK + 2 * BK < Ks; tileK += 2 * BK) {
    loadNext(tileK + BK, 1);
    tile(Buffer0{}, std::true_type{});
    loadNext(tileK + 2 * BK, 0);
    tile(Buffer1{}, std::true_type{});
  }
  if (tileK + BK < Ks) {  // two tiles left
    loadNext(tileK + BK, 1);
    tile(Buffer0{}, std::true_type{});
    tile(Buffer1{}, std::false_type{});
  } else {  // one tile left
    tile(Buffer0{}, std::false_type{});
  }
}

// Step 4's kernel with the main loop above: the whole of K, then the store.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    pipelined_gemm(const float* __restrict__ A, const float* __restrict__ B,
                   float* __restrict__ C, int M, int N, int K) {
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC>(A, B, M, N, K, 0, K, blockRow, blockCol, regC);
  store_lane_tile<TM, TN, VEC>(C, M, N, blockRow, blockCol, WarpLayout<BM, BN, WM, WN, TM, TN>(),
                               regC);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch_pipelined_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("pipelined_gemm", M, N, K);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  tutorial::dispatch_vec(A, B, C, N, K, [&](auto vec) {
    tutorial::launch(pipelined_gemm<BM, BN, BK, WM, WN, TM, TN, decltype(vec)::value>, grid,
                     block, warp_tiles_smem_bytes<BM, BN, BK, 2>(), A, B, C, M, N, K);
  });
}

}  // namespace ch05
