// Chapter 03 benchmarks: the three tile widths, chapter 02's best kernel and cuBLAS
// (registered automatically). The sizes are multiples of every tile, so chapter 02 runs too
// and the two columns show what the bounds checks cost.
#include "02_tiled/kernel_list.cuh"
#include "03_bounds/kernel_list.cuh"
#include "common/bench_gemm.hpp"

int main(int argc, char** argv) {
  std::vector<tutorial::GemmKernel> kernels = ch03::chapter_kernels();
  kernels.push_back(ch02::best_kernel());
  tutorial::register_gemm_benchmarks("03_bounds", kernels, {1024, 2048, 4096, 8192});
  return tutorial::benchmark_main(argc, argv);
}
