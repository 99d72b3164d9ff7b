// A copy of the repository's own code for exercise 01b (selftest/copies.py): the harness's
// warp simulator, common/memory_access.cpp (warp_addresses, global_access_cost), re-typed and
// called as exercises/support/host_references.cpp calls it for 01b (lane t at offset +
// t * stride floats); the 2D block's warp as the nearest the calculator takes, consecutive
// lanes. It must score no more than the stub.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "exercises/support/exercise.hpp"

namespace ex01b {

struct Cost {
  int sectors = 0, lines = 0;
  double requested = 0;
};

inline Cost global_access_cost(const std::vector<uint64_t>& addresses, int access_bytes) {
  std::set<uint64_t> sectors, lines, bytes;
  for (uint64_t a : addresses)
    for (int b = 0; b < access_bytes; ++b) {
      sectors.insert((a + b) / 32);
      lines.insert((a + b) / 128);
      bytes.insert(a + b);
    }
  return {int(sectors.size()), int(lines.size()), double(bytes.size())};
}

inline std::vector<uint64_t> warp_addresses(uint64_t base, int64_t stride_bytes) {
  std::vector<uint64_t> out;
  for (int t = 0; t < 32; ++t) out.push_back(base + uint64_t(t * stride_bytes));
  return out;
}

inline Cost warp_cost(int stride, int offset) {
  return global_access_cost(warp_addresses(uint64_t(offset) * 4, int64_t(stride) * 4), 4);
}

inline int sectors_touched(int stride, int offset) { return warp_cost(stride, offset).sectors; }
inline int lines_touched(int stride, int offset) { return warp_cost(stride, offset).lines; }
inline double sector_efficiency(int stride, int offset) {
  const Cost c = warp_cost(stride, offset);
  return c.requested / (32.0 * c.sectors);
}
inline double line_efficiency(int stride, int offset) {
  const Cost c = warp_cost(stride, offset);
  return c.requested / (128.0 * c.lines);
}
inline int block_sectors(int width, int pitch, int offset) {
  (void)width, (void)pitch;
  return sectors_touched(1, offset);
}

}  // namespace ex01b
