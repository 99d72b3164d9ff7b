// The checker's answers for exercise 06b (support/host_references.hpp): the column store's
// words counted by the memory model's rule (support/shared_memory_rule.hpp), and a verifier
// of swizzles: each row a permutation of its positions, the quarter warps' column stores and
// row reads at one pass each. Many swizzles are right; the checker has no answer to compare
// with. Compiled into the checker only.
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "exercises/support/host_references.hpp"
#include "exercises/support/shared_memory_rule.hpp"

namespace {

using exercise::Args;

int column_wavefronts(int bytes, int pitch, int apart) {
  if ((bytes != 4 && bytes != 8 && bytes != 16) || pitch < 1 || pitch % (bytes / 4) || apart < 1)
    throw std::invalid_argument("column_wavefronts: bytes 4, 8 or 16, pitch a multiple of bytes/4");
  std::vector<long long> words;
  for (long long t = 0; t < 32; ++t) words.push_back(t * apart * pitch);
  return exercise::rule::shared_wavefronts(words, bytes);
}

bool verify_swizzle(const Args& a, const Args& got, std::string& why) {
  if (a.size() != 3) throw std::invalid_argument("swizzle_rows takes (chunks, rows_apart, r0)");
  const int chunks = int(a[0]), apart = int(a[1]), r0 = int(a[2]);
  if (chunks < 8 || chunks % 8 || apart < 1 || r0 < 0)
    throw std::invalid_argument("swizzle_rows: chunks a multiple of 8, rows_apart >= 1, r0 >= 0");
  if (got.size() != size_t(8 * chunks)) {
    why = "expected " + std::to_string(8 * chunks) + " positions (8 rows of " +
          std::to_string(chunks) + "), got " + std::to_string(got.size());
    return false;
  }
  auto row_of = [&](int j) { return std::to_string(r0 + j * apart); };
  std::vector<std::vector<int>> pos(8);
  for (int j = 0; j < 8; ++j) {
    std::set<int> seen;
    for (int c = 0; c < chunks; ++c) {
      const double v = got[size_t(j * chunks + c)];
      if (v != double(int(v)) || v < 0 || v >= chunks || !seen.insert(int(v)).second) {
        why = "row " + row_of(j) + ": chunk " + std::to_string(c) + " goes to position " +
              std::to_string(v) + ": each chunk of a row needs a position of its own in 0.." +
              std::to_string(chunks - 1);
        return false;
      }
      pos[size_t(j)].push_back(int(v));
    }
  }
  // A quarter warp storing chunk c of the 8 rows: positions pos[j][c] of rows r0 + j * apart
  // (each row `chunks` positions, a multiple of 8: the bank group of a position is its value
  // mod 8 in every row).
  for (int c = 0; c < chunks; ++c) {
    std::vector<long long> words;
    for (int j = 0; j < 8; ++j)
      words.push_back(4LL * ((long long)(r0 + j * apart) * chunks + pos[size_t(j)][size_t(c)]));
    words.resize(32, -1);
    const int w = exercise::rule::shared_wavefronts(words, 16);
    if (w != 1) {
      why = "storing chunk " + std::to_string(c) + " of rows " + row_of(0) + ", " + row_of(1) +
            ", ... " + row_of(7) + " (one quarter warp) takes " + std::to_string(w) +
            " passes, not 1";
      return false;
    }
  }
  // A quarter warp reading chunks 8q .. 8q + 7 of one row.
  for (int j = 0; j < 8; ++j)
    for (int q = 0; q < chunks / 8; ++q) {
      std::vector<long long> words;
      for (int c = 8 * q; c < 8 * q + 8; ++c)
        words.push_back(4LL * ((long long)(r0 + j * apart) * chunks + pos[size_t(j)][size_t(c)]));
      words.resize(32, -1);
      const int w = exercise::rule::shared_wavefronts(words, 16);
      if (w != 1) {
        why = "reading chunks " + std::to_string(8 * q) + ".." + std::to_string(8 * q + 7) +
              " of row " + row_of(j) + " (one quarter warp) takes " + std::to_string(w) +
              " passes, not 1";
        return false;
      }
    }
  why = "every row covered; each quarter warp's column store and row read in one pass";
  return true;
}

int i(const Args& a, size_t k) {
  if (a.size() <= k) throw std::invalid_argument("too few arguments");
  return int(a[k]);
}

const exercise::HostReferences references(
    "06b_bank_conflicts",
    {{"column_wavefronts",
      [](const Args& a) { return Args{double(column_wavefronts(i(a, 0), i(a, 1), i(a, 2)))}; }},
     {"smallest_pitch",
      [](const Args& a) {
        const int bytes = i(a, 0), apart = i(a, 1);
        for (int pitch = 32; pitch < 64; pitch += bytes / 4)
          if (column_wavefronts(bytes, pitch, apart) == bytes / 4) return Args{double(pitch)};
        return Args{-1.0};
      }}},
    {{"swizzle_rows", verify_swizzle}});

}  // namespace
