// Chapter 05, step 9: planned_gemm, the chapter's final launcher: every path, chosen on the GPU
// in hand.
//
// What changed since step 8: no new kernel. Steps 6, 7 and 8 each chose among their own paths
// with a rule of their own. Here every plan the chapter can run is a candidate:
//   - tiles (step 6's sliced_gemm): six tile shapes, K cut into S slices (1 to 1,024);
//   - stream-K (step 7): 128 x 128 tiles, the last partial wave shared out by k-iterations;
//   - thin (step 8): each thin tile whose thin side fits the problem, K cut into S slices;
//   - vector (step 8): where C is one row or one column, K cut into S slices.
// An estimate a student can derive by hand ranks them (plan_clocks, below: waves of blocks, the
// FMA and DRAM roofs, one DRAM round trip per wave, one launch per extra kernel), and
// tutorial::Chooser (common/chooser.hpp) times the few it ranks closest on a shape's first call
// on this GPU and keeps the fastest. The estimate decides what is worth timing; the measurement
// decides what runs. With TUTORIAL_CHOOSE=estimate (and on the CPU backend) the estimate alone
// decides, the same plan in every process.
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
    return path == o.path && slices == o.slices &&
           (path != GemmPath::Tiles || tile == o.tile) && (path != GemmPath::Thin || thin == o.thin);
  }
};
using Candidate = tutorial::Candidate<GemmPlan>;

// The tiles of the tiles path: step 6's three, step 6's 32 x 128 on its side (for a small N),
// and the 128 x 128 tile halved (finer waves where whole tiles leave one partly empty).
struct PlanTile {
  int bm, bn, threads, minBlocks;  // minBlocks: __launch_bounds__' resident blocks per SM
  bool wideLanes;                  // 8 x 8 outputs per lane (else 8 x 4)
};
template <class L>
constexpr PlanTile plan_tile() {
  return {L::TILE_M, L::TILE_N, L::THREADS, L::MIN_BLOCKS, L::LANE_M * L::LANE_N == 64};
}
using TallTile = WarpLayout<128, 32, 32, 32, 8, 4>;
using HalfRowsTile = WarpLayout<64, 128, 32, 64, 8, 8>;
using HalfColumnsTile = WarpLayout<128, 64, 32, 64, 8, 8>;
constexpr int kPlanTileCount = 6;
constexpr PlanTile kPlanTiles[kPlanTileCount] = {
    plan_tile<BigTile>(),  plan_tile<SmallTile>(),    plan_tile<SkinnyTile>(),
    plan_tile<TallTile>(), plan_tile<HalfRowsTile>(), plan_tile<HalfColumnsTile>()};
constexpr ThinShape kThinShapes[] = {ThinShape::ShortK, ThinShape::SmallM4, ThinShape::SmallM16,
                                     ThinShape::SmallN4, ThinShape::SmallN16};

// What the estimate knows of a GPU. plan_gpu() reads it from the device in hand; a test can
// describe any GPU.
struct PlanGpu {
  int sms = 0;
  double fmaPerClock = 0;                    // FP32 FMA lanes per SM
  double dramBytesPerClock = 0;              // DRAM bytes per SM clock, the whole GPU
  double clockGHz = 0;                       // SM clock
  int tileBlocksPerSm[kPlanTileCount] = {};  // resident blocks per SM of each tile's kernel
  int thinBlocksPerSm = 0;                   // of thin_gemm (every thin tile: 256 threads)
  int vectorBlocksPerSm = 0;                 // of the vector kernels (256 threads)
};

// The estimate's constants, each from a measurement of chapter 01 or of this chapter's lab:
// - a wave's blocks start with a DRAM round trip before their first FMA: about 1 us under load
//   (chapter 01's Little's-law table: 0.8-1.4 us seen at 16-32 KB in flight per SM);
constexpr double kRoundTripNs = 1000.0;
// - a second launch (the slices' sum, stream-K's fixup) costs about 3 us of launch and first
//   loads (lab/LOG.md, "The second launch");
constexpr double kLaunchNs = 3000.0;
// - lanes of 8 x 4 outputs load 12 floats from shared memory for 32 FMAs where 8 x 8 lanes load
//   16 for 64: measured, they reach 0.84 of the 8 x 8 lanes' FMA rate (lab/LOG.md, "Tile rates");
constexpr double kNarrowLanesRate = 0.84;
// - thin_gemm spends a shared-memory load on every 2 to 4 FMAs: about a third of the FMA rate
//   (lab/LOG.md, "Tile rates"). Its time is memory in the shapes it is for.
constexpr double kThinFmaRate = 0.35;
// Candidates timed: those estimated within kWindow of the cheapest, at most kShortlist (the
// estimate was off by up to 1.5x where measured, lab/LOG.md "The estimate's error"; each
// candidate timed adds about 0.1 s to a large shape's first call).
constexpr double kWindow = 1.6;
constexpr int kShortlist = 6;
// K is cut at most kMaxPlanSlices ways, and never so finely that the partial sums need more
// than kMaxWorkspaceBytes (a quarter of a GB: every GPU the chapter runs on has it free).
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
  g.vectorBlocksPerSm = perSm(row_times_matrix<true>, kVectorThreads, 0, 2048 / kVectorThreads);
  return g;
}

