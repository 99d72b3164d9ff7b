// Chapter 05, step 6: any_shape_gemm, a tile and a cut of K chosen for every shape.
//
// What changed since step 5: the kernel runs step 5's main loop (product_over_k) over one slice
// of K, and the launcher chooses how to cut the problem:
//   - sliced_gemm: block (x, y, z) computes tile (y, x) of C over the K range of slice z only,
//     [z * sliceK, z * sliceK + sliceK), and stores that partial product in slice z of a
//     workspace (S x M x N floats). With one slice it stores straight to C: then it is
//     pipelined_gemm, as fast, and faster where float4 cannot be used;
//   - sum_slices: C = partial 0 + partial 1 + ... + partial S-1, in that order for every
//     element: no atomics, so the result is the same bit for bit run after run. It is launched
//     with tutorial::launch_after: on sm_90 and later its blocks are placed on the SMs while
//     sliced_gemm's last blocks still run, and wait there for them (common/dependent_launch.cuh);
//   - launch_any_shape_gemm: picks the tile (128 x 128; 64 x 64 or 32 x 128 where the estimate
//     says it is faster: small M or N, tiny problems) and the slice count S from M, N, K and the
//     GPU's SM count, with the wave arithmetic of plan_any_shape below (every_shape.md);
//   - each operand as wide as its rows allow: A's rows are K floats long, B's and C's N, so an
//     odd K costs A its float4 loads and an odd N costs B and C theirs, not all three at once
//     (tutorial::vec_operands); the tiles' 4-byte stores of C go by rows through shared memory
//     (store_lane_tile_by_rows),
//     and the 64 x 64 and 32 x 128 tiles read A's rows that start on 8 bytes (K even) in 8-byte
//     pairs and copy a narrow B straight to shared memory, cp.async (step 5's product_over_k;
//     lab/LOG.md#operand-widths, lab/LOG.md#async-b).
// Why it is faster: pipelined_gemm makes ceil(M/128) * ceil(N/128) blocks. The GPU runs
// SMs x 2 of them at once (one wave: 264 on a GPU of 132 SMs); at 256 x 256 x 65536 that is 4
// blocks, each walking all of K, and 128 of the 132 SMs idle. Slicing K gives the idle SMs work.
// What it still gets wrong: the partial products cost traffic (S x M x N floats written and
// read again) and a second launch; a partly filled last wave still idles SMs (wave
// quantization), which only an even division of the total work (stream-K) removes; a 64 x 64
// and 32 x 128 tiles' lanes (8 x 4) load 1.5 times the shared memory per FMA of the 128 x 128
// tile's (8 x 8); and the choice comes from a model with round constants.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

// Step 5 and what it includes: product_over_k, the warp tile, the launch and shape checks.
#include "05_double_buffer/5_pipelined.cuh"
#include "common/cuda_check.hpp"     // CUDA_CHECK, CudaError
#include "common/device_facts.hpp"
#include "common/device_buffer.hpp"  // PerDeviceBuffer

namespace ch05 {

// The second launch of a split-K product (sliced_gemm below makes the partials):
// C = partial 0 + partial 1 + ... + partial S-1 for each of the M * N elements, always in that
// order (no atomics: the sum, and so C, is the same bit for bit on every run):
//     for i < count: C[i] = sum over s < slices of partials[s][i]
// Launched before the product has ended (sum_partials), it reads nothing before the wait.
template <typename T>
__global__ void sum_slices(const T* __restrict__ partials, T* __restrict__ C, int count,
                           int slices) {
  tutorial::wait_for_previous_kernel();  // the partials are written and visible
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  T sum = partials[i];  // (S, M * N)
  for (int s = 1; s < slices; ++s) sum += partials[size_t(s) * count + i];
  C[i] = sum;
}

// The same sum for many slices: sum_slices gives each element one thread, which adds the S
// partials one after another, so with a tiny C and hundreds of
// slices a few thousand threads each wait on hundreds of loads. Here each element has 8 threads
// (threadIdx.y): thread y adds slices y, y + 8, y + 16, ... in that order, then thread 0 adds
// the 8 sums in the order y = 0 .. 7. Not sum_slices' order, but the same order on every run:
// the result is the same bit for bit run after run.
template <typename T>
__global__ void __launch_bounds__(256)
    sum_many_slices(const T* __restrict__ partials, T* __restrict__ C, int count, int slices) {
  tutorial::wait_for_previous_kernel();
  __shared__ T part[8][32];
  const int i = blockIdx.x * 32 + threadIdx.x;  // blockDim (32, 8)
  T sum = 0;
  if (i < count)
    for (int s = threadIdx.y; s < slices; s += 8) sum += partials[size_t(s) * count + i];
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || i >= count) return;
  T total = part[0][threadIdx.x];
  for (int y = 1; y < 8; ++y) total += part[y][threadIdx.x];
  C[i] = total;
}

