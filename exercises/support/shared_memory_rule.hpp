// The memory model's rule for 16-byte shared-memory accesses, for the checker's references of
// the exercises that count or design LDS.128 patterns (04c, 05c, 06b). Checker code only,
// never in a runner.
//
// It is the rule of common/cpu_backend/analyze/memory_model.cpp (request_cost), fitted to
// Nsight Compute's wavefronts per LDS.128 on an H100 (common/INSPECT.md): a 16-byte access is
// served a quarter warp (8 lanes) at a time, as many passes as the quarter's busiest group of
// 4 banks needs (common/memory_access.hpp, shared_access_cost); the two quarters of a half
// warp share one wavefront when together they ask for at most four distinct 16-byte chunks
// (a chunk counted once per quarter that asks for it) and their words meet in no bank.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "common/memory_access.hpp"

namespace exercise::rule {

// chunks[lane]: the index of the 16-byte chunk lane `lane` reads (word 4 * chunk), or -1 for
// an inactive lane; 32 lanes.
inline int lds128_wavefronts(const std::vector<long long>& chunks) {
  std::vector<std::vector<uint32_t>> phases(4);
  for (size_t lane = 0; lane < chunks.size() && lane < 32; ++lane)
    if (chunks[lane] >= 0) phases[lane / 8].push_back(uint32_t(chunks[lane] * 4));
  auto distinct = [](const std::vector<uint32_t>& phase) {
    return std::set<uint32_t>(phase.begin(), phase.end()).size();
  };
  int wavefronts = 0;
  for (size_t p = 0; p < phases.size(); ++p) {
    const std::vector<uint32_t>& phase = phases[p];
    if (p % 2 == 0 && !phase.empty() && !phases[p + 1].empty() &&
        distinct(phase) + distinct(phases[p + 1]) <= 4) {
      std::vector<uint32_t> both(phase);
      both.insert(both.end(), phases[p + 1].begin(), phases[p + 1].end());
      std::set<uint32_t> words;
      for (uint32_t w : both)
        for (uint32_t i = 0; i < 4; ++i) words.insert(w + i);
      std::set<uint32_t> banks;
      for (uint32_t w : words) banks.insert(w % 32);
      if (banks.size() == words.size()) {  // no bank holds two different words: one pass
        wavefronts += 1;
        ++p;
        continue;
      }
    }
    if (!phase.empty()) wavefronts += tutorial::shared_access_cost(phase, 4).wavefronts;
  }
  return wavefronts;
}

// Wavefronts of one warp-wide shared access of `bytes` (4, 8 or 16) per lane, lane `lane`
// starting at word first_words[lane] (-1: inactive): the whole warp at once for 4 bytes, half
// warps for 8, quarter warps with the pair rule above for 16 (memory_model.cpp, request_cost).
inline int shared_wavefronts(const std::vector<long long>& first_words, int bytes) {
  if (bytes == 16) {
    std::vector<long long> chunks;
    for (long long w : first_words) chunks.push_back(w < 0 ? -1 : w / 4);
    return lds128_wavefronts(chunks);
  }
  const int words = bytes == 8 ? 2 : 1;
  const size_t phase_lanes = size_t(32 / words);
  int wavefronts = 0;
  for (size_t begin = 0; begin < 32; begin += phase_lanes) {
    std::vector<uint32_t> phase;
    for (size_t lane = begin; lane < begin + phase_lanes && lane < first_words.size(); ++lane)
      if (first_words[lane] >= 0) phase.push_back(uint32_t(first_words[lane]));
    if (!phase.empty()) wavefronts += tutorial::shared_access_cost(phase, words).wavefronts;
  }
  return wavefronts;
}

}  // namespace exercise::rule
