// Chapter 01's coalescing demo: one access pattern per row (access_patterns.cuh), the
// calculator's prediction (common/memory_access.hpp) beside the measured bandwidth. main.cu
// runs it before the GEMMs.
#pragma once

#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "01_naive/access_patterns.cuh"
#include "common/cli.hpp"
#include "common/device_buffer.hpp"
#include "common/memory_access.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"

namespace ch01 {

namespace demo {

struct DemoRow {
  std::string pattern;
  tutorial::GlobalAccessCost read;  // the calculator's view of one warp's load
  double ms = 0;
};

inline std::string percent(double fraction) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * fraction << "%";
  return s.str();
}

inline void print_demo(std::ostream& out, const std::vector<DemoRow>& rows, int n) {
  out << "Coalescing demo: out[i] = in[pattern(i)], " << n << " floats, 256 threads per block.\n"
      << "Predicted: the calculator's sectors and lines per warp load; 'read eff.' is the share\n"
      << "of fetched bytes used; the store is always coalesced, so the copy's predicted rate vs\n"
      << "stride 1 is 2 / (1/eff + 1). Measured: useful bytes (read + write) / time.\n\n";
  const std::vector<std::string> titles = {"read pattern", "sectors/load", "lines/load",
                                           "read eff.",   "predicted",    "GB/s",
                                           "measured"};
  std::vector<std::vector<std::string>> cells;
  const double base_ms = rows.front().ms;
  for (const DemoRow& r : rows) {
    const double eff = r.read.efficiency();
    const double gbs = 2.0 * n * sizeof(float) / (r.ms * 1e-3) / 1e9;
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(0) << gbs;
    cells.push_back({r.pattern, std::to_string(r.read.sectors), std::to_string(r.read.lines),
                     percent(eff), percent(2.0 / (1.0 / eff + 1.0)), rate.str(),
                     percent(base_ms / r.ms)});
  }
  tutorial::print_aligned(out, titles, cells, {0});  // the pattern's name; numbers right
  out << "\n";
}

}  // namespace demo

// Runs the demo at 2^24 floats and prints its table to `out`.
inline void run_coalescing_demo(std::ostream& out, const tutorial::CliOptions& o) {
  constexpr int n = 1 << 24;  // 64 MB written per run: beyond the L2, so DRAM does the work
  constexpr int max_stride = 32;
  const tutorial::TimingOptions timing{2, o.iters, true};
  tutorial::DeviceBuffer<float> in(size_t(n) * max_stride + 1), dst(n);
  tutorial::DeviceBuffer<Point> points(n);
  tutorial::device_memset(in.data(), 0, in.bytes());
  tutorial::device_memset(points.data(), 0, points.bytes());

  std::vector<demo::DemoRow> rows;
  auto gather = [&](const std::string& name, int stride, int offset) {
    demo::DemoRow r{name, tutorial::global_access_cost(
                        tutorial::warp_addresses(4 * uint64_t(offset), 4 * int64_t(stride)), 4)};
    r.ms = tutorial::time_gpu(
               [&] { launch_gather_copy(in.data(), dst.data(), n, stride, offset); }, timing)
               .median_ms;
    rows.push_back(r);
  };
  gather("stride 1 (coalesced)", 1, 0);
  for (int stride = 2; stride <= max_stride; stride *= 2)
    gather("stride " + std::to_string(stride), stride, 0);
  gather("stride 1, offset +1 float (misaligned)", 1, 1);

  demo::DemoRow aos{"AoS: x of a 16-byte Point",
              tutorial::global_access_cost(tutorial::warp_addresses(0, sizeof(Point)), 4)};
  aos.ms = tutorial::time_gpu([&] { launch_x_of_points_aos(points.data(), dst.data(), n); },
                              timing)
               .median_ms;
  rows.push_back(aos);
  demo::DemoRow soa{"SoA: x as its own array",
              tutorial::global_access_cost(tutorial::warp_addresses(0, sizeof(float)), 4)};
  soa.ms = tutorial::time_gpu([&] { launch_x_of_points_soa(in.data(), dst.data(), n); },
                              timing)
               .median_ms;
  rows.push_back(soa);
  demo::print_demo(out, rows, n);
}

}  // namespace ch01
