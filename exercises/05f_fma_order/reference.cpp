// The checker's answers for exercise 05f (support/host_references.hpp): the paid cycles of an
// order, counted per FFMA from a histogram of the banks it reads, and a verifier of orders
// (each cell once, no more cycles than the cheapest named order). Checker only.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exercises/05f_fma_order/tile.hpp"
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;
using ex05f::Tile;

// (tm, tn, a0, b0, c0, c_by_columns, banks): the registers must not overlap.
Tile tile(const Args& a) {
  if (a.size() < 7) throw std::invalid_argument("05f takes (tm, tn, a0, b0, c0, c_by_columns, banks, ...)");
  const Tile t{int(a[0]), int(a[1]), int(a[2]), int(a[3]), int(a[4]), a[5] != 0.0, int(a[6])};
  if (t.tm < 1 || t.tn < 1 || t.tm > 16 || t.tn > 16 || t.banks < 1 || t.banks > 32 ||
      t.a0 < 0 || t.b0 < 0 || t.c0 < 0)
    throw std::invalid_argument("05f: tm, tn in 1..16, banks in 1..32, registers >= 0");
  auto apart = [](int x0, int nx, int y0, int ny) { return x0 + nx <= y0 || y0 + ny <= x0; };
  if (!apart(t.a0, t.tm, t.b0, t.tn) || !apart(t.a0, t.tm, t.c0, t.tm * t.tn) ||
      !apart(t.b0, t.tn, t.c0, t.tm * t.tn))
    throw std::invalid_argument("05f: the registers of a, b and c overlap");
  return t;
}

int cycles(const Tile& t, const std::vector<int>& cells) {
  int total = 0;
  std::vector<int> before;  // the previous FFMA's register per slot
  for (int cell : cells) {
    const int i = cell / t.tn, j = cell % t.tn;
    const std::vector<int> now = {t.a(i), t.b(j), t.c(i, j)};
    std::set<int> read;
    for (size_t slot = 0; slot < now.size(); ++slot)
      if (before.empty() || before[slot] != now[slot]) read.insert(now[slot]);
    std::map<int, int> perBank;
    for (int r : read) ++perBank[r % t.banks];
    int most = 1;
    for (const auto& bank : perBank) most = std::max(most, bank.second);
    total += most - 1;
    before = now;
  }
  return total;
}

// The order the arguments name: code 0..3 a named order, 4 or more a shuffled one (that seed).
std::vector<int> order(const Tile& t, const Args& a) {
  if (a.size() != 8) throw std::invalid_argument("paid_cycles takes the tile and an order code");
  const int code = int(a[7]);
  if (code < 0) throw std::invalid_argument("paid_cycles: order code >= 0");
  return code <= 3 ? ex05f::named_order(t.tm, t.tn, code)
                   : ex05f::shuffled_order(t.tm, t.tn, std::uint32_t(code));
}

int cheapest_named(const Tile& t, int* which) {
  int best = -1;
  for (int code = 0; code <= 3; ++code) {
    const int c = cycles(t, ex05f::named_order(t.tm, t.tn, code));
    if (best < 0 || c < best) best = c, *which = code;
  }
  return best;
}

bool verify_order(const Args& a, const Args& got, std::string& why) {
  const Tile t = tile(a);
  const size_t n = size_t(t.tm * t.tn);
  if (got.size() != n) {
    why = "expected " + std::to_string(n) + " cells (" + std::to_string(t.tm) + " x " +
          std::to_string(t.tn) + "), got " + std::to_string(got.size());
    return false;
  }
  std::vector<int> cells;
  std::vector<bool> seen(n, false);
  for (double v : got) {
    if (!(v >= 0 && v < double(n)) || v != double(int(v)) || seen[size_t(v)]) {
      std::ostringstream text;
      text << "cell " << v << " is not a cell 0.." << n - 1 << " or comes twice";
      why = text.str();
      return false;
    }
    seen[size_t(v)] = true;
    cells.push_back(int(v));
  }
  static const char* names[] = {"rows", "columns", "serpentine rows", "serpentine columns"};
  int which = 0;
  const int bar = cheapest_named(t, &which);
  const int paid = cycles(t, cells);
  why = "your order pays " + std::to_string(paid) + " cycles; " + names[which] + ", the cheapest named order, " +
        std::to_string(bar);
  return paid <= bar;
}

const exercise::HostReferences references(
    "05f_fma_order",
    {{"paid_cycles", [](const Args& a) { const Tile t = tile(a); return Args{double(cycles(t, order(t, a)))}; }}},
    {{"fma_order", verify_order}});

}  // namespace
