// Chapter 05: the padding of the transposed A tile. Step 2 introduces it and every later step
// keeps it; a header of its own, so that warp_tile.cuh does not include step 2 for a constant.
#pragma once

namespace ch05 {

// Rows of a transposed A tile are BM + PAD_A floats apart. With PAD_A = 4 the 4 scalar stores
// of a transpose land in 32 different banks, and a row still starts on a 16-byte boundary,
// as the LDS.128 reads need.
constexpr int PAD_A = 4;

}  // namespace ch05
