// Chapter 06, step 7: dispatch_transpose, the chapter's final launcher: for each shape, the
// kernel that runs fastest on the GPU in hand.
//
// What changed since step 6: no new kernel. Each kernel of steps 3-6 wins on its own kind of
// shape and refuses or loses on others, and which one wins where depends on the GPU: its
// bandwidth, its SMs, how its DRAM takes scattered reads and writes. So instead of rules drawn
// from one GPU's measurements, the launcher lists the kernels that can run a shape, ranks them
// with an estimate a student can derive (below), and times the closest on the shape's first
// call (tutorial::Chooser, common/chooser.hpp); later calls run the winner at once.
//   - a single row or column is copied (copy_vec4, where both pointers allow float4): its
//     transpose is the same floats;
//   - thin matrices: transpose_thin in three sizes, transpose_thin_cut in two (tall ones),
//     transpose_thin_bulk in two (wide ones), and transpose_thin_regs, holding 1, 2, 4 or 8
//     rows or columns a thread, where a row or column fits in registers (step 6);
//   - float4 shapes: transpose_vec4 in both block orders (step 4);
//   - every shape: the sector-aligned tile in both orders (step 5) and the padded tile (step 3);
//   - small matrices, whose grid is fewer blocks than the GPU holds at once: the cut and bulk
//     chunks filled, 32 x 32 float4 tiles and 64-row sector-aligned tiles (small_matrices.md).
// The estimate: a transpose moves 2 x rows x cols x 4 bytes, which take bytes / DRAM rate at
// best; and a block must wait one DRAM round trip for its loads before it stores anything, so
// a grid of `waves` full rounds of the GPU's resident blocks takes at least waves round trips.
// That is enough to drop a 64 x 64 tile on a matrix of 3 rows (a thousand waves of mostly
// empty tiles); among the kernels that move the bytes in a wave or a few, the timing decides.
// With TUTORIAL_CHOOSE=estimate, and on the CPU backend, the estimate alone decides (ties: the
// order of the list below).
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "06_transpose/3_padded.cuh"
#include "06_transpose/4_vec4.cuh"
#include "06_transpose/5_sector_aligned.cuh"
#include "06_transpose/6_thin.cuh"
#include "06_transpose/copy.cuh"  // launch_copy, for a single row or column
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/chooser.hpp"
#include "common/device_facts.hpp"
#include "common/launch.cuh"
#include "common/transpose.hpp"

