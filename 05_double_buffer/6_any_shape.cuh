// Chapter 05, step 6: any_shape_gemm, the final kernel for every shape.
//
// What changed since step 5: the kernel is pipelined_gemm with one more argument, and the
// launcher chooses how to cut the problem:
//   - sliced_gemm: block (x, y, z) computes tile (y, x) of C over the K range of slice z only,
//     [z * sliceK, z * sliceK + sliceK), and stores that partial product in slice z of a
//     workspace (S x M x N floats). With one slice it stores straight to C: then it is
//     pipelined_gemm, as fast, and faster where float4 cannot be used (README, section 5);
//   - sum_slices: C = partial 0 + partial 1 + ... + partial S-1, in that order for every
//     element: no atomics, so the result is the same bit for bit run after run;
//   - launch_any_shape_gemm: picks the tile (128 x 128; 64 x 64 or 32 x 128 where the estimate
//     says it is faster: small M or N, tiny problems) and the slice count S from M, N, K and the
//     GPU's SM count, with the wave arithmetic of plan_any_shape below (README, section 4).
// Why it is faster: pipelined_gemm makes ceil(M/128) * ceil(N/128) blocks. The GPU runs
// SMs x 2 of them at once (one wave: 264 on an H100); at 256 x 256 x 65536 that is 4 blocks,
// each walking all of K, and 128 of the 132 SMs idle. Slicing K gives the idle SMs work.
// What it still gets wrong: the partial products cost traffic (S x M x N floats written and
// read again) and a second launch; a partly filled last wave still idles SMs (wave
// quantization), which only an even division of the total work (stream-K) removes; a 64 x 64
// and 32 x 128 tiles' lanes (8 x 4) load 1.5 times the shared memory per FMA of the 128 x 128
// tile's (8 x 8);
// and the choice comes from a model with round constants, measured on one H100.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>

#include "05_double_buffer/5_pipelined.cuh"
#include "05_double_buffer/warp_tile.cuh"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"

namespace ch05 {

// pipelined_gemm's main loop over the Ks values of k from k0, for the BM x BN tile of C at
// (blockRow, blockCol), into regC (which it adds to). A's rows are lda floats apart, B's rows
// N. Shared by sliced_gemm below and step 7's stream_k_gemm; a caller that runs it again must
// first __syncthreads() (it refills the shared tiles). k0 goes into the loads' integer
// offsets, not into the pointers: A and B stay the kernel's own parameters, and offsetting
// the pointers instead (A + k0, B + k0 * N) measured 2 points slower at 4096^3 (README,
// section 5).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
__device__ __forceinline__ void product_over_k(const float* __restrict__ A,
                                               const float* __restrict__ B, int M, int N,
                                               int lda, int k0, int Ks, int blockRow,
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
  int offA = (blockRow + rA0) * lda + k0 + kA;
  // VEC: N % 4 == 0, so N - 4 is the last float4 column and stays 16-byte aligned.
  int offB = (k0 + kB0) * N + (VEC ? min(blockCol + cB, N - 4) : blockCol + cB);
  bool rowInA[A_LOADS];
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) rowInA[i] = blockRow + rA0 + i * A_ROWS < M;

  float4 nextA[A_LOADS];
  float4 nextB[B_LOADS];
  auto loadNext = [&](int tileK) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const float* p = A + offA + i * A_ROWS * lda;
      if (VEC) {
        nextA[i] = rowInA[i] && tileK + kA < Ks ? *reinterpret_cast<const float4*>(p)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        const int lim = rowInA[i] ? Ks - tileK - kA : 0;  // elements of this float4 inside A
        nextA[i] = make_float4(0 < lim ? p[0] : 0.0f, 1 < lim ? p[1] : 0.0f,
                               2 < lim ? p[2] : 0.0f, 3 < lim ? p[3] : 0.0f);
      }
    }
    offA += BK;
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int k = tileK + kB0 + i * B_ROWS;
      if (VEC) {
        nextB[i] = k < Ks ? *reinterpret_cast<const float4*>(B + offB + i * B_ROWS * N)
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
        nextB[i] = load_float4<false>(B, k0 + k, blockCol + cB, k0 + Ks, N);
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

  loadNext(0);
  storeNext(0);
  __syncthreads();
  static_assert(BK % 2 == 0, "the two fragment buffers alternate with k, and across tiles");
  float regM[2][TM], regN[2][TN];  // fragments of step k in [k % 2], of k + 1 in the other
  load_fragments<LDA, BN>(&As[0][0][0], &Bs[0][0][0], 0, w, regM[0], regN[0]);
  // One tile from buffer BUF; the caller has issued the next tile's global loads. With
  // HAS_NEXT they go to the other buffer before the barrier, its first fragments after it.
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
  using Buffer0 = std::integral_constant<int, 0>;
  using Buffer1 = std::integral_constant<int, 1>;
  int tileK = 0;
  // Tiles tileK and tileK + BK per trip, each with a successor.
  for (; tileK + 2 * BK < Ks; tileK += 2 * BK) {
    loadNext(tileK + BK);
    tile(Buffer0{}, std::true_type{});
    loadNext(tileK + 2 * BK);
    tile(Buffer1{}, std::true_type{});
  }
  if (tileK + BK < Ks) {  // two tiles left
    loadNext(tileK + BK);
    tile(Buffer0{}, std::true_type{});
    tile(Buffer1{}, std::false_type{});
  } else {  // one tile left
    tile(Buffer0{}, std::false_type{});
  }
}

