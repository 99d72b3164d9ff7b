// Exercise 05c: the warp tile's lane layout (chapter 05, part 2). Host only: no GPU needed.
//
// A warp computes a WM x WN piece of the block's C tile; each of its 32 lanes owns TM x TN of
// it (TM, TN multiples of 4; (WM / TM) * (WN / TN) = 32), as TM/4 x TN/4 sub-tiles of 4 x 4: a
// lane's rows are TM/4 runs of 4 rows, each starting on a multiple of 4, its columns TN/4
// runs of 4. At every k the lane loads its TM values of A and TN values of B from shared
// memory, one LDS.128 per run:
//
//   A run i (i < TM/4):  As[k][rows[i] .. rows[i] + 3]    the 16-byte chunk rows[i] / 4
//   B run j (j < TN/4):  Bs[k][cols[j] .. cols[j] + 3]    the chunk cols[j] / 4
//
// so the warp issues TM/4 + TN/4 LDS.128 per k, instruction i of A made of every lane's run i.
// What one costs is chapter 05's rule (README, part 2; exercise 04c drills it): a quarter warp
// (8 lanes: lanes 0-7, 8-15, 16-23, 24-31) is served per pass, as many as its busiest group of
// 4 banks needs (chunk c lies in bank group c % 8); the two quarters of a half warp share one
// wavefront when together they ask for at most four distinct chunks and meet in no bank. So
// what a layout costs depends on which lanes share a quarter: lanes that read the same chunk
// make it cheap.
//
//   The chapter's layout, WM 64 x WN 32, TM = TN = 8: lanes as 8 rows x 4 columns,
//   lane = 4r + c owns rows 4r.. and 32 + 4r.., columns 4c.. and 16 + 4c..: a quarter holds
//   two lane rows (2 chunks of A, shared by the pair: 1 wavefront per half, 2 in all) and four
//   lane columns (4 chunks of B per quarter, 8 per half: not shared, 4 in all). Per k:
//   2 + 2 (A) + 4 + 4 (B) = 12 wavefronts for 4 LDS.128.
//
// Your task: lane_tile(), the runs of one lane, for any such WM, WN, TM, TN, such that the
// warp's lanes own every element of the WM x WN piece exactly once and the warp's LDS.128 per
// k take as few wavefronts in all as the best of the two lane orders of the chapter's grid
// (lanes numbered along the columns first, as above, or along the rows first). The chapter's
// numbering is not always that best: count. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex05c {

// The runs of lane `lane` (0..31): rows[i] (i < TM/4), the first row of its i-th run of 4
// rows, and cols[j] (j < TN/4), the first column of its j-th run of 4 columns, both relative
// to the warp's piece.
inline void lane_tile(int WM, int WN, int TM, int TN, int lane, int* rows, int* cols) {
  (void)WM, (void)WN, (void)TM, (void)TN, (void)lane, (void)rows, (void)cols;
  exercise::todo("05c_warp_tile: lane_tile");
}

}  // namespace ex05c