namespace ch06 {

// kRoundTripSeconds (6_thin.cuh): a block's loads arrive about one DRAM round trip after they
// issue.
// Candidates timed: those estimated within kWindow of the cheapest, at most kShortlist. The
// estimate ties every kernel that moves the bytes in a wave or two (the window keeps them) and
// puts one that needs many waves of near-empty blocks far behind (the window drops it); each
// candidate timed costs a few rounds of the shape's first call. At most 20, every candidate a
// shape can have: a small matrix of 16 rows or columns or fewer, float4-aligned, has 4 kernels in
// registers, 3 in chunks, 2 cut or bulk and 2 of them filled, and 9 tiles, which the estimate can
// all tie (a wave or less each); such shapes take microseconds a call, so timing all costs little.
constexpr double kWindow = 1.6;
constexpr int kShortlist = 20;

// One candidate: a launcher, and what the estimate needs of it.
struct TransposePlan {
  tutorial::TransposeLauncher launch = nullptr;
  bool operator==(const TransposePlan& o) const { return launch == o.launch; }
};
using TransposeCandidate = tutorial::Candidate<TransposePlan>;

// The estimate of one kernel: bytes at the DRAM rate, or waves of round trips.
inline double transpose_estimate(int rows, int cols, long long blocks, long long resident) {
  // BEGIN QUOTE estimate
  const tutorial::DeviceInfo& d = tutorial::current_device_info();
  const double bytes = tutorial::transpose_bytes(rows, cols);
  const double waves = std::ceil(double(blocks) / double(std::max(1LL, resident)));
  return std::max(bytes / (d.theoretical_bandwidth_gbs() * 1e9), waves * kRoundTripSeconds);
  // END QUOTE estimate
}

// Every kernel of the chapter that can run this shape with these pointers, with its estimate.
inline std::vector<TransposeCandidate> transpose_candidates(const float* in, const float* out,
                                                            int rows, int cols) {
  using tutorial::ceil_div;
  using tutorial::resident_blocks;
  std::vector<TransposeCandidate> all;
  auto add = [&](tutorial::TransposeLauncher launch, const char* name, long long blocks,
                 long long resident) {
    all.push_back({{launch}, transpose_estimate(rows, cols, blocks, resident), name});
  };
  const bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if ((rows == 1 || cols == 1) && aligned) {  // the same floats in the same order
    add(launch_copy, "copy", 1, 1);
    return all;
  }
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  // transpose_thin_regs holding 1, 2, 4 or 8 rows (or columns) a thread: the estimate sees the
  // waves shrink as each thread holds more; those that move the bytes in a wave or two tie.
  auto thin_regs = [&](auto items, tutorial::TransposeLauncher launch, const char* name) {
    constexpr int ITEMS = decltype(items)::value;
    add(launch, name, ceil_div(along, ITEMS * kThinRegsThreads),
        resident_blocks(thin_regs_kernel<ITEMS>(thin), kThinRegsThreads, 0, 8));
  };
  if (thin <= kThinRegs) {
    using std::integral_constant;
    thin_regs(integral_constant<int, 1>{}, launch_thin_regs_items<1>, "thin in registers x1");
    thin_regs(integral_constant<int, 2>{}, launch_thin_regs_items<2>, "thin in registers x2");
    thin_regs(integral_constant<int, 4>{}, launch_thin_regs_items<4>, "thin in registers x4");
    thin_regs(integral_constant<int, 8>{}, launch_thin_regs_items<8>, "thin in registers x8");
  }
  // transpose_thin: chunks of span_max rows or columns, span_max = CHUNK / thin side (step 6).
  auto thin_chunks = [&](auto kernel, int threads, int chunk, const char* name,
                         tutorial::TransposeLauncher launch) {
    if (32 * (thin | 1) > chunk) return;
    const int span = thin_span(chunk, thin);
    const size_t smem = size_t(span) * (thin | 1) * sizeof(float);
    add(launch, name, ceil_div(along, span), resident_blocks(kernel, threads, smem));
  };
  thin_chunks(transpose_thin<256>, 256, 8192, "thin 256/8192", launch_thin_sized<256, 8192>);
  thin_chunks(transpose_thin<256, 8>, 256, 6144, "thin 256/6144 x8",
              launch_thin_sized<256, 6144, 8>);
  thin_chunks(transpose_thin<512, 4>, 512, 12288, "thin 512/12288 x4",
              launch_thin_sized<512, 12288, 4>);
  // transpose_thin_cut (tall only; 8 more rows a chunk) and transpose_thin_bulk (wide only), each
  // also filled where its own grid is fewer blocks than the GPU holds at once and filled_span
  // gives it more blocks.
  const bool cut = cols < rows;
  // BEGIN QUOTE filled-chunks
  auto chunks = [&](auto kernel, int threads, int chunk, const char* name,
                    tutorial::TransposeLauncher launch, const char* filledName,
                    tutorial::TransposeLauncher filled) {
    if (32 * (thin | 1) > chunk) return;
    const int span = thin_span(chunk, thin);
    if (cut && rows > INT_MAX - 2 * span) return;  // launch_thin_cut refuses it
    const long long extent = cut ? rows + 7LL : cols;  // rows of the cut's grid, cols of bulk's
    const int pitch = cut ? cut_pitch(cols) : rows;  // words a chunk row
    const size_t smem = size_t(cut ? span + 8 : span) * pitch * sizeof(float);
    const long long slots = resident_blocks(kernel, threads, smem);
    auto blocks = [&](int s) { return (extent + s - 1) / s; };
    add(launch, name, blocks(span), slots);
    const int shorter = filled_span(extent, slots, span, cut ? cut_fill_floor(cols) : 32);
    if (blocks(span) < slots && blocks(shorter) > blocks(span))
      add(filled, filledName, blocks(shorter), slots);
  };
  // END QUOTE filled-chunks
  if (cut) {
    chunks(thin_cut_kernel<512, 4>(cols), 512, 12288, "thin cut 512/12288 x4",
           launch_thin_cut<512, 12288, 4>, "thin cut 512/12288 x4 filled",
           launch_thin_cut<512, 12288, 4, true>);
    chunks(thin_cut_kernel<256, 8>(cols), 256, 6144, "thin cut 256/6144 x8",
           launch_thin_cut<256, 6144, 8>, "thin cut 256/6144 x8 filled",
           launch_thin_cut<256, 6144, 8, true>);
  } else if (rows < cols) {
    chunks(transpose_thin_bulk<256, 8>, 256, 6144, "thin bulk 256/6144 x8",
           launch_thin_bulk<256, 6144, 8>, "thin bulk 256/6144 x8 filled",
           launch_thin_bulk<256, 6144, 8, 4, true>);
    chunks(transpose_thin_bulk<512, 4>, 512, 12288, "thin bulk 512/12288 x4",
           launch_thin_bulk<512, 12288, 4>, "thin bulk 512/12288 x4 filled",
           launch_thin_bulk<512, 12288, 4, 4, true>);
  }
  // The tiles. Where a tile's grid is fewer blocks than the GPU holds at once, the same kernel
  // with tiles half as tall (or a quarter the area) joins the list: more blocks in flight, as the
  // filled chunks above.
  const long long tiles64 = (long long)ceil_div(rows, 64) * ceil_div(cols, 64);
  if (float4_aligned(in, out, rows, cols)) {
    const long long r = resident_blocks(transpose_vec4<64, 256, BlockOrder::OutputRows>, 256, 0, 8);
    add(launch_vec4<64, 256, BlockOrder::OutputRows>, "vec4 output rows", tiles64, r);
    add(launch_vec4<64, 256, BlockOrder::InputRows>, "vec4 input rows", tiles64, r);
    if (tiles64 < r) {  // 32 x 32 tiles, 64 threads each
      const long long tiles32 = (long long)ceil_div(rows, 32) * ceil_div(cols, 32);
      const long long r32 =
          resident_blocks(transpose_vec4<32, 64, BlockOrder::OutputRows>, 64, 0, 32);
      add(launch_vec4<32, 64, BlockOrder::OutputRows>, "vec4 32 output rows", tiles32, r32);
      add(launch_vec4<32, 64, BlockOrder::InputRows>, "vec4 32 input rows", tiles32, r32);
    }
  }
  // Step 5's tile TR rows tall, both orders: (rows + 7) / TR bands of each column block.
  auto sector_tiles = [&](auto tileRows, const char* outName, const char* inName) {
    constexpr int TR = decltype(tileRows)::value;
    if (rows > INT_MAX - 2 * TR) return false;  // launch_sector_aligned refuses it
    const long long bands = ((long long)rows + 7 + TR - 1) / TR * ceil_div(cols, 32);
    const long long r =
        resident_blocks(transpose_sector_aligned<TR, 32, 8, BlockOrder::InputRows>, 256, 0, 8);
    add(launch_sector_aligned<TR, 32, 8, BlockOrder::OutputRows>, outName, bands, r);
    add(launch_sector_aligned<TR, 32, 8, BlockOrder::InputRows>, inName, bands, r);
    return bands < r;  // under one wave
  };
  if (sector_tiles(std::integral_constant<int, 128>{}, "sector-aligned output rows",
                   "sector-aligned input rows"))
    sector_tiles(std::integral_constant<int, 64>{}, "sector-aligned 64 output rows",
                 "sector-aligned 64 input rows");
  if (ceil_div(rows, 64) <= tutorial::kMaxGridY)
    add(launch_padded<64, 4>, "padded 64", tiles64,
        resident_blocks(transpose_padded<64, 4>, 256, 0, 8));
  return all;
}

inline void dispatch_transpose(const float* in, float* out, int rows, int cols) {
  static tutorial::Chooser<TransposePlan> chooser(kWindow, kShortlist);
  // The choice depends on the shape and on where the pointers start (float4, sectors).
  const std::string key = "transpose " + std::to_string(rows) + "x" + std::to_string(cols) +
                          " in%32=" + std::to_string(reinterpret_cast<uintptr_t>(in) % 32) +
                          " out%32=" + std::to_string(reinterpret_cast<uintptr_t>(out) % 32);
  const TransposePlan plan = chooser.choose(
      key, [&] { return transpose_candidates(in, out, rows, cols); },
      [&](const TransposePlan& p) { p.launch(in, out, rows, cols); });
  plan.launch(in, out, rows, cols);
}

}  // namespace ch06
