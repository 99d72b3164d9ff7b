// The checker's answers for exercise 01b (support/host_references.hpp): the warp's addresses
// counted by the harness's warp simulator (common/memory_access.hpp). Compiled into the
// checker only.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/memory_access.hpp"
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

int arg(const Args& a, size_t i) {
  if (a.size() <= i) throw std::invalid_argument("too few arguments");
  return int(a[i]);
}

// A strided warp: lane t reads float offset + t * stride (arguments: stride, offset).
tutorial::GlobalAccessCost warp_cost(const Args& a) {
  return tutorial::global_access_cost(
      tutorial::warp_addresses(uint64_t(arg(a, 1)) * 4, int64_t(arg(a, 0)) * 4), 4);
}

Args block_sectors(const Args& a) {
  if (a.size() != 3) throw std::invalid_argument("block_sectors takes (width, pitch, offset)");
  const long long width = (long long)a[0], pitch = (long long)a[1], offset = (long long)a[2];
  if (width < 1 || width > 32 || offset < 0 || pitch < 1)
    throw std::invalid_argument("block_sectors: width 1..32, offset >= 0, pitch >= 1");
  std::vector<uint64_t> addresses;
  for (long long t = 0; t < 32; ++t)
    addresses.push_back(uint64_t(((t / width) * pitch + offset + t % width) * 4));
  return {double(tutorial::global_access_cost(addresses, 4).sectors)};
}

const exercise::HostReferences references(
    "01b_sectors",
    {{"sectors_touched", [](const Args& a) { return Args{double(warp_cost(a).sectors)}; }},
     {"lines_touched", [](const Args& a) { return Args{double(warp_cost(a).lines)}; }},
     {"sector_efficiency", [](const Args& a) { return Args{warp_cost(a).efficiency()}; }},
     {"line_efficiency", [](const Args& a) { return Args{warp_cost(a).line_efficiency()}; }},
     {"block_sectors", block_sectors}});

}  // namespace
