// The timed loop shared by every Google Benchmark binary of the tutorial.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>

namespace tutorial {

// Runs `work` once untimed (a warm-up that also surfaces UnsupportedShape before timing), then
// once per benchmark iteration: L2 flushed, the launch timed with CUDA events, the time handed
// to Google Benchmark (use ->UseManualTime()). Returns the median iteration in milliseconds,
// which the callers turn into GFLOP/s or GB/s and a ratio to their ceiling.
double time_benchmark_iterations(benchmark::State& state, const std::function<void()>& work);

}  // namespace tutorial
