// The checker's answers for exercise 02b (support/host_references.hpp): the lanes' words of
// each access, counted by the harness's bank model (common/memory_access.hpp). Compiled into
// the checker only.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/memory_access.hpp"
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

int wavefronts(int tile, int pitch, int access, int warp, int k) {
  if (tile < 1 || tile > 32 || pitch < tile || access < 0 || access > 3 || warp < 0 ||
      warp * 32 >= tile * tile || k < 0 || k >= tile)
    throw std::invalid_argument("wavefronts: tile 1..32, pitch >= tile, access 0..3, a warp of "
                                "the block, 0 <= k < tile");
  std::vector<uint32_t> words;
  for (int t = warp * 32; t < warp * 32 + 32 && t < tile * tile; ++t) {
    const int ty = t / tile, tx = t % tile;
    const int r[4] = {ty, tx, ty, k}, c[4] = {tx, ty, k, tx};
    words.push_back(uint32_t(r[access] * pitch + c[access]));
  }
  return tutorial::bank_conflict_degree(words);
}

int smallest_pitch(int tile, int access) {
  for (int pitch = tile; pitch < tile + 32; ++pitch) {
    bool free = true;
    for (int w = 0; w * 32 < tile * tile && free; ++w)
      for (int k = 0; k < tile && free; ++k) free = wavefronts(tile, pitch, access, w, k) == 1;
    if (free) return pitch;
  }
  return -1;
}

int i(const Args& a, size_t k) {
  if (a.size() <= k) throw std::invalid_argument("too few arguments");
  return int(a[k]);
}

const exercise::HostReferences references(
    "02b_banks",
    {{"wavefronts",
      [](const Args& a) { return Args{double(wavefronts(i(a, 0), i(a, 1), i(a, 2), i(a, 3), i(a, 4)))}; }},
     {"smallest_pitch", [](const Args& a) { return Args{double(smallest_pitch(i(a, 0), i(a, 1)))}; }}});

}  // namespace
