// Chapter 05, step 9: planned_gemm, the final launcher: every path, chosen on the GPU in hand.
//
// What changed since step 8: no new kernel. Steps 6, 7 and 8 each chose among their own paths
// with a rule of their own; here every plan the chapter can run is a candidate:
//   - tiles (step 6's sliced_gemm): six tile shapes, K cut into S slices (up to 729);
//   - stream-K (step 7): 128 x 128 tiles, the last partial wave shared out by k-iterations;
//   - thin and vector (step 8): the thin tiles that fit, C of one row or column; K in S slices.
// An estimate a student can derive ranks them (roof_clocks); tutorial::Chooser times the closest on
// a shape's first call on this GPU, keeps the fastest (TUTORIAL_CHOOSE=estimate, no GPU: estimate).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "05_double_buffer/7_stream_k.cuh"
#include "05_double_buffer/8_thin.cuh"
#include "common/chooser.hpp"
#include "common/device_facts.hpp"
#include "common/gemm.hpp"

namespace ch05 {

enum class GemmPath { Tiles, StreamK, Thin, Vector };
struct GemmPlan {
  GemmPath path = GemmPath::Tiles;
  int tile = 0;                        // Tiles: index into kPlanTiles
  ThinShape thin = ThinShape::ShortK;  // Thin: the tile
  int slices = 1;                      // Tiles, Thin, Vector: S (1: straight to C)
  bool operator==(const GemmPlan& o) const {
    return path == o.path && slices == o.slices && (path != GemmPath::Tiles || tile == o.tile) &&
           (path != GemmPath::Thin || thin == o.thin);
  }
};
using Candidate = tutorial::Candidate<GemmPlan>;
// The tiles: step 6's three, its 32 x 128 on its side (a small N), the 128 x 128 tile halved.
struct PlanTile {
  int bm, bn, minBlocks;  // minBlocks: __launch_bounds__' resident blocks per SM
  bool wideLanes;         // 8 x 8 outputs per lane (else 8 x 4)
};
template <class L>
constexpr PlanTile plan_tile() {
  return {L::TILE_M, L::TILE_N, L::MIN_BLOCKS, L::LANE_M * L::LANE_N == 64};
}
using TallTile = WarpLayout<128, 32, 32, 32, 8, 4>;
using HalfRowsTile = WarpLayout<64, 128, 32, 64, 8, 8>;
using HalfColumnsTile = WarpLayout<128, 64, 32, 64, 8, 8>;
constexpr int kPlanTileCount = 6;
constexpr PlanTile kPlanTiles[kPlanTileCount] = {
    plan_tile<BigTile>(),  plan_tile<SmallTile>(),    plan_tile<SkinnyTile>(),
    plan_tile<TallTile>(), plan_tile<HalfRowsTile>(), plan_tile<HalfColumnsTile>()};

// What the estimate knows of a GPU: plan_gpu() reads the device in hand; a test, any GPU.
struct PlanGpu {
  int sms = 0;
  double fmaPerClock = 0, clockGHz = 0;      // FP32 FMA lanes per SM; SM clock
  double dramBytesPerClock = 0;              // DRAM bytes per SM clock, the whole GPU
  int tileBlocksPerSm[kPlanTileCount] = {};  // resident blocks per SM of each tile's kernel
  int thinBlocksPerSm = 0, rowBlocksPerSm = 0, columnBlocksPerSm = 0;  // thin (short-K), M|N = 1
};

// The estimate's constants, each from a measurement (chapter 01; lab/LOG.md#the-chooser):
// - a wave's blocks wait a DRAM round trip before their first FMA: about 1 us (0.35 idle);
constexpr double kRoundTripNs = 1000.0;
// - at the full DRAM rate a load waits about 1.5 us: the rate needs rate x 1.5 us in flight;
constexpr double kLoadedRoundTripNs = 1500.0;
// - a second launch (stream-K's fixup; the slices' sum 1-2 us less on sm_90, #early-sum): 3 us;
constexpr double kLaunchNs = 3000.0;
// - lanes of 8 x 4 results reach 0.84 of the 8 x 8 lanes' FMA rate on large problems (measured);
constexpr double kNarrowLanesRate = 0.84;
// - thin_gemm loads from shared memory for every 2 to 4 FMAs: about a third of the FMA rate (the
//   vector kernels counted the same: both are bound by DRAM where they are chosen).
constexpr double kThinFmaRate = 0.35;
// Timed: within kWindow of the cheapest estimate, at most kShortlist. At 500x2098x308 the estimate
// ran 2.2x under a cut plan, 1.2x over an uncut wave: 2.2 x 1.2 rounded up (lab/LOG.md#window).
constexpr double kWindow = 3.0;
constexpr int kShortlist = 16;
// K cut at most kMaxPlanSlices ways (the cuts stop at 729), the partial sums in at most 256 MB.
constexpr int kMaxPlanSlices = 1024;
constexpr double kMaxWorkspaceBytes = double(1 << 28);

inline PlanGpu plan_gpu() {
  const tutorial::DeviceInfo& d = tutorial::current_device_info();
  PlanGpu g;
  g.sms = d.sm_count;
  g.fmaPerClock = tutorial::fp32_lanes_per_sm(d.compute_major, d.compute_minor);
  g.dramBytesPerClock = tutorial::dram_bytes_per_sm_clock(d);
  g.clockGHz = d.sm_clock_khz * 1e-6;
  auto perSm = [&](auto kernel, int threads, size_t smem, int minBlocks) {
    return int(tutorial::resident_blocks(kernel, threads, smem, minBlocks) / d.sm_count);
  };
  auto tile = [&](auto layout, int t) {
    using L = decltype(layout);
    constexpr int BK = tile_depth<L>(true, true);
    g.tileBlocksPerSm[t] =
        perSm(sliced_gemm<L::TILE_M, L::TILE_N, BK, L::PIECE_M, L::PIECE_N, L::LANE_M, L::LANE_N,
                          true, true>,
              L::THREADS, warp_tiles_smem_bytes<L::TILE_M, L::TILE_N, BK, 2>(), L::MIN_BLOCKS);
  };
  tile(BigTile{}, 0), tile(SmallTile{}, 1), tile(SkinnyTile{}, 2), tile(TallTile{}, 3);
  tile(HalfRowsTile{}, 4), tile(HalfColumnsTile{}, 5);
  using Short = ThinConfig<ThinShape::ShortK>;
  g.thinBlocksPerSm = perSm(thin_gemm<Short::TM, Short::TN, Short::WARPS_M, Short::WARPS_N,
                                      Short::LANES, Short::KC>,
                            ThinLayoutOf<ThinShape::ShortK>::THREADS, 0, 2);
  g.rowBlocksPerSm = perSm(row_times_matrix<true>, kRowWarps * 32, 0, 2048 / (kRowWarps * 32));
  g.columnBlocksPerSm = perSm(matrix_times_column<true>, kVectorThreads, 0, 2048 / kVectorThreads);
  return g;
}

// ---- The estimate, in SM clocks: `blocks` blocks, `perSm` resident per SM, run in waves; in a
// wave an SM's blocks share its FMA lanes. DRAM: A, B and C once, S partial products written
// and read back, at the DRAM rate times `fill`, Little's law for the bytes the resident blocks
// keep in flight. Then a round trip per wave and the extra launches.
inline double roof_clocks(const PlanGpu& g, long long blocks, int perSm, double blockFmas,
                          double rate, double bytes, double inflight, int launches) {
  // BEGIN QUOTE estimate
  perSm = std::max(1, perSm);
  const double slots = double(g.sms) * perSm, waves = std::ceil(double(blocks) / slots);
  const double fma = waves * perSm * blockFmas / (g.fmaPerClock * rate);
  const double needed = g.dramBytesPerClock * kLoadedRoundTripNs * g.clockGHz;
  const double fill = std::min(1.0, std::min(double(blocks), slots) * inflight / needed);
  const double dram = bytes / (g.dramBytesPerClock * fill);
  return std::max(fma, dram) + (waves * kRoundTripNs + (launches - 1) * kLaunchNs) * g.clockGHz;
  // END QUOTE estimate
}

// A bm x bn tile in S slices of sliceK, summed by a second launch (bm = 1, M = 1: in the kernel).
inline double sliced_plan_clocks(const PlanGpu& g, int M, int N, int K, int bm, int bn, int perSm,
                                 double rate, double inflight, int slices, int sliceK) {
  const long long tiles = (long long)tutorial::ceil_div(M, bm) * tutorial::ceil_div(N, bn);
  const double partials = slices > 1 ? 2.0 * slices * 4.0 * double(M) * N : 0.0;
  const double bytes = tutorial::gemm_compulsory_bytes(M, N, K) + partials;
  return roof_clocks(g, tiles * slices, perSm, double(bm) * bn * sliceK, rate, bytes, inflight,
                     slices > 1 && bm != 1 ? 2 : 1);
}

// Stream-K (128 x 128 tiles): every SM's share of all k-iterations, as if the waves were whole;
// 2 partial tiles per stream-K block written and read back; the fixup's launch.
inline double stream_k_clocks(const PlanGpu& g, int M, int N, int K) {
  const double slots = double(g.sms) * kPlanTiles[0].minBlocks;  // as run_stream_k_gemm launches
  const double tiles = double(tutorial::ceil_div(M, 128)) * tutorial::ceil_div(N, 128);
  const double fma = tiles * 128 * 128 * double(K) / (double(g.sms) * g.fmaPerClock);
  const double partials = 2.0 * 2.0 * slots * 128 * 128 * 4.0;
  const double dram = (tutorial::gemm_compulsory_bytes(M, N, K) + partials) / g.dramBytesPerClock;
  return std::max(fma, dram) + (std::ceil(tiles / slots) * kRoundTripNs + kLaunchNs) * g.clockGHz;
}

// Every plan for M x N x K and its estimate: each tile at every cut of K (S = 1 .. 64, then 1.5x
// apart), stream-K past one partial wave, thin tiles, vectors. `inflight`: a block's next loads.
inline std::vector<Candidate> plan_candidates(const PlanGpu& g, int M, int N, int K) {
  std::vector<Candidate> all;
  auto each_cut = [&](GemmPlan plan, const std::string& name, int bm, int bn, int perSm,
                      double rate, double inflight) {
    for (int wanted = 1, last = 0; wanted <= kMaxPlanSlices;
         wanted = wanted < kMaxSlices ? wanted + 1 : wanted * 3 / 2) {
      int sliceK = K;
      slice_k(K, wanted, plan.slices, sliceK);
      if (plan.slices == last) continue;
      last = plan.slices;
      if (plan.slices > 1 && 4.0 * plan.slices * double(M) * N > kMaxWorkspaceBytes) return;
      all.push_back({plan, sliced_plan_clocks(g, M, N, K, bm, bn, perSm, rate, inflight,
                                               plan.slices, sliceK),
                     name + " S=" + std::to_string(plan.slices)});
    }
  };
  for (int t = 0; t < kPlanTileCount; ++t) {
    const PlanTile& c = kPlanTiles[t];
    if (tutorial::ceil_div(M, c.bm) > tutorial::kMaxGridY) continue;  // grid.y: tiles along M
    each_cut({GemmPath::Tiles, t}, std::to_string(c.bm) + "x" + std::to_string(c.bn), c.bm, c.bn,
             g.tileBlocksPerSm[t], c.wideLanes ? 1.0 : kNarrowLanesRate,
             4.0 * kSliceAlign * (std::min(c.bm, M) + std::min(c.bn, N)));
  }
  const long long slots = (long long)g.sms * kPlanTiles[0].minBlocks;  // as run_stream_k_gemm
  const long long bigTiles = (long long)tutorial::ceil_div(M, 128) * tutorial::ceil_div(N, 128);
  if (bigTiles > slots && bigTiles % slots != 0)
    all.push_back({{GemmPath::StreamK}, stream_k_clocks(g, M, N, K), "stream-K"});
  for (int i = 0; i <= int(ThinShape::SmallN16); ++i) {
    const ThinShape s = ThinShape(i);
    const ThinExtent e = thin_extent(s);
    if (thin_fits(s, M, N, K))
      each_cut({GemmPath::Thin, 0, s}, std::string("thin ") + thin_name(s), e.bm, e.bn,
               g.thinBlocksPerSm, kThinFmaRate,
               4.0 * e.kc * (std::min(e.bm, M) + std::min(e.bn, N)));
  }
  if (M == 1 || N == 1)  // a block: 8 x 1 outputs (N = 1) or 1 x 128 (M = 1, float4)
    each_cut({GemmPath::Vector}, "vector", N == 1 ? kVectorThreads / 32 : 1, N == 1 ? 1 : 128,
             N == 1 ? g.columnBlocksPerSm : g.rowBlocksPerSm, kThinFmaRate,
             16.0 * kVectorUnroll * (N == 1 ? kVectorThreads : kRowWarps * 32));
  return all;
}

// Timed: per path its cheapest cut, uncut and twice the cheapest cut (the fill can be optimistic).
inline std::vector<Candidate> plan_shortlist_input(const PlanGpu& g, int M, int N, int K) {
  const std::vector<Candidate> all = plan_candidates(g, M, N, K);
  std::vector<Candidate> kept;
  auto samePath = [](const GemmPlan& a, const GemmPlan& b) {
    return a.path == b.path && a.tile == b.tile && a.thin == b.thin;
  };
  for (const Candidate& c : all) {
    const Candidate *cheapest = &c, *twice = nullptr;  // twice: the fewest slices >= 2x cheapest's
    for (const Candidate& o : all)
      if (samePath(o.plan, c.plan) && o.estimate < cheapest->estimate) cheapest = &o;
    for (const Candidate& o : all)
      if (samePath(o.plan, c.plan) && o.plan.slices >= 2 * cheapest->plan.slices &&
          (!twice || o.plan.slices < twice->plan.slices))
        twice = &o;
    if (cheapest == &c || c.plan.slices == 1 || twice == &c) kept.push_back(c);
  }
  return kept;
}
// Runs a plan (kPlanTiles' order for the tiles).
inline void run_gemm_plan(const GemmPlan& p, const float* A, const float* B, float* C, int M,
                          int N, int K) {
  switch (p.path) {
    case GemmPath::StreamK: return run_stream_k_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K);
    case GemmPath::Thin: return run_thin_shape(p.thin, A, B, C, M, N, K, p.slices);
    case GemmPath::Vector: return run_vector_gemm(A, B, C, M, N, K, p.slices);
    case GemmPath::Tiles: {
      using Run = void (*)(const float*, const float*, float*, int, int, int, int);
      constexpr Run kRuns[kPlanTileCount] = {
          run_sliced_gemm<128, 128, 16, 32, 64, 8, 8>, run_sliced_gemm<64, 64, 16, 32, 32, 8, 4>,
          run_sliced_gemm<32, 128, 16, 32, 32, 8, 4>,  run_sliced_gemm<128, 32, 16, 32, 32, 8, 4>,
          run_sliced_gemm<64, 128, 16, 32, 64, 8, 8>,  run_sliced_gemm<128, 64, 16, 32, 64, 8, 8>};
      kRuns[p.tile](A, B, C, M, N, K, p.slices);
    }
  }
}

// The plan for this shape and these operand widths on this GPU, chosen once.
inline GemmPlan chosen_plan(const float* A, const float* B, float* C, int M, int N, int K) {
  static tutorial::Chooser<GemmPlan> chooser(kWindow, kShortlist);
  const tutorial::VecOperands v = tutorial::vec_operands(A, B, C, N, K);  // and B's, for N = 1
  const std::string key =
      "planned_gemm " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
      " widths " + std::to_string(v.a) + std::to_string(v.bc) + std::to_string(v.pairsA) +
      std::to_string(v.pairsB) + std::to_string(tutorial::starts_on_16_bytes(B));
  return chooser.choose(
      key, [&] { return plan_shortlist_input(plan_gpu(), M, N, K); },
      [&](const GemmPlan& p) { run_gemm_plan(p, A, B, C, M, N, K); });
}

// The chapter's final GEMM.
inline void launch_planned_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("planned_gemm", M, N, K);
  run_gemm_plan(chosen_plan(A, B, C, M, N, K), A, B, C, M, N, K);
}

}  // namespace ch05
