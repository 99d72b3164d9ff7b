// Chapter 05: overlap the next tile's loads with the current tile's math, then organise the
// block by warps: from chapter 04's best towards cuBLAS.
//
// What changed since chapter 04: chapter 04's vectorized_gemm alternates two phases per k step,
//     load tile -> __syncthreads -> compute -> __syncthreads
// so while a block waits for global memory it computes nothing. This chapter overlaps them:
//   double_buffer_gemm  the straightforward fix: two shared buffers; issue the loads of tile t+1
//                       into one while computing tile t from the other. One barrier per step.
//                       The loads are plain C++ (global -> register -> shared in one statement),
//                       so a warp still stalls on each load before it reaches the math; only a
//                       barrier is saved. It doubles the shared memory, which costs resident
//                       blocks exactly when shared memory is what limits them (the seeds'
//                       story; STAGES = 1 is the single-buffered control).
//   prefetch_gemm       double buffering through registers: the loads of tile t+1 go into
//                       registers at the top of step t, and only after the math of step t are
//                       they written to the other shared buffer, so the global-memory latency
//                       hides behind 512 FMAs per thread. Rows of the transposed A tile are
//                       padded by 4 floats, which removes chapter 04's 2-way bank conflict on
//                       the transposing stores.
//   warp_tiled_gemm     the same pipeline with the threads laid out by warp: each warp owns a
//                       WM x WN piece of the block tile and each lane TM/4 x TN/4 4x4 sub-tiles
//                       spread across it, so a warp's LDS.128 reads touch a few consecutive
//                       float4s (one shared-memory wavefront) instead of 16 strided ones. With
//                       BK = 16 it comes within a tenth of cuBLAS.
//   lean_gemm           warp_tiled_gemm with the global-load addresses and edge tests
//                       hoisted out of the main loop: the chapter's fastest kernel, by about
//                       half a point.
//   async_gemm          the loads become asynchronous copies (cp.async through <cuda_pipeline.h>)
//                       straight from global to shared memory, STAGES tiles deep: no registers
//                       hold tiles in flight and no thread waits for a load it issued. Shipped
//                       in cuBLAS's own geometry (128 x 256 tiles, 8 x 16 per thread, one
//                       block per SM). On the H200 it does not beat warp_tiled_gemm: the copies
//                       were never the bottleneck (see the README).
//
// Correct for any M, N, K >= 1, as in chapter 04: out-of-range elements of A and B are
// written as zeros into the shared tiles (async_gemm: see its comment) and stores outside C
// are skipped; the VEC = false variants (picked by the launchers when K % 4 or N % 4 is not 0,
// or a pointer is not 16-byte aligned) move 4 bytes at a time instead of 16.
//
// What it still gets wrong: the best kernel issues an instruction on fewer cycles than
// cuBLAS's (more "dispatch" stalls, most likely register-bank conflicts between FFMA operands,
// which CUDA C++ controls only indirectly), and stays about a tenth short of it. And it is FP32
// on the CUDA cores: the same GPU multiplies TF32, BF16 or FP8 matrices on its tensor cores
// many times faster; that is another tutorial.
#pragma once

#include <cuda_pipeline.h>

#include <type_traits>

#include "04_register_block/kernels.cuh"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/launch_record.hpp"

namespace ch05 {

using ch04::load_float4;
using ch04::store_float4;

// Rows of a transposed A tile are BM + PAD_A floats apart. With PAD_A = 4 the 4 scalar stores
// of a transpose land in 32 different banks, and a row still starts on a 16-byte boundary,
// as the LDS.128 reads need.
constexpr int PAD_A = 4;

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

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

