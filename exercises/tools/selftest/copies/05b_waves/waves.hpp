// A copy of the repository's own code for exercise 05b (selftest/copies.py): chapter 05's
// slice_k and plan_any_shape (05_double_buffer/6_any_shape.cuh) and the wave arithmetic the
// checker used (exercises/support/host_references.cpp), re-typed under the exercise's names;
// best_slices, which no public function computes, as the stub has it. It must score no more
// than the stub.
#pragma once

#include <algorithm>

#include "exercises/support/exercise.hpp"

namespace ex05b {

// ---- Waves ------------------------------------------------------------------------------

// The blocks of a grid that covers C (M x N) with BM x BN tiles, once for each of `slices`
// slices of K (the last tile of a row or column may stick out past C).
inline long long grid_blocks(int M, int N, int BM, int BN, int slices) {
  const long long rows = (M + BM - 1) / BM, cols = (N + BN - 1) / BN;
  return rows * cols * slices;
}

// The blocks that run at once, one wave, on `sms` SMs that each hold `blocks_per_sm` of them.
inline long long wave_slots(int sms, int blocks_per_sm) {
  return (long long)sms * blocks_per_sm;
}

// The lesson's count of waves, not rounded: 576 tiles on 264 slots are 2.18 waves.
inline double waves(long long blocks, long long slots) {
  return double(blocks) / double(slots);
}

// The waves of time the grid takes: a last wave that is partly filled still takes a wave.
inline long long waves_of_time(long long blocks, long long slots) {
  return (blocks + slots - 1) / slots;
}

// The share of the last wave's slots that hold a block, in (0, 1]: 1 when every wave is full.
inline double last_wave_fill(long long blocks, long long slots) {
  const long long last = blocks - (waves_of_time(blocks, slots) - 1) * slots;
  return double(last) / double(slots);
}

// ---- Split-K: the cut ---------------------------------------------------------------------

// Every slice of K is a multiple of kSliceAlign long (the BK of every tile: each slice then
// starts on a 16-byte boundary of A's rows), and no slice is empty.
constexpr int kSliceAlign = 16;

struct Cut {
  int slices;  // S, the slices actually made
  int sliceK;  // the k's of each slice (the last may be shorter); K itself when S == 1
};

// Cut K into about `wanted` slices as the chapter's slice_k does: for wanted <= 1 one slice
// of all of K; otherwise slices as equal as the alignment allows, none empty, so that S can
// come out smaller than wanted (K = 100 in 8 wanted: 7 slices of 16, the last of 4).
inline Cut slice_k(int K, int wanted) {
  if (wanted <= 1) return {1, K};
  const int per = (K + wanted - 1) / wanted;
  const int sliceK = (per + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  const int slices = (K + sliceK - 1) / sliceK;
  return {slices, slices == 1 ? K : sliceK};
}

// The simplest model of what a cut buys: a grid of tiles * S blocks on `slots` slots takes
// waves_of_time(tiles * S, slots) waves, each as long as one slice's k's, so its time is
// waves_of_time(...) * sliceK (in k steps; the partial sums' price left out). The cut of
// slice_k(K, wanted), wanted = 1 .. 64, that takes the least time by this model; among equal
// times the one with the fewest slices. (The chapter's plan weighs more: see plan below.)
inline Cut best_slices(long long tiles, int K, long long slots) {
  return exercise::todo<Cut>("05b_waves: best_slices", tiles, K, slots);
}

// ---- Split-K: the price -------------------------------------------------------------------

// The DRAM bytes the chapter's estimate charges a cut of K into `slices` slices: the partial
// products sliced_gemm stores, sum_slices reading them back, and sum_slices storing C. A
// single slice is stored straight to C and costs nothing extra (0).
inline double partial_sum_bytes(int M, int N, int slices) {
  if (slices <= 1) return 0.0;
  return (2.0 * slices + 1.0) * M * N * 4.0;
}

// ---- The plan -----------------------------------------------------------------------------

// The chapter's three tiles (kAnyShapeTiles): the block tile, its warps, the blocks per SM
// its __launch_bounds__ asks for, and the share of the SM's FMA rate a full wave of them
// gets (1.0 for 128 x 128; 0.7, a guess the sweep checks, for the 8 x 4 lane tiles).
struct Tile {
  int bm, bn, warps, blocks_per_sm;
  double efficiency;
};
constexpr Tile kTiles[3] = {{128, 128, 8, 2, 1.0}, {64, 64, 4, 5, 0.7}, {32, 128, 4, 5, 0.7}};

// The estimate's constants (rough H100 figures; only their ratios matter), as the chapter has them.
constexpr int kMaxSlices = 64;             // cuts tried: wanted = 1 .. kMaxSlices
constexpr double kBlockClocks = 3000.0;    // a round of blocks' first loads and stores
constexpr double kBusyWarps = 16.0;        // warps an SM needs to hide latency
constexpr double kFmaPerClock = 128.0;     // an SM's FP32 FMAs per clock
constexpr double kBytesPerClock = 1500.0;  // DRAM bytes the GPU moves per SM clock
constexpr double kLaunchClocks = 6000.0;   // the second launch (sum_slices)

struct Plan {
  int tile;           // index into kTiles
  int slices;         // S
  int sliceK;         // as slice_k cut it
  long long blocks;   // of the grid: tiles x S
  double waves;       // blocks / slots of that tile, not rounded
};

// The tile and the cut the chapter's plan_any_shape picks for C (M x N) = A (M x K) B (K x N)
// on `sms` SMs. With at least one full wave of 128 x 128 tiles it keeps that tile and one
// slice. Otherwise it estimates, for every tile of kTiles and every cut slice_k makes for
// wanted = 1 .. kMaxSlices, the SM clocks of the busiest SM, and takes the cheapest; ties go
// to the earlier tile, then to fewer slices. The estimate is written out in
// 05_double_buffer/6_any_shape.cuh ("Choosing the cut: waves"): the blocks on the busiest SM,
// the rounds in which it fills up and drains, the FMA rate the warps it holds can keep up,
// and for S > 1 the partial sums' bytes and the second launch.
inline Plan plan(int M, int N, int K, int sms) {
  const Tile& big = kTiles[0];
  const long long bigTiles = grid_blocks(M, N, big.bm, big.bn, 1);
  const long long bigSlots = wave_slots(sms, big.blocks_per_sm);
  if (bigTiles >= bigSlots) return {0, 1, K, bigTiles, waves(bigTiles, bigSlots)};
  Plan best{0, 0, 0, 0, 0.0};
  double bestClocks = 0.0;
  for (int t = 0; t < 3; ++t) {
    const Tile& c = kTiles[t];
    for (int wanted = 1; wanted <= kMaxSlices; ++wanted) {
      const Cut cut = slice_k(K, wanted);
      const long long blocks = grid_blocks(M, N, c.bm, c.bn, cut.slices);
      const long long load = (blocks + sms - 1) / sms;  // blocks on the busiest SM
      const long long rounds = (load + c.blocks_per_sm - 1) / c.blocks_per_sm;
      const double warps = double(std::min<long long>(load, c.blocks_per_sm)) * c.warps;
      const double rate = c.efficiency * std::min(1.0, warps / kBusyWarps);
      double clocks = double(rounds) * kBlockClocks +
                      double(load) * c.bm * c.bn * cut.sliceK / (kFmaPerClock * rate);
      if (cut.slices > 1)
        clocks += partial_sum_bytes(M, N, cut.slices) / kBytesPerClock + kLaunchClocks;
      if (best.blocks == 0 || clocks < bestClocks) {
        bestClocks = clocks;
        best = {t, cut.slices, cut.sliceK, blocks, waves(blocks, wave_slots(sms, c.blocks_per_sm))};
      }
    }
  }
  return best;
}

}  // namespace ex05b
