// Chapter 05, step 7: stream-K, the last wave shared out evenly.
//
// What changed since step 6: a problem with at least one full wave of 128 x 128 tiles ran as
// one block per tile, and its last wave may be mostly empty: 3072^3 has 576 tiles for 264
// slots (132 SMs x 2), 2.18 waves, so the GPU spends 3 waves' time on 2.18 waves of work.
// Stream-K (Osama, Merrill, Cecka, Garland, Owens: "Stream-K: Work-centric Parallel
// Decomposition for Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023) hands out the
// work as k-iterations (BK values of k of one tile) instead of tiles: here the iterations of
// the last partial wave's tiles, in one row, cut into as many equal ranges as there are slots.
// A block's range may start or end inside a tile; such a tile's partial products are summed
// afterwards.
//   - stream_k_gemm: one block per whole tile (as step 6), then one block per slot, each with
//     its equal share of the remaining tiles' iterations. A segment that covers a whole tile
//     goes to C; a partial one to the block's slot in a workspace (slot 2b: the stream-K
//     block's first segment, 2b + 1: its last). One loop around one copy of the main loop
//     (product_over_k, step 5): a second copy made the kernel slower (lab/LOG.md#stream-k).
//   - stream_k_fixup: C = a split tile's partial segments added in the order of their blocks:
//     no atomics, the same bits on every run, like sum_slices. It stays a second launch:
//     done inside stream_k_gemm (as the paper does it), the adding up slowed the whole tiles
//     down too (lab/LOG.md#stream-k).
//   - launch_stream_k_gemm: stream-K wherever the last wave is partial and K is not short,
//     step 6's any_shape_gemm elsewhere.
// The cost: split tiles are written and read back (2 slots of 64 KB per stream-K block at
// most), the fixup is a second launch, and the stream-K blocks work at different k, so they
// share less of A and B in the L2 (lab/LOG.md#stream-k).
#pragma once

#include <algorithm>

#include "05_double_buffer/6_any_shape.cuh"

namespace ch05 {

// The work of a stream-K launch, in units of one k-iteration (BK values of k) of one tile.
struct StreamKPlan {
  int tilesN = 0;            // tiles per row of C
  int dpTiles = 0;           // tiles 0 .. dpTiles - 1: whole, one block each
  int skTiles = 0;           // tiles dpTiles .. dpTiles + skTiles - 1: shared out by iterations
  int kIters = 0;            // iterations per tile: ceil(K / BK)
  int blocks = 0;            // stream-K blocks: the slots that are resident at once