  const int tileRow = blockIdx.y * BM;
  const int tileCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  // Global -> shared, as in chapter 04. The shared stores need the loaded values, so a warp
  // waits here for global memory before it goes on.
  // "unroll 2": at BK = 64 a thread loads 16 float4s per tile; all in flight at once would
  // need 64 registers besides the 64 accumulators, more than the 128 that 2 blocks/SM allow.
  auto loadTile = [&](int k0, int stage) {
#pragma unroll 2
    for (int i = 0; i < BM * BK / 4 / THREADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      const int r = idx / (BK / 4), k = idx % (BK / 4) * 4;
      const float4 a = load_float4<VEC>(A, tileRow + r, k0 + k, M, K);
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
          load_float4<VEC>(B, k0 + k, tileCol + c, K, N);  // (STAGES, BK, BN)
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
    const int row = tileRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      store_float4<VEC>(C, row, tileCol + threadCol * TN + j, M, N,
                        make_float4(regC[i][j], regC[i][j + 1], regC[i][j + 2], regC[i][j + 3]));
  }
}

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

  const int tileRow = blockIdx.y * BM;
  const int tileCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  float4 nextA[A_LOADS];  // the next tile, in flight in registers
  float4 nextB[B_LOADS];
  auto loadNext = [&](int k0) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextA[i] = load_float4<VEC>(A, tileRow + idx / (BK / 4), k0 + idx % (BK / 4) * 4, M, K);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextB[i] = load_float4<VEC>(B, k0 + idx / (BN / 4), tileCol + idx % (BN / 4) * 4, K, N);
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

  loadNext(0);
  storeNext(0);
  __syncthreads();
  int stage = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    const bool hasNext = k0 + BK < K;
    if (hasNext) loadNext(k0 + BK);  // in flight during the math below

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

    // The other buffer was last read in the previous step, which the barrier below ended.
    if (hasNext) storeNext(stage ^ 1);
    __syncthreads();  // the new tile is complete, and everyone is done with this buffer
    stage ^= 1;
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = tileRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      store_float4<VEC>(C, row, tileCol + threadCol * TN + j, M, N,
                        make_float4(regC[i][j], regC[i][j + 1], regC[i][j + 2], regC[i][j + 3]));
  }
}

// How the threads of a block share a BM x BN tile when they are organised by warp (used by
// warp_tiled_gemm and async_gemm). Warps tile the block tile with WM x WN pieces; inside a
// warp piece, the 32 lanes form a LANES_M x LANES_N grid, and a lane owns TM/4 x TN/4 sub-tiles
// of 4 x 4, WSUB_M rows and WSUB_N columns apart:
//
//   warp piece, WM = 64 x WN = 32, TM = TN = 8 (LANES_M = 8, LANES_N = 4, WSUB = 32 x 16):
//        cols 0..15 (lanes 0..3 x 4)   cols 16..31 (again)
//   rows 0..31   sub-tile (0,0)          sub-tile (0,1)        lane (r, c) owns rows 4r..4r+3
//   rows 32..63  sub-tile (1,0)          sub-tile (1,1)        and cols 4c..4c+3 of each
//
// At one k, a warp's LDS.128 of A reads LANES_M consecutive float4s (each lane row shares
// one), and of B LANES_N consecutive float4s: 128 bytes or less, one wavefront each.
template <int BM, int BN, int WM, int WN, int TM, int TN>
struct WarpLayout {
  static_assert(BM % WM == 0 && BN % WN == 0, "warp pieces must tile the block tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a lane's tile is made of 4 x 4 sub-tiles");
  static_assert(WM % TM == 0 && WN % TN == 0, "lanes must tile a warp piece");
  static_assert((WM / TM) * (WN / TN) == 32, "a warp piece holds exactly 32 lane tiles");
  static constexpr int WARPS_N = BN / WN;
  static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  static constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
  static constexpr int WSUB_M = LANES_M * 4, WSUB_N = LANES_N * 4;
  // Registers a lane needs, roughly: its accumulators, two sets of fragments (the compiler
  // loads the next k's while multiplying this one's) and about 32 for addresses and counters.
  // As many blocks as that lets fit on an SM go into __launch_bounds__: 2 for 8 x 8 lanes in
  // 256-thread blocks (a 128-register cap), 1 for 8 x 16 lanes in 256-thread blocks.
  static constexpr int REGS_ESTIMATE = TM * TN + 2 * (TM + TN) + 32;
  static constexpr int MIN_BLOCKS =
      65536 / (THREADS * REGS_ESTIMATE) > 1 ? 65536 / (THREADS * REGS_ESTIMATE) : 1;

