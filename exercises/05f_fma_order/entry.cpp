// What the grader calls in exercise 05f (exercises/support/entry.hpp): paid_cycles(tm, tn, a0,
// b0, c0, c_by_columns, banks, order) with order 0..3 a named order and 4 or more a shuffled
// one (tile.hpp), and fma_order(tm, tn, a0, b0, c0, c_by_columns, banks): the cells in order.
#include "exercises/05f_fma_order/fma_order.hpp"
#include "exercises/support/entry.hpp"

#include <cstdint>
#include <stdexcept>

namespace {
using Args = std::vector<double>;

ex05f::Tile tile(const Args& a) {
  return {int(a.at(0)), int(a.at(1)), int(a.at(2)), int(a.at(3)), int(a.at(4)), a.at(5) != 0.0,
          int(a.at(6))};
}

std::vector<int> order(const ex05f::Tile& t, int code) {
  if (code < 0) throw std::invalid_argument("paid_cycles: order code >= 0");
  return code <= 3 ? ex05f::named_order(t.tm, t.tn, code)
                   : ex05f::shuffled_order(t.tm, t.tn, std::uint32_t(code));
}
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {
      host_entry("paid_cycles",
                 [](const Args& a) {
                   const ex05f::Tile t = tile(a);
                   return Args{double(ex05f::paid_cycles(t, order(t, int(a.at(7)))))};
                 }),
      host_entry("fma_order",
                 [](const Args& a) {
                   Args out;
                   for (int cell : ex05f::fma_order(tile(a))) out.push_back(cell);
                   return out;
                 }),
  };
  return list;
}
