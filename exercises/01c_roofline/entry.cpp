// What the grader calls in exercise 01c (exercises/support/entry.hpp). A GPU is given as two
// numbers, (bandwidth GB/s, peak GFLOP/s).
#include "exercises/01c_roofline/roofline.hpp"
#include "exercises/support/entry.hpp"

namespace {
using Args = std::vector<double>;
ex01c::Gpu gpu(const Args& a, size_t at) { return {a.at(at), a.at(at + 1)}; }
int i(const Args& a, size_t at) { return int(a.at(at)); }
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  using namespace ex01c;
  static const std::vector<Entry> list = {
      host_entry("naive_intensity", [](const Args&) { return Args{naive_intensity()}; }),
      host_entry("tiled_intensity", [](const Args& a) { return Args{tiled_intensity(i(a, 0))}; }),
      host_entry("attainable_gflops",
                 [](const Args& a) { return Args{attainable_gflops(a.at(0), gpu(a, 1))}; }),
      host_entry("percent_of_peak",
                 [](const Args& a) { return Args{percent_of_peak(a.at(0), gpu(a, 1))}; }),
      host_entry("ridge_point", [](const Args& a) { return Args{ridge_point(gpu(a, 0))}; }),
      host_entry("smallest_compute_bound_tile",
                 [](const Args& a) { return Args{double(smallest_compute_bound_tile(gpu(a, 0)))}; }),
      host_entry("naive_global_loads",
                 [](const Args& a) { return Args{naive_global_loads(i(a, 0), i(a, 1), i(a, 2))}; }),
      host_entry("block_intensity",
                 [](const Args& a) { return Args{block_intensity(i(a, 0), i(a, 1))}; }),
      host_entry("smallest_block_rows",
                 [](const Args& a) { return Args{double(smallest_block_rows(i(a, 0), gpu(a, 1)))}; }),
      host_entry("tiled_global_loads", [](const Args& a) {
        return Args{tiled_global_loads(i(a, 0), i(a, 1), i(a, 2), i(a, 3))};
      }),
  };
  return list;
}
