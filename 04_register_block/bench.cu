// Chapter 04 benchmarks: the register-blocked kernels, chapter 03's best and cuBLAS
// (registered automatically) at each size.
#include "03_bounds/kernel_list.cuh"
#include "04_register_block/kernel_list.cuh"
#include "common/bench_gemm.hpp"

int main(int argc, char** argv) {
  std::vector<tutorial::GemmKernel> kernels = ch04::chapter_kernels();
  kernels.insert(kernels.begin(), ch03::best_kernel());
  tutorial::register_gemm_benchmarks("04_register_block", kernels, {1024, 2048, 4096, 8192});
  return tutorial::benchmark_main(argc, argv);
}
