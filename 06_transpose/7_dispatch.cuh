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
//     narrow); for a wide matrix of 128 to 383 rows, transpose_thin too, with a chunk that holds
//     at least 64 columns of every row and still gives every SM kThinBlocksPerSm blocks (the
//     tiles measured 71% of the copy at 179 x 1306965, the thin kernel 83%: README, "Shapes
//     nobody listed");
//   - else a scalar tile kernel, one float per access: the sector-aligned 128 x 32 tile where
//     the output's rows do not start on 32-byte sectors, else the padded 64 x 64 one.
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
// Wide matrices float4 cannot take go to transpose_thin from kThinWideMin to kThinWideMax - 1
// rows, with a chunk that holds kThinWideSpan columns of each row, when that gives at least
// kThinBlocksPerSm blocks per SM (fewer, and too few loads are in flight: 722 x 12740, 398
// blocks, 94% of the copy against 98% for the tiles). Measured on an H100 (NOTES.md, "Shapes
// nobody listed"), the largest chunk against the tiles at 21 wide matrices of 64 to 767 rows:
//   - below 128 rows the tiles have one band of 128 rows, which reads every row of a 32-column
//     segment as transpose_thin does, and they kept up: 86-114% of the copy at 70 to 99 rows,
//     the thin kernel 14 points behind to 4 ahead, behind at 4 of 5 (99 x 1330341: -8.5);
//   - where a chunk holds 64 columns of every row (24,576 floats: below 384 rows), two 128-byte
//     lines per row and block, the thin kernel gained at all 8 shapes from 140 to 327 rows, +3
//     to +17 points; with 32 columns (384 to 767 rows) +0.5 to +6 at four, -1 at two, and -4
//     and -14 at 722 x 12740 and 691 x 19590 (1.5 and 2.3 waves of 2 blocks per SM).
// The lower bound sits between the last loss measured (99 rows) and the first gain (140); a later
// draw found the tiles at 67.9% of the copy at 124 x 947017, below it (NOTES.md, round two).
constexpr int kThinWideMin = 128, kThinWideMax = 384, kThinWideSpan = 64, kThinBlocksPerSm = 4;

// transpose_thin with chunks of CHUNK floats, if a chunk holds `span` columns of its thin side
// (at least 32) and the chunks make at least `blocks` blocks and fit this GPU's shared memory;
// false (nothing launched) otherwise.
template <int THREADS, int CHUNK>
bool try_thin(const float* in, float* out, int rows, int cols, int minSpan, long long blocks) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (32 * (thin | 1) > CHUNK) return false;
  const int span = std::max(32, CHUNK / (thin | 1) / 32 * 32);
  if (span < minSpan || tutorial::ceil_div(along, span) < blocks) return false;
  try {
    launch_thin_sized<THREADS, CHUNK>(in, out, rows, cols);
  } catch (const tutorial::KernelDoesNotFit&) {
    return false;  // 96 KB of shared memory is more than some GPUs give a block
  }
  return true;
}

// A wide matrix of kThinWideMin to kThinWideMax - 1 rows: the largest chunk that holds
// kThinWideSpan columns of every row and leaves every SM kThinBlocksPerSm blocks (a longer
// segment of each row per block, and fewer blocks); false if none does.
inline bool launch_wide_thin(const float* in, float* out, int rows, int cols) {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const long long blocks = (long long)sms * kThinBlocksPerSm;
  return try_thin<1024, 24576>(in, out, rows, cols, kThinWideSpan, blocks) ||
         try_thin<512, 16384>(in, out, rows, cols, kThinWideSpan, blocks) ||
         try_thin<256, 8192>(in, out, rows, cols, kThinWideSpan, blocks);
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
  else if (rows >= kThinWideMin && rows < kThinWideMax && rows < cols &&
           launch_wide_thin(in, out, rows, cols))
    return;  // wide, a few hundred rows: the tiles' bands of 128 rows fell behind
  else if (rows % 8 != 0 || reinterpret_cast<uintptr_t>(out) % 32 != 0 ||
           tutorial::ceil_div(rows, 64) > tutorial::kMaxGridY)  // (the padded grid has no room)
    launch_sector_aligned<128, 32, 8>(in, out, rows, cols);  // output rows off the sectors
  else
    launch_padded<64, 4>(in, out, rows, cols);  // only the input rows are: measured cheaper
}

}  // namespace ch06
