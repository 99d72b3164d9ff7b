// Chapter 05, step 9: planned_gemm, one plan for every shape.
//
// What changed since step 8: no new kernel, three more tiles for step 6's. Steps 6 and 7 chose
// between their own paths with rules drawn from a list of 24 shapes (split-K below one wave of
// 128 x 128 tiles, stream-K from K = 1536 on); step 8 added a kernel for the shapes whose time
// is memory. Here one model estimates, for every path the chapter has, how long the busiest SM
// works, in its clock cycles:
//   - tiles (step 6): 128 x 128, 64 x 64 or 32 x 128 tiles, and this step's 128 x 32 (step 6's
//     32 x 128 on its side, for a small N), 64 x 128 and 128 x 64 (the 128 x 128 tile halved, for
//     finer waves), K in 1 to 1,024 slices;
//   - stream-K (step 7): whole 128 x 128 tiles, the last partial wave shared by k-iterations,
//     at any K where the estimate says it pays (step 7: from K = 1536 on);
//   - thin (step 8): its five tiles where the thin side fits one tile, K in 1 to 1,024 slices.
// The estimate (tiles_clocks, stream_k_clocks, thin_clocks) is a roofline per path, wave by wave:
//     clocks = max(FMAs of the busiest SM / its FMA rate, bytes that must move / DRAM rate)
//              + per-block and per-launch costs
// with the GPU's own numbers (GpuModel: SMs, FP32 lanes, SM clock, DRAM bytes per SM clock
// from the memory clock and bus width) and a few efficiencies measured once on an H100 (NOTES.md,
// "Shapes nobody listed"). A model, not a table of shapes: a GPU with other counts gets other
// plans, though its efficiencies were fitted on one GPU and may be off on another.
// How the plan uses it (plan_gemm): an estimate fitted to measured shapes is still off by 10-30%
// at others, and where step 7's rules were right the plan lost to them (64^3, 1000^3 to 1536^3,
// 32 x 4096 x 4096). So step 7's choice is the incumbent, and the plan departs from it only
// where another path is estimated faster by more than the estimate's measured error for that
// kind of departure (departure_margin).
// The estimate knows the narrow paths (N or K not a multiple of 4): each tile's FMA rate with
// 4-byte loads and with 8-byte pairs, per operand, measured against aligned neighbour shapes
// (kScalarA, kScalarBC, kPairsA, kPairsBC).
// Where the estimate cannot tell its candidates apart, it does not choose alone: the launcher times
// a shortlist on a shape's first call and keeps the fastest (shortlist, fastest_of, below).
// What it still gets wrong: on six random draws nobody tuned on (H100, NOTES.md "Round ten") it
// made 103.9% to 109.5% of cuBLAS as geometric means, worst 83.8% to 91.0% (without the half tiles,
// same draws: 102.9% to 108.9%, worst 81.9% to 87.3%). The lowest shapes left are mid-size with N
// or K odd (2075 x 405 x 401: 81.2%), where no path forced in the lab did much better.
// The first call at a shape costs 0.03 s (64^3) to about 0.6 s (8192^3, 7 candidates) more, and
// where two plans time within noise, two processes may take different ones (launch_estimated_gemm:
// the same plan, so the same bits, in every process).
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <exception>
#include <functional>
#include <vector>

#include "05_double_buffer/7_stream_k.cuh"
#include "05_double_buffer/8_thin.cuh"
#include "common/device_info.hpp"
#include "common/launch_record.hpp"
#include "common/timing.hpp"

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

// The paths, and the numbers that were measured rather than derived (fitted to H100 runs,
// NOTES.md "Shapes nobody listed": 79 shapes with every path forced, the 24 of
// sweep_shapes.txt and 80 random shapes with two paths each).
enum class GemmPath { Tiles, StreamK, Thin };

struct GemmPlan {
  GemmPath path = GemmPath::Tiles;
  int tile = 0;                        // Tiles: index into kPlanTiles
  ThinShape thin = ThinShape::ShortK;  // Thin: the tile
  int slices = 1;                      // Tiles and Thin: S (1: straight to C)
  double clocks = 0;                   // the estimate: clocks of the busiest SM
};

