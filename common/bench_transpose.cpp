#include "common/bench_transpose.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <map>
#include <memory>

#include "common/bench_timing.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"
#include "common/timing.hpp"

namespace tutorial {

namespace {

struct TransposeProblem {
  DeviceBuffer<float> in, out;
  explicit TransposeProblem(int n) : in(size_t(n) * n), out(size_t(n) * n) {
    std::vector<float> host(size_t(n) * n);
    fill_random(host, 2024);
    in.upload(host);
  }
};

// One pair of buffers per size, shared by every benchmark of that size.
TransposeProblem& problem_of_size(int n) {
  static std::map<int, std::unique_ptr<TransposeProblem>> problems;
  auto& slot = problems[n];
  if (!slot) slot = std::make_unique<TransposeProblem>(n);
  return *slot;
}

void memcpy_d2d(int n) {
  TransposeProblem& p = problem_of_size(n);
  copy_device_to_device(p.out.data(), p.in.data(), p.in.bytes());
}

double memcpy_median_ms(int n) {
  static std::map<int, double> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  return cache[n] = time_gpu([n] { memcpy_d2d(n); }, TimingOptions{2, 20, true}).median_ms;
}

template <typename Work>
void run_timed(benchmark::State& state, int n, Work&& work) {
  const double median = time_benchmark_iterations(state, work);
  state.counters["GB/s"] = transpose_bytes(n, n) / (median * 1e-3) / 1e9;
  state.counters["%memcpy"] = 100.0 * memcpy_median_ms(n) / median;
  state.counters["median_ms"] = median;
}

}  // namespace

void register_transpose_benchmarks(const std::string& chapter,
                                   const std::vector<TransposeKernel>& kernels,
                                   const std::vector<int>& sizes) {
  for (int n : sizes) {
    benchmark::RegisterBenchmark(("cudaMemcpy D2D/" + std::to_string(n)).c_str(),
                                 [n](benchmark::State& state) {
                                   run_timed(state, n, [n] { memcpy_d2d(n); });
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    for (const TransposeKernel& kernel : kernels) {
      const TransposeLauncher launch = kernel.launch;
      benchmark::RegisterBenchmark(
          (chapter + "/" + kernel.name + "/" + std::to_string(n)).c_str(),
          [n, launch](benchmark::State& state) {
            TransposeProblem& p = problem_of_size(n);
            try {
              run_timed(state, n, [&] { launch(p.in.data(), p.out.data(), n, n); });
            } catch (const UnsupportedShape& e) {
              state.SkipWithError(e.what());
            }
          })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace tutorial
