#include "common/memory_access.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace tutorial {

double GlobalAccessCost::efficiency() const {
  return sectors == 0 ? 0.0 : double(requested_bytes) / (double(sectors) * kSectorBytes);
}

double GlobalAccessCost::line_efficiency() const {
  return lines == 0 ? 0.0 : double(requested_bytes) / (double(lines) * kCacheLineBytes);
}

GlobalAccessCost global_access_cost(const std::vector<uint64_t>& addresses, int access_bytes) {
  if (access_bytes < 1) throw std::invalid_argument("global_access_cost: access_bytes must be >= 1");
  if (addresses.size() > 32)
    throw std::invalid_argument("global_access_cost: a warp has at most 32 threads, got " +
                                std::to_string(addresses.size()));
  std::set<uint64_t> sectors, lines, bytes;
  for (uint64_t a : addresses) {
    const uint64_t last = a + uint64_t(access_bytes) - 1;
    for (uint64_t s = a / kSectorBytes; s <= last / kSectorBytes; ++s) sectors.insert(s);
    for (uint64_t l = a / kCacheLineBytes; l <= last / kCacheLineBytes; ++l) lines.insert(l);
    for (uint64_t b = a; b <= last; ++b) bytes.insert(b);  // two threads on one byte count once
  }
  GlobalAccessCost cost;
  cost.sectors = int(sectors.size());
  cost.lines = int(lines.size());
  cost.requested_bytes = bytes.size();
  return cost;
}

std::vector<uint64_t> warp_addresses(uint64_t base, int64_t stride_bytes, int lanes) {
  std::vector<uint64_t> addresses;
  for (int t = 0; t < lanes; ++t) addresses.push_back(uint64_t(int64_t(base) + t * stride_bytes));
  return addresses;
}

namespace {

// Distinct words per bank among `words`; the maximum is the phase's conflict degree.
int degree_of(const std::set<uint32_t>& words) {
  std::map<uint32_t, int> per_bank;
  int degree = 0;
  for (uint32_t w : words) degree = std::max(degree, ++per_bank[w % kSharedBanks]);
  return degree;
}

}  // namespace

int bank_conflict_degree(const std::vector<uint32_t>& word_addresses) {
  if (word_addresses.size() > 32)
    throw std::invalid_argument("bank_conflict_degree: a warp has at most 32 threads, got " +
                                std::to_string(word_addresses.size()));
  // A set: threads that read the same word share one broadcast.
  return degree_of(std::set<uint32_t>(word_addresses.begin(), word_addresses.end()));
}

SharedAccessCost shared_access_cost(const std::vector<uint32_t>& first_words, int words_per_thread) {
  if (words_per_thread != 1 && words_per_thread != 2 && words_per_thread != 4)
    throw std::invalid_argument("shared_access_cost: words_per_thread must be 1, 2 or 4");
  if (first_words.size() > 32)
    throw std::invalid_argument("shared_access_cost: a warp has at most 32 threads");
  const size_t phase_threads = size_t(32 / words_per_thread);
  SharedAccessCost cost;
  for (size_t begin = 0; begin < first_words.size(); begin += phase_threads) {
    std::set<uint32_t> words;
    for (size_t t = begin; t < std::min(first_words.size(), begin + phase_threads); ++t) {
      if (first_words[t] % words_per_thread != 0)
        throw std::invalid_argument("shared_access_cost: a vector access must be aligned to its size");
      for (int w = 0; w < words_per_thread; ++w) words.insert(first_words[t] + w);
    }
    const int degree = degree_of(words);
    cost.degree = std::max(cost.degree, degree);
    cost.wavefronts += degree;
  }
  return cost;
}

}  // namespace tutorial