  int warpRow, warpCol;  // the warp's piece, relative to the block tile
  int laneRow, laneCol;  // the lane's position in the LANES_M x LANES_N grid
  __device__ WarpLayout() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    warpRow = warp / WARPS_N * WM;
    warpCol = warp % WARPS_N * WN;
    laneRow = lane / LANES_N;
    laneCol = lane % LANES_N;
  }
  // Tile row of the lane's sub-tile row i (i < TM/4) and tile column of sub-tile column j.
  __device__ int row(int i) const { return warpRow + i * WSUB_M + laneRow * 4; }
  __device__ int col(int j) const { return warpCol + j * WSUB_N + laneCol * 4; }
};

// A lane's fragments at step k: its TM values of column k of the A tile (TM/4 LDS.128 from
// the transposed tile AsT, rows LDA floats apart) and its TN values of row k of the B tile.
template <int LDA, int BN, int TM, int TN, typename Layout>
__device__ __forceinline__ void load_fragments(const float* AsT, const float* Bs, int k,
                                               const Layout& w, float (&regM)[TM],
                                               float (&regN)[TN]) {
#pragma unroll
  for (int i = 0; i < TM / 4; ++i) {
    const float4 a = *reinterpret_cast<const float4*>(&AsT[k * LDA + w.row(i)]);  // (BK, LDA)
    regM[4 * i + 0] = a.x;
    regM[4 * i + 1] = a.y;
    regM[4 * i + 2] = a.z;
    regM[4 * i + 3] = a.w;
  }
#pragma unroll
  for (int j = 0; j < TN / 4; ++j) {
    const float4 b = *reinterpret_cast<const float4*>(&Bs[k * BN + w.col(j)]);  // (BK, BN)
    regN[4 * j + 0] = b.x;
    regN[4 * j + 1] = b.y;
    regN[4 * j + 2] = b.z;
    regN[4 * j + 3] = b.w;
  }
}

// The order of the TM * TN FMAs of one outer product. It decides which operand ptxas keeps in
// its operand-reuse cache and, with it, which registers each FFMA reads from the register
// banks (see the README, section 3):
//   RowByRow          for i: for j: regM[i] reused (the order of chapter 04);
//   ColumnSerpentine  for j: for i, i running backwards on odd j: regN[j] reused, and at each
//                     change of j the same regM[i] is read twice in a row.
enum class FmaOrder { RowByRow, ColumnSerpentine };

// regC += regM (x) regN: TM * TN FMAs from TM + TN registers, in the given order.
template <FmaOrder ORDER, int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&regM)[TM], const float (&regN)[TN],
                                              float (&regC)[TM][TN]) {
#pragma unroll
  for (int t = 0; t < TM * TN; ++t) {
    int i, j;
    if (ORDER == FmaOrder::ColumnSerpentine) {
      j = t / TM;
      i = j % 2 == 1 ? TM - 1 - t % TM : t % TM;
    } else {
      i = t / TN;
      j = t % TN;
    }
    regC[i][j] += regM[i] * regN[j];
  }
}

// All BK steps of one pair of shared tiles.
template <int BK, int LDA, int BN, int TM, int TN, typename Layout>
__device__ __forceinline__ void multiply_tiles(const float* AsT, const float* Bs,
                                               const Layout& w, float (&regC)[TM][TN]) {
  float regM[TM];
  float regN[TN];
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    load_fragments<LDA, BN>(AsT, Bs, k, w, regM, regN);
    outer_product<FmaOrder::RowByRow>(regM, regN, regC);
  }
}

