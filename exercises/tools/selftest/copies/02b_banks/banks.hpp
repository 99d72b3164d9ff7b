// A copy of the repository's own code for exercise 02b (selftest/copies.py): the public
// calculators re-typed under the exercise's names: common/memory_access.cpp's
// bank_conflict_degree, applied as the checker applied it to the old bank exercise (the first
// warp of a d x d block reading tile[t % d][t / d]; lanes t * stride; the padding search),
// wired to the nearest question. It must score no more than the stub.
#pragma once

#include <cstdint>
#include <vector>

#include "exercises/support/exercise.hpp"

namespace ex02b {

// common/memory_access.cpp: the largest number of distinct words in one bank.
inline int bank_conflict_degree(const std::vector<uint32_t>& words) {
  int worst = 0;
  for (int bank = 0; bank < 32; ++bank) {
    std::vector<uint32_t> seen;
    for (uint32_t w : words) {
      if (w % 32 != uint32_t(bank)) continue;
      bool dup = false;
      for (uint32_t s : seen) dup = dup || s == w;
      if (!dup) seen.push_back(w);
    }
    if (int(seen.size()) > worst) worst = int(seen.size());
  }
  return worst;
}

// exercises/support/host_references.cpp (06b): the first warp of a d x d block reading
// tile[t % d][t / d], rows W words; lanes t * stride.
inline int transposed_degree(int d, int row_words) {
  std::vector<uint32_t> words;
  for (int t = 0; t < 32; ++t) words.push_back(uint32_t((t % d) * row_words + t / d));
  return bank_conflict_degree(words);
}
inline int strided_degree(int stride) {
  std::vector<uint32_t> words;
  for (int t = 0; t < 32; ++t) words.push_back(uint32_t(t * stride));
  return bank_conflict_degree(words);
}

inline int wavefronts(int tile, int pitch, int access, int warp, int k) {
  (void)warp, (void)k;
  if (access == 1) return transposed_degree(tile, pitch);  // the column read of 06b
  return strided_degree(1);                                // rows and broadcasts: consecutive
}

inline int smallest_pitch(int tile, int access) {
  if (access != 1) return tile;
  int w = tile;  // 06b's padded_row_words
  while (transposed_degree(tile, w) != 1) ++w;
  return w;
}

}  // namespace ex02b
