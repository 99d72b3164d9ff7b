// Chapter 06, step 7: dispatch_transpose, the chapter's final launcher: a dispatcher.
//
// What changed since step 6: no new kernel. Each kernel of steps 3-6 wins on its own kind of
// shape and refuses or loses on others; this launcher picks, from the shape and the pointers,
// the one that measured fastest there on an H100 (NOTES.md, "6. Every shape"):
//   - a single row or column: its transpose holds the same floats in the same order, so it is
//     copied (copy_vec4, copy.cuh) instead of moving 64 x 64 tiles of which one row
//     or column is real;
//   - fewer than 16 rows or columns: transpose_thin, float4 or not (a 64 x 64 tile would hold
//     a quarter of real data at best);
//   - float4 possible: transpose_vec4, blocks along output rows, or along input rows where a
//     tall matrix's band of output rows outnumbers the blocks resident at once
//     (vec4_by_input_rows), or there the sector-aligned tile where the output rows are off the
//     sectors; along input rows also where only the input rows split sectors and the resident
//     blocks cover 8 bands or more (vec4_input_order_for_split_sectors);
//   - otherwise transpose_thin for fewer than 64 rows (short and wide) or 36 columns (tall and
//     narrow);
//   - else the sector-aligned 128 x 32 tile, one float per access, or the padded 64 x 64 one
//     where the output's rows start on 32-byte sectors (measured cheaper there). A wide matrix
//     (fewer rows than columns) runs the sector-aligned tile with its blocks walking down the
//     bands first, so that the blocks resident together write whole output rows, as
//     transpose_vec4's OutputRows order does (bands_first: not where the padded tile fits and
//     a band is short). 3630 x 71894 measured 92.0% of the copy against 81.0% in the input's
//     order; 25 wide matrices of 75 to 3630 rows and more than 1,056 column blocks 86.8-102.8%,
//     against 64.2-102.3% with the kernels this launcher chose before (NOTES.md, "Round
//     three"). Tall matrices keep the input's order (bands first lost 4-21 points there).
// Past 65,535 tiles along y the sector-aligned kernel loops over its bands and transpose_vec4
// turns its grid round, so every shape up to INT_MAX elements runs.
// What none of them can fix: a transpose must read every byte and write every byte once, so
// it can at best tie with a copy.
#pragma once

#include <algorithm>
#include <cstdint>

#include "06_transpose/3_padded.cuh"
#include "06_transpose/4_vec4.cuh"
#include "06_transpose/5_sector_aligned.cuh"
#include "06_transpose/6_thin.cuh"
#include "06_transpose/copy.cuh"  // launch_copy, for a single row or column
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Below kThinSmall rows or columns transpose_thin always runs; below kThinTall columns it
// also takes the tall matrices float4 cannot (and tall float4 matrices keep transpose_vec4 there,
// below). 36: with its loads unrolled (step 5) the sector-aligned tile beat transpose_thin at 10
// of 12 tall shapes of 36 to 47 columns and 100,003 to 1,000,001 rows, by up to 2.5 points of the
// copy (it lost at 100,003 x 44 and x 47, both past 100% of the copy), and lost at all 3 of 33
// columns (H100, NOTES.md, "Round eight").
constexpr int kThinSmall = 16, kThinTall = 36;

// Blocks of `threads` threads and `tileBytes` of shared memory each that a GPU holds at once:
// SMs x the blocks an SM's threads and shared memory hold (registers never limit these kernels).
inline long long blocks_resident(int sms, int threadsPerSm, size_t sharedPerSm, int threads,
                                 size_t tileBytes) {
  const long long perSm =
      std::min<long long>(threadsPerSm / threads, (long long)(sharedPerSm / tileBytes));
  return (long long)sms * std::max<long long>(1, perSm);
}

// The sector-aligned tile: 256 threads, a 135 x 33-float tile (H100: 132 x min(2048 / 256,
// 228 KB / 17.8 KB) = 132 x 8 = 1,056).
inline long long sector_blocks_resident(int sms, int threadsPerSm, size_t sharedPerSm) {
  return blocks_resident(sms, threadsPerSm, sharedPerSm, 32 * 8,
                         sizeof(typename SectorAligned<128, 32, 8>::Tile));
}

// transpose_vec4<64, 256>: 256 threads, a 64 x 64-float tile (H100: 132 x min(8, 14) = 1,056).
inline long long vec4_blocks_resident(int sms, int threadsPerSm, size_t sharedPerSm) {
  return blocks_resident(sms, threadsPerSm, sharedPerSm, 256, 64 * 64 * sizeof(float));
}

// What the current GPU holds, read once per device.
struct ResidentBlocks {
  long long sector = 0, vec4 = 0;
};
inline const ResidentBlocks& resident_blocks() {
  constexpr int kDevices = 64;
  static ResidentBlocks resident[kDevices];  // (one host thread, as everywhere in this tutorial)
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  ResidentBlocks& r = resident[device % kDevices];
  if (r.sector == 0) {
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    const int sms = p.multiProcessorCount, threads = p.maxThreadsPerMultiProcessor;
    const size_t shared = p.sharedMemPerMultiprocessor;
    r = {sector_blocks_resident(sms, threads, shared), vec4_blocks_resident(sms, threads, shared)};
  }
  return r;
}
inline long long resident_sector_blocks() { return resident_blocks().sector; }
inline long long resident_vec4_blocks() { return resident_blocks().vec4; }

