// The checker's answers for exercise 06c (support/host_references.hpp): the lessons' formulas
// written out again, the harness's roofline (common/device_info.hpp), and Little's law in
// bytes shared out over the resident warps' loads. Compiled into the checker only.
#include <cmath>
#include <stdexcept>

#include "common/device_info.hpp"

#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

Args loads_in_flight_per_warp(const Args& a) {
  if (a.size() != 5 || a[2] < 1 || a[3] < 1 || a[4] < 1)
    throw std::invalid_argument("(bandwidth GB/s, latency ns, SMs, warps per SM, bytes per lane)");
  const double in_flight = a[0] * 1e9 * a[1] * 1e-9;  // bytes the whole GPU keeps in flight
  const double per_warp_load = 32.0 * a[4];           // bytes one load of a warp moves
  return {in_flight / a[2] / a[3] / per_warp_load};
}

const exercise::HostReferences references(
    "06c_predict",
    {{"bytes_in_flight_per_sm", [](const Args& a) { return Args{a.at(0) * a.at(1) / a.at(2)}; }},
     {"latency_seen_ns", [](const Args& a) { return Args{a.at(0) * a.at(1) / a.at(2)}; }},
     {"dram_intensity", [](const Args& a) { return Args{a.at(0) / (a.at(1) + a.at(2))}; }},
     {"percent_of_roofline",
      [](const Args& a) {
        return Args{100.0 * a.at(0) / tutorial::roofline_gflops(a.at(1), a.at(2), a.at(3))};
      }},
     {"tiled_dram_read_bytes",
      [](const Args& a) {
        const double m = int(a.at(0)), n = int(a.at(1)), k = int(a.at(2)), tile = int(a.at(3));
        const double b = 4 * k * n;
        return Args{4 * m * k + (b <= a.at(4) ? 1.0 : std::ceil(m / tile)) * b};
      }},
     {"gather_useful_fraction", [](const Args& a) { return Args{12.0 / (8.0 + a.at(0))}; }},
     {"strided_copy_fraction", [](const Args& a) { return Args{2.0 / (1.0 / a.at(0) + 1.0)}; }},
     {"loads_in_flight_per_warp", loads_in_flight_per_warp}});

}  // namespace
