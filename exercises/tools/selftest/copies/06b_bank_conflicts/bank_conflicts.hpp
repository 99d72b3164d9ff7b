// A copy of the repository's own code for exercise 06b (selftest/copies.py): the harness's
// public calculator for shared accesses (common/memory_access.cpp: shared_access_cost, phases
// of 32 / words lanes) re-typed for the column store, and chapter 06's swizzled_chunk
// (06_transpose/4_vec4.cuh: chunk ^ ((row / 4) % 8)) for the swizzle. It must score no more
// than the stub.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "exercises/support/exercise.hpp"

namespace ex06b {

inline int shared_access_cost(const std::vector<uint32_t>& first_words, int words_per_thread) {
  const size_t phase_threads = size_t(32 / words_per_thread);
  int wavefronts = 0;
  for (size_t begin = 0; begin < first_words.size(); begin += phase_threads) {
    std::set<uint32_t> words;
    for (size_t t = begin; t < first_words.size() && t < begin + phase_threads; ++t)
      for (int w = 0; w < words_per_thread; ++w) words.insert(first_words[t] + uint32_t(w));
    int counts[32] = {}, worst = 0;
    for (uint32_t w : words) {
      const int c = ++counts[w % 32];
      if (c > worst) worst = c;
    }
    wavefronts += worst;
  }
  return wavefronts;
}

inline int column_wavefronts(int bytes, int pitch, int rows_apart) {
  std::vector<uint32_t> words;
  for (int t = 0; t < 32; ++t) words.push_back(uint32_t(t * rows_apart * pitch));
  return shared_access_cost(words, bytes / 4);
}

inline int smallest_pitch(int bytes, int rows_apart) {
  for (int pitch = 32; pitch < 64; pitch += bytes / 4)
    if (column_wavefronts(bytes, pitch, rows_apart) == bytes / 4) return pitch;
  return -1;
}

// 06_transpose/4_vec4.cuh
constexpr int swizzled_chunk(int row, int chunk) { return chunk ^ ((row / 4) % 8); }

inline int swizzled_position(int row, int chunk, int chunks, int rows_apart) {
  (void)chunks, (void)rows_apart;
  return swizzled_chunk(row, chunk);
}

}  // namespace ex06b
