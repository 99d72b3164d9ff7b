// Chapter 06: first the coalescing demo (one access pattern per row, the calculator's
// prediction beside the measurement), then every transpose against its ceilings, a copy
// kernel and cudaMemcpy device-to-device, timed in this same process.
#include <climits>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "06_transpose/access_patterns.cuh"
#include "06_transpose/kernel_list.cuh"
#include "common/chapter_main.hpp"
#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"
#include "common/memory_access.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "common/transpose.hpp"

namespace {

using tutorial::CliOptions;
using tutorial::DeviceInfo;

// ---- The coalescing demo ------------------------------------------------------------

struct DemoRow {
  std::string pattern;
  tutorial::GlobalAccessCost read;  // the calculator's view of one warp's load
  double ms = 0;
};

std::string percent(double fraction) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * fraction << "%";
  return s.str();
}

void print_demo(std::ostream& out, const std::vector<DemoRow>& rows, int n) {
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
  std::vector<size_t> width(titles.size());
  for (size_t c = 0; c < titles.size(); ++c) {
    width[c] = titles[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c)
      out << (c ? "  " : "") << (c == 0 ? std::left : std::right) << std::setw(int(width[c]))
          << row[c];
    out << std::right << "\n";
  };
  line(titles);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : cells) line(row);
  out << "\n";
}

void run_coalescing_demo(std::ostream& out, const CliOptions& o) {
  constexpr int n = 1 << 24;  // 64 MB written per run: beyond the L2, so DRAM does the work
  constexpr int max_stride = 32;
  const tutorial::TimingOptions timing{2, o.iters, true};
  tutorial::DeviceBuffer<float> in(size_t(n) * max_stride + 1), dst(n);
  tutorial::DeviceBuffer<ch06::Point> points(n);
  tutorial::device_memset(in.data(), 0, in.bytes());
  tutorial::device_memset(points.data(), 0, points.bytes());

  std::vector<DemoRow> rows;
  auto gather = [&](const std::string& name, int stride, int offset) {
    DemoRow r{name, tutorial::global_access_cost(
                        tutorial::warp_addresses(4 * uint64_t(offset), 4 * int64_t(stride)), 4)};
    r.ms = tutorial::time_gpu(
               [&] { ch06::launch_gather_copy(in.data(), dst.data(), n, stride, offset); }, timing)
               .median_ms;
    rows.push_back(r);
  };
  gather("stride 1 (coalesced)", 1, 0);
  for (int stride = 2; stride <= max_stride; stride *= 2)
    gather("stride " + std::to_string(stride), stride, 0);
  gather("stride 1, offset +1 float (misaligned)", 1, 1);

  DemoRow aos{"AoS: x of a 16-byte Point",
              tutorial::global_access_cost(tutorial::warp_addresses(0, sizeof(ch06::Point)), 4)};
  aos.ms = tutorial::time_gpu([&] { ch06::launch_x_of_points_aos(points.data(), dst.data(), n); },
                              timing)
               .median_ms;
  rows.push_back(aos);
  DemoRow soa{"SoA: x as its own array",
              tutorial::global_access_cost(tutorial::warp_addresses(0, sizeof(float)), 4)};
  soa.ms = tutorial::time_gpu([&] { ch06::launch_x_of_points_soa(in.data(), dst.data(), n); },
                              timing)
               .median_ms;
  rows.push_back(soa);
  print_demo(out, rows, n);
}

// ---- The transposes -----------------------------------------------------------------

// Refuses what cannot run before anything is allocated (the demo included): more elements
// than the kernels' int indices reach, then more than this GPU's free memory.
void check_size(const CliOptions& o) {
  const int64_t elements = int64_t(o.m) * o.n;
  if (elements > INT_MAX)
    throw tutorial::UnsupportedShape("06_transpose: " + std::to_string(elements) +
                                     " elements; the kernels index with 32-bit int, so at most " +
                                     std::to_string(INT_MAX));
  tutorial::require_device_memory(2 * size_t(elements) * sizeof(float), "the input and output");
}

