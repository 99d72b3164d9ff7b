// Chapter 05, step 9: planned_gemm, one plan for every shape.
//
// What changed since step 8: nothing in the kernels. Steps 6 and 7 chose between their own
// paths with rules drawn from a list of 24 shapes (split-K below one wave of 128 x 128 tiles,
// stream-K from K = 1536 on); step 8 added a kernel for the shapes whose time is memory. Here
// one model estimates, for every path the chapter has, how long the busiest SM works, in its
// clock cycles, and the launcher runs the cheapest:
//   - tiles (step 6): 128 x 128, 64 x 64 or 32 x 128 tiles, K in 1 to 64 slices;
//   - stream-K (step 7): whole 128 x 128 tiles, the last partial wave shared by k-iterations,
//     at any K where the estimate says it pays (a wave that is 2% full after one full one,
//     6899 x 528 x 195: 270 tiles for 264 slots, costs as much as the full one);
//   - thin (step 8): its five tiles, K in 1 to 1024 slices.
// The estimate (plan_gemm) is a roofline per path, wave by wave:
//     clocks = max(FMAs of the busiest SM / its FMA rate, bytes that must move / DRAM rate)
//              + per-block and per-launch costs
// with the GPU's own numbers (GpuModel: SMs, FP32 lanes, SM clock, DRAM bytes per SM clock
// from the memory clock and bus width) and a few efficiencies measured once (README, "Shapes
// nobody listed"). A model, not a table of shapes: a GPU with other counts gets other plans.
#pragma once

#include <algorithm>
#include <cmath>

#include "05_double_buffer/7_stream_k.cuh"
#include "05_double_buffer/8_thin.cuh"
#include "common/device_info.hpp"