// Step 6's tiles with measured rates: the 64 x 64 and 32 x 128 lanes' 8 x 4 outputs reach 0.84
// of the 128 x 128 tile's FMA rate on large problems; a 128 x 128 block's first loads cost
// about 24 k's worth of its FMAs (the 64 x 64 blocks, five to an SM, hide theirs behind each
// other's). The 128 x 32 tile reached 0.76 of the 128 x 128 tile's rate at the three large
// aligned shapes of its lab run (4092 x 4100 x 4096, 8192 x 1024 x 1024, 8192 x 256 x 2048;
// NOTES.md, "A tile for N just above a multiple"). Why it trails the 32 x 128 tile (0.80-0.83
// there) was not profiled; its 128-row A tile, stored transposed into shared memory, is our
// guess.
// The fourth is this step's own: step 6's 32 x 128 tile turned on its side, 128 x 32 (the same
// 4 warps of 32 x 32, stacked), for an N the wider tiles fill badly: N = 12 computes 64 columns
// with 64 x 64 tiles and 32 with 128 x 32; N = 135 256 with 128 x 128 tiles, 192 with 64 x 64,
// 160 with 128 x 32. The plan takes it at 69 of 600 random shapes (sweep.py's draws, seeds 1000
// to 1014), 55 of them with N <= 32, with a margin of its own where it saves columns
// (kMarginTallTile; NOTES.md). run_gemm_plan launches it with these numbers.
// The fifth and sixth are the 128 x 128 tile cut in half, 64 x 128 and 128 x 64: its 8 x 8 lanes
// (so the same FMAs per shared-memory load) in blocks of 4 warps, 4 blocks per SM, each block
// half as big. They fill the SMs where 128 x 128 tiles leave a partial wave or compute rows or
// columns of nothing: at 673 x 3002 x 2619, 264 tiles of 64 x 128 in 2 slices (528 blocks) fill
// one wave of 528 and compute 704 rows, where 128 x 128 tiles compute 768 in 2.7 waves (75.9% ->
// 89.8% of cuBLAS). Their rates against the 128 x 128 tile's, in one slice at 4096^3 and 2048^3:
// 0.97 and 0.95 (64 x 128), 0.95 and 0.93 (128 x 64); the plan takes the lower of each (H100,
// NOTES.md "Round ten"). They always run half-deep tiles (run_sliced_gemm), so their fixed
// costs are the half-deep ones (kHalfDeepOverheadK).
using TallTile = WarpLayout<128, 32, 32, 32, 8, 4>;
using HalfRowsTile = WarpLayout<64, 128, 32, 64, 8, 8>;
using HalfColumnsTile = WarpLayout<128, 64, 32, 64, 8, 8>;
constexpr int kPlanTileCount = 6;
constexpr int kTallTile = 3;         // TallTile's index in kPlanTiles
constexpr int kHalfRowsTile = 4;     // HalfRowsTile's
constexpr int kHalfColumnsTile = 5;  // HalfColumnsTile's
// Step 6's 128 x 128 tile with an operand 4 bytes wide runs half-deep tiles (BK = 8), and its
// fixed costs are smaller than the float4 tile's overheadK: in the lab it beat its own float4 run
// 1.4-1.75x at small grids. 6 k's, a quarter, chosen among 24, 12, 6 and 0 on the departures of
// two random draws (the lab's forced runs favoured 0, which gave back a measured gain of those
// draws; NOTES.md, "Each operand its own width"). Stream-K keeps BK = 16 there, and 24.
constexpr double kHalfDeepOverheadK = 6.0;
constexpr TileChoice kPlanTiles[kPlanTileCount] = {
    {128, 128, BigTile::THREADS / 32, BigTile::MIN_BLOCKS, 1.0, 24.0},
    {64, 64, SmallTile::THREADS / 32, SmallTile::MIN_BLOCKS, 0.84, 0.0},
    {32, 128, SkinnyTile::THREADS / 32, SkinnyTile::MIN_BLOCKS, 0.84, 0.0},
    {128, 32, TallTile::THREADS / 32, TallTile::MIN_BLOCKS, 0.76, 0.0},
    {64, 128, HalfRowsTile::THREADS / 32, HalfRowsTile::MIN_BLOCKS, 0.95, kHalfDeepOverheadK},
    {128, 64, HalfColumnsTile::THREADS / 32, HalfColumnsTile::MIN_BLOCKS, 0.93,
     kHalfDeepOverheadK}};