// pipelined_gemm over one slice of K: k in [k0, k0 + Ks), k0 = blockIdx.z * sliceK, with
// Ks = min(sliceK, K - k0) (the last slice may be shorter). Its partial product goes to
// C + blockIdx.z * M * N.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    sliced_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K, int sliceK) {
  const int k0 = blockIdx.z * sliceK;
  const int Ks = min(sliceK, K - k0);  // the launcher makes every slice non-empty
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  // A (M, K): columns k0 .. k0 + Ks; B (K, N): rows k0 .. k0 + Ks (K * N <= INT_MAX).
  product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC>(A, B, M, N, K, k0, Ks, blockRow, blockCol,
                                                  regC);
  // (S, M, N): this slice's partial product.
  store_lane_tile<TM, TN, VEC>(C + size_t(blockIdx.z) * M * N, M, N, blockRow, blockCol,
                               WarpLayout<BM, BN, WM, WN, TM, TN>(), regC);
}

// C = partial 0 + partial 1 + ... + partial S-1 for each of the M * N elements, always in that
// order (no atomics: the sum, and so C, is the same bit for bit on every run):
//     for i < count: C[i] = sum over s < slices of partials[s][i]
template <typename T>
__global__ void sum_slices(const T* __restrict__ partials, T* __restrict__ C, int count,
                           int slices) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  T sum = partials[i];  // (S, M * N)
  for (int s = 1; s < slices; ++s) sum += partials[size_t(s) * count + i];
  C[i] = sum;
}

// ---------------------------------------------------------------------------------------
// Choosing the cut: waves
// ---------------------------------------------------------------------------------------
//
// A GPU runs a grid in waves: at most SMs x (resident blocks per SM) blocks at once, the
// rest waiting for a slot. For BM x BN tiles and S slices of K:
//     blocks = ceil(M / BM) * ceil(N / BN) * S
//     slots  = SMs * blocksPerSM                      (H100, 128 x 128: 132 * 2 = 264)
//     waves  = ceil(blocks / slots)
// and a block that shares its SM with others gets a share of the SM's FMAs. A problem of 4
// blocks (256 x 256 x 65536) runs 1 wave of 65536 k's with 128 SMs idle; split 64 ways it
// runs 1 wave of 1024 k's. Each slice adds M * N floats written and read back, and
// sum_slices is one more launch, so more slices are not free.
// plan_any_shape estimates the time in SM clock cycles of the busiest SM, for each tile and
// every S up to kMaxSlices, and takes the cheapest (ties: the bigger tile, then fewer slices):
//     load   = ceil(blocks / SMs)                 blocks on the busiest SM
//     rounds = ceil(load / blocksPerSM)           times it fills up and drains
//     rate   = efficiency * min(1, min(load, blocksPerSM) * warps / kBusyWarps)
//              (fraction of its 128 FMA per clock: it takes kBusyWarps warps to hide latency)
//     clocks = rounds * kBlockClocks + load * BM * BN * sliceK / (128 * rate)
//              + (S > 1 ? (2 S + 1) * M * N * 4 bytes / kBytesPerClock + kLaunchClocks : 0)
// The constants are rough H100/H200 figures (README, section 4); only their ratios matter.
struct TileChoice {
  int bm, bn, warps, blocks_per_sm;  // blocks_per_sm: the kernel's __launch_bounds__ minimum
  double efficiency;          // fraction of the SM's FMA rate a full wave of these blocks gets
};
struct AnyShapePlan {
  int tile = 0;     // index into the tile list: 0: 128 x 128, 1: 64 x 64, 2: 32 x 128
  int slices = 1;   // S
  int sliceK = 0;   // k's per slice, a multiple of 16 (BK) unless S == 1
  long long blocks = 0;
  double waves = 0.0;  // blocks / slots (not rounded up)
};

