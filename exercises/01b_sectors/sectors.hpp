// Exercise 01b: what one warp's load costs (chapter 01, coalescing). Host only: no GPU needed.
//
// The 32 lanes of a warp each load one 4-byte float: lane t reads element offset + t * stride
// of a float array whose element 0 starts a 128-byte line. The memory system moves whole
// 32-byte SECTORS (tracked in 128-byte LINES), so what a load costs is the number of distinct
// sectors its 32 addresses fall into, not the 128 bytes the warp asked for.
//
//   stride 1, offset 0:  floats 0..31    = bytes 0..127   -> 4 sectors, 1 line (ideal)
//   stride 2:            floats 0..62    = bytes 0..251   -> 8 sectors, half of each unused
//   stride 32:           128 bytes apart                  -> 32 sectors in 32 lines
//
// Your task: the five functions below, for stride >= 1 and offset >= 0 (in floats); the last
// one is the warp of a 2D block (chapter 01's thread mapping). Work the answer out from the
// addresses; a closed formula or a loop over the 32 lanes both do. (common/memory_access.hpp
// has a general simulator that the tests compare you against: try the exercise without it.)
// Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex01b {

constexpr int kWarp = 32;
constexpr int kFloatBytes = 4;
constexpr int kSectorBytes = 32;
constexpr int kLineBytes = 128;

// Distinct 32-byte sectors the warp's 32 loads touch.
inline int sectors_touched(int stride, int offset) {
  return exercise::todo<int>("01b_sectors: sectors_touched", stride, offset);
}

// Distinct 128-byte lines the warp's 32 loads touch.
inline int lines_touched(int stride, int offset) {
  return exercise::todo<int>("01b_sectors: lines_touched", stride, offset);
}

// Bytes the warp asked for (32 x 4) divided by the bytes moved in whole sectors.
inline double sector_efficiency(int stride, int offset) {
  return exercise::todo<double>("01b_sectors: sector_efficiency", stride, offset);
}

// The same with whole 128-byte lines as the unit of transfer (the rule older texts quote).
inline double line_efficiency(int stride, int offset) {
  return exercise::todo<double>("01b_sectors: line_efficiency", stride, offset);
}

// The first warp of a 2D block whose rows are `width` threads (blockDim.x = width, 1..32:
// thread (ty, tx), linear index ty * width + tx, warp 0 = linear indices 0..31) reading a
// row-major float matrix of `pitch` floats per row whose element 0 starts a 128-byte line:
// thread (ty, tx) loads the float at index ty * pitch + offset + tx (element (ty, offset + tx)
// where that lies inside the row). The distinct 32-byte sectors the warp touches.
//
//   width 32: one row, floats offset .. offset + 31: as sectors_touched(1, offset)
//   width 16, pitch 1024: two rows of 16 floats, 4096 bytes apart: 2 sectors each, 4
//   width 8, pitch 8: four rows back to back, 32 consecutive floats: 4 again
inline int block_sectors(int width, int pitch, int offset) {
  return exercise::todo<int>("01b_sectors: block_sectors", width, pitch, offset);
}

}  // namespace ex01b