// Without float4 the tiles load one float at a time and reach a fraction of their FMA rate with
// float4 (kPairsA, kPairsBC below: two at a time). Each operand counts on its own (step 6: A is
// read 4 bytes at a time where K % 4 != 0,
// B where N % 4 != 0, and then C is stored by rows through shared memory), and where both are,
// the two fractions multiply. Measured on an H100 at 21 shapes whose N and K are multiples of 4
// against the same shapes with K + 1, N + 1 and both (NOTES.md, "Each operand its own width"):
// geometric means of the time ratios, each tile at the plan's slice count for it, at the shapes
// where the tile with float4 reached 85% of cuBLAS or more (7 for 128 x 128, 16 for the others).
// The products match the ratios measured with both 4 bytes wide (0.90, 0.87, 0.84) within
// 0.025. The 128 x 32 tile's pair was measured the same way in its own lab run (22 shapes where
// it reached 85%), and mirrors the 32 x 128 tile's: its big operand tile is A's (product 0.874,
// both measured 0.848).
// thin_gemm loads one float at a time either way.
// Measured again with round six's kernels (H100, 31 shapes): B and C's fractions 0.02-0.05 lower,
// the 128 x 32 tile's A 0.87. Those values, alone or with a first version of kMarginTallTile,
// moved nothing on three fresh random draws, so these stay (NOTES.md, "Round seven").
// The half tiles (8 x 8 lanes, half-deep either way) take the 128 x 128 tile's fractions, not
// measured on their own (one check: 64 x 128 at the plan's slices ran 673 x 3002 x 2619, both
// operands 4 bytes wide, at 89.8% of cuBLAS and 672 x 3000 x 2620 at 92.3%, a ratio of 0.97 where
// these fractions multiply to 0.92: for the half tiles they may be pessimistic).
constexpr double kScalarA[kPlanTileCount] = {0.97, 0.94, 0.95, 0.91, 0.97, 0.97};
constexpr double kScalarBC[kPlanTileCount] = {0.95, 0.92, 0.87, 0.96, 0.95, 0.95};
// The same fractions where the operand's rows start on 8 bytes and the 8 x 4-lane tiles load them
// in 8-byte pairs (N or K even; tutorial::load_4_floats): each of the above times the gain of pairs
// over 4-byte loads, measured in one lab run (an H200, 31 shapes, each with N and K + 1 and + 2;
// NOTES.md, "8-byte pairs"): A 1.019, 1.004, 1.052; B and C 1.036, 1.072, 1.008. The 128 x 128
// tile (8 x 8 lanes) keeps 4-byte loads, and its fractions.
constexpr double kPairsA[kPlanTileCount] = {kScalarA[0], 0.96, 0.95, 0.96, kScalarA[4],
                                            kScalarA[5]};
constexpr double kPairsBC[kPlanTileCount] = {kScalarBC[0], 0.95, 0.93, 0.97, kScalarBC[4],
                                             kScalarBC[5]};
constexpr double kPlanBlockClocks = 2100.0;   // a round of blocks' start, beyond overheadK
constexpr double kPlanBusyWarps = 14.0;       // warps per SM that hide the latencies
constexpr double kPlanLaunchClocks = 10000.0; // the sum's launch and the partials' round trip
// Fractions of the DRAM rate the tiles reach where their compulsory bytes bind (with enough bytes
// in flight; fewer, proportionally less: tiles_clocks), and thin_gemm streaming its big matrix;
// of the FMA rate thin_gemm reaches, per tile (its 16-wide tiles spend a shared-memory load on
// every 2 or 4 FMAs).
constexpr double kTileDramEfficiency = 0.6;
constexpr double kThinDramEfficiency = 0.75;
constexpr double kThinFmaEfficiency[5] = {0.5, 0.5, 0.35, 0.5, 0.25};  // ThinShape order
// The tiles store C after their FMAs, each thread 16 or 8 float4 (or 4-byte) stores at once:
// half of C's time at the DRAM rate is not hidden behind other blocks' FMAs.
constexpr double kTileStoreExposed = 0.5;
// Blocks per SM thin_gemm needs resident to keep enough loads in flight for the full DRAM
// rate (Little's law: ~23 KB per SM on an H100, ~32 KB per block), and each round's start.
constexpr double kThinBlocksForBandwidth = 2.0;
constexpr double kThinBlockClocks = 2000.0;
// Blocks of thin_gemm per SM in one round: its __launch_bounds__ asks for at least 2, and the
// times measured on the 512 x 16 tile jump past 2 per SM (applied to every thin tile). Slices that
// take the blocks past one round lost at 10 of 12 shapes with N <= 16, by 10-25% of cuBLAS's rate
// (10654 x 16 x 3727: 80% of cuBLAS at 12 slices, 252 blocks; 64% at 16, 336), where the estimate
// saw no cost beyond a block's start. The plan cuts K no further: where only this changed the plan
// on two fresh draws (9 shapes), 8 ran 2-17% faster and 13805 x 8 x 3332 20% slower (NOTES.md,
// "Round seven, final").
constexpr int kThinBlocksPerSm = 2;
// At most this many slices (either path), and no plan whose partial sums would need more than
// kMaxWorkspaceBytes of workspace.
constexpr int kMaxPlanSlices = 1024;
constexpr double kMaxWorkspaceBytes = double(1 << 28);

// Slice counts worth trying: every one up to step 6's 64 (where a slice more or less decides
// whether the blocks fill whole waves), then 96, 144, ... up to `most` (about 1.5x apart).
template <typename Try>
void for_each_slice_count(int K, int most, Try tryCut) {
  int last = 0;
  for (int wanted = 1; wanted <= most; wanted = wanted < kMaxSlices ? wanted + 1 : wanted * 3 / 2) {
    int slices = 1, sliceK = K;
    slice_k(K, wanted, slices, sliceK);
    if (slices != last) tryCut(slices, sliceK);
    last = slices;
  }
}

