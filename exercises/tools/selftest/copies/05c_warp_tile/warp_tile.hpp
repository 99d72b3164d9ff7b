// A copy of the repository's own code for exercise 05c (selftest/copies.py): chapter 05's
// WarpLayout (05_double_buffer/warp_tile.cuh) re-typed under the exercise's name: a lane grid
// of WM/TM x WN/TN, lanes numbered along the columns first, sub-tiles WSUB apart. It must
// score no more than the stub.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex05c {

inline void lane_tile(int WM, int WN, int TM, int TN, int lane, int* rows, int* cols) {
  const int LANES_M = WM / TM, LANES_N = WN / TN;
  const int WSUB_M = LANES_M * 4, WSUB_N = LANES_N * 4;
  const int laneRow = lane / LANES_N, laneCol = lane % LANES_N;
  for (int i = 0; i < TM / 4; ++i) rows[i] = i * WSUB_M + laneRow * 4;
  for (int j = 0; j < TN / 4; ++j) cols[j] = j * WSUB_N + laneCol * 4;
}

}  // namespace ex05c
