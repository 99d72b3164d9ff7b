// Every transpose, the copy kernel and cudaMemcpy device-to-device at 8192² and 16384²
// floats, in one process: GB/s and % of cudaMemcpy as counters.
#include "06_transpose/kernel_list.cuh"
#include "common/bench_gemm.hpp"
#include "common/bench_transpose.hpp"

int main(int argc, char** argv) {
  std::vector<tutorial::TransposeKernel> kernels = {ch06::copy_kernel()};
  for (const tutorial::TransposeKernel& k : ch06::chapter_kernels()) kernels.push_back(k);
  tutorial::register_transpose_benchmarks("06_transpose", kernels, {8192, 16384});
  return tutorial::benchmark_main(argc, argv);
}