inline double compulsory_bytes(int M, int N, int K) {
  return 4.0 * (double(M) * K + double(K) * N + double(M) * N);
}

// Tile t of kPlanTiles as the plan sees it: its FMA rate with float4 (vec) or without.
inline TileChoice plan_tile(int t, tutorial::VecOperands vec) {
  TileChoice c = kPlanTiles[t];
  if (!vec.a) c.efficiency *= vec.pairsA ? kPairsA[t] : kScalarA[t];
  if (!vec.bc) c.efficiency *= vec.pairsB ? kPairsBC[t] : kScalarBC[t];
  return c;
}

// Tile t as step 6's sliced_gemm runs it.
inline TileChoice plan_sliced_tile(int t, tutorial::VecOperands vec) {
  TileChoice c = plan_tile(t, vec);
  if (t == 0 && !vec.both()) c.overheadK = kHalfDeepOverheadK;
  return c;
}

// How long a load waits on DRAM under load, in SM clocks (about 1 us on an H100): by Little's
// law the whole GPU needs DRAM bytes per clock x this many bytes in flight for the full rate.
constexpr double kDramLatencyClocks = 2000.0;

// The part of the tiles' stores of C that other blocks' FMAs do not hide.
inline double tile_store_clocks(int M, int N, const GpuModel& g) {
  return kTileStoreExposed * 4.0 * double(M) * N / g.dramBytesPerClock;
}

// The tiles path: step 6's estimate with the costs above, or the tiles' DRAM roof, plus their
// stores. The roof is lower while the resident blocks keep too few bytes in flight: each has one
// stage of its tiles loading, BK x (BM + BN) floats, fewer where M or N is smaller than the tile
// (the rows and columns past them are not loaded). Round four counted blocks against the tile's
// own slots instead: at 14321 x 81 x 169, 336 blocks of 128 x 32 counted 0.51 full and 448 of
// 64 x 64 0.68, though each 128 x 32 block loads 160 floats per k and a 64 x 64 one 128
// (NOTES.md, "A tile for N just above a multiple").
inline double tiles_clocks(int M, int N, int K, const GpuModel& g, const TileChoice& c,
                           int slices, int sliceK) {
  const SliceCosts costs = {kPlanBlockClocks, kPlanBusyWarps, g.dramBytesPerClock,
                            kPlanLaunchClocks};
  const double blocks =
      double(tutorial::ceil_div(M, c.bm)) * tutorial::ceil_div(N, c.bn) * slices;
  const double resident = std::min(blocks, double(g.sms) * c.blocks_per_sm);
  const double stage = kSliceAlign * 4.0 * (std::min(c.bn, N) + std::min(c.bm, M));
  const double fill = std::min(1.0, resident * stage / (g.dramBytesPerClock * kDramLatencyClocks));
  return std::max(sliced_clocks(M, N, g.sms, c, slices, sliceK, costs),
                  compulsory_bytes(M, N, K) / (g.dramBytesPerClock * kTileDramEfficiency * fill)) +
         tile_store_clocks(M, N, g);
}

// Stream-K with 128 x 128 tiles (plan_stream_k): the full waves of whole tiles, each tile
// K + overheadK long, then each stream-K block's share of the rest, plus a tile's overhead per
// segment it works on; then the split tiles' partial sums written, read back and added.
inline double stream_k_clocks(int M, int N, int K, const GpuModel& g, tutorial::VecOperands vec) {
  const TileChoice c = plan_tile(0, vec);
  const int slots = g.sms * c.blocks_per_sm;
  const StreamKPlan p = plan_stream_k(M, N, K, c.bm, c.bn, kSliceAlign, slots);
  // Clocks of one k-iteration (BK = 16 values of k) of one tile, the SM's blocks all busy.
  const double iteration = double(c.bm) * c.bn * kSliceAlign * c.blocks_per_sm /
                           (g.fmaPerClock * c.efficiency);
  const double overhead = c.overheadK / kSliceAlign;  // in iterations
  const double dpRounds = double(p.dpTiles) / slots;
  const double skIterations = std::ceil(double(p.skTiles) * p.kIters / slots);
  const double segments = std::min<double>(slots, double(p.skTiles) * p.kIters) + p.skTiles;
  const double partialBytes = 2.0 * segments * c.bm * c.bn * 4.0;
  const double work = dpRounds * (p.kIters + overhead) * iteration +
                      (skIterations + overhead * (1.0 + skIterations / p.kIters)) * iteration;
  return std::max(work, compulsory_bytes(M, N, K) / (g.dramBytesPerClock * kTileDramEfficiency)) +
         partialBytes / g.dramBytesPerClock + kPlanLaunchClocks + tile_store_clocks(M, N, g);
}

