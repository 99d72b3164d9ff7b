// What the grader calls in exercise 03b (exercises/support/entry.hpp). A block is (threads,
// registers per thread, shared memory bytes), an SM (max threads, max blocks, registers,
// shared memory bytes, reservation per block), then optionally the block's carveout
// preference in percent (a ninth argument; -1 or absent: none); limiter returns the Limit's
// position in its enum (0 DoesNotFit, 1 Threads, 2 Registers, 3 SharedMemory, 4 Blocks).
#include "exercises/03b_occupancy/occupancy.hpp"
#include "exercises/support/entry.hpp"

namespace {
using Args = std::vector<double>;
int i(const Args& a, size_t at) { return int(a.at(at)); }
ex03b::Block block(const Args& a) {
  return {i(a, 0), i(a, 1), i(a, 2), a.size() > 8 ? i(a, 8) : -1};
}
ex03b::Sm sm(const Args& a, size_t at) {
  return {i(a, at), i(a, at + 1), i(a, at + 2), i(a, at + 3), i(a, at + 4)};
}
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  using namespace ex03b;
  static const std::vector<Entry> list = {
      host_entry("smem_allocated",
                 [](const Args& a) { return Args{double(smem_allocated(block(a), sm(a, 3)))}; }),
      host_entry("smem_per_sm",
                 [](const Args& a) { return Args{double(smem_per_sm(block(a), sm(a, 3)))}; }),
      host_entry("blocks_by_registers",
                 [](const Args& a) { return Args{double(blocks_by_registers(block(a), sm(a, 3)))}; }),
      host_entry("blocks_per_sm",
                 [](const Args& a) { return Args{double(blocks_per_sm(block(a), sm(a, 3)))}; }),
      host_entry("occupancy", [](const Args& a) { return Args{occupancy(block(a), sm(a, 3))}; }),
      host_entry("limiter",
                 [](const Args& a) { return Args{double(int(limiter(block(a), sm(a, 3))))}; }),
      host_entry("largest_smem_for_blocks", [](const Args& a) {
        return Args{double(largest_smem_for_blocks(i(a, 0), sm(a, 1)))};
      }),
      // (blocks, threads, then the SM)
      host_entry("most_registers", [](const Args& a) {
        return Args{double(most_registers(i(a, 0), i(a, 1), sm(a, 2)))};
      }),
  };
  return list;
}
