#include "common/bench_gemm.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <memory>

#include "common/chapter_main.hpp"
#include "common/bench_timing.hpp"
#include "common/cuda_check.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

namespace tutorial {

namespace {

// One problem per size, shared by all benchmarks of that size (allocating 3×256 MB for every
// benchmark at 8192 would dominate the run).
GemmProblem& problem_of_size(int n) {
  static std::map<int, std::unique_ptr<GemmProblem>> problems;
  auto& slot = problems[n];
  if (!slot) slot = std::make_unique<GemmProblem>(n, n, n, 2024);
  return *slot;
}

CublasHandle& cublas() {
  static CublasHandle handle;
  return handle;
}

double cublas_median_ms(int n) {
  static std::map<int, double> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  GemmProblem& p = problem_of_size(n);
  const TimingStats t = time_gpu(
      [&] { cublas_sgemm(cublas().get(), p.dA.data(), p.dB.data(), p.dC.data(), n, n, n); },
      TimingOptions{2, 10, true});
  return cache[n] = t.median_ms;
}

template <typename Work>
void run_timed(benchmark::State& state, int n, Work&& work) {
  const double median = time_benchmark_iterations(state, work);
  state.counters["GFLOP/s"] = gemm_flops(n, n, n) / (median * 1e-3) / 1e9;
  state.counters["%cuBLAS"] = 100.0 * cublas_median_ms(n) / median;
  state.counters["median_ms"] = median;
}

}  // namespace

void register_gemm_benchmarks(const std::string& chapter, const std::vector<GemmKernel>& kernels,
                              const std::vector<int>& sizes) {
  for (int n : sizes) {
    benchmark::RegisterBenchmark(("cuBLAS/" + std::to_string(n)).c_str(),
                                 [n](benchmark::State& state) {
                                   GemmProblem& p = problem_of_size(n);
                                   run_timed(state, n, [&] {
                                     cublas_sgemm(cublas().get(), p.dA.data(), p.dB.data(),
                                                  p.dC.data(), n, n, n);
                                   });
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    for (const GemmKernel& kernel : kernels) {
      const GemmLauncher launch = kernel.launch;
      benchmark::RegisterBenchmark(
          (chapter + "/" + kernel.name + "/" + std::to_string(n)).c_str(),
          [n, launch](benchmark::State& state) {
            GemmProblem& p = problem_of_size(n);
            try {
              run_timed(state, n, [&] { launch(p.dA.data(), p.dB.data(), p.dC.data(), n, n, n); });
            } catch (const UnsupportedShape& e) {
              state.SkipWithError(e.what());
            }
          })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

namespace {

// --benchmark_list_tests (or =true/1/yes): print the names and run nothing. Read here, before
// Google Benchmark parses the flags, because the no-GPU check comes first.
bool only_listing(int argc, char** argv) {
  const std::string flag = "--benchmark_list_tests";
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == flag) {
      list = true;
    } else if (arg.rfind(flag + "=", 0) == 0) {
      std::string value = arg.substr(flag.size() + 1);
      for (char& c : value) c = char(std::tolower(static_cast<unsigned char>(c)));
      list = !(value == "false" || value == "0" || value == "no" || value == "f" ||
               value == "n" || value == "off");
    }
  }
  return list;
}

}  // namespace

int benchmark_main(int argc, char** argv) {
  std::string why;
  if (cuda_device_count(&why) == 0) {
    // Without a GPU the names can still be listed, so a student can pick a filter.
    if (only_listing(argc, argv)) {
      benchmark::Initialize(&argc, argv);
      if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitUsage;
      benchmark::RunSpecifiedBenchmarks();  // lists, runs nothing
      benchmark::Shutdown();
      return kExitOk;
    }
    std::cerr << "error: " << why << ".\nBenchmarks need an NVIDIA GPU "
              << "(--benchmark_list_tests lists their names without one).\n";
    return kExitNoDevice;
  }
  // Stamp the GPU into the benchmark's context (console header and --benchmark_format=json).
  const DeviceInfo device = query_device(0);
  benchmark::AddCustomContext("gpu", device.name);
  benchmark::AddCustomContext("cuda_driver", version_string(device.driver_version));
  benchmark::AddCustomContext("cuda_runtime", version_string(device.runtime_version));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitUsage;
  try {
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
  benchmark::Shutdown();
  return kExitOk;
}

}  // namespace tutorial