// Whether a wide matrix goes to the sector-aligned tile with its bands first. Where the padded
// tile cannot run (output rows off the sectors), always: bands first won, or tied within 0.3
// points, at every wide matrix measured. Where it can, only when a band of 32-column blocks is
// longer than the blocks the GPU holds at once: then, in the input's order, they all sit in one
// band, each writing 512-byte pieces of its own 32 output rows, rows apart; with shorter bands
// the padded tile measured better (8192 x 8193: 92.6% of the copy, bands first 90.7%).
inline bool bands_first(int rows, int cols, bool paddedFits) {
  return rows < cols && (!paddedFits || tutorial::ceil_div(cols, 32) > resident_sector_blocks());
}

// Whether a tall matrix goes to transpose_vec4 in the input's order: where a band of 64 output
// rows is longer (rows / 64 blocks) than the blocks the GPU holds at once. In the output's order
// those blocks then all sit in one band, each reading 256-byte pieces of 64 input rows, a row
// apart; in the input's order they read whole input rows. Measured (H100) at 9 tall matrices with
// output bands of 625 to 15,625 blocks: the input's order faster at 8, by 0.4 to 9.5 points of the
// copy (300000 x 100: 88.3% -> 97.8%, 83760 x 780: 85.2% -> 94.4%), 0.1 slower at 1000000 x 64; at
// 4100 x 4096 and 8196 x 8192 (65 and 129 blocks; H200) the output's order was 10 and 15 points
// faster.
// Where the output rows are off the sectors (rows % 8 == 4, or `out` off 32 bytes: not measured),
// such a matrix goes to the sector-aligned tile (step 5) instead, from kThinTall columns on (below
// it, not measured): at 4 tall matrices of 96 to 924 columns with rows % 8 == 4 it measured 91.5-
// 94.3% of the copy, transpose_vec4 in the input's order 79.7-84.3%; where they are on the sectors
// transpose_vec4 stayed ahead (892744 x 276: 91.6% against 90.5%; NOTES.md, "Round eight").
// Past 65,535 tiles along y (4,194,240 rows) launch_vec4 turns an input-order grid round: the rule
// does not reach those (not measured).
inline bool vec4_by_input_rows(int rows, int cols) {
  return rows > cols && tutorial::ceil_div(rows, 64) > resident_vec4_blocks();
}

// Whether a float4 matrix whose input rows are off the sectors (cols % 8 == 4; or `in` 16 bytes
// past a sector: not measured) and whose output rows are on them goes to transpose_vec4 in the
// input's order: where the blocks resident at once cover at least kInputOrderBands bands of 64
// input rows (a band is ceil(cols / 64) blocks). Our reading, not profiled: in the input's order
// the two blocks that share a split sector of an input row run side by side; but the fewer bands
// the resident blocks cover, the shorter the run of 256-byte pieces each output row receives at
// once, and a band longer than the resident blocks leaves one piece per output row. Measured (H100,
// both orders forced at 48 such matrices of three draws, NOTES.md, "Round eleven"): with bands of
// up to 132 blocks (an eighth of the H100's 1,056) the input's order was faster at 23 of 26, by 1.0
// to 4.6 points of the copy at 21 (4096 x 4100: 94.9% -> 97.6%), slower at 3 by 0.2 to 1.4 (232 x
// 6612); with 183 to 469 blocks between -2.4 and +0.9; from 654 blocks on slower at 11 of 13, by up
// to 14.8 points (the 4 tall ones with longer output bands go by vec4_by_input_rows).
constexpr int kInputOrderBands = 8;
inline bool vec4_input_order_for_split_sectors(int cols) {
  return (long long)tutorial::ceil_div(cols, 64) * kInputOrderBands <= resident_vec4_blocks();
}

inline void dispatch_transpose(const float* in, float* out, int rows, int cols) {
  const bool aligned_pointers =
      reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if ((rows == 1 || cols == 1) && aligned_pointers) {
    launch_copy(in, out, rows, cols);
    return;
  }
  if (std::min(rows, cols) < kThinSmall) {
    launch_thin(in, out, rows, cols);
    return;
  }
  const bool outRowsOnSectors = rows % 8 == 0 && reinterpret_cast<uintptr_t>(out) % 32 == 0;
  if (float4_aligned(in, out, rows, cols)) {
    const bool inRowsOnSectors = cols % 8 == 0 && reinterpret_cast<uintptr_t>(in) % 32 == 0;
    if (vec4_by_input_rows(rows, cols)) {
      if (outRowsOnSectors || cols < kThinTall)
        launch_vec4<64, 256, BlockOrder::InputRows>(in, out, rows, cols);
      else  // tall, output rows off the sectors: float4 stores would write partial sectors
        launch_sector_aligned<128, 32, 8>(in, out, rows, cols);
    } else if (outRowsOnSectors && !inRowsOnSectors && vec4_input_order_for_split_sectors(cols)) {
      launch_vec4<64, 256, BlockOrder::InputRows>(in, out, rows, cols);
    } else {
      launch_vec4<64, 256, BlockOrder::OutputRows>(in, out, rows, cols);
    }
    return;
  }
  // The padded tile needs output rows on 32-byte sectors (and room in its grid).
  const bool paddedFits =
      outRowsOnSectors && tutorial::ceil_div(rows, 64) <= tutorial::kMaxGridY;
  if (rows < kThinMax && rows < cols)
    launch_thin(in, out, rows, cols);  // wide and short: a 128-row band would be mostly empty
  else if (cols < kThinTall && cols < rows)
    launch_thin(in, out, rows, cols);  // tall and narrow: most of a 32-column band is empty
  else if (bands_first(rows, cols, paddedFits))
    launch_sector_aligned<128, 32, 8, BlockOrder::OutputRows>(in, out, rows, cols);
  else if (!paddedFits)
    launch_sector_aligned<128, 32, 8>(in, out, rows, cols);  // output rows off the sectors
  else
    launch_padded<64, 4>(in, out, rows, cols);  // only the input rows are: measured cheaper
}

}  // namespace ch06