constexpr int kMaxSlices = 64;
constexpr int kSliceAlign = 16;           // BK of every tile: every slice starts 16-byte aligned
constexpr double kBlockClocks = 3000.0;   // a block's first loads and its store (~1.5 us)
constexpr double kBusyWarps = 16.0;       // the chapter's kernels run 2 blocks of 8 warps per SM
constexpr double kBytesPerClock = 1500.0; // ~3 TB/s at ~2 GHz
constexpr double kLaunchClocks = 6000.0;  // ~3 us for the second launch

// S slices of K, each a multiple of kSliceAlign long and none empty: the S actually used can
// be smaller than asked (K = 100, S = 8 -> slices of 16 -> 7 slices; K <= 16 -> 1 slice).
inline void slice_k(int K, int wanted, int& slices, int& sliceK) {
  if (wanted <= 1) {
    slices = 1;
    sliceK = K;
    return;
  }
  const int per = tutorial::ceil_div(K, wanted);
  sliceK = tutorial::ceil_div(per, kSliceAlign) * kSliceAlign;
  slices = tutorial::ceil_div(K, sliceK);
  if (slices == 1) sliceK = K;
}

template <size_t TILES>
AnyShapePlan plan_any_shape(int M, int N, int K, int sms, const TileChoice (&tiles)[TILES]) {
  AnyShapePlan best;
  // At least one full wave of 128 x 128 tiles: pipelined_gemm as it is. Blocks do not run in
  // lockstep waves, so a partly filled last wave after several full ones costs less than the
  // model below says; the remaining tail is stream-K's business (README, section 4).
  const long long bigTiles =
      (long long)tutorial::ceil_div(M, tiles[0].bm) * tutorial::ceil_div(N, tiles[0].bn);
  const long long bigSlots = (long long)sms * tiles[0].blocks_per_sm;
  if (bigTiles >= bigSlots) return {0, 1, K, bigTiles, double(bigTiles) / double(bigSlots)};
  double bestClocks = 0.0;
  for (int t = 0; t < int(TILES); ++t) {
    const TileChoice& c = tiles[t];
    const long long tileCount =
        (long long)tutorial::ceil_div(M, c.bm) * tutorial::ceil_div(N, c.bn);
    const long long slots = (long long)sms * c.blocks_per_sm;
    int lastSlices = 0;
    for (int wanted = 1; wanted <= kMaxSlices; ++wanted) {
      int slices = 1, sliceK = K;
      slice_k(K, wanted, slices, sliceK);
      if (slices == lastSlices) continue;  // same cut as a smaller `wanted`
      lastSlices = slices;
      const long long blocks = tileCount * slices;
      const long long load = (blocks + sms - 1) / sms;
      const long long rounds = (load + c.blocks_per_sm - 1) / c.blocks_per_sm;
      const double warps = double(std::min<long long>(load, c.blocks_per_sm)) * c.warps;
      const double rate = c.efficiency * std::min(1.0, warps / kBusyWarps);
      double clocks = double(rounds) * kBlockClocks +
                      double(load) * c.bm * c.bn * sliceK / (128.0 * rate);
      if (slices > 1)
        clocks += (2.0 * slices + 1.0) * M * N * 4.0 / kBytesPerClock + kLaunchClocks;
      if (best.blocks == 0 || clocks < bestClocks) {
        bestClocks = clocks;
        best = {t, slices, sliceK, blocks, double(blocks) / double(slots)};
      }
    }
  }
  return best;
}