// Writes a lane's TM x TN results to C; (tileRow, tileCol) is the block tile's corner.
template <int TM, int TN, bool VEC, typename Layout>
__device__ __forceinline__ void store_lane_tile(float* __restrict__ C, int M, int N, int tileRow,
                                                int tileCol, const Layout& w,
                                                const float (&regC)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM / 4; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const float* c = &regC[4 * i + r][4 * j];
        store_float4<VEC>(C, tileRow + w.row(i) + r, tileCol + w.col(j), M, N,
                          make_float4(c[0], c[1], c[2], c[3]));
      }
}

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

  const int tileRow = blockIdx.y * BM;
  const int tileCol = blockIdx.x * BN;
  const Layout w;

  float4 nextA[A_LOADS];
  float4 nextB[B_LOADS];
  auto loadNext = [&](int k0) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextA[i] = load_float4<VEC>(A, tileRow + idx / (BK / 4), k0 + idx % (BK / 4) * 4, M, K);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextB[i] = load_float4<VEC>(B, k0 + idx / (BN / 4), tileCol + idx % (BN / 4) * 4, K, N);
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
  for (int k0 = 0; k0 < K; k0 += BK) {
    const bool hasNext = k0 + BK < K;
    if (hasNext) loadNext(k0 + BK);
    multiply_tiles<BK, LDA, BN>(&As[stage][0][0], &Bs[stage][0][0], w, regC);
    if (hasNext) storeNext(stage ^ 1);
    __syncthreads();
    stage ^= 1;
  }

  store_lane_tile<TM, TN, VEC>(C, M, N, tileRow, tileCol, w, regC);
}

