// Chapter 01: first the coalescing demo (one read pattern per row, the calculator's prediction
// beside the measurement; skipped with --kernel), then naive_gemm and naive_gemm_swapped timed
// against cuBLAS in one table. The memory system's own measurements are memory_system.cu's
// (`make memory-system`).
#include <iostream>
#include <vector>

#include "01_naive/coalescing_demo.cuh"
#include "01_naive/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  const std::vector<tutorial::GemmKernel> kernels = ch01::chapter_kernels();
  using tutorial::CliOptions, tutorial::DeviceInfo, tutorial::OutputFormat;
  return tutorial::guarded_main(argc, argv, {}, tutorial::names_of(kernels),
                                [&](const CliOptions& o, const DeviceInfo& d) {
    // The demo's table goes to stdout with the GEMM table, or to stderr when stdout must stay
    // machine-readable (--csv, --json); with --kernel, only the kernels picked run.
    if (o.kernels.empty())
      ch01::run_coalescing_demo(o.format == OutputFormat::Table ? std::cout : std::cerr, o);
    return tutorial::run_gemm_chapter("01_naive", kernels, o, d, tutorial::ResourcesTable::Off);
  });
}
