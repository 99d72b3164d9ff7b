// The checker's answers for exercise 05e (support/host_references.hpp), by brute force: every
// iteration of the last wave is given to its block, then the tiles' pieces and the slots'
// loads are counted. Compiled into the checker only.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

struct Problem {
  long long tiles, kIters, slots;
};

Problem problem(const Args& a) {
  if (a.size() < 3) throw std::invalid_argument("(tiles, kIters, slots, ...)");
  Problem p{(long long)a[0], (long long)a[1], (long long)a[2]};
  if (p.tiles < 1 || p.kIters < 1 || p.slots < 1 || p.tiles * p.kIters > 400000000LL)
    throw std::invalid_argument("tiles, kIters, slots >= 1");
  return p;
}

// The first iteration of stream-K block b: the even cut of the last wave's iterations.
long long begin(const Problem& p, long long b) {
  const long long R = p.tiles % p.slots;
  return (p.tiles - R) * p.kIters + R * p.kIters * b / p.slots;
}

// The blocks that work on tile t (one per block whose range meets it), by walking the ranges.
long long pieces(const Problem& p, long long t) {
  long long n = 0;
  for (long long b = 0; b < p.slots; ++b) {
    const long long lo = std::max(begin(p, b), t * p.kIters);
    const long long hi = std::min(begin(p, b + 1), (t + 1) * p.kIters);
    if (lo < hi) ++n;
  }
  return n == 0 ? 1 : n;
}

const exercise::HostReferences references(
    "05e_stream_k",
    {{"range_begin",
      [](const Args& a) {
        const Problem p = problem(a);
        const long long b = (long long)a.at(3);
        if (b < 0 || b > p.slots) throw std::invalid_argument("0 <= b <= slots");
        return Args{double(begin(p, b))};
      }},
     {"pieces",
      [](const Args& a) {
        const Problem p = problem(a);
        const long long fromEnd = (long long)a.at(3);
        if (fromEnd < 0 || fromEnd >= p.tiles) throw std::invalid_argument("a tile of the problem");
        return Args{double(pieces(p, p.tiles - 1 - fromEnd))};
      }},
     {"split_tiles",
      [](const Args& a) {
        const Problem p = problem(a);
        long long split = 0;
        for (long long t = p.tiles - p.tiles % p.slots; t < p.tiles; ++t) split += pieces(p, t) > 1;
        return Args{double(split)};
      }},
     {"busiest_iterations",
      [](const Args& a) {
        const Problem p = problem(a);
        const int mode = int(a.at(3));
        if (mode != 0 && mode != 1) throw std::invalid_argument("mode 0 or 1");
        // Each slot's iterations: one block per tile in waves (mode 0), or the full waves'
        // tiles then its stream-K range (mode 1).
        std::vector<long long> load(size_t(p.slots), 0);
        const long long whole = mode == 0 ? p.tiles : p.tiles - p.tiles % p.slots;
        for (long long t = 0; t < whole; ++t) load[size_t(t % p.slots)] += p.kIters;
        if (mode == 1)
          for (long long b = 0; b < p.slots; ++b) load[size_t(b)] += begin(p, b + 1) - begin(p, b);
        return Args{double(*std::max_element(load.begin(), load.end()))};
      }}});

}  // namespace
