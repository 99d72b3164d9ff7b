// What the grader calls in exercise 05b (exercises/support/entry.hpp). slice_k returns
// (slices, sliceK); plan returns (tile, slices, sliceK, blocks, waves).
#include "exercises/05b_waves/waves.hpp"
#include "exercises/support/entry.hpp"

namespace {
using Args = std::vector<double>;
int i(const Args& a, size_t at) { return int(a.at(at)); }
long long ll(const Args& a, size_t at) { return (long long)a.at(at); }
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  using namespace ex05b;
  static const std::vector<Entry> list = {
      host_entry("grid_blocks", [](const Args& a) {
        return Args{double(grid_blocks(i(a, 0), i(a, 1), i(a, 2), i(a, 3), i(a, 4)))};
      }),
      host_entry("wave_slots", [](const Args& a) { return Args{double(wave_slots(i(a, 0), i(a, 1)))}; }),
      host_entry("waves", [](const Args& a) { return Args{waves(ll(a, 0), ll(a, 1))}; }),
      host_entry("waves_of_time",
                 [](const Args& a) { return Args{double(waves_of_time(ll(a, 0), ll(a, 1)))}; }),
      host_entry("last_wave_fill", [](const Args& a) { return Args{last_wave_fill(ll(a, 0), ll(a, 1))}; }),
      host_entry("slice_k", [](const Args& a) {
        const Cut cut = slice_k(i(a, 0), i(a, 1));
        return Args{double(cut.slices), double(cut.sliceK)};
      }),
      host_entry("best_slices", [](const Args& a) {
        const Cut cut = best_slices(ll(a, 0), i(a, 1), ll(a, 2));
        return Args{double(cut.slices), double(cut.sliceK)};
      }),
      host_entry("partial_sum_bytes",
                 [](const Args& a) { return Args{partial_sum_bytes(i(a, 0), i(a, 1), i(a, 2))}; }),
      host_entry("plan", [](const Args& a) {
        const Plan p = plan(i(a, 0), i(a, 1), i(a, 2), i(a, 3));
        return Args{double(p.tile), double(p.slices), double(p.sliceK), double(p.blocks), p.waves};
      }),
  };
  return list;
}