  // The stream-K iterations of block b: [begin(b), begin(b + 1)), an even share of all.
  __host__ __device__ long long begin(int b) const {
    return (long long)skTiles * kIters * b / blocks;
  }
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_A, bool VEC_BC>
__global__ void __launch_bounds__(WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    stream_k_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                  float* __restrict__ partials, int M, int N, int K, StreamKPlan plan) {
  using Layout = WarpLayout<BM, BN, WM, WN, TM, TN>;
  // The block's iterations, counted over all tiles (tile t's are t * kIters .. + kIters): a
  // block below dpTiles takes tile blockIdx.x whole, as pipelined_gemm's blocks do; each of the
  // last plan.blocks blocks takes its share of the stream-K tiles' iterations, one segment per
  // tile it meets. One loop with one product_over_k: a second copy of the main loop costs
  // registers.
  // BEGIN QUOTE stream-k
  const long long skFirst = (long long)plan.dpTiles * plan.kIters;
  const int b = int(blockIdx.x) - plan.dpTiles;  // the stream-K block's index; < 0: whole tile
  long long it = b < 0 ? (long long)blockIdx.x * plan.kIters : skFirst + plan.begin(b);
  const long long end = b < 0 ? it + plan.kIters : skFirst + plan.begin(b + 1);
  bool firstSegment = true;
  while (it < end) {
    const int tile = int(it / plan.kIters);
    const int kb = int(it - (long long)tile * plan.kIters);
    const int ke = int(std::min<long long>(plan.kIters, kb + (end - it)));
    it += ke - kb;
    const int blockRow = tile / plan.tilesN * BM, blockCol = tile % plan.tilesN * BN;
    const int k0 = kb * BK, Ks = min(K, ke * BK) - k0;
    float regC[TM][TN] = {};
    product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC_A, VEC_BC>(A, B, M, N, K, k0, Ks, blockRow,
                                                              blockCol, regC);
    // BEGIN ELIDE stream-k: a whole tile to C; a partial segment to the block's first or last slot
    if (kb == 0 && ke == plan.kIters) {  // a whole tile: nothing to add up
      store_c_tile<BM, BN, BK, WM, WN, TM, TN, VEC_BC>(C, M, N, blockRow, blockCol, regC);
    } else {  // a partial segment (b >= 0): the block's first (slot 2b) or last (2b + 1)
      float* slot = partials + (2 * size_t(b) + (firstSegment ? 0 : 1)) * BM * BN;
      store_lane_tile<TM, TN, true>(slot, BM, BN, 0, 0, Layout(), regC);
    }
    // END ELIDE stream-k
    firstSegment = false;
    __syncthreads();  // the next product refills the shared tiles
  }
  // END QUOTE stream-k
}

// The stream-K tiles that no single block finished: C = the sum of their partial segments, in
// the order of the blocks that made them. Block x adds up stream-K tile x. Each thread holds
// its float4s of the tile in registers while the segments are added one block at a time: the
// loads of one segment are independent of each other, and whether a block made a segment is
// decided once per block, not once per element.
template <int BM, int BN, int THREADS, bool VEC>
__global__ void __launch_bounds__(THREADS)
    stream_k_fixup(const float* __restrict__ partials, float* __restrict__ C, int M, int N,
                   StreamKPlan plan) {
  constexpr int PER_THREAD = BM * BN / 4 / THREADS;  // float4s of the tile per thread
  static_assert(BM * BN % (4 * THREADS) == 0, "the tile's float4s must split evenly");
  const long long first = (long long)blockIdx.x * plan.kIters;  // the tile's iterations
  const long long last = first + plan.kIters - 1;
  // The blocks whose ranges meet [first, last]: begin(b) <= last < begin(b + 1) for the last.
  int b0 = int(first * plan.blocks / ((long long)plan.skTiles * plan.kIters));
  while (b0 > 0 && plan.begin(b0) > first) --b0;
  while (plan.begin(b0 + 1) <= first) ++b0;
  int b1 = b0;
  while (b1 + 1 < plan.blocks && plan.begin(b1 + 1) <= last) ++b1;
  if (b0 == b1 && plan.begin(b0) <= first && plan.begin(b0 + 1) > last)
    return;  // one block made the whole tile and stored it itself
  const int tile = plan.dpTiles + blockIdx.x;
  const int blockRow = tile / plan.tilesN * BM, blockCol = tile % plan.tilesN * BN;
  // The tile is block b's first segment if b began inside it (slot 2b), else its last
  // (2b + 1): only block b0 can have begun before it.
  auto slot = [&](size_t s) { return reinterpret_cast<const float4*>(partials + s * BM * BN); };
  const float4* firstSlot = slot(2 * size_t(b0) + (plan.begin(b0) < first ? 1 : 0));
  float4 sum[PER_THREAD];
#pragma unroll
  for (int j = 0; j < PER_THREAD; ++j) sum[j] = firstSlot[threadIdx.x + j * THREADS];
  for (int b = b0 + 1; b <= b1; ++b) {
    if (plan.begin(b) == plan.begin(b + 1)) continue;  // a block with no iterations made nothing
    const float4* next = slot(2 * size_t(b));
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
      const float4 v = next[threadIdx.x + j * THREADS];
      sum[j].x += v.x, sum[j].y += v.y, sum[j].z += v.z, sum[j].w += v.w;
    }
  }
#pragma unroll
  for (int j = 0; j < PER_THREAD; ++j) {  // (BM, BN / 4) float4s, row-major, as the slots
    const int i = threadIdx.x + j * THREADS;
    tutorial::store_float4<VEC>(C, blockRow + i / (BN / 4), blockCol + i % (BN / 4) * 4, M, N,
                                sum[j]);
  }
}

// The last partial wave's tiles shared out by k-iterations among `slots` blocks; none where the
// tiles fill whole waves.
inline StreamKPlan plan_stream_k(int M, int N, int K, int BM, int BN, int BK, int slots) {
  StreamKPlan p;
  p.tilesN = tutorial::ceil_div(N, BN);
  const int tiles = tutorial::ceil_div(M, BM) * p.tilesN;
  p.kIters = tutorial::ceil_div(K, BK);
  p.blocks = slots;
  p.skTiles = tiles % slots;
  p.dpTiles = tiles - p.skTiles;
  return p;
}

// Runs a stream-K plan with BM x BN tiles: one block per whole tile, then the plan's stream-K
// blocks, then the fixup of the split tiles.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void run_stream_k_plan(const float* A, const float* B, float* C, int M, int N, int K,
                       const StreamKPlan& plan) {
  using Layout = WarpLayout<BM, BN, WM, WN, TM, TN>;
  constexpr size_t SMEM = warp_tiles_smem_bytes<BM, BN, BK, 2>();
  tutorial::dispatch_vec_operands(A, B, C, N, K, [&](auto vecA, auto vecBC) {
    constexpr bool VEC_A = decltype(vecA)::value, VEC_BC = decltype(vecBC)::value;
    // Whole waves (skTiles == 0): every tile whole, no workspace, no fixup.
    float* partials = plan.skTiles == 0 ? nullptr
                                        : slice_workspace(2 * size_t(plan.blocks) * BM * BN,
                                                          2 * plan.blocks, BM, BN);
    // One block per whole tile, then the stream-K blocks (none where there is nothing to share).
    const int grid = plan.dpTiles + (plan.skTiles > 0 ? plan.blocks : 0);
    tutorial::launch(stream_k_gemm<BM, BN, BK, WM, WN, TM, TN, VEC_A, VEC_BC>, dim3(grid),
                     dim3(Layout::THREADS), SMEM, A, B, C, partials, M, N, K, plan);
    if (plan.skTiles > 0)
      tutorial::launch(stream_k_fixup<BM, BN, 256, VEC_BC>, dim3(plan.skTiles), dim3(256), 0,
                       partials, C, M, N, plan);
  });
}

