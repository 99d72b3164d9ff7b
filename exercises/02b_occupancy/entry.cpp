// What the grader calls in exercise 02b (exercises/support/entry.hpp). A block is (threads,
// shared memory bytes), an SM (max threads, max blocks, shared memory bytes); limiter returns
// the Limit's position in its enum (0 DoesNotFit, 1 SharedMemory, 2 Threads, 3 Blocks).
#include "exercises/02b_occupancy/occupancy.hpp"
#include "exercises/support/entry.hpp"

namespace {
using Args = std::vector<double>;
int i(const Args& a, size_t at) { return int(a.at(at)); }
ex02b::Block block(const Args& a) { return {i(a, 0), i(a, 1)}; }
ex02b::Sm sm(const Args& a, size_t at) { return {i(a, at), i(a, at + 1), i(a, at + 2)}; }
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  using namespace ex02b;
  static const std::vector<Entry> list = {
      host_entry("blocks_per_sm",
                 [](const Args& a) { return Args{double(blocks_per_sm(block(a), sm(a, 2)))}; }),
      host_entry("occupancy", [](const Args& a) { return Args{occupancy(block(a), sm(a, 2))}; }),
      host_entry("limiter",
                 [](const Args& a) { return Args{double(int(limiter(block(a), sm(a, 2))))}; }),
      host_entry("max_smem_for_full_occupancy", [](const Args& a) {
        return Args{double(max_smem_for_full_occupancy(i(a, 0), sm(a, 1)))};
      }),
  };
  return list;
}