// warp_tiled_gemm with the bookkeeping of the global loads taken out of the main loop, as
// async_gemm does for its copies:
//   - one 32-bit offset per matrix, computed once and advanced by one tile per step, instead
//     of a row * cols + col per load per tile;
//   - whether a row of A lies inside M is decided once (a predicate per load); columns of B
//     past N read the last valid float4 column instead (they only feed columns of C that are
//     never stored), so k is the only coordinate tested per tile.
// Fewer integer instructions between the FFMAs. Dynamic shared memory, so that tiles over
// 48 KB can be tried (BK = 32 spills at the 128-register cap of 2 blocks/SM: NOTES.md).
//
// PIPELINED = true (launch_pipelined_gemm, the chapter's final kernel) replaces the main loop
// only; loads, stores and edges stay as they are:
//   - fragments double-buffered in registers: at step k a lane loads the fragments of step
//     k + 1 while it multiplies those of step k. The barrier moves before the last step of a
//     tile, and the next tile's first fragments load while that step's FFMAs run, so no warp
//     starts a tile waiting on shared memory;
//   - two tiles per loop trip, so the buffer a tile lives in is a compile-time constant and
//     every shared-memory address a fixed offset; the last tile is peeled off the loop (it
//     loads and stores nothing and needs no barrier), so the loop body tests nothing;
//   - FmaOrder::ColumnSerpentine, with which ptxas finds a register assignment with few bank
//     conflicts (NOTES.md, runs 10-15: each change alone measured slower or no better).
// The second set of fragments costs 32 registers; they fit under the 128-register cap.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC,
          bool PIPELINED = false>
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

  const int tileRow = blockIdx.y * BM;
  const int tileCol = blockIdx.x * BN;
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
  int offA = (tileRow + rA0) * K + kA;
  // VEC: N % 4 == 0, so N - 4 is the last float4 column and stays 16-byte aligned.
  int offB = kB0 * N + (VEC ? min(tileCol + cB, N - 4) : tileCol + cB);
  bool rowInA[A_LOADS];
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) rowInA[i] = tileRow + rA0 + i * A_ROWS < M;

  float4 nextA[A_LOADS];
  float4 nextB[B_LOADS];
  auto loadNext = [&](int k0) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const float* p = A + offA + i * A_ROWS * K;
      if (VEC) {
        nextA[i] = rowInA[i] && k0 + kA < K ? *reinterpret_cast<const float4*>(p)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        const int lim = rowInA[i] ? K - k0 - kA : 0;  // elements of this float4 inside A
        nextA[i] = make_float4(0 < lim ? p[0] : 0.0f, 1 < lim ? p[1] : 0.0f,
                               2 < lim ? p[2] : 0.0f, 3 < lim ? p[3] : 0.0f);
      }
    }
    offA += BK;
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int k = k0 + kB0 + i * B_ROWS;
      if (VEC) {
        nextB[i] = k < K ? *reinterpret_cast<const float4*>(B + offB + i * B_ROWS * N)
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        nextB[i] = load_float4<false>(B, k, tileCol + cB, K, N);
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
  if (PIPELINED) {
    static_assert(BK % 2 == 0, "the two fragment buffers alternate with k, and across tiles");
    float fragM[2][TM], fragN[2][TN];  // fragments of step k in [k % 2], of k + 1 in the other
    load_fragments<LDA, BN>(&As[0][0][0], &Bs[0][0][0], 0, w, fragM[0], fragN[0]);
    // One tile from buffer BUF; the caller has issued the next tile's global loads. With
    // HAS_NEXT they go to the other buffer before the barrier, its first fragments after it.
    auto tile = [&](auto buffer, auto hasNext) {
      constexpr int BUF = decltype(buffer)::value;
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        if (k < BK - 1) {
          load_fragments<LDA, BN>(&As[BUF][0][0], &Bs[BUF][0][0], k + 1, w, fragM[(k + 1) % 2],
                                  fragN[(k + 1) % 2]);
        } else if (decltype(hasNext)::value) {
          storeNext(BUF ^ 1);
          __syncthreads();  // the next tile is complete, and nobody reads this one any more
          load_fragments<LDA, BN>(&As[BUF ^ 1][0][0], &Bs[BUF ^ 1][0][0], 0, w,
                                  fragM[(k + 1) % 2], fragN[(k + 1) % 2]);
        }
        outer_product<FmaOrder::ColumnSerpentine>(fragM[k % 2], fragN[k % 2], regC);
      }
    };
    using Buffer0 = std::integral_constant<int, 0>;
    using Buffer1 = std::integral_constant<int, 1>;
    int k0 = 0;
    for (; k0 + 2 * BK < K; k0 += 2 * BK) {  // tiles k0 and k0 + BK, each with a successor
      loadNext(k0 + BK);
      tile(Buffer0{}, std::true_type{});
      loadNext(k0 + 2 * BK);
      tile(Buffer1{}, std::true_type{});
    }
    if (k0 + BK < K) {  // two tiles left
      loadNext(k0 + BK);
      tile(Buffer0{}, std::true_type{});
      tile(Buffer1{}, std::false_type{});
    } else {  // one tile left
      tile(Buffer0{}, std::false_type{});
    }
  } else {
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
      const bool hasNext = k0 + BK < K;
      if (hasNext) loadNext(k0 + BK);
      multiply_tiles<BK, LDA, BN>(&As[stage][0][0], &Bs[stage][0][0], w, regC);
      if (hasNext) storeNext(stage ^ 1);
      __syncthreads();
      stage ^= 1;
    }
  }

  store_lane_tile<TM, TN, VEC>(C, M, N, tileRow, tileCol, w, regC);
}

// 16 bytes of zeros in global memory: the source of the asynchronous copies of elements that
// lie outside A or B (cp.async copies global to shared; it cannot write a constant).
__device__ alignas(16) const float kZeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};

