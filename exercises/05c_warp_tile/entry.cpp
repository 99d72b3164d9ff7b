// What the grader calls in exercise 05c (exercises/support/entry.hpp): lane_layout(lanesM, TM,
// TN), a warp piece of WM = lanesM * TM rows and WN = (32 / lanesM) * TN columns, answered by
// lane_tile() for lanes 0..31: each lane's TM/4 row runs, then its TN/4 column runs.
#include "exercises/05c_warp_tile/warp_tile.hpp"
#include "exercises/support/entry.hpp"

#include <stdexcept>

namespace {
using Args = std::vector<double>;

Args lane_layout(const Args& a) {
  const int lanesM = int(a.at(0)), TM = int(a.at(1)), TN = int(a.at(2));
  if (lanesM < 1 || 32 % lanesM != 0 || TM < 4 || TM % 4 || TN < 4 || TN % 4 || TM > 64 || TN > 64)
    throw std::invalid_argument("lane_layout: lanesM divides 32, TM and TN multiples of 4 up to 64");
  const int WM = lanesM * TM, WN = 32 / lanesM * TN;
  Args out;
  std::vector<int> rows(size_t(TM / 4)), cols(size_t(TN / 4));
  for (int lane = 0; lane < 32; ++lane) {
    ex05c::lane_tile(WM, WN, TM, TN, lane, rows.data(), cols.data());
    for (int r : rows) out.push_back(r);
    for (int c : cols) out.push_back(c);
  }
  return out;
}
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {host_entry("lane_layout", lane_layout)};
  return list;
}
