#include "common/bench_timing.hpp"

#include <cuda_runtime.h>

#include <vector>

#include "common/cuda_check.hpp"
#include "common/timing.hpp"

namespace tutorial {

double time_benchmark_iterations(benchmark::State& state, const std::function<void()>& work) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> samples;
  work();
  CUDA_CHECK(cudaDeviceSynchronize());
  for (auto _ : state) {
    flush_l2_cache();
    CUDA_CHECK(cudaEventRecord(start));
    work();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms * 1e-3);
    samples.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize_samples(samples).median_ms;
}

}  // namespace tutorial
