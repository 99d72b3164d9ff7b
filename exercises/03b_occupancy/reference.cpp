// The checker's answer for exercise 03b's most_registers (support/host_references.hpp): the
// harness's calculator (common/occupancy.hpp, the CUDA runtime's model) asked at every
// register count. Compiled into the checker only.
#include <stdexcept>

#include "common/occupancy.hpp"
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

Args most_registers(const Args& a) {
  if (a.size() != 7) throw std::invalid_argument("most_registers takes (blocks, threads, SM x 5)");
  const int blocks = int(a[0]), threads = int(a[1]);
  if (blocks < 1 || threads < 32 || threads % 32 || threads > 1024)
    throw std::invalid_argument("most_registers: blocks >= 1, threads a multiple of 32 up to 1024");
  tutorial::SmLimits sm;
  sm.max_threads_per_sm = int(a[2]);
  sm.max_blocks_per_sm = int(a[3]);
  sm.registers_per_sm = sm.max_registers_per_block = int(a[4]);
  sm.smem_per_sm = size_t(a[5]);
  sm.reserved_smem_per_block = size_t(a[6]);
  sm.max_smem_per_block = sm.smem_per_sm - sm.reserved_smem_per_block;
  int best = 0;
  for (int r = 1; r <= 255; ++r)
    if (tutorial::compute_occupancy({threads, r, 0, -1}, sm).limit_registers >= blocks) best = r;
  return {double(best)};
}

const exercise::HostReferences references("03b_occupancy", {{"most_registers", most_registers}});

}  // namespace