int run_transposes(const CliOptions& o, const DeviceInfo& device) {
  const int rows = o.m, cols = o.n;
  const double bytes = tutorial::transpose_bytes(rows, cols);
  std::ostringstream shape;
  shape << rows << "x" << cols << " floats (out " << cols << "x" << rows << "), "
        << std::fixed << std::setprecision(1) << bytes / 1e6 << " MB moved";
  std::cerr << "[06_transpose] " << device.name << ", " << shape.str() << "\n";
  const tutorial::ReportHeader header = tutorial::make_header(device, shape.str());
  const tutorial::TimingOptions timing{2, o.iters, true};

  const tutorial::HostMatrix in = tutorial::random_matrix(rows, cols, o.seed);
  tutorial::HostMatrix want;
  if (o.check) {
    want = tutorial::HostMatrix(cols, rows);
    tutorial::cpu_transpose(in.data(), want.data(), rows, cols);
  }
  tutorial::DeviceBuffer<float> d_in(in.values);
  tutorial::DeviceBuffer<float> d_out(size_t(rows) * cols);

  // The ceiling: the driver's own device-to-device copy of the same bytes.
  const tutorial::TimingStats memcpy_time = tutorial::time_gpu(
      [&] { tutorial::copy_device_to_device(d_out.data(), d_in.data(), d_in.bytes()); }, timing);

  auto make_row = [&](const std::string& chapter, const std::string& name,
                      const tutorial::TimingStats& t) {
    tutorial::ReportRow row;
    row.chapter = chapter;
    row.kernel = name;
    row.median_ms = t.median_ms;
    row.min_ms = t.min_ms;
    row.max_ms = t.max_ms;
    row.rate = bytes / (t.median_ms * 1e-3) / 1e9;
    row.rate_unit = "GB/s";
    row.pct_of_ceiling = 100.0 * memcpy_time.median_ms / t.median_ms;
    row.ceiling = "cudaMemcpy D2D";
    return row;
  };
  // `expected` is what d_out must hold afterwards: the input for a copy, its transpose else.
  bool all_ok = true;
  auto check = [&](const tutorial::HostMatrix& expected) -> std::string {
    if (!o.check) return "not checked";
    const std::vector<float> got = d_out.download();
    const tutorial::CompareResult cmp = tutorial::compare(
        got.data(), expected.data(), expected.rows, expected.cols, tutorial::Tolerance::exact());
    all_ok = all_ok && cmp.ok();
    return cmp.ok() ? "ok" : "WRONG: " + cmp.summary();
  };

  std::vector<tutorial::ReportRow> report;
  d_out.poison();
  tutorial::copy_device_to_device(d_out.data(), d_in.data(), d_in.bytes());
  tutorial::ReportRow memcpy_row = make_row("ceiling", "cudaMemcpy D2D", memcpy_time);
  memcpy_row.status = check(in);
  report.push_back(memcpy_row);

  auto run_kernel = [&](const std::string& chapter, const tutorial::TransposeKernel& kernel,
                        const tutorial::HostMatrix& expected) {
    std::cerr << "[06_transpose] " << kernel.name << "\n";
    d_out.poison();
    kernel.launch(d_in.data(), d_out.data(), rows, cols);
    tutorial::device_synchronize();
    const tutorial::Occupancy occ = tutorial::occupancy_of_last_launch(device);
    const std::string status = check(expected);
    const tutorial::TimingStats t = tutorial::time_gpu(
        [&] { kernel.launch(d_in.data(), d_out.data(), rows, cols); }, timing);
    tutorial::ReportRow row = make_row(chapter, kernel.name, t);
    row.status = status;
    row.occupancy = occ.occupancy;
    row.limiter = tutorial::to_string(occ.limiter);
    report.push_back(row);
  };
  run_kernel("ceiling", ch06::copy_kernel(), in);
  for (const tutorial::TransposeKernel& kernel : ch06::chapter_kernels())
    run_kernel("06_transpose", kernel, want);

  tutorial::print_report(std::cout, header, report, o.format);
  return all_ok ? tutorial::kExitOk : tutorial::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 8192;
  defaults.iters = 20;
  return tutorial::guarded_main(argc, argv, defaults, [](const CliOptions& o, const DeviceInfo& d) {
    check_size(o);
    // The demo's table goes to stdout with the transpose table, or to stderr when stdout
    // must stay machine-readable (--csv, --json).
    run_coalescing_demo(o.format == tutorial::OutputFormat::Table ? std::cout : std::cerr, o);
    return run_transposes(o, d);
  });
}