// ---- The estimate, in SM clocks -----------------------------------------------------------
// A grid of `blocks` blocks, `perSm` resident per SM, runs in waves = ceil(blocks / (SMs x
// perSm)); in a wave an SM's perSm blocks share its FMA lanes. So
//     FMA time  = waves x perSm x (FMAs of one block) / (FMA lanes x the tile's rate)
//     DRAM time = bytes that must move / DRAM bytes per clock
//     clocks    = max(FMA time, DRAM time) + waves x round trip + extra launches x launch
// bytes: A, B read and C written once, and with S > 1 slices S partial products written and
// read back.
inline double compulsory_bytes(int M, int N, int K) {
  return tutorial::gemm_compulsory_bytes(M, N, K);
}
inline double roof_clocks(const PlanGpu& g, long long blocks, int perSm, double blockFmas,
                          double rate, double bytes, int launches) {
  perSm = std::max(1, perSm);
  const double waves = std::ceil(double(blocks) / (double(g.sms) * perSm));
  const double fma = waves * perSm * blockFmas / (g.fmaPerClock * rate);
  const double dram = bytes / g.dramBytesPerClock;
  return std::max(fma, dram) + (waves * kRoundTripNs + (launches - 1) * kLaunchNs) * g.clockGHz;
}

// Tiles (t) or thin (thinBm x thinBn) in S slices of sliceK.
inline double sliced_plan_clocks(const PlanGpu& g, int M, int N, int K, int bm, int bn, int perSm,
                                 double rate, int slices, int sliceK) {
  const long long tiles = (long long)tutorial::ceil_div(M, bm) * tutorial::ceil_div(N, bn);
  const double partials = slices > 1 ? 2.0 * slices * 4.0 * double(M) * N : 0.0;
  return roof_clocks(g, tiles * slices, perSm, double(bm) * bn * sliceK, rate,
                     compulsory_bytes(M, N, K) + partials, slices > 1 ? 2 : 1);
}

// Stream-K: every SM's share of all k-iterations, as if the waves were whole, plus the fixup.
inline double stream_k_clocks(const PlanGpu& g, int M, int N, int K) {
  const PlanTile& c = kPlanTiles[0];
  const int perSm = g.tileBlocksPerSm[0];
  const StreamKPlan p = plan_stream_k(M, N, K, c.bm, c.bn, kSliceAlign, g.sms * perSm);
  const double tiles = double(p.dpTiles + p.skTiles);
  const double fma = tiles * c.bm * c.bn * double(K) / (double(g.sms) * g.fmaPerClock);
  const double partials = 2.0 * 2.0 * g.sms * perSm * c.bm * c.bn * 4.0;  // written, read back
  const double dram = (compulsory_bytes(M, N, K) + partials) / g.dramBytesPerClock;
  const double waves = std::ceil(tiles / (double(g.sms) * perSm));
  return std::max(fma, dram) + (waves * kRoundTripNs + kLaunchNs) * g.clockGHz;
}

