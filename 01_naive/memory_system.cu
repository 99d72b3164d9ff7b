// Chapter 01's memory-system measurements: latency per level, bandwidth by working set,
// Little's law, a random gather and __restrict__, each beside its prediction
// (memory_system_demo.cuh). Takes --iters, --seed, --no-check, --carveout, --csv, --json; the
// buffer sizes are fixed (about 2.3 GB of GPU memory).
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "01_naive/memory_system_demo.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << "usage: " << argv[0] << " [--iters R] [--seed S] [--no-check] [--carveout P]"
                << " [--csv | --json]\n"
                   "Latency per memory level, bandwidth by working set, Little's law, a random\n"
                   "gather and __restrict__, each beside its prediction (about 2.3 GB of GPU\n"
                   "memory, fixed sizes). --iters: timed repetitions per measurement (median).\n";
      return 0;
    }
  tutorial::CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 0;  // no size flags: the buffers are fixed
  defaults.iters = 10;
  using tutorial::CliOptions, tutorial::DeviceInfo, tutorial::OutputFormat;
  return tutorial::guarded_main(argc, argv, defaults, {}, [&](const CliOptions& o,
                                                               const DeviceInfo& d) {
    if (o.m != defaults.m || o.n != defaults.n)
      throw tutorial::UnsupportedShape(
          "01_memory_system measures fixed buffer sizes; it takes no --size, --rows or --cols");
    std::vector<tutorial::ReportRow> rows;
    if (o.format == OutputFormat::Table) {
      std::cout << "Memory system of " << d.name << " (" << d.sm_count << " SMs, "
                << d.l2_bytes / (1 << 20) << " MB L2)\n";
      return ch01::run_memory_system(std::cout, o, d, rows);
    }
    std::ostringstream table;  // the human-readable tables are not printed with --csv/--json
    const int status = ch01::run_memory_system(table, o, d, rows);
    tutorial::print_report(std::cout, tutorial::make_header(d, "memory system", "fixed buffers"), rows, o.format);
    return status;
  });
}
