// Chapter 06, step 7: dispatch_transpose, the chapter's final launcher: a dispatcher.
//
// What changed since step 6: no new kernel. Each kernel of steps 3-6 wins on its own kind of
// shape and refuses or loses on others; this launcher picks, from the shape and the pointers,
// the one that measured fastest there on an H100 (NOTES.md, "6. Every shape"):
//   - a single row or column: its transpose holds the same floats in the same order, so it is
//     copied (copy_vec4, access_patterns.cuh) instead of moving 64 x 64 tiles of which one row
//     or column is real;
//   - fewer than 16 rows or columns: transpose_thin, float4 or not (a 64 x 64 tile would hold
//     a quarter of real data at best);
//   - float4 possible: transpose_vec4, blocks along output rows;
//   - otherwise transpose_thin for fewer than 64 rows (short and wide) or 48 columns (tall and
//     narrow);
//   - else the sector-aligned 128 x 32 tile, one float per access. Where a band of its tiles
//     is longer than the blocks the GPU holds at once (bands_first: a wide matrix of more
//     than ~34,000 columns on an H100), its blocks walk down the bands first, so that the
//     blocks resident together write whole output rows, as transpose_vec4's OutputRows order
//     does: 3630 x 71894 measured 92.0% of the copy against 81.0% in the input's order; 25 such
//     wide matrices (75 to 3630 rows) 86.8-102.8%, against 64.2-102.3% with the kernels this
//     launcher chose before, 17 of them below 88% (README, "Shapes nobody listed"). Otherwise
//     the input's order, or the padded 64 x 64 tile where the output's rows start on 32-byte
//     sectors (measured cheaper there; with shorter bands the two orders measured within 2
//     points: 691 x 19590, 722 x 12740).
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
#include "06_transpose/access_patterns.cuh"  // launch_copy, for a single row or column
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Below kThinSmall rows or columns transpose_thin always runs; below kThinTall columns it
// also takes the tall matrices float4 cannot.
constexpr int kThinSmall = 16, kThinTall = 48;

// Blocks of the sector-aligned tile (256 threads, a 135 x 33-float tile) this GPU runs at once:
// SMs x the blocks an SM's threads and shared memory hold (H100: 132 x min(2048 / 256,
// 228 KB / 17.8 KB) = 132 x 8 = 1,056; its few registers never limit it), read once per device.
inline long long resident_sector_blocks() {
  constexpr int kDevices = 64;
  static long long resident[kDevices] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  long long& r = resident[device % kDevices];
  if (r == 0) {
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    const size_t tileBytes = sizeof(typename SectorAligned<128, 32, 8>::Tile);
    const long long perSm = std::min<long long>(p.maxThreadsPerMultiProcessor / (32 * 8),
                                                (long long)(p.sharedMemPerMultiprocessor / tileBytes));
    r = (long long)p.multiProcessorCount * std::max<long long>(1, perSm);
  }
  return r;
}

// Whether the sector-aligned tile should walk the bands first: a wide matrix whose band of tiles
// (cols / 32 blocks) is longer than the blocks resident at once. In the input's order those
// blocks then all sit in one band, each writing a 512-byte piece of a different output row,
// thousands of rows apart; bands first, they write whole output rows.
inline bool bands_first(int rows, int cols) {
  return rows < cols && tutorial::ceil_div(cols, 32) > resident_sector_blocks();
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
  if (float4_aligned(in, out, rows, cols)) {
    launch_vec4<64, 256, BlockOrder::OutputRows>(in, out, rows, cols);
    return;
  }
  if (rows < kThinMax && rows < cols)
    launch_thin(in, out, rows, cols);  // wide and short: a 128-row band would be mostly empty
  else if (cols < kThinTall && cols < rows)
    launch_thin(in, out, rows, cols);  // tall and narrow: most of a 32-column band is empty
  else if (bands_first(rows, cols))  // wide, a band longer than the resident blocks
    launch_sector_aligned<128, 32, 8, BlockOrder::OutputRows>(in, out, rows, cols);
  else if (rows % 8 != 0 || reinterpret_cast<uintptr_t>(out) % 32 != 0 ||
           tutorial::ceil_div(rows, 64) > tutorial::kMaxGridY)  // (the padded grid has no room)
    launch_sector_aligned<128, 32, 8>(in, out, rows, cols);  // output rows off the sectors
  else
    launch_padded<64, 4>(in, out, rows, cols);  // only the input rows are: measured cheaper
}

}  // namespace ch06
