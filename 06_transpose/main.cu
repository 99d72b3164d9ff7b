// Chapter 06: first the coalescing demo (one access pattern per row, the calculator's
// prediction beside the measurement; skipped with --kernel), then every transpose against its
// ceilings, a copy kernel and cudaMemcpy device-to-device, timed in this same process
// (run_transpose_chapter, common/chapter_main.hpp: the transpose twin of the GEMM chapters'
// run_gemm_chapter).
#include <iostream>
#include <string>
#include <vector>

#include "06_transpose/coalescing_demo.cuh"
#include "06_transpose/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  tutorial::CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 8192;
  defaults.iters = 20;
  using tutorial::CliOptions, tutorial::DeviceInfo, tutorial::OutputFormat;
  const std::vector<tutorial::TransposeKernel> copies = {ch06::copy_kernel()};
  const std::vector<tutorial::TransposeKernel> kernels = ch06::chapter_kernels();
  std::vector<std::string> names = tutorial::names_of(copies);
  for (const std::string& name : tutorial::names_of(kernels)) names.push_back(name);
  return tutorial::guarded_main(argc, argv, defaults, names, [&](const CliOptions& o,
                                                                 const DeviceInfo& d) {
    tutorial::check_transpose_size("06_transpose", o.m, o.n);  // before the demo allocates
    // The demo's table goes to stdout with the transpose table, or to stderr when stdout
    // must stay machine-readable (--csv, --json); with --kernel, only the kernels picked run.
    if (o.kernels.empty())
      ch06::run_coalescing_demo(o.format == OutputFormat::Table ? std::cout : std::cerr, o);
    return tutorial::run_transpose_chapter("06_transpose", copies, kernels, o, d);
  });
}
