// Chapter 06: every transpose against its ceilings, a copy kernel and cudaMemcpy
// device-to-device, timed in this same process (run_transpose_chapter, common/chapter_main.hpp:
// the transpose twin of the GEMM chapters' run_gemm_chapter).
#include <string>
#include <vector>

#include "06_transpose/kernel_list.cuh"
#include "common/chapter_main.hpp"

int main(int argc, char** argv) {
  tutorial::CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 8192;
  defaults.iters = 20;
  using tutorial::CliOptions, tutorial::DeviceInfo;
  const std::vector<tutorial::TransposeKernel> copies = {ch06::copy_kernel()};
  const std::vector<tutorial::TransposeKernel> kernels = ch06::chapter_kernels();
  std::vector<std::string> names = tutorial::names_of(copies);
  for (const std::string& name : tutorial::names_of(kernels)) names.push_back(name);
  return tutorial::guarded_main(argc, argv, defaults, names, [&](const CliOptions& o,
                                                                 const DeviceInfo& d) {
    return tutorial::run_transpose_chapter("06_transpose", copies, kernels, o, d);
  });
}
