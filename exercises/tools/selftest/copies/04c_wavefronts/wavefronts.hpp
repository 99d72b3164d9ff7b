// A copy of the repository's own code for exercise 04c (selftest/copies.py): the harness's
// public calculator for vector shared accesses, common/memory_access.cpp's shared_access_cost
// (phases of 32 / words_per_thread lanes, the conflicts inside each), re-typed and applied to
// the exercise's pattern. It must score no more than the stub.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "exercises/support/exercise.hpp"

namespace ex04c {

inline int degree_of(const std::set<uint32_t>& words) {
  int counts[32] = {};
  int worst = 0;
  for (uint32_t w : words) {
    const int c = ++counts[w % 32];
    if (c > worst) worst = c;
  }
  return worst;
}

inline int shared_access_cost(const std::vector<uint32_t>& first_words, int words_per_thread) {
  const size_t phase_threads = size_t(32 / words_per_thread);
  int wavefronts = 0;
  for (size_t begin = 0; begin < first_words.size(); begin += phase_threads) {
    std::set<uint32_t> words;
    for (size_t t = begin; t < first_words.size() && t < begin + phase_threads; ++t)
      for (int w = 0; w < words_per_thread; ++w) words.insert(first_words[t] + uint32_t(w));
    wavefronts += degree_of(words);
  }
  return wavefronts;
}

inline int wavefronts(int group, int inner, int outer) {
  std::vector<uint32_t> words;
  for (int t = 0; t < 32; ++t) words.push_back(uint32_t((t / group) * outer + (t % group) * inner));
  return shared_access_cost(words, 4);
}

}  // namespace ex04c
