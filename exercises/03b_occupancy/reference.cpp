// The checker's answers for exercise 03b (support/host_references.hpp): the harness's
// calculator (common/occupancy.hpp, the CUDA runtime's model), asked forwards, and by search
// for the inverse questions. Compiled into the checker only.
#include <map>
#include <stdexcept>
#include <utility>

#include "common/device_info.hpp"
#include "common/occupancy.hpp"
#include "exercises/support/host_references.hpp"

namespace {

using exercise::Args;

int arg(const Args& a, size_t i) { return i < a.size() ? int(a[i]) : 0; }

// A block (threads, registers per thread, shared memory) on an SM (max threads, max blocks,
// registers, shared memory, reservation per block) starting at argument `at`, with the block's
// carveout preference as an optional ninth argument (-1 or absent: none). The SM's shared-memory
// capacities are those of the architecture with that much shared memory (64 KB: 7.5, 100 KB:
// 8.6, 164 KB: 8.0, 228 KB: 9.0); another size has none (no carveout modelled).
tutorial::SmLimits sm_of(const Args& a, size_t at) {
  tutorial::SmLimits sm;
  sm.max_threads_per_sm = arg(a, at);
  sm.max_blocks_per_sm = arg(a, at + 1);
  sm.registers_per_sm = sm.max_registers_per_block = arg(a, at + 2);
  sm.smem_per_sm = size_t(arg(a, at + 3));
  sm.reserved_smem_per_block = size_t(arg(a, at + 4));
  sm.max_smem_per_block = sm.smem_per_sm - sm.reserved_smem_per_block;
  const std::map<size_t, std::pair<int, int>> capability = {
      {64 * 1024, {7, 5}}, {100 * 1024, {8, 6}}, {164 * 1024, {8, 0}}, {228 * 1024, {9, 0}}};
  const auto cc = capability.find(sm.smem_per_sm);
  if (cc != capability.end())
    sm.smem_capacities_kb = tutorial::smem_capacities_kb(cc->second.first, cc->second.second);
  return sm;
}

tutorial::Occupancy runtime_occupancy(const Args& a) {
  const int carveout = a.size() > 8 ? arg(a, 8) : -1;
  return tutorial::compute_occupancy({arg(a, 0), arg(a, 1), size_t(arg(a, 2)), carveout}, sm_of(a, 3));
}

// ex03b::Limit: 0 DoesNotFit, 1 Threads, 2 Registers, 3 SharedMemory, 4 Blocks.
int exercise_limit(tutorial::Limiter limiter) {
  switch (limiter) {
    case tutorial::Limiter::Warps: return 1;
    case tutorial::Limiter::Registers: return 2;
    case tutorial::Limiter::SharedMemory: return 3;
    case tutorial::Limiter::Blocks: return 4;
    default: return 0;
  }
}

// The largest request in [0, smem] for which the calculator still fits `blocks` blocks (its
// shared-memory limit alone), or -1: a binary search, the calculator being monotone.
// Arguments: (blocks, then the SM).
Args largest_smem_for_blocks(const Args& a) {
  const int blocks = arg(a, 0), smem = arg(a, 4);
  auto fits = [&](int request) {
    const Args b{32, 1, double(request), a.at(1), a.at(2), a.at(3), a.at(4), a.at(5)};
    return runtime_occupancy(b).limit_smem >= blocks;
  };
  if (!fits(0)) return {-1.0};
  int lo = 0, hi = smem;  // fits(lo); the answer is at most smem
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid; else hi = mid - 1;
  }
  return {double(lo)};
}

// The most registers per thread at which the register file holds `blocks` blocks of
// `threads` (arguments: blocks, threads, then the SM), asked at every register count.
Args most_registers(const Args& a) {
  if (a.size() != 7) throw std::invalid_argument("most_registers takes (blocks, threads, SM x 5)");
  const int blocks = arg(a, 0), threads = arg(a, 1);
  if (blocks < 1 || threads < 32 || threads % 32 || threads > 1024)
    throw std::invalid_argument("most_registers: blocks >= 1, threads a multiple of 32 up to 1024");
  const tutorial::SmLimits sm = sm_of(a, 2);
  int best = 0;
  for (int r = 1; r <= 255; ++r)
    if (tutorial::compute_occupancy({threads, r, 0, -1}, sm).limit_registers >= blocks) best = r;
  return {double(best)};
}

const exercise::HostReferences references(
    "03b_occupancy",
    {{"smem_allocated",
      [](const Args& a) { return Args{double(runtime_occupancy(a).smem_allocated_per_block)}; }},
     {"smem_per_sm", [](const Args& a) { return Args{double(runtime_occupancy(a).smem_per_sm)}; }},
     {"blocks_by_registers",
      [](const Args& a) { return Args{double(runtime_occupancy(a).limit_registers)}; }},
     {"blocks_per_sm", [](const Args& a) { return Args{double(runtime_occupancy(a).blocks_per_sm)}; }},
     {"occupancy", [](const Args& a) { return Args{runtime_occupancy(a).occupancy}; }},
     {"limiter",
      [](const Args& a) { return Args{double(exercise_limit(runtime_occupancy(a).limiter))}; }},
     {"largest_smem_for_blocks", largest_smem_for_blocks},
     {"most_registers", most_registers}});

}  // namespace
