// What the grader calls in exercise 06d (exercises/support/entry.hpp): wave_segments and
// wave_rows (rows, cols, th, tw, order, resident, wave, side), fewest_segments_order (rows,
// cols, th, tw, resident): the order with the fewest segments on both sides together.
#include "exercises/06d_block_order/block_order.hpp"
#include "exercises/support/entry.hpp"

namespace {
using Args = std::vector<double>;
long long n(const Args& a, size_t k) { return (long long)a.at(k); }
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {
      host_entry("wave_segments", [](const Args& a) {
        return Args{double(ex06d::wave_segments(n(a, 0), n(a, 1), n(a, 2), n(a, 3), int(n(a, 4)),
                                                n(a, 5), n(a, 6), int(n(a, 7))))};
      }),
      host_entry("wave_rows", [](const Args& a) {
        return Args{double(ex06d::wave_rows(n(a, 0), n(a, 1), n(a, 2), n(a, 3), int(n(a, 4)),
                                            n(a, 5), n(a, 6), int(n(a, 7))))};
      }),
      host_entry("fewest_segments_order", [](const Args& a) {
        return Args{double(ex06d::fewest_segments_order(n(a, 0), n(a, 1), n(a, 2), n(a, 3),
                                                        n(a, 4)))};
      }),
  };
  return list;
}
