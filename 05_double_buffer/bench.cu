// Chapter 05 benchmarks: this chapter's kernels, chapter 04's best and cuBLAS (registered
// automatically) at each size.
#include "04_register_block/kernel_list.cuh"
#include "05_double_buffer/kernel_list.cuh"
#include "common/bench_gemm.hpp"

int main(int argc, char** argv) {
  std::vector<tutorial::GemmKernel> kernels = ch05::chapter_kernels();
  kernels.insert(kernels.begin(), ch04::best_kernel());
  tutorial::register_gemm_benchmarks("05_double_buffer", kernels, {1024, 2048, 4096, 8192});
  return tutorial::benchmark_main(argc, argv);
}
