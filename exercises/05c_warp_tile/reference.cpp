// The checker's verifier for exercise 05c (support/host_references.hpp): a lane layout is
// right when its lanes own every element of the warp's piece exactly once and its LDS.128 per
// k take no more wavefronts, by the memory model's rule (support/shared_memory_rule.hpp),
// than the best of the chapter's grid in its two lane orders. Many layouts are right: the
// checker verifies, it has no answer to compare with. Compiled into the checker only.
#include <stdexcept>
#include <string>
#include <vector>

#include "exercises/support/host_references.hpp"
#include "exercises/support/shared_memory_rule.hpp"

namespace {

using exercise::Args;

struct Config {
  int lanesM, TM, TN, WM, WN, nA, nB;
};

Config config(const Args& a) {
  if (a.size() != 3) throw std::invalid_argument("lane_layout takes (lanesM, TM, TN)");
  Config c{int(a[0]), int(a[1]), int(a[2]), 0, 0, 0, 0};
  if (c.lanesM < 1 || 32 % c.lanesM != 0 || c.TM < 4 || c.TM % 4 || c.TN < 4 || c.TN % 4)
    throw std::invalid_argument("lane_layout: lanesM divides 32, TM and TN multiples of 4");
  c.WM = c.lanesM * c.TM;
  c.WN = 32 / c.lanesM * c.TN;
  c.nA = c.TM / 4;
  c.nB = c.TN / 4;
  return c;
}

// Wavefronts per k of a layout: runs[lane][i], A's runs then B's.
int cost(const Config& c, const std::vector<std::vector<int>>& runs, std::string* detail) {
  int total = 0;
  std::string a, b;
  for (int i = 0; i < c.nA + c.nB; ++i) {
    std::vector<long long> chunks;
    for (int lane = 0; lane < 32; ++lane) chunks.push_back(runs[size_t(lane)][size_t(i)] / 4);
    const int w = exercise::rule::lds128_wavefronts(chunks);
    total += w;
    (i < c.nA ? a : b) += (i < c.nA ? a : b).empty() ? std::to_string(w) : " + " + std::to_string(w);
  }
  if (detail) *detail = "A's LDS.128 " + a + ", B's " + b;
  return total;
}

// The chapter's grid (WarpLayout), lanes numbered along the columns first or the rows first.
std::vector<std::vector<int>> grid(const Config& c, bool columnsFirst) {
  const int lanesN = 32 / c.lanesM;
  std::vector<std::vector<int>> runs(32);
  for (int lane = 0; lane < 32; ++lane) {
    const int r = columnsFirst ? lane / lanesN : lane % c.lanesM;
    const int col = columnsFirst ? lane % lanesN : lane / c.lanesM;
    for (int i = 0; i < c.nA; ++i) runs[size_t(lane)].push_back(i * c.lanesM * 4 + r * 4);
    for (int j = 0; j < c.nB; ++j) runs[size_t(lane)].push_back(j * lanesN * 4 + col * 4);
  }
  return runs;
}

bool verify(const Args& a, const Args& got, std::string& why) {
  const Config c = config(a);
  const size_t per = size_t(c.nA + c.nB);
  if (got.size() != 32 * per) {
    why = "expected " + std::to_string(32 * per) + " numbers (32 lanes x " + std::to_string(per) +
          " runs), got " + std::to_string(got.size());
    return false;
  }
  std::vector<std::vector<int>> runs(32);
  std::vector<int> owner(size_t(c.WM) * size_t(c.WN), -1);
  for (int lane = 0; lane < 32; ++lane) {
    for (size_t i = 0; i < per; ++i) {
      const double v = got[size_t(lane) * per + i];
      const bool isRow = i < size_t(c.nA);
      const int limit = isRow ? c.WM : c.WN;
      if (v != double(int(v)) || int(v) % 4 != 0 || v < 0 || v > limit - 4) {
        why = "lane " + std::to_string(lane) + "'s " + (isRow ? "row" : "column") +
              " run " + std::to_string(isRow ? i : i - size_t(c.nA)) + " starts at " +
              std::to_string(v) + ": a multiple of 4 in 0.." + std::to_string(limit - 4);
        return false;
      }
      runs[size_t(lane)].push_back(int(v));
    }
    for (int i = 0; i < c.nA; ++i)
      for (int j = 0; j < c.nB; ++j)
        for (int dr = 0; dr < 4; ++dr)
          for (int dc = 0; dc < 4; ++dc) {
            const int row = runs[size_t(lane)][size_t(i)] + dr;
            const int col = runs[size_t(lane)][size_t(c.nA + j)] + dc;
            int& o = owner[size_t(row) * size_t(c.WN) + size_t(col)];
            if (o != -1) {
              why = "element (" + std::to_string(row) + ", " + std::to_string(col) +
                    ") of the " + std::to_string(c.WM) + " x " + std::to_string(c.WN) +
                    " piece is owned twice (lanes " + std::to_string(o) + " and " +
                    std::to_string(lane) + ")";
              return false;
            }
            o = lane;
          }
  }
  // 32 lanes x TM x TN elements, none twice: every element of the piece is owned.
  std::string mine, best;
  const int have = cost(c, runs, &mine);
  const int byColumns = cost(c, grid(c, true), nullptr), byRows = cost(c, grid(c, false), nullptr);
  const int target = byColumns < byRows ? byColumns : byRows;
  const std::string shape = std::to_string(c.WM) + " x " + std::to_string(c.WN) + " with " +
                            std::to_string(c.TM) + " x " + std::to_string(c.TN) + " per lane";
  if (have > target) {
    why = shape + ": every element owned once, but " + mine + ": " + std::to_string(have) +
          " wavefronts per k, where the chapter's grid takes " + std::to_string(byColumns) +
          " with lanes along the columns first and " + std::to_string(byRows) +
          " along the rows first";
    return false;
  }
  why = shape + ": every element owned once; " + mine + ": " + std::to_string(have) +
        " wavefronts per k (the best of the grid's two orders: " + std::to_string(target) + ")";
  return true;
}

const exercise::HostReferences verifiers("05c_warp_tile", {}, {{"lane_layout", verify}});

}  // namespace