// C = the sum of the `slices` partial products in `partials` (count elements each): sum_slices
// up to `many` slices, sum_many_slices above (the tiles: above kMaxSlices, the most this step's
// own plan cuts). A programmatic dependent launch, so that the gap between the two kernels (a
// launch's latency, about a microsecond) is hidden where the GPU can.
template <typename T>
void sum_partials(const T* partials, T* C, int count, int slices, int many) {
  if (slices > many) {
    tutorial::launch_after(sum_many_slices<T>, dim3(tutorial::ceil_div(count, 32)),
                           dim3(32, 8), 0, partials, C, count, slices);
  } else {
    constexpr int SUM_THREADS = 256;
    tutorial::launch_after(sum_slices<T>, dim3(tutorial::ceil_div(count, SUM_THREADS)),
                           dim3(SUM_THREADS), 0, partials, C, count, slices);
  }
}

// Where C's rows do not start on 16 bytes (N % 4 != 0), store_lane_tile writes 4 bytes at a time,
// and one store of a warp puts 32 floats 16 bytes apart into 4 rows: 16-20 sectors touched for
// 128 useful bytes. Here each warp passes its lanes' 4 x 4 blocks through shared memory instead,
// a piece of WSUB_M rows x 32 columns at a time, and then stores 32 consecutive floats of one row
// per instruction: 4-5 sectors for the same 128 bytes, what a float4 store gets. The caller's
// shared tiles are free by then (the barrier below), and hold a piece per warp (static_assert).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__device__ __forceinline__ void store_lane_tile_by_rows(float* __restrict__ C, int M, int N,
                                                        int blockRow, int blockCol,
                                                        const float (&regC)[TM][TN]) {
  using Layout = WarpLayout<BM, BN, WM, WN, TM, TN>;
  constexpr int ROWS = Layout::WSUB_M, PIECE = Layout::WSUB_M * Layout::WSUB_N;
  static_assert(Layout::WSUB_N == 32, "a piece's row is one float per lane");
  static_assert(Layout::THREADS / 32 * PIECE * sizeof(float) <=
                    warp_tiles_smem_bytes<BM, BN, BK, 2>(),
                "the shared tiles hold one piece per warp");
  extern __shared__ float4 smem[];
  float* piece = reinterpret_cast<float*>(smem) + threadIdx.x / 32 * PIECE;  // (ROWS, 32)
  const int lane = threadIdx.x % 32;
  const Layout w;
  __syncthreads();  // every warp is done reading the last tile's fragments
#pragma unroll
  for (int i = 0; i < TM / 4; ++i)
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) {
      // The lane's 4 x 4 block of sub-tile (i, j); 8 consecutive lanes write one row of the
      // piece, 128 contiguous bytes: no bank conflicts.
#pragma unroll
      for (int r = 0; r < 4; ++r)
        *reinterpret_cast<float4*>(&piece[(w.laneRow * 4 + r) * 32 + w.laneCol * 4]) =
            make_float4(regC[4 * i + r][4 * j + 0], regC[4 * i + r][4 * j + 1],
                        regC[4 * i + r][4 * j + 2], regC[4 * i + r][4 * j + 3]);
      // Block-wide barriers where a warp's would do: every warp passes them the same number of
      // times, and the CPU backend has no __syncwarp.
      __syncthreads();
      const int row0 = blockRow + w.warpRow + i * ROWS;
      const int col = blockCol + w.warpCol + j * 32 + lane;
#pragma unroll
      for (int q = 0; q < ROWS; ++q)
        if (row0 + q < M && col < N) C[(row0 + q) * N + col] = piece[q * 32 + lane];
      __syncthreads();  // the piece is read before the next one overwrites it
    }
}

