// Chapter 01 benchmarks: both naive kernels and cuBLAS (registered automatically) at each size.
// There is no previous chapter to race against.
#include "01_naive/kernel_list.cuh"
#include "common/bench_gemm.hpp"

int main(int argc, char** argv) {
  tutorial::register_gemm_benchmarks("01_naive", ch01::chapter_kernels(), {1024, 2048, 4096});
  return tutorial::benchmark_main(argc, argv);
}
