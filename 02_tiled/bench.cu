// Chapter 02 benchmarks: the three tile widths, chapter 01's best kernel and cuBLAS
// (registered automatically). 8192 only for the tiled kernels: the naive one is too slow there.
#include "01_naive/kernel_list.cuh"
#include "02_tiled/kernel_list.cuh"
#include "common/bench_gemm.hpp"

int main(int argc, char** argv) {
  std::vector<tutorial::GemmKernel> kernels = ch02::chapter_kernels();
  kernels.push_back(ch01::best_kernel());
  tutorial::register_gemm_benchmarks("02_tiled", kernels, {1024, 2048, 4096});
  tutorial::register_gemm_benchmarks("02_tiled", ch02::chapter_kernels(), {8192});
  return tutorial::benchmark_main(argc, argv);
}