// thin_gemm with tile S and `slices` slices of sliceK: its FMAs on the busiest SM, or the bytes
// that must move at the DRAM rate (less while too few blocks keep loads in flight).
template <ThinShape S>
double thin_clocks(int M, int N, int K, const GpuModel& g, int slices, int sliceK) {
  using Layout = ThinLayoutOf<S>;
  const double tiles = double(thin_tiles<S>(M, N));
  const double blocks = tiles * slices;
  const double perSm = std::ceil(blocks / g.sms);  // blocks on the busiest SM
  const double fma = perSm * Layout::BM * Layout::BN * sliceK /
                     (g.fmaPerClock * kThinFmaEfficiency[int(S)]);
  double bytes = compulsory_bytes(M, N, K);
  if (slices > 1) bytes += 4.0 * 2.0 * slices * double(M) * N;  // partials written, read back
  const double fill = std::min(1.0, blocks / (g.sms * kThinBlocksForBandwidth));
  const double dram = bytes / (g.dramBytesPerClock * kThinDramEfficiency * fill);
  const double rounds = std::ceil(perSm / kThinBlocksForBandwidth);
  return std::max(fma, dram) + rounds * kThinBlockClocks + (slices > 1 ? kPlanLaunchClocks : 0.0);
}

// Every plan the chapter has for M x N x K on GPU g, with its estimate, one call of visit each:
// the six tiles and stream-K, then the thin tiles where the thin side fits one tile (K <= 64
// for the short-K tile; M or N <= 4 or <= 16: forced at a thin side of 17 to 64, the 16-wide
// tiles lost to step 7's choice at 11 of 13 shapes, NOTES.md). Plans whose partials would
// outgrow the workspace limit are left out.
template <typename Visit>
void for_each_plan(int M, int N, int K, const GpuModel& g, tutorial::VecOperands vec, Visit visit) {
  auto consider = [&](GemmPlan p) {
    if (p.slices > 1 && 4.0 * p.slices * double(M) * N > kMaxWorkspaceBytes) return;
    visit(p);
  };
  for (int t = 0; t < kPlanTileCount; ++t) {
    // The 128 x 32 tile only where M fills at least one of its blocks' 128 rows: below, every
    // block computes rows of nothing, and at 40 x 15808 x 2880 it measured 42% of cuBLAS against
    // 82% for 64 x 64 tiles (NOTES.md, "A tile for N just above a multiple").
    if (t == kTallTile && M < kPlanTiles[kTallTile].bm) continue;
    for_each_slice_count(K, kMaxPlanSlices, [&](int slices, int sliceK) {
      consider({GemmPath::Tiles, t, ThinShape::ShortK, slices,
                tiles_clocks(M, N, K, g, plan_sliced_tile(t, vec), slices, sliceK)});
    });
  }
  const long long tiles128 = (long long)tutorial::ceil_div(M, 128) * tutorial::ceil_div(N, 128);
  const long long slots = (long long)g.sms * BigTile::MIN_BLOCKS;
  if (tiles128 > slots && tiles128 % slots != 0)
    consider({GemmPath::StreamK, 0, ThinShape::ShortK, 1, stream_k_clocks(M, N, K, g, vec)});
  auto thin = [&](auto shape, bool fits) {
    constexpr ThinShape S = decltype(shape)::value;
    if (!fits) return;
    const double tiles = double(thin_tiles<S>(M, N));
    for_each_slice_count(K, kMaxPlanSlices, [&](int slices, int sliceK) {
      // Cut K only as far as the blocks fit one round of the SMs (kThinBlocksPerSm each); more
      // slices lost though estimated level (kThinBlocksPerSm above).
      if (slices > 1 && tiles * slices > double(g.sms) * kThinBlocksPerSm) return;
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
  thin(M16{}, M <= 16);
  thin(N4{}, N <= 4);
  thin(N16{}, N <= 16);
}

// The plan with the cheapest estimate among those `allowed` (ties: the earlier one), with no
// regard for step 7's choice: the lab forces one path with it (NOTES.md). clocks < 0: none.
template <typename Allowed>
GemmPlan cheapest_plan(int M, int N, int K, const GpuModel& g, tutorial::VecOperands vec,
                       Allowed allowed) {
  GemmPlan best;
  best.clocks = -1;
  for_each_plan(M, N, K, g, vec, [&](const GemmPlan& p) {
    if (allowed(p) && (best.clocks < 0 || p.clocks < best.clocks)) best = p;
  });
  return best;
}

// Step 7's choice for this shape (launch_stream_k_gemm: stream-K where stream_k_pays, else step
// 6's plan_any_shape), as a plan of this step, with this step's estimate of it.
inline GemmPlan step7_plan(int M, int N, int K, const GpuModel& g, tutorial::VecOperands vec) {
  if (stream_k_pays(M, N, K, g.sms))
    return {GemmPath::StreamK, 0, ThinShape::ShortK, 1, stream_k_clocks(M, N, K, g, vec)};
  const AnyShapePlan a = plan_any_shape(M, N, K, g.sms, kAnyShapeTiles);
  return {GemmPath::Tiles, a.tile, ThinShape::ShortK, a.slices,
          tiles_clocks(M, N, K, g, plan_sliced_tile(a.tile, vec), a.slices, a.sliceK)};
}

// How much faster than step 7's choice another plan must be estimated before plan_gemm takes
// it, as a fraction of its clocks, by kind of departure. Each is the estimate's error measured
// for that kind: wherever the H100 runs timed step 7's choice and a plan the estimate called
// faster at the same shape (165 such pairs at 263 shapes; NOTES.md, "The plan against step
// 7"), q = measured gain / estimated gain at the pairs' lower quartile, and the margin is
// 1/q - 1 rounded down to 5%: an estimated gain must outgrow the error of 3/4 of those pairs.
//   - fewer slices of step 7's tile (one launch and fewer partials less): q = 0.98, never below
//     0.93 (14 pairs): no margin;
//   - another tile or stream-K where step 7 runs whole 128 x 128 tiles or stream-K: 0.91 (42
//     pairs, 34 measured gains: the 128 x 128 tile's first loads and stores, which 64 x 64
//     blocks five to an SM hide behind each other, cost most where K is short);
//   - step 8's thin tiles: 0.89 (47 pairs, 40 gains; at short K 2-3x measured for 1.2-1.5x
//     estimated);
//   - another tile where step 7 cut K or took a smaller tile, step 6's model choosing among the
//     same tiles: 0.80 (43 pairs, 21 gains; 211 x 819 x 13043: 32 x 128 tiles, 1.04 estimated,
//     0.81 measured);
//   - more slices of step 7's tile: 0.67 (19 pairs, 9 gains; 32 x 4096 x 4096: 1.29 estimated,
//     0.87 measured).
constexpr double kMarginFewerSlices = 0.0;
constexpr double kMarginWholeTiles = 0.05;
constexpr double kMarginThin = 0.10;
constexpr double kMarginOtherTile = 0.20;
// The 128 x 32 tile where the 64-wide tiles compute kTallSavesColumns times its columns or more and
// a quarter of its 32 are real (N > 8): measured on round six's kernels, departures to it from a
// cut or smaller step-7 plan had q = 0.93 (38 pairs), so 5%. Chosen on lab shapes and one fresh
// draw, then measured on another (600 shapes with M 2,000-16,384 and N 5-160, the first 40 whose
// plan changed): where only this margin changed the plan, 7% faster as a geometric mean (30
// shapes), 3 of them more than 3% slower (NOTES.md, "Round seven, final").
constexpr double kMarginTallTile = 0.05;
constexpr double kTallSavesColumns = 1.1;
constexpr double kMarginMoreSlices = 0.45;

inline bool same_plan(const GemmPlan& a, const GemmPlan& b) {
  if (a.path != b.path) return false;
  if (a.path == GemmPath::StreamK) return true;
  if (a.path == GemmPath::Thin && a.thin != b.thin) return false;
  return a.tile == b.tile && a.slices == b.slices;
}

inline double departure_margin(const GemmPlan& p, const GemmPlan& step7, int N) {
  if (p.path == GemmPath::Thin) return kMarginThin;
  if (p.path == GemmPath::Tiles && step7.path == GemmPath::Tiles && p.tile == step7.tile)
    return p.slices < step7.slices ? kMarginFewerSlices : kMarginMoreSlices;
  const bool wholeTiles =
      step7.path == GemmPath::StreamK || (step7.tile == 0 && step7.slices == 1);
  if (wholeTiles) return kMarginWholeTiles;
  // (N > 8: a quarter of the tall tile's 32 columns real. In doubles: N may be near INT_MAX.)
  if (p.path == GemmPath::Tiles && p.tile == kTallTile && N > 8 &&
      64.0 * tutorial::ceil_div(N, 64) >= kTallSavesColumns * 32.0 * tutorial::ceil_div(N, 32))
    return kMarginTallTile;
  return kMarginOtherTile;
}

// The plan for M x N x K on GPU g: step 7's choice, unless another plan's estimate beats it by
// more than departure_margin (then the one that beats it by most, margins counted).
inline GemmPlan plan_gemm(int M, int N, int K, const GpuModel& g, tutorial::VecOperands vec) {
  const GemmPlan step7 = step7_plan(M, N, K, g, vec);
  GemmPlan best = step7;
  double bestCost = step7.clocks;
  for_each_plan(M, N, K, g, vec, [&](const GemmPlan& p) {
    if (same_plan(p, step7)) return;
    const double cost = p.clocks * (1.0 + departure_margin(p, step7, N));
    if (cost < bestCost) {
      best = p;
      bestCost = cost;
    }
  });
  return best;
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
    case GemmPath::Tiles:  // kPlanTiles: kAnyShapeTiles, measured, and this step's three
      if (p.tile == kTallTile)
        run_sliced_gemm<128, 32, 16, 32, 32, 8, 4>(A, B, C, M, N, K, p.slices);
      else if (p.tile == kHalfRowsTile)
        run_sliced_gemm<64, 128, 16, 32, 64, 8, 8>(A, B, C, M, N, K, p.slices);
      else if (p.tile == kHalfColumnsTile)
        run_sliced_gemm<128, 64, 16, 32, 64, 8, 8>(A, B, C, M, N, K, p.slices);
      else
        run_sliced_tile(p.tile, A, B, C, M, N, K, p.slices);
      return;
  }
}

// The estimate is off by 10-30% at shapes it was not fitted on, and the margins above only decide
// when to trust it: at 12 of the 13 worst shapes of earlier random draws (71-89% of cuBLAS), a
// plan the chapter already had ran 5-38% faster than the plan's choice (NOTES.md, "Round nine").
// So where the estimate cannot tell its candidates apart, the launcher times them: the shortlist
// is plan_gemm's choice, step 7's, and for each path (each tile, stream-K, each thin tile) the
// estimate's cheapest plan and the same plan with K uncut, wherever that path's cheapest is
// estimated within kShortlistWindow of the cheapest of all (628 x 3162 x 325: the 128 x 128 tile
// ran fastest, estimated 1.42x the 64 x 64 tile's clocks). cuBLASLt's heuristics hand back several
// algorithms for the same reason, and cuDNN's benchmark mode and Triton's autotuner time them.
constexpr double kShortlistWindow = 1.5;
constexpr int kThinShapeCount = int(ThinShape::SmallN16) + 1;         // the last of ThinShape
constexpr int kPathCount = kPlanTileCount + 1 + kThinShapeCount;  // tiles, stream-K, thin tiles

// At most two plans per path and the two incumbents, so nothing added is ever dropped.
struct Shortlist {
  static constexpr int kMax = 2 + 2 * kPathCount;
  GemmPlan plans[kMax];
  int count = 0;
  void add(const GemmPlan& p) {
    for (int i = 0; i < count; ++i)
      if (same_plan(plans[i], p)) return;
    assert(count < kMax);
    if (count < kMax) plans[count++] = p;
  }
};

inline int path_index(const GemmPlan& p) {
  if (p.path == GemmPath::Tiles) return p.tile;
  if (p.path == GemmPath::StreamK) return kPlanTileCount;
  return kPlanTileCount + 1 + int(p.thin);
}

// plan_gemm's choice first (ties keep it), then step 7's, then each path's cheapest and uncut.
inline Shortlist shortlist(int M, int N, int K, const GpuModel& g, tutorial::VecOperands vec) {
  Shortlist list;
  list.add(plan_gemm(M, N, K, g, vec));
  list.add(step7_plan(M, N, K, g, vec));
  GemmPlan cheapest[kPathCount], uncut[kPathCount];
  double least = -1;
  for (GemmPlan& p : cheapest) p.clocks = -1;
  for (GemmPlan& p : uncut) p.clocks = -1;
  for_each_plan(M, N, K, g, vec, [&](const GemmPlan& p) {
    const int i = path_index(p);
    if (cheapest[i].clocks < 0 || p.clocks < cheapest[i].clocks) cheapest[i] = p;
    if (p.slices == 1) uncut[i] = p;
    if (least < 0 || p.clocks < least) least = p.clocks;
  });
  for (int i = 0; i < kPathCount; ++i) {
    if (cheapest[i].clocks < 0 || cheapest[i].clocks > kShortlistWindow * least) continue;
    list.add(cheapest[i]);
    if (uncut[i].clocks >= 0) list.add(uncut[i]);
  }
  return list;
}

// The fastest of the timed candidates (medians), or the first (plan_gemm's choice) unless another
// beats it by more than kMarginMeasured: a few microseconds' runs time a few percent apart from one
// process to the next, and a switch within that buys nothing and makes the plan differ between
// processes.
constexpr double kMarginMeasured = 0.03;

inline int pick_fastest(const std::vector<double>& medians) {
  int best = 0;
  for (int i = 1; i < int(medians.size()); ++i)
    if (medians[i] < medians[best]) best = i;
  return medians[best] < (1.0 - kMarginMeasured) * medians[0] ? best : 0;
}

// Times the shortlist side by side, as the sweep times a kernel against cuBLAS (interleaved
// rounds, the L2 flushed before each run, medians), and returns pick_fastest's plan. Each
// candidate first runs once untimed (module load, the slices' workspace); one that cannot run
// here (its workspace does not fit in free memory, its block does not fit this GPU) is dropped,
// unless it is plan_gemm's choice. The slices' workspace stays at the largest candidate's size
// (at most kMaxWorkspaceBytes). These trial runs are not recorded as the launcher's launch
// (tutorial::LaunchesNotRecorded). Every candidate writes all of C.
inline GemmPlan fastest_of(const Shortlist& list, const float* A, const float* B, float* C, int M,
                           int N, int K) {
  if (list.count == 1) return list.plans[0];
  const tutorial::LaunchesNotRecorded trials;
  Shortlist runnable;
  for (int i = 0; i < list.count; ++i) {
    try {
      run_gemm_plan(list.plans[i], A, B, C, M, N, K);
    } catch (const std::exception&) {
      if (i == 0) throw;
      continue;
    }
    runnable.add(list.plans[i]);
  }
  if (runnable.count == 1) return runnable.plans[0];
  std::vector<std::function<void()>> runs;
  for (int i = 0; i < runnable.count; ++i)
    runs.push_back([&, i] { run_gemm_plan(runnable.plans[i], A, B, C, M, N, K); });
  tutorial::TimingOptions options;
  options.warmup = 0;        // (the runs above)
  options.warmup_ms = 50.0;  // rounds until the clocks are up (a first call may come right
                             // after the process starts, the GPU idle until then)
  options.repetitions = 3;   // more for short runs, up to 50 or about 5 ms of timed rounds
  options.timed_ms = 5.0;
  options.max_repetitions = 50;
  std::vector<double> medians;
  for (const tutorial::TimingStats& t : tutorial::time_gpu_interleaved(runs, options))
    medians.push_back(t.median_ms);
  return runnable.plans[pick_fastest(medians)];
}

// How launch_planned_gemm chooses: by the estimate alone (the same plan in every process, so the
// same bits in C), or by timing the shortlist on the shape's first call (faster, but where two
// candidates time within noise, two processes may take different plans and C may differ in its
// last bits). The CPU backend's default is the estimate: there the times are the CPU's. A shape's
// first measured call synchronizes the device to read its timers, so it cannot be captured into a
// CUDA graph; launch_estimated_gemm can.
enum class PlanChoice { Estimate, Measured };
#ifdef TUTORIAL_CPU_BACKEND
constexpr PlanChoice kDefaultPlanChoice = PlanChoice::Estimate;
#else
constexpr PlanChoice kDefaultPlanChoice = PlanChoice::Measured;
#endif

// The plans of the last 64 shapes, per device and way of choosing: the estimate weighs a few
// hundred candidates (microseconds of host time), the measurement times several launches, and a
// program calling the same shape again should pay neither twice, nor see its plan change (unless
// 64 other shapes came in between). (One host thread, as everywhere in this tutorial.)
inline GemmPlan cached_plan(int M, int N, int K, tutorial::VecOperands vec, PlanChoice choice,
                            const float* A, const float* B, float* C) {
  struct Entry {
    int M = 0, N = 0, K = 0, device = -1;
    tutorial::VecOperands vec;
    PlanChoice choice = PlanChoice::Estimate;
    GemmPlan plan;
  };
  constexpr int kEntries = 64;
  static Entry entries[kEntries];
  static int next = 0;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  for (const Entry& e : entries)
    if (e.M == M && e.N == N && e.K == K && e.device == device && e.vec == vec &&
        e.choice == choice)
      return e.plan;
  const GpuModel& g = current_gpu_model();
  const GemmPlan plan = choice == PlanChoice::Estimate
                            ? plan_gemm(M, N, K, g, vec)
                            : fastest_of(shortlist(M, N, K, g, vec), A, B, C, M, N, K);
  entries[next] = {M, N, K, device, vec, choice, plan};
  next = (next + 1) % kEntries;
  return plan;
}

inline void launch_chosen_gemm(PlanChoice choice, const float* A, const float* B, float* C, int M,
                               int N, int K) {
  tutorial::check_gemm_shape("planned_gemm", M, N, K);
  // As the kernels decide, but for one case: with C alone off 16 bytes, a plan with slices stores
  // float4 partials and reads B 16 bytes wide, while the estimate charged B and C's narrow cost.
  const tutorial::VecOperands vec = tutorial::vec_operands(A, B, C, N, K);
  run_gemm_plan(cached_plan(M, N, K, vec, choice, A, B, C), A, B, C, M, N, K);
}

// The chapter's final GEMM: the plan for this shape on this GPU, measured among the shortlist on
// a GPU (kDefaultPlanChoice).
inline void launch_planned_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  launch_chosen_gemm(kDefaultPlanChoice, A, B, C, M, N, K);
}

// The same by the estimate alone, and by measurement on any backend (the tests of each way).
inline void launch_estimated_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  launch_chosen_gemm(PlanChoice::Estimate, A, B, C, M, N, K);
}
inline void launch_measured_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  launch_chosen_gemm(PlanChoice::Measured, A, B, C, M, N, K);
}

}  // namespace ch05
