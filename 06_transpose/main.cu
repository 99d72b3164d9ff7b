// Chapter 06: first the coalescing demo (one access pattern per row, the calculator's
// prediction beside the measurement), then every transpose against its ceilings, a copy
// kernel and cudaMemcpy device-to-device, timed in this same process (run_transpose_chapter,
// common/chapter_main.hpp: the transpose twin of the GEMM chapters' run_gemm_chapter).
#include <iostream>

#include "06_transpose/coalescing_demo.cuh"
#include "06_transpose/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  tutorial::CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 8192;
  defaults.iters = 20;
  using tutorial::CliOptions, tutorial::DeviceInfo, tutorial::OutputFormat;
  return tutorial::guarded_main(argc, argv, defaults, [](const CliOptions& o, const DeviceInfo& d) {
    tutorial::check_transpose_size("06_transpose", o.m, o.n);  // before the demo allocates
    // The demo's table goes to stdout with the transpose table, or to stderr when stdout
    // must stay machine-readable (--csv, --json).
    ch06::run_coalescing_demo(o.format == OutputFormat::Table ? std::cout : std::cerr, o);
    return tutorial::run_transpose_chapter("06_transpose", {ch06::copy_kernel()},
                                           ch06::chapter_kernels(), o, d);
  });
}