// Block tile (tileRow, tileCol) of block b when blocks run in groups of GROUP_M block rows:
// the first GROUP_M * tilesN blocks cover GROUP_M block rows column by column, and so on.
// Blocks that run at the same time then read GROUP_M row strips of A and a few column strips
// of B, which fit in L2, instead of one strip of A and all of B. (Measured on the H200 at
// 4096 and 8192: no difference; its 60 MB L2 apparently holds enough either way.)
// (Host and device: a host test checks that every tile is visited exactly once.)
template <int BM, int BN, int GROUP_M>
__host__ __device__ __forceinline__ void grouped_tile(int b, int M, int N, int& tileRow,
                                                      int& tileCol) {
  const int tilesM = tutorial::ceil_div(M, BM), tilesN = tutorial::ceil_div(N, BN);
  const int perGroup = GROUP_M * tilesN;
  const int firstM = b / perGroup * GROUP_M;
  const int groupRows = tilesM - firstM < GROUP_M ? tilesM - firstM : GROUP_M;  // last: shorter
  const int inGroup = b % perGroup;
  tileRow = (firstM + inGroup % groupRows) * BM;
  tileCol = inGroup / groupRows * BN;
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

  int tileRow, tileCol;
  grouped_tile<BM, BN, GROUP_M>(blockIdx.x, M, N, tileRow, tileCol);
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
  const float* srcA[A_COPIES];  // &A[row][k0 + kA]
  int mA[A_COPIES], kA[A_COPIES];
#pragma unroll
  for (int i = 0; i < A_COPIES; ++i) {
    const int pass = threadIdx.x / 8 + i * A_ROWS_PER_PASS;
    mA[i] = pass % BM;
    kA[i] = pass / BM * 8 + threadIdx.x % 8;
    srcA[i] = A + min(tileRow + mA[i], M - 1) * K + kA[i];
  }
  const int nB = threadIdx.x % (BN / 4) * 4;
  const float* srcB[B_COPIES];  // &B[k0 + kB][column]
  int kB[B_COPIES];
#pragma unroll
  for (int i = 0; i < B_COPIES; ++i) {
    kB[i] = threadIdx.x / (BN / 4) + i * B_ROWS_PER_PASS;
    // VEC: N % 4 == 0, so N - 4 is the last float4 column and stays 16-byte aligned.
    srcB[i] = B + kB[i] * N + (VEC ? min(tileCol + nB, N - 4) : tileCol + nB);
  }
  const size_t strideB = size_t(BK) * N;  // one tile down B

  auto copyTile = [&](int k0, int stage) {
#pragma unroll
    for (int i = 0; i < A_COPIES; ++i) {
      const float* src = k0 + kA[i] < K ? srcA[i] : kZeros;
      __pipeline_memcpy_async(&As[stage][kA[i]][mA[i]], src,
                              sizeof(float));  // (STAGES, BK, BM+PAD_A)
      srcA[i] += BK;
    }
#pragma unroll
    for (int i = 0; i < B_COPIES; ++i) {
      float* dst = &Bs[stage][kB[i]][nB];  // (STAGES, BK, BN)
      const bool inK = k0 + kB[i] < K;
      if (VEC) {
        __pipeline_memcpy_async(dst, inK ? srcB[i] : kZeros, sizeof(float4));
      } else {
        // 4-byte copies, each column clamped on its own.
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int shift = min(tileCol + nB + c, N - 1) - (tileCol + nB);
          __pipeline_memcpy_async(dst + c, inK ? srcB[i] + shift : kZeros, sizeof(float));
        }
      }
      srcB[i] += strideB;
    }
  };

  float regC[TM][TN] = {};
  const int numTiles = tutorial::ceil_div(K, BK);

  // Fill the pipeline: tiles 0 .. STAGES-2 in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < numTiles) copyTile(s * BK, s);
    __pipeline_commit();
  }

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

  store_lane_tile<TM, TN, VEC>(C, M, N, tileRow, tileCol, w, regC);
}

// ---------------------------------------------------------------------------------------
// Launchers (tutorial::GemmLauncher: row-major C = A * B, any M, N, K >= 1)
// ---------------------------------------------------------------------------------------

using ch04::rows_are_16_byte_aligned;

// Kernels using more than 48 KB of dynamic shared memory must say so once, before their
// first launch.
// (A template on the kernel itself, so that each kernel has its own flag.)
template <auto kernel>
void opt_in_smem_once(size_t bytes) {
  static const bool done = (tutorial::allow_dynamic_smem(kernel, bytes), true);
  (void)done;
}

