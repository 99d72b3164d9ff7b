// A copy of the repository's own code for exercise 05f (selftest/copies.py): chapter 05's
// bank_count.py re-typed (an FFMA counted once when two of its register-file reads share a
// bank, the reuse cache by slot) and the chapter's own order, 5_pipelined.cuh's
// outer_product_by_columns (serpentine columns). It must score no more than the stub.
#pragma once

#include <set>
#include <vector>

#include "exercises/05f_fma_order/tile.hpp"
#include "exercises/support/exercise.hpp"

namespace ex05f {

inline int paid_cycles(const Tile& t, const std::vector<int>& cells) {
  int same_bank = 0;
  std::vector<int> previous;
  for (int cell : cells) {
    const int i = cell / t.tn, j = cell % t.tn;
    const std::vector<int> sources = {t.a(i), t.b(j), t.c(i, j)};
    std::set<int> reads, banks;
    for (size_t slot = 0; slot < sources.size(); ++slot)
      if (previous.empty() || previous[slot] != sources[slot]) reads.insert(sources[slot]);
    for (int r : reads) banks.insert(r % t.banks);
    if (banks.size() < reads.size()) ++same_bank;
    previous = sources;
  }
  return same_bank;
}

inline std::vector<int> fma_order(const Tile& t) {
  return named_order(t.tm, t.tn, kSerpentineColumns);
}

}  // namespace ex05f