// Stream-K with BM x BN tiles for the whole problem (the tests and the sweep call it at any
// shape; launch_stream_k_gemm only where it pays). slots: the stream-K blocks, 0 for one per
// resident slot of this GPU (a slot: one of the blocks __launch_bounds__ promises each SM; the
// tests pass small counts to cut tiles at many places).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void run_stream_k_gemm(const float* A, const float* B, float* C, int M, int N, int K,
                       int slots = 0) {
  tutorial::check_gemm_shape("stream_k_gemm", M, N, K);
  using Layout = WarpLayout<BM, BN, WM, WN, TM, TN>;
  if (slots <= 0) slots = sm_count() * Layout::MIN_BLOCKS;
  run_stream_k_plan<BM, BN, BK, WM, WN, TM, TN>(A, B, C, M, N, K,
                                                plan_stream_k(M, N, K, BM, BN, BK, slots));
}

// Below about K = 1536 a tile's product is short against its first loads and its store, and
// the split tiles' extra traffic outweighs the idle slots it fills (lab/LOG.md#stream-k).
constexpr int kStreamKMinK = 1536;

// Whether stream-K pays: more than one wave of 128 x 128 tiles, a last wave that is not full,
// and K long enough. What stream-K wins is the idle part of the last wave.
inline bool stream_k_pays(int M, int N, int K, int sms) {
  const long long tiles = (long long)tutorial::ceil_div(M, 128) * tutorial::ceil_div(N, 128);
  const long long slots = (long long)sms * BigTile::MIN_BLOCKS;  // as run_stream_k_gemm
  return tiles > slots && tiles % slots != 0 && K >= kStreamKMinK;
}

// Step 7's launcher: stream-K with 128 x 128 tiles where it pays by the rule above; step 6's
// choice (whole tiles for whole waves, split-K and smaller tiles for small problems) elsewhere.
inline void launch_stream_k_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("stream_k_gemm", M, N, K);
  if (stream_k_pays(M, N, K, sm_count()))
    run_stream_k_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K);
  else
    launch_any_shape_gemm(A, B, C, M, N, K);
}

}  // namespace ch05