template <int BM, int BN, int BK, int TM, int TN, int STAGES>
constexpr size_t double_buffer_smem_bytes() {
  return size_t(STAGES) * (BK * BM + BK * BN) * sizeof(float);
}

template <int BM, int BN, int BK, int TM, int TN, int STAGES>
void launch_double_buffer_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("double_buffer_gemm", M, N, K);
  constexpr size_t smem = double_buffer_smem_bytes<BM, BN, BK, TM, TN, STAGES>();
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  if (rows_are_16_byte_aligned(A, B, C, N, K)) {
    constexpr auto kernel = double_buffer_gemm<BM, BN, BK, TM, TN, STAGES, true>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  } else {
    constexpr auto kernel = double_buffer_gemm<BM, BN, BK, TM, TN, STAGES, false>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  }
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_prefetch_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("prefetch_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  if (rows_are_16_byte_aligned(A, B, C, N, K))
    tutorial::launch(prefetch_gemm<BM, BN, BK, TM, TN, true>, grid, block, 0, A, B, C, M, N, K);
  else
    tutorial::launch(prefetch_gemm<BM, BN, BK, TM, TN, false>, grid, block, 0, A, B, C, M, N, K);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch_warp_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("warp_tiled_gemm", M, N, K);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  if (rows_are_16_byte_aligned(A, B, C, N, K))
    tutorial::launch(warp_tiled_gemm<BM, BN, BK, WM, WN, TM, TN, true>, grid, block, 0, A, B, C,
                     M, N, K);
  else
    tutorial::launch(warp_tiled_gemm<BM, BN, BK, WM, WN, TM, TN, false>, grid, block, 0, A, B,
                     C, M, N, K);
}

template <int BM, int BN, int BK>
constexpr size_t lean_smem_bytes() {
  return size_t(2) * (BK * (BM + PAD_A) + BK * BN) * sizeof(float);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch_lean_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("lean_gemm", M, N, K);
  constexpr size_t smem = lean_smem_bytes<BM, BN, BK>();
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  if (rows_are_16_byte_aligned(A, B, C, N, K)) {
    constexpr auto kernel = lean_gemm<BM, BN, BK, WM, WN, TM, TN, true>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  } else {
    constexpr auto kernel = lean_gemm<BM, BN, BK, WM, WN, TM, TN, false>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  }
}

// lean_gemm with the pipelined main loop: the chapter's final kernel.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch_pipelined_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("pipelined_gemm", M, N, K);
  constexpr size_t smem = lean_smem_bytes<BM, BN, BK>();
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  if (rows_are_16_byte_aligned(A, B, C, N, K)) {
    constexpr auto kernel = lean_gemm<BM, BN, BK, WM, WN, TM, TN, true, true>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  } else {
    constexpr auto kernel = lean_gemm<BM, BN, BK, WM, WN, TM, TN, false, true>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  }
}

template <int BM, int BN, int BK, int STAGES>
constexpr size_t async_smem_bytes() {
  return size_t(STAGES) * (BK * (BM + PAD_A) + BK * BN) * sizeof(float);
}

// One-dimensional grid: grouped_tile turns the block index into a tile.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int GROUP_M>
void launch_async_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("async_gemm", M, N, K);
  constexpr size_t smem = async_smem_bytes<BM, BN, BK, STAGES>();
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(M, BM) * tutorial::ceil_div(N, BN));
  if (rows_are_16_byte_aligned(A, B, C, N, K)) {
    constexpr auto kernel = async_gemm<BM, BN, BK, WM, WN, TM, TN, STAGES, GROUP_M, true>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  } else {
    constexpr auto kernel = async_gemm<BM, BN, BK, WM, WN, TM, TN, STAGES, GROUP_M, false>;
    opt_in_smem_once<kernel>(smem);
    tutorial::launch(kernel, grid, block, smem, A, B, C, M, N, K);
  }
}

}  // namespace ch05