// A block's tile of C from its lanes' registers: float4 stores where C's rows start on 16 bytes
// (VEC_BC), else by rows through shared memory (above). Steps 6 and 7 store C this way.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_BC>
__device__ __forceinline__ void store_c_tile(float* __restrict__ C, int M, int N, int blockRow,
                                             int blockCol, const float (&regC)[TM][TN]) {
  if (VEC_BC)
    store_lane_tile<TM, TN, true>(C, M, N, blockRow, blockCol,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>(), regC);
  else
    store_lane_tile_by_rows<BM, BN, BK, WM, WN, TM, TN>(C, M, N, blockRow, blockCol, regC);
}

// pipelined_gemm over one slice of K: k in [k0, k0 + Ks), k0 = blockIdx.z * sliceK, with
// Ks = min(sliceK, K - k0) (the last slice may be shorter). Its partial product goes to
// C + blockIdx.z * M * N. VEC_A: A's rows (K floats) are read 16 bytes at a time; VEC_BC: B's
// and C's rows (N floats) are: each operand as wide as its own rows allow.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_A, bool VEC_BC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    sliced_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K, int sliceK) {
  tutorial::allow_next_kernel();  // sum_slices may be placed on the SMs as this block runs
  // BEGIN QUOTE sliced
  const int k0 = blockIdx.z * sliceK;
  const int Ks = min(sliceK, K - k0);  // the launcher makes every slice non-empty
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  // A (M, K): columns k0 .. k0 + Ks; B (K, N): rows k0 .. k0 + Ks (K * N <= INT_MAX).
  product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC_A, VEC_BC>(A, B, M, N, K, k0, Ks, blockRow,
                                                            blockCol, regC);
  // (S, M, N): this slice's partial product.
  store_c_tile<BM, BN, BK, WM, WN, TM, TN, VEC_BC>(C + size_t(blockIdx.z) * M * N, M, N,
                                                   blockRow, blockCol, regC);
  // END QUOTE sliced
}

// ---------------------------------------------------------------------------------------
// Choosing the cut: waves
// ---------------------------------------------------------------------------------------
//
// A GPU runs a grid in waves: at most SMs x (resident blocks per SM) blocks at once, the
// rest waiting for a slot. For BM x BN tiles and S slices of K:
//     blocks = ceil(M / BM) * ceil(N / BN) * S
//     slots  = SMs * blocksPerSM                      (132 SMs, 128 x 128: 132 * 2 = 264)
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
// The constants are rough figures of a GPU of 132 SMs; only their ratios matter.
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
// BK of every tile (half of it for some lanes: tile_depth, below); slices start at its multiples.
constexpr int kSliceAlign = 16;

// The model's constants (about 2 GHz, 3 TB/s: a GPU of 132 SMs).
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

// The estimate above for one tile and one cut of K: clocks of the busiest SM.
inline double sliced_clocks(int M, int N, int sms, const TileChoice& c, int slices, int sliceK) {
  const long long blocks =
      (long long)tutorial::ceil_div(M, c.bm) * tutorial::ceil_div(N, c.bn) * slices;
  const long long load = (blocks + sms - 1) / sms;
  const long long rounds = (load + c.blocks_per_sm - 1) / c.blocks_per_sm;
  const double warps = double(std::min<long long>(load, c.blocks_per_sm)) * c.warps;
  const double rate = c.efficiency * std::min(1.0, warps / kBusyWarps);
  double clocks =
      double(rounds) * kBlockClocks + double(load) * c.bm * c.bn * sliceK / (128.0 * rate);
  if (slices > 1) clocks += (2.0 * slices + 1.0) * M * N * 4.0 / kBytesPerClock + kLaunchClocks;
  return clocks;
}