// The three tiles, as template arguments: pipelined_gemm's 128 x 128 (8 warps of 32 x 64, 8 x 8
// per lane, 2 blocks per SM), 64 x 64 (4 warps of 32 x 32, 8 x 4 per lane, 5 blocks per SM:
// each value loaded from shared memory feeds fewer FMAs) and 32 x 128 (the same 4 warps of
// 32 x 32 side by side: for M <= 32, where a 64-row tile computes at least 32 rows of nothing).
// With 8 x 8 per lane a 64 x 64 block would have 2 warps, each thread 4 float4 loads of A and 4
// of B in flight, and ptxas spills under the 128-register cap.
using BigTile = WarpLayout<128, 128, 32, 64, 8, 8>;
using SmallTile = WarpLayout<64, 64, 32, 32, 8, 4>;
using SkinnyTile = WarpLayout<32, 128, 32, 32, 8, 4>;
// The efficiency of the 8 x 4 lane tiles relative to the 128 x 128 one is a guess (0.7),
// checked by the sweep (README, section 4).
constexpr TileChoice kAnyShapeTiles[3] = {
    {128, 128, BigTile::THREADS / 32, BigTile::MIN_BLOCKS, 1.0},
    {64, 64, SmallTile::THREADS / 32, SmallTile::MIN_BLOCKS, 0.7},
    {32, 128, SkinnyTile::THREADS / 32, SkinnyTile::MIN_BLOCKS, 0.7}};

// ---------------------------------------------------------------------------------------
// Launchers
// ---------------------------------------------------------------------------------------

// The slices' workspace: a device buffer cached per GPU, grown when a launch needs more
// (cudaFree waits for the kernels still using the old one). Out of memory is a CudaError that
// names the size and says what it was for.
inline float* slice_workspace(size_t floats, int slices, int M, int N) {
  static tutorial::PerDeviceBuffer<float> workspace;
  try {
    return workspace.at_least(floats);
  } catch (const tutorial::CudaError& e) {
    throw tutorial::CudaError("any_shape_gemm: the split-K workspace (" + std::to_string(slices) +
                              " slices x " + std::to_string(M) + " x " + std::to_string(N) +
                              " floats) does not fit: " + e.what());
  }
}

// C = A * B in `slices` slices of K (fewer when K is short: slice_k), BM x BN tiles.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void run_sliced_gemm(const float* A, const float* B, float* C, int M, int N, int K,
                     int wantedSlices) {
  static_assert(BK == kSliceAlign, "slices start at multiples of BK");
  tutorial::check_gemm_shape("sliced_gemm", M, N, K);
  int slices = 1, sliceK = K;
  slice_k(K, wantedSlices, slices, sliceK);
  // One slice: straight to C, no workspace and no sum (as fast as pipelined_gemm at 128 x 128,
  // faster where float4 cannot be used: README, section 5).
  const size_t count = size_t(M) * N;
  float* out = slices == 1 ? C : slice_workspace(count * slices, slices, M, N);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM), slices);
  tutorial::dispatch_vec(A, B, out, N, K, [&](auto vec) {
    tutorial::launch(sliced_gemm<BM, BN, BK, WM, WN, TM, TN, decltype(vec)::value>, grid, block,
                     warp_tiles_smem_bytes<BM, BN, BK, 2>(), A, B, out, M, N, K, sliceK);
  });
  if (slices == 1) return;
  constexpr int SUM_THREADS = 256;
  tutorial::launch(sum_slices<float>, dim3(tutorial::ceil_div(int(count), SUM_THREADS)),
                   dim3(SUM_THREADS), 0, out, C, int(count), slices);
}

// A fixed tile and slice count, for the tests and the sweep's comparisons.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int SLICES>
void launch_sliced_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  run_sliced_gemm<BM, BN, BK, WM, WN, TM, TN>(A, B, C, M, N, K, SLICES);
}

inline int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// The chapter's final GEMM: tile and slices from the problem and this GPU (plan_any_shape).
inline void launch_any_shape_gemm(const float* A, const float* B, float* C, int M, int N,
                                  int K) {
  tutorial::check_gemm_shape("any_shape_gemm", M, N, K);
  const AnyShapePlan plan = plan_any_shape(M, N, K, sm_count(), kAnyShapeTiles);
  if (plan.tile == 0)
    run_sliced_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K, plan.slices);
  else if (plan.tile == 1)
    run_sliced_gemm<64, 64, 16, 32, 32, 8, 4>(A, B, C, M, N, K, plan.slices);
  else
    run_sliced_gemm<32, 128, 16, 32, 32, 8, 4>(A, B, C, M, N, K, plan.slices);
}

}  // namespace ch05