// Every plan for M x N x K, with its estimate: each tile and thin tile at every slice count,
// stream-K where the 128 x 128 tiles leave a last wave partly empty.
inline std::vector<Candidate> plan_candidates(const PlanGpu& g, int M, int N,
                                                                  int K) {
  std::vector<Candidate> all;
  auto each_cut = [&](auto add) {
    int last = 0;  // S = 1 .. 64 one by one, then about 1.5x apart up to kMaxPlanSlices
    for (int wanted = 1; wanted <= kMaxPlanSlices;
         wanted = wanted < kMaxSlices ? wanted + 1 : wanted * 3 / 2) {
      int slices = 1, sliceK = K;
      slice_k(K, wanted, slices, sliceK);
      if (slices == last) continue;
      last = slices;
      if (slices > 1 && 4.0 * slices * double(M) * N > kMaxWorkspaceBytes) return;
      add(slices, sliceK);
    }
  };
  for (int t = 0; t < kPlanTileCount; ++t) {
    const PlanTile& c = kPlanTiles[t];
    const double rate = c.wideLanes ? 1.0 : kNarrowLanesRate;
    each_cut([&](int slices, int sliceK) {
      all.push_back({{GemmPath::Tiles, t, ThinShape::ShortK, slices},
                     sliced_plan_clocks(g, M, N, K, c.bm, c.bn, g.tileBlocksPerSm[t], rate,
                                        slices, sliceK),
                     std::to_string(c.bm) + "x" + std::to_string(c.bn) + " S=" +
                         std::to_string(slices)});
    });
  }
  const long long slots = (long long)g.sms * g.tileBlocksPerSm[0];
  const long long bigTiles = (long long)tutorial::ceil_div(M, 128) * tutorial::ceil_div(N, 128);
  if (bigTiles > slots && bigTiles % slots != 0)
    all.push_back({{GemmPath::StreamK}, stream_k_clocks(g, M, N, K), "stream-K"});
  for (ThinShape s : kThinShapes) {
    if (!thin_fits(s, M, N, K)) continue;
    const ThinExtent e = thin_extent(s);
    each_cut([&](int slices, int sliceK) {
      all.push_back({{GemmPath::Thin, 0, s, slices},
                     sliced_plan_clocks(g, M, N, K, e.bm, e.bn, g.thinBlocksPerSm, kThinFmaRate,
                                        slices, sliceK),
                     std::string("thin ") + thin_name(s) + " S=" + std::to_string(slices)});
    });
  }
  if (M == 1 || N == 1) {  // a block: 1 x 1,024 outputs (M = 1) or 8 x 1 (N = 1)
    const int bm = M == 1 ? 1 : kVectorThreads / 32, bn = M == 1 ? 4 * kVectorThreads : 1;
    each_cut([&](int slices, int sliceK) {
      all.push_back({{GemmPath::Vector, 0, ThinShape::ShortK, slices},
                     sliced_plan_clocks(g, M, N, K, bm, bn, g.vectorBlocksPerSm, kThinFmaRate,
                                        slices, sliceK),
                     "vector S=" + std::to_string(slices)});
    });
  }
  return all;
}

// What the chooser times: per path (each tile, stream-K, each thin tile) its cheapest cut and
// its uncut plan, so that one path's many slice counts cannot crowd the others out.
inline std::vector<Candidate> plan_shortlist_input(const PlanGpu& g, int M,
                                                                       int N, int K) {
  std::vector<Candidate> all = plan_candidates(g, M, N, K), kept;
  auto samePath = [](const GemmPlan& a, const GemmPlan& b) {
    return a.path == b.path && a.tile == b.tile && a.thin == b.thin;
  };
  for (const auto& c : all) {
    bool cheapest = true, keep = c.plan.slices == 1;
    for (const auto& o : all)
      if (samePath(o.plan, c.plan) && o.estimate < c.estimate) cheapest = false;
    if (cheapest || keep) kept.push_back(c);
  }
  return kept;
}

// Runs a plan.
inline void run_gemm_plan(const GemmPlan& p, const float* A, const float* B, float* C, int M,
                          int N, int K) {
  switch (p.path) {
    case GemmPath::StreamK:
      run_stream_k_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K);
      return;
    case GemmPath::Thin:
      run_thin_shape(p.thin, A, B, C, M, N, K, p.slices);
      return;
    case GemmPath::Vector:
      run_vector_gemm(A, B, C, M, N, K, p.slices);
      return;
    case GemmPath::Tiles:
      switch (p.tile) {
        case 0: run_sliced_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K, p.slices); return;
        case 1: run_sliced_gemm<64, 64, 16, 32, 32, 8, 4>(A, B, C, M, N, K, p.slices); return;
        case 2: run_sliced_gemm<32, 128, 16, 32, 32, 8, 4>(A, B, C, M, N, K, p.slices); return;
        case 3: run_sliced_gemm<128, 32, 16, 32, 32, 8, 4>(A, B, C, M, N, K, p.slices); return;
        case 4: run_sliced_gemm<64, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K, p.slices); return;
        default: run_sliced_gemm<128, 64, 16, 32, 64, 8, 8>(A, B, C, M, N, K, p.slices); return;
      }
  }
}

// The plan for this shape on this GPU, chosen once per shape (and operand widths) and device.
inline GemmPlan chosen_plan(const float* A, const float* B, float* C, int M, int N, int K) {
  static tutorial::Chooser<GemmPlan> chooser(kWindow, kShortlist);
  const tutorial::VecOperands v = tutorial::vec_operands(A, B, C, N, K);
  const std::string key = "planned_gemm " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                          std::to_string(K) + (v.a ? " a16" : " a4") + (v.bc ? " bc16" : " bc4");
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