namespace ch05 {

// What the plan needs to know of a GPU.
struct GpuModel {
  int sms = 0;                     // streaming multiprocessors
  double fmaPerClock = 0;          // FP32 FMA lanes per SM
  double dramBytesPerClock = 0;    // DRAM bytes the whole GPU moves per SM clock
};

// A copy reaches about 90% of the theoretical DRAM bandwidth (H100: 3.0 of 3.35 TB/s).
constexpr double kDramEfficiency = 0.9;

inline GpuModel gpu_model_of(const tutorial::DeviceInfo& d) {
  GpuModel g;
  g.sms = d.sm_count;
  g.fmaPerClock = tutorial::fp32_lanes_per_sm(d.compute_major, d.compute_minor);
  g.dramBytesPerClock =
      d.theoretical_bandwidth_gbs() * 1e9 * kDramEfficiency / (double(d.sm_clock_khz) * 1e3);
  return g;
}

// This GPU's model, read once per device.
inline const GpuModel& current_gpu_model() {
  constexpr int kDevices = 64;
  static GpuModel models[kDevices];
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  GpuModel& g = models[device % kDevices];
  if (g.sms == 0) g = gpu_model_of(tutorial::query_device(device));
  return g;
}

// The paths, and the numbers that were measured rather than derived (README, "Shapes nobody
// listed": each one's fit on H100 runs of random shapes).
enum class GemmPath { Tiles, StreamK, Thin };

struct GemmPlan {
  GemmPath path = GemmPath::Tiles;
  int tile = 0;                        // Tiles: index into kAnyShapeTiles
  ThinShape thin = ThinShape::ShortK;  // Thin: the tile
  int slices = 1;                      // Tiles and Thin: S (1: straight to C)
  double clocks = 0;                   // the estimate: clocks of the busiest SM
};

// Fractions of an SM's FMA rate each kernel reaches with its SM full (the 128 x 128 tile: 1.0,
// the others relative to it; step 6's TileChoice holds the tiles'), and of the DRAM rate.
constexpr double kThinFmaEfficiency = 0.5;   // 8 FMAs per shared-memory load at best
constexpr double kTileDramEfficiency = 0.6;  // tiles reading or writing at their DRAM roof
constexpr double kThinDramEfficiency = 0.9;  // thin_gemm streaming its big matrix
// Blocks per SM thin_gemm needs resident to keep enough loads in flight for the full DRAM
// rate (Little's law: ~23 KB per SM on an H100, ~32 KB per block).
constexpr double kThinBlocksForBandwidth = 2.0;
constexpr double kThinBlockClocks = 2000.0;  // a thin block's first loads and its stores
constexpr int kMaxThinSlices = 1024;
// No plan whose slices' partial sums would need more than this much workspace.
constexpr double kMaxWorkspaceBytes = double(1 << 28);
// A stream-K launch: the stream-K blocks' partial tiles are written and read back, and each
// segment of a tile costs a block a prologue.
constexpr double kStreamKSegmentClocks = 3000.0;

// Slice counts worth trying: 1, 2, 3, 4, 6, 8, 12, 16, ... up to `most` (about 1.4x apart).
template <typename Try>
void for_each_slice_count(int K, int most, Try tryCut) {
  int last = 0;
  for (int wanted = 1; wanted <= most; wanted = wanted < 4 ? wanted + 1 : wanted * 3 / 2) {
    int slices = 1, sliceK = K;
    slice_k(K, wanted, slices, sliceK);
    if (slices != last) tryCut(slices, sliceK);
    last = slices;
  }
}

// The tiles path (step 6's estimate with this GPU's DRAM rate), plus the bytes that must move.
inline double tiles_clocks(int M, int N, int K, const GpuModel& g, const TileChoice& c,
                           int slices, int sliceK) {
  const double compulsory = 4.0 * (double(M) * K + double(K) * N + double(M) * N);
  const double bytesPerClock = g.dramBytesPerClock;
  return std::max(sliced_clocks(M, N, g.sms, c, slices, sliceK, bytesPerClock),
                  compulsory / (bytesPerClock * kTileDramEfficiency));
}

// Stream-K with 128 x 128 tiles (plan_stream_k): whole tiles in full waves, then the stream-K
// blocks' share of the rest; the split tiles' partial sums written, read back and added.
inline double stream_k_clocks(int M, int N, int K, const GpuModel& g) {
  const TileChoice& c = kAnyShapeTiles[0];
  const int slots = g.sms * c.blocks_per_sm;
  const StreamKPlan p = plan_stream_k(M, N, K, c.bm, c.bn, kSliceAlign, slots);
  // Clocks per k-iteration (BK = 16 values of k) of one tile, with the SM's blocks all busy.
  const double iteration = double(c.bm) * c.bn * kSliceAlign * c.blocks_per_sm /
                           (g.fmaPerClock * c.efficiency);
  const double dpRounds = double(p.dpTiles) / slots;
  const double skIterations = std::ceil(double(p.skTiles) * p.kIters / slots);
  const double segments = std::min<double>(slots, double(p.skTiles) * p.kIters) + p.skTiles;
  const double partialBytes = 2.0 * segments * c.bm * c.bn * 4.0;
  const double compulsory = 4.0 * (double(M) * K + double(K) * N + double(M) * N);
  const double work = dpRounds * (p.kIters * iteration + kBlockClocks) +
                      skIterations * iteration + kStreamKSegmentClocks * (1 + skIterations / p.kIters);
  return std::max(work, compulsory / (g.dramBytesPerClock * kTileDramEfficiency)) +
         partialBytes / g.dramBytesPerClock + kLaunchClocks;
}

// thin_gemm with tile S and `slices` slices of sliceK.
template <ThinShape S>
double thin_clocks(int M, int N, int K, const GpuModel& g, int slices, int sliceK) {
  using Layout = ThinLayoutOf<S>;
  const double tiles = double(tutorial::ceil_div(M, Layout::BM)) * tutorial::ceil_div(N, Layout::BN);
  const double blocks = tiles * slices;
  const double perSm = std::ceil(blocks / g.sms);  // blocks on the busiest SM
  const double fma = perSm * Layout::BM * Layout::BN * sliceK / (g.fmaPerClock * kThinFmaEfficiency);
  double bytes = 4.0 * (double(M) * K + double(K) * N + double(M) * N);
  if (slices > 1) bytes += 4.0 * 2.0 * slices * double(M) * N;  // partials written, read back
  const double fill = std::min(1.0, blocks / (g.sms * kThinBlocksForBandwidth));
  const double dram = bytes / (g.dramBytesPerClock * kThinDramEfficiency * fill);
  const double rounds = std::ceil(perSm / kThinBlocksForBandwidth);
  return std::max(fma, dram) + rounds * kThinBlockClocks + (slices > 1 ? kLaunchClocks : 0.0);
}

// The cheapest path for M x N x K on GPU g (ties: the earlier candidate) among those `allowed`
// (all of them by default; the comparisons in NOTES.md force one path). clocks < 0: none.
template <typename Allowed>
GemmPlan plan_gemm(int M, int N, int K, const GpuModel& g, Allowed allowed) {
  GemmPlan best;
  best.clocks = -1;
  auto consider = [&](GemmPlan p) {
    if (p.slices > 1 && 4.0 * p.slices * double(M) * N > kMaxWorkspaceBytes) return;
    if (!allowed(p)) return;
    if (best.clocks < 0 || p.clocks < best.clocks) best = p;
  };
  for (int t = 0; t < 3; ++t) {
    const TileChoice& c = kAnyShapeTiles[t];
    for_each_slice_count(K, kMaxSlices, [&](int slices, int sliceK) {
      consider({GemmPath::Tiles, t, ThinShape::ShortK, slices,
                tiles_clocks(M, N, K, g, c, slices, sliceK)});
    });
  }
  const long long tiles128 = (long long)tutorial::ceil_div(M, 128) * tutorial::ceil_div(N, 128);
  const long long slots = (long long)g.sms * BigTile::MIN_BLOCKS;
  if (tiles128 > slots && tiles128 % slots != 0)
    consider({GemmPath::StreamK, 0, ThinShape::ShortK, 1, stream_k_clocks(M, N, K, g)});
  // The thin tiles where most of their FMAs land inside C.
  auto thin = [&](auto shape, bool fits) {
    constexpr ThinShape S = decltype(shape)::value;
    if (!fits) return;
    for_each_slice_count(K, kMaxThinSlices, [&](int slices, int sliceK) {
      consider({GemmPath::Thin, 0, S, slices, thin_clocks<S>(M, N, K, g, slices, sliceK)});
    });
  };
  using Short = std::integral_constant<ThinShape, ThinShape::ShortK>;
  using M4 = std::integral_constant<ThinShape, ThinShape::SmallM4>;
  using M16 = std::integral_constant<ThinShape, ThinShape::SmallM16>;
  using N4 = std::integral_constant<ThinShape, ThinShape::SmallN4>;
  using N16 = std::integral_constant<ThinShape, ThinShape::SmallN16>;
  thin(Short{}, K <= 64);
  thin(M4{}, M <= 4);
  thin(M16{}, M <= 64);
  thin(N4{}, N <= 4);
  thin(N16{}, N <= 64);
  return best;
}

inline GemmPlan plan_gemm(int M, int N, int K, const GpuModel& g) {
  return plan_gemm(M, N, K, g, [](const GemmPlan&) { return true; });
}

// Runs a plan.
inline void run_gemm_plan(const GemmPlan& p, const float* A, const float* B, float* C, int M,
                          int N, int K) {
  switch (p.path) {
    case GemmPath::StreamK:
      run_stream_k_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K);
      return;
    case GemmPath::Thin:
      switch (p.thin) {
        case ThinShape::ShortK: run_thin_gemm<ThinShape::ShortK>(A, B, C, M, N, K, p.slices); return;
        case ThinShape::SmallM4: run_thin_gemm<ThinShape::SmallM4>(A, B, C, M, N, K, p.slices); return;
        case ThinShape::SmallM16: run_thin_gemm<ThinShape::SmallM16>(A, B, C, M, N, K, p.slices); return;
        case ThinShape::SmallN4: run_thin_gemm<ThinShape::SmallN4>(A, B, C, M, N, K, p.slices); return;
        case ThinShape::SmallN16: run_thin_gemm<ThinShape::SmallN16>(A, B, C, M, N, K, p.slices); return;
      }
      return;
    case GemmPath::Tiles:
      if (p.tile == 0)
        run_sliced_gemm<128, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K, p.slices);
      else if (p.tile == 1)
        run_sliced_gemm<64, 64, 16, 32, 32, 8, 4>(A, B, C, M, N, K, p.slices);
      else
        run_sliced_gemm<32, 128, 16, 32, 32, 8, 4>(A, B, C, M, N, K, p.slices);
      return;
  }
}

// The chapter's final GEMM: the plan for this shape on this GPU.
inline void launch_planned_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("planned_gemm", M, N, K);
  run_gemm_plan(plan_gemm(M, N, K, current_gpu_model()), A, B, C, M, N, K);
}

}  // namespace ch05
