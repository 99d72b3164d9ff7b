#include "exercises/support/host_references.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>

#include "common/device_info.hpp"
#include "common/memory_access.hpp"

namespace exercise {

namespace {

using Args = std::vector<double>;
using Reference = std::function<Args(const Args&)>;

int arg(const Args& a, size_t i) { return i < a.size() ? int(a[i]) : 0; }

// 01b: one warp, lane t reads float offset + t * stride.
tutorial::GlobalAccessCost warp_cost(const Args& a) {
  return tutorial::global_access_cost(
      tutorial::warp_addresses(uint64_t(arg(a, 1)) * 4, int64_t(arg(a, 0)) * 4), 4);
}

// 02b: the textbook model (registers ignored, no reservation, no rounding).
struct Textbook {
  int blocks = 0;
  int limiter = 0;  // ex02b::Limit: 0 DoesNotFit, 1 SharedMemory, 2 Threads, 3 Blocks
};
Textbook textbook_occupancy(int threads, int smem, int sm_threads, int sm_blocks, int sm_smem) {
  if (threads < 1 || smem > sm_smem) return {0, 0};
  const int by_smem = smem > 0 ? sm_smem / smem : INT_MAX;
  const int by_threads = sm_threads / threads;
  const int blocks = std::min({by_smem, by_threads, sm_blocks});
  const int limiter = blocks == by_smem ? 1 : blocks == by_threads ? 2 : 3;
  return {blocks, limiter};
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
      // 02b_occupancy: (threads, smem) of the block, then (max threads, max blocks, smem) of the SM.
      {"02b_occupancy/blocks_per_sm",
       [](const Args& a) {
         return Args{double(textbook_occupancy(arg(a, 0), arg(a, 1), arg(a, 2), arg(a, 3), arg(a, 4)).blocks)};
       }},
      {"02b_occupancy/occupancy",
       [](const Args& a) {
         const Textbook t = textbook_occupancy(arg(a, 0), arg(a, 1), arg(a, 2), arg(a, 3), arg(a, 4));
         return Args{double(t.blocks) * a[0] / a[2]};
       }},
      {"02b_occupancy/limiter",
       [](const Args& a) {
         return Args{double(textbook_occupancy(arg(a, 0), arg(a, 1), arg(a, 2), arg(a, 3), arg(a, 4)).limiter)};
       }},
      {"02b_occupancy/max_smem_for_full_occupancy",
       [](const Args& a) {  // (threads, SM's max threads, max blocks, smem)
         const int blocks = arg(a, 1) / arg(a, 0);
         return Args{blocks > arg(a, 2) ? 0.0 : double(arg(a, 3) / blocks)};
       }},
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

}  // namespace

bool host_reference(const std::string& exercise, const std::string& function, const Args& args,
                    Args& out, std::string& error) {
  const auto it = references().find(exercise + "/" + function);
  if (it == references().end()) {
    error = "the checker has no reference for " + exercise + "/" + function;
    return false;
  }
  out = it->second(args);
  return true;
}

}  // namespace exercise
