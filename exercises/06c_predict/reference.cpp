// The checker's answer for exercise 06c's loads_in_flight_per_warp (support/host_references.hpp):
// Little's law in bytes, then shared out over the resident warps' loads. Compiled into the
// checker only.
#include <stdexcept>

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

const exercise::HostReferences references("06c_predict",
                                          {{"loads_in_flight_per_warp", loads_in_flight_per_warp}});

}  // namespace
