// The checker's answers for exercise 04c (support/host_references.hpp): the pattern's chunks,
// counted by the memory model's rule (support/shared_memory_rule.hpp). Checker only.
#include <stdexcept>
#include <vector>

#include "exercises/support/host_references.hpp"
#include "exercises/support/shared_memory_rule.hpp"

namespace {

using exercise::Args;

Args wavefronts(const Args& a) {
  if (a.size() != 3) throw std::invalid_argument("wavefronts takes (group, inner, outer)");
  const long long group = (long long)a[0], inner = (long long)a[1], outer = (long long)a[2];
  if (group < 1 || group > 32 || inner < 0 || outer < 0 || inner % 4 || outer % 4)
    throw std::invalid_argument("wavefronts: group 1..32, inner and outer multiples of 4, >= 0");
  std::vector<long long> chunks;
  for (long long t = 0; t < 32; ++t) chunks.push_back(((t / group) * outer + (t % group) * inner) / 4);
  return {double(exercise::rule::lds128_wavefronts(chunks))};
}

const exercise::HostReferences references("04c_wavefronts", {{"wavefronts", wavefronts}});

}  // namespace
