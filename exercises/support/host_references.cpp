#include "exercises/support/host_references.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "common/ceil_div.hpp"
#include "common/device_info.hpp"
#include "common/memory_access.hpp"
#include "exercises/support/chapter_plans.hpp"

namespace exercise {

namespace {

using Reference = std::function<Args(const Args&)>;

int arg(const Args& a, size_t i) { return i < a.size() ? int(a[i]) : 0; }
long long count(const Args& a, size_t i) { return i < a.size() ? (long long)a[i] : 0; }

// 01b: one warp, lane t reads float offset + t * stride.
tutorial::GlobalAccessCost warp_cost(const Args& a) {
  return tutorial::global_access_cost(
      tutorial::warp_addresses(uint64_t(arg(a, 1)) * 4, int64_t(arg(a, 0)) * 4), 4);
}

// 03b: the harness's calculator (common/occupancy.hpp, the runtime's model), for a block
// (threads, registers per thread, shared memory) on an SM (max threads, max blocks,
// registers, shared memory, reservation per block), with the block's carveout preference as
// an optional ninth argument (-1 or absent: none). The SM's shared-memory capacities are those
// of the architecture with that much shared memory (64 KB: 7.5, 100 KB: 8.6, 164 KB: 8.0,
// 228 KB: 9.0); another size has none (no carveout modelled).
tutorial::Occupancy runtime_occupancy(const Args& a) {
  tutorial::SmLimits sm;
  sm.max_threads_per_sm = arg(a, 3);
  sm.max_blocks_per_sm = arg(a, 4);
  sm.registers_per_sm = sm.max_registers_per_block = arg(a, 5);
  sm.smem_per_sm = size_t(arg(a, 6));
  sm.reserved_smem_per_block = size_t(arg(a, 7));
  sm.max_smem_per_block = sm.smem_per_sm - sm.reserved_smem_per_block;
  const std::map<size_t, std::pair<int, int>> capability = {
      {64 * 1024, {7, 5}}, {100 * 1024, {8, 6}}, {164 * 1024, {8, 0}}, {228 * 1024, {9, 0}}};
  const auto cc = capability.find(sm.smem_per_sm);
  if (cc != capability.end())
    sm.smem_capacities_kb = tutorial::smem_capacities_kb(cc->second.first, cc->second.second);
  const int carveout = a.size() > 8 ? arg(a, 8) : -1;
  return tutorial::compute_occupancy({arg(a, 0), arg(a, 1), size_t(arg(a, 2)), carveout}, sm);
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
int largest_smem_for_blocks(int blocks, int max_threads, int max_blocks, int registers, int smem,
                            int reserved) {
  auto fits = [&](int request) {
    const Args a{32, 1, double(request), double(max_threads), double(max_blocks),
                 double(registers), double(smem), double(reserved)};
    return runtime_occupancy(a).limit_smem >= blocks;
  };
  if (!fits(0)) return -1;
  int lo = 0, hi = smem;  // fits(lo); the answer is at most smem
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// 06b: lane t of the first warp of a d x d block reads tile[t % d][t / d], rows W words.
int transposed_degree(int d, int row_words) {
  std::vector<uint32_t> words;
  for (int t = 0; t < 32; ++t) words.push_back(uint32_t((t % d) * row_words + t / d));
  return tutorial::bank_conflict_degree(words);
}
int strided_degree(int stride) {
  std::vector<uint32_t> words;
  for (int t = 0; t < 32; ++t) words.push_back(uint32_t(t * stride));
  return tutorial::bank_conflict_degree(words);
}

const std::map<std::string, Reference>& references() {
  static const std::map<std::string, Reference> table = {
      // 01b_sectors
      {"01b_sectors/sectors_touched", [](const Args& a) { return Args{double(warp_cost(a).sectors)}; }},
      {"01b_sectors/lines_touched", [](const Args& a) { return Args{double(warp_cost(a).lines)}; }},
      {"01b_sectors/sector_efficiency", [](const Args& a) { return Args{warp_cost(a).efficiency()}; }},
      {"01b_sectors/line_efficiency", [](const Args& a) { return Args{warp_cost(a).line_efficiency()}; }},
      // 01c_roofline: (bandwidth GB/s, peak GFLOP/s) describe the GPU.
      {"01c_roofline/naive_intensity", [](const Args&) { return Args{2.0 / 8.0}; }},
      {"01c_roofline/tiled_intensity", [](const Args& a) { return Args{2.0 * a[0] / 8.0}; }},
      {"01c_roofline/attainable_gflops",
       [](const Args& a) { return Args{tutorial::roofline_gflops(a[0], a[1], a[2])}; }},
      {"01c_roofline/percent_of_peak",
       [](const Args& a) { return Args{100.0 * tutorial::roofline_gflops(a[0], a[1], a[2]) / a[2]}; }},
      {"01c_roofline/ridge_point", [](const Args& a) { return Args{a[1] / a[0]}; }},
      {"01c_roofline/smallest_compute_bound_tile",
       [](const Args& a) {
         int tile = 1;
         while (2.0 * tile / 8.0 < a[1] / a[0]) ++tile;
         return Args{double(tile)};
       }},
      {"01c_roofline/naive_global_loads", [](const Args& a) { return Args{2.0 * a[0] * a[1] * a[2]}; }},
      {"01c_roofline/tiled_global_loads",
       [](const Args& a) { return Args{2.0 * a[0] * a[1] * a[2] / a[3]}; }},
      // 03b_occupancy: the block (threads, registers, smem), then the SM (max threads, max
      // blocks, registers, smem, reservation), then the carveout (optional);
      // largest_smem_for_blocks: (blocks, the SM).
      {"03b_occupancy/smem_allocated",
       [](const Args& a) { return Args{double(runtime_occupancy(a).smem_allocated_per_block)}; }},
      {"03b_occupancy/smem_per_sm",
       [](const Args& a) { return Args{double(runtime_occupancy(a).smem_per_sm)}; }},
      {"03b_occupancy/blocks_by_registers",
       [](const Args& a) { return Args{double(runtime_occupancy(a).limit_registers)}; }},
      {"03b_occupancy/blocks_per_sm",
       [](const Args& a) { return Args{double(runtime_occupancy(a).blocks_per_sm)}; }},
      {"03b_occupancy/occupancy", [](const Args& a) { return Args{runtime_occupancy(a).occupancy}; }},
      {"03b_occupancy/limiter",
       [](const Args& a) { return Args{double(exercise_limit(runtime_occupancy(a).limiter))}; }},
      {"03b_occupancy/largest_smem_for_blocks",
       [](const Args& a) {
         return Args{double(largest_smem_for_blocks(arg(a, 0), arg(a, 1), arg(a, 2), arg(a, 3),
                                                    arg(a, 4), arg(a, 5)))};
       }},
      // 03c_strips: the A and B strips of one block, 2 x BLOCK x K floats.
      {"03c_strips/strip_bytes_16", [](const Args& a) { return Args{2.0 * 16 * a[0] * 4}; }},
      {"03c_strips/strip_bytes_32", [](const Args& a) { return Args{2.0 * 32 * a[0] * 4}; }},
      // 06c_predict: the lessons' formulas, written out again.
      {"06c_predict/bytes_in_flight_per_sm", [](const Args& a) { return Args{a[0] * a[1] / a[2]}; }},
      {"06c_predict/latency_seen_ns", [](const Args& a) { return Args{a[0] * a[1] / a[2]}; }},
      {"06c_predict/dram_intensity", [](const Args& a) { return Args{a[0] / (a[1] + a[2])}; }},
      {"06c_predict/percent_of_roofline",
       [](const Args& a) { return Args{100.0 * a[0] / tutorial::roofline_gflops(a[1], a[2], a[3])}; }},
      {"06c_predict/tiled_dram_read_bytes",
       [](const Args& a) {
         const double m = arg(a, 0), n = arg(a, 1), k = arg(a, 2), tile = arg(a, 3);
         const double b = 4 * k * n;
         return Args{4 * m * k + (b <= a[4] ? 1.0 : std::ceil(m / tile)) * b};
       }},
      {"06c_predict/gather_useful_fraction", [](const Args& a) { return Args{12.0 / (8.0 + a[0])}; }},
      {"06c_predict/strided_copy_fraction", [](const Args& a) { return Args{2.0 / (1.0 / a[0] + 1.0)}; }},
      // 06b_bank_conflicts
      {"06b_bank_conflicts/bank_of", [](const Args& a) { return Args{double(arg(a, 0) % 32)}; }},
      {"06b_bank_conflicts/strided_degree", [](const Args& a) { return Args{double(strided_degree(arg(a, 0)))}; }},
      {"06b_bank_conflicts/column_read_degree", [](const Args& a) { return Args{double(strided_degree(arg(a, 0)))}; }},
      {"06b_bank_conflicts/transposed_read_degree",
       [](const Args& a) { return Args{double(transposed_degree(arg(a, 0), arg(a, 1)))}; }},
      {"06b_bank_conflicts/padded_row_words",
       [](const Args& a) {
         int w = arg(a, 0);
         while (transposed_degree(arg(a, 0), w) != 1) ++w;
         return Args{double(w)};
       }},
      // 05a_double_buffer: the question of its README, why one barrier per step is enough.
      // Step t reads buffer t % B and stores into (t + 1) % B: that buffer was last read in
      // step t + 1 - B (none yet if negative); only B = 1 needs a second barrier.
      {"05a_double_buffer/last_read_step",
       [](const Args& a) { return Args{double(std::max(arg(a, 0) + 1 - arg(a, 1), -1))}; }},
      {"05a_double_buffer/barriers_per_step",
       [](const Args& a) { return Args{arg(a, 0) == 1 ? 2.0 : 1.0}; }},
      // 05b_waves: the arithmetic of chapter 05's waves (6_any_shape.cuh's comments), and the
      // chapter's own slice_k and plan_any_shape (chapter_plans.cu).
      {"05b_waves/grid_blocks",
       [](const Args& a) {
         return Args{double((long long)tutorial::ceil_div(arg(a, 0), arg(a, 2)) *
                            tutorial::ceil_div(arg(a, 1), arg(a, 3)) * arg(a, 4))};
       }},
      {"05b_waves/wave_slots", [](const Args& a) { return Args{double(arg(a, 0)) * arg(a, 1)}; }},
      {"05b_waves/waves", [](const Args& a) { return Args{double(count(a, 0)) / double(count(a, 1))}; }},
      {"05b_waves/waves_of_time",
       [](const Args& a) { return Args{double((count(a, 0) + count(a, 1) - 1) / count(a, 1))}; }},
      {"05b_waves/last_wave_fill",
       [](const Args& a) {
         const long long blocks = count(a, 0), slots = count(a, 1);
         const long long before = (blocks - 1) / slots;  // full waves before the last one
         return Args{double(blocks - before * slots) / double(slots)};
       }},
      {"05b_waves/slice_k", [](const Args& a) { return chapter05_slice_k(arg(a, 0), arg(a, 1)); }},
      {"05b_waves/partial_sum_bytes",
       [](const Args& a) {
         const int slices = arg(a, 2);
         return Args{slices > 1 ? (2.0 * slices + 1.0) * arg(a, 0) * arg(a, 1) * 4.0 : 0.0};
       }},
      {"05b_waves/plan",
       [](const Args& a) { return chapter05_plan(arg(a, 0), arg(a, 1), arg(a, 2), arg(a, 3)); }},
      // The grader's self-test fixture (exercises/tools/selftest/fixture).
      {"selftest_fixture/add", [](const Args& a) { return Args{a[0] + a[1]}; }},
      {"selftest_fixture/sum_to", [](const Args& a) { return Args{a[0] * (a[0] + 1) / 2}; }},
      {"selftest_fixture/max_of", [](const Args& a) { return Args{*std::max_element(a.begin(), a.end())}; }},
      {"selftest_fixture/fill_first",
       [](const Args& a) {  // (size, n): a vector of `size` -1s with its first n set to 7
         Args v(size_t(arg(a, 0)), -1.0);
         std::fill(v.begin(), v.begin() + std::min(arg(a, 1), arg(a, 0)), 7.0);
         return v;
       }},
      {"selftest_fixture/neighbour_squares", [](const Args&) { return Args{1, 4, 9, 0}; }},
      {"selftest_fixture/mean",
       [](const Args& a) {
         double s = 0;
         for (double v : a) s += v;
         return Args{s / double(a.size())};
       }},
      {"selftest_fixture/answer", [](const Args&) { return Args{42}; }},
  };
  return table;
}

// The references and verifiers registered by the exercises' reference.cpp files.
std::map<std::string, HostReference>& registered_references() {
  static std::map<std::string, HostReference> table;
  return table;
}
std::map<std::string, HostVerifier>& registered_verifiers() {
  static std::map<std::string, HostVerifier> table;
  return table;
}

}  // namespace

HostReferences::HostReferences(const std::string& exercise,
                               std::vector<std::pair<std::string, HostReference>> references,
                               std::vector<std::pair<std::string, HostVerifier>> verifiers) {
  for (auto& r : references) registered_references()[exercise + "/" + r.first] = std::move(r.second);
  for (auto& v : verifiers) registered_verifiers()[exercise + "/" + v.first] = std::move(v.second);
}

bool host_reference(const std::string& exercise, const std::string& function, const Args& args,
                    Args& out, std::string& error) {
  const std::string key = exercise + "/" + function;
  try {
    const auto own = registered_references().find(key);
    if (own != registered_references().end()) {
      out = own->second(args);
      return true;
    }
  } catch (const std::exception& e) {
    error = key + ": " + e.what();
    return false;
  }
  const auto it = references().find(key);
  if (it == references().end()) {
    error = "the checker has no reference for " + key;
    return false;
  }
  out = it->second(args);
  return true;
}

int host_verify(const std::string& exercise, const std::string& function, const Args& args,
                const Args& got, std::string& why) {
  const std::string key = exercise + "/" + function;
  const auto it = registered_verifiers().find(key);
  if (it == registered_verifiers().end()) {
    why = "the checker has no verifier for " + key;
    return -1;
  }
  try {
    return it->second(args, got, why) ? 1 : 0;
  } catch (const std::exception& e) {
    why = key + ": " + e.what();
    return -1;
  }
}

}  // namespace exercise
