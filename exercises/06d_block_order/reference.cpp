// The checker's answers for exercise 06d (support/host_references.hpp), by brute force: every
// row piece of every tile of the wave, as a range of addresses on the side's matrix, joined
// where one ends at another's start; the rows are the union of the tiles' row ranges. Compiled
// into the checker only.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

struct Problem {
  long long rows, cols, th, tw, down, across;  // down, across: tile rows, tile columns
};

long long whole(const Args& a, size_t k) {
  if (a.size() <= k) throw std::invalid_argument("too few arguments");
  if (!(std::fabs(a[k]) < 9e15) || a[k] != std::floor(a[k]))
    throw std::invalid_argument("arguments are whole numbers");
  return (long long)a[k];
}

// (rows, cols, th, tw, ...): the matrix and the tile, checked.
Problem problem(const Args& a) {
  Problem p{whole(a, 0), whole(a, 1), whole(a, 2), whole(a, 3), 0, 0};
  if (p.rows < 1 || p.cols < 1 || p.th < 1 || p.tw < 1)
    throw std::invalid_argument("rows, cols, th and tw must be >= 1");
  if (p.rows > 2147483647LL || p.cols > 2147483647LL || p.th > 1024 || p.tw > 1024)
    throw std::invalid_argument("rows and cols at most 2^31 - 1, th and tw at most 1024");
  p.down = (p.rows + p.th - 1) / p.th;
  p.across = (p.cols + p.tw - 1) / p.tw;
  return p;
}

long long checked_resident(long long resident) {
  if (resident < 1 || resident > 65536) throw std::invalid_argument("resident must be 1..65536");
  return resident;
}

// The tile (tile row, tile column) of the block launched n-th. Diagonal: Ruetsch and
// Micikevicius's rectangular form, written as they do it with the grid's coordinates
// (blockIdx.x = n % across along a tile row, blockIdx.y = n / across).
std::pair<long long, long long> tile(const Problem& p, int order, long long n) {
  if (order == 0) return {n / p.across, n % p.across};
  if (order == 1) return {n % p.down, n / p.down};
  const long long bx = n % p.across, by = n / p.across;
  const long long bid = bx + p.across * by;
  const long long tileRow = bid % p.down;
  return {tileRow, (bid / p.down + tileRow) % p.across};
}

struct Touched {
  long long segments = 0, rows = 0;
};

// Everything wave `wave` touches on `side`, piece by piece: each tile is one piece of each of
// its rows on that side. The tiles are distinct (checked), so no two pieces overlap, and the
// segments are the pieces less the places where one piece ends exactly where another begins.
Touched touched(const Problem& p, int order, long long resident, long long wave, int side) {
  const long long total = p.down * p.across;
  if (wave >= (total + resident - 1) / resident) return {};
  const long long first = wave * resident, last = std::min(total, first + resident);
  const long long pitch = side == 0 ? p.cols : p.rows;
  if ((last - first) * std::min(side == 0 ? p.th : p.tw, side == 0 ? p.rows : p.cols) > (1LL << 25))
    throw std::invalid_argument("more than 2^25 row pieces in one wave: too many for the checker");
  std::vector<long long> ids, begins, ends;             // tile ids; the pieces' [begin, end)
  std::vector<std::pair<long long, long long>> lines;  // each tile's rows of the side: [lo, hi)
  for (long long n = first; n < last; ++n) {
    const auto t = tile(p, order, n);
    ids.push_back(t.first * p.across + t.second);
    const long long r0 = t.first * p.th, r1 = std::min(p.rows, r0 + p.th);
    const long long c0 = t.second * p.tw, c1 = std::min(p.cols, c0 + p.tw);
    // Input: one piece per input row r0..r1 - 1, columns c0..c1 - 1. Output: one per output
    // row c0..c1 - 1 (an input column), columns r0..r1 - 1.
    const long long lo = side == 0 ? r0 : c0, hi = side == 0 ? r1 : c1;
    const long long from = side == 0 ? c0 : r0, to = side == 0 ? c1 : r1;
    lines.push_back({lo, hi});
    for (long long line = lo; line < hi; ++line) {
      begins.push_back(line * pitch + from);
      ends.push_back(line * pitch + to);
    }
  }
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    throw std::logic_error("06d reference: two blocks of one wave on the same tile");
  std::sort(begins.begin(), begins.end());
  std::sort(ends.begin(), ends.end());
  long long joins = 0;  // ends that are also begins
  for (size_t i = 0, j = 0; i < ends.size() && j < begins.size();) {
    if (ends[i] < begins[j]) ++i;
    else if (begins[j] < ends[i]) ++j;
    else ++joins, ++i, ++j;
  }
  Touched out;
  out.segments = (long long)begins.size() - joins;
  // The rows: the union of the tiles' row ranges.
  std::sort(lines.begin(), lines.end());
  long long reach = -1;
  for (const auto& l : lines) {
    out.rows += std::max(0LL, l.second - std::max(l.first, reach));
    reach = std::max(reach, l.second);
  }
  return out;
}

// (rows, cols, th, tw, order, resident, wave, side)
Touched wave_args(const Args& a) {
  if (a.size() != 8)
    throw std::invalid_argument("takes (rows, cols, th, tw, order, resident, wave, side)");
  const Problem p = problem(a);
  const long long order = whole(a, 4), resident = checked_resident(whole(a, 5));
  const long long wave = whole(a, 6), side = whole(a, 7);
  if (order < 0 || order > 2)
    throw std::invalid_argument("order 0 (input rows), 1 (output rows) or 2 (diagonal)");
  if (wave < 0 || wave > (1LL << 40)) throw std::invalid_argument("wave in 0 .. 2^40");
  if (side != 0 && side != 1) throw std::invalid_argument("side 0 (input) or 1 (output)");
  return touched(p, int(order), resident, wave, int(side));
}

Args fewest_segments_order(const Args& a) {
  if (a.size() != 5) throw std::invalid_argument("takes (rows, cols, th, tw, resident)");
  const Problem p = problem(a);
  const long long resident = checked_resident(whole(a, 4));
  // Ranked by (segments read + written, segments written), then the lower order.
  std::vector<std::pair<std::pair<long long, long long>, int>> ranked;
  for (int order = 0; order < 3; ++order) {
    const long long read = touched(p, order, resident, 0, 0).segments;
    const long long written = touched(p, order, resident, 0, 1).segments;
    ranked.push_back({{read + written, written}, order});
  }
  const int best = std::min_element(ranked.begin(), ranked.end())->second;
  return {double(best)};
}

const exercise::HostReferences references(
    "06d_block_order",
    {{"wave_segments", [](const Args& a) { return Args{double(wave_args(a).segments)}; }},
     {"wave_rows", [](const Args& a) { return Args{double(wave_args(a).rows)}; }},
     {"fewest_segments_order", fewest_segments_order}});

}  // namespace