template <size_t TILES>
AnyShapePlan plan_any_shape(int M, int N, int K, int sms, const TileChoice (&tiles)[TILES]) {
  AnyShapePlan best;
  // At least one full wave of 128 x 128 tiles: pipelined_gemm as it is. Blocks do not run in
  // lockstep waves, so a partly filled last wave after several full ones costs less than the
  // model below says; the remaining tail is stream-K's business (every_shape.md).
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
      const double clocks = sliced_clocks(M, N, sms, c, slices, sliceK);
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
// checked by the sweep (every_shape.md).
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

// How deep a tile of K the lanes of layout L take: BK, or BK / 2 where a lane's next tile would
// not fit the registers __launch_bounds__ leaves it. 8 x 8 lanes hold 64 accumulators: with
// either operand 4 bytes wide their next tile is 16 floats in 16 registers at BK (8 at BK / 2),
// and in blocks of 4 warps it is 24 floats even with float4. At the 128-register cap of two
// blocks per SM those spill or stall; half-deep tiles do not (lab/LOG.md#four-byte-path).
// 8 x 4 lanes have the registers and keep BK.
template <class L, int BK = kSliceAlign>
constexpr int tile_depth(bool vecA, bool vecBC) {
  return L::LANE_M * L::LANE_N == 64 && (!vecA || !vecBC || L::THREADS < 256) ? BK / 2 : BK;
}

// C = A * B in `slices` slices of K (fewer when K is short: slice_k), BM x BN tiles.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void run_sliced_gemm(const float* A, const float* B, float* C, int M, int N, int K,
                     int wantedSlices) {
  static_assert(BK == kSliceAlign, "slices start at multiples of BK (and of BK / 2)");
  tutorial::check_gemm_shape("sliced_gemm", M, N, K);
  int slices = 1, sliceK = K;
  slice_k(K, wantedSlices, slices, sliceK);
  // One slice: straight to C, no workspace and no sum (as fast as pipelined_gemm at 128 x 128).
  const size_t count = size_t(M) * N;
  float* out = slices == 1 ? C : slice_workspace(count * slices, slices, M, N);
  const dim3 block(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM), slices);
  tutorial::dispatch_vec_operands(A, B, out, N, K, [&](auto vecA, auto vecBC) {
    constexpr bool VEC_A = decltype(vecA)::value, VEC_BC = decltype(vecBC)::value;
    constexpr int KT = tile_depth<WarpLayout<BM, BN, WM, WN, TM, TN>, BK>(VEC_A, VEC_BC);
    tutorial::launch(sliced_gemm<BM, BN, KT, WM, WN, TM, TN, VEC_A, VEC_BC>, grid, block,
                     warp_tiles_smem_bytes<BM, BN, KT, 2>(), A, B, out, M, N, K, sliceK);
  });
  if (slices == 1) return;
  sum_partials(out, C, int(count), slices, kMaxSlices);
}

// A fixed tile and slice count, for the tests and the sweep's comparisons.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int SLICES>
void launch_sliced_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  run_sliced_gemm<BM, BN, BK, WM, WN, TM, TN>(A, B, C, M, N, K, SLICES);
}

// Tile `tile` of kAnyShapeTiles (0: 128 x 128, 1: 64 x 64, 2: 32 x 128) in `slices` slices.
inline void run_sliced_tile(int tile, const float* A, const float* B, float* C, int M, int N,
                            int K, int slices) {
  if (tile == 0)
    run_sliced_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K, slices);
  else if (tile == 1)
    run_sliced_gemm<64, 64, 16, 32, 32, 8, 4>(A, B, C, M, N, K, slices);
  else if (tile == 2)
    run_sliced_gemm<32, 128, 16, 32, 32, 8, 4>(A, B, C, M, N, K, slices);
  else
    throw std::invalid_argument("run_sliced_tile: tile " + std::to_string(tile) +
                                " is not one of kAnyShapeTiles (0, 1, 2)");
}

// This GPU's SMs (common/device_facts.hpp: read once per device).
inline int sm_count() { return tutorial::current_device_info().sm_count; }

// Tile and slices from the problem and this GPU (plan_any_shape).
inline void launch_any_shape_gemm(const float* A, const float* B, float* C, int M, int N,
                                  int K) {
  tutorial::check_gemm_shape("any_shape_gemm", M, N, K);
  const AnyShapePlan plan = plan_any_shape(M, N, K, sm_count(), kAnyShapeTiles);
  run_sliced_tile(plan.tile, A, B, C, M, N, K, plan.slices);
}

}  // namespace ch05
