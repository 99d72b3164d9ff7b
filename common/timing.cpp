#include "common/timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"

namespace tutorial {

TimingStats summarize_samples(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize_samples: no samples");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  TimingStats s;
  s.repetitions = int(n);
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  s.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return s;
}

void flush_l2_cache() {
  static PerDeviceBuffer<char> scratch;  // allocated once per GPU, freed at exit
  int l2_bytes = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, current_device()));
  const size_t bytes = std::max<size_t>(2 * size_t(l2_bytes), 16u << 20);
  CUDA_CHECK(cudaMemsetAsync(scratch.at_least(bytes), 0, bytes));
}

namespace {
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};
}  // namespace

TimingStats time_gpu(const std::function<void()>& work, const TimingOptions& options) {
  if (options.repetitions < 1) throw std::invalid_argument("time_gpu: repetitions must be >= 1");
  for (int i = 0; i < options.warmup; ++i) work();
  CUDA_CHECK(cudaDeviceSynchronize());

  EventPair events;
  std::vector<double> samples;
  for (int i = 0; i < options.repetitions; ++i) {
    if (options.flush_l2) flush_l2_cache();
    CUDA_CHECK(cudaEventRecord(events.start));
    work();
    CUDA_CHECK(cudaEventRecord(events.stop));
    CUDA_CHECK(cudaEventSynchronize(events.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
    samples.push_back(ms);
  }
  return summarize_samples(std::move(samples));
}

std::vector<TimingStats> time_gpu_interleaved(const std::vector<std::function<void()>>& works,
                                              const TimingOptions& options) {
  if (options.repetitions < 1)
    throw std::invalid_argument("time_gpu_interleaved: repetitions must be >= 1");
  const size_t n = works.size();
  auto round = [&](size_t first) {  // every launch once, from works[first] on
    for (size_t j = 0; j < n; ++j) {
      if (options.flush_l2) flush_l2_cache();
      works[(first + j) % n]();
    }
  };
  // Warm-up: the runs asked for, then batches of rounds, each twice as long as the last and
  // enqueued without waiting, until warmup_ms of wall time have passed.
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const auto start = Clock::now();
  for (int i = 0; i < options.warmup; ++i) round(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  double msPerRound = options.warmup > 0 ? since(start) / options.warmup : 0.0;
  for (int batch = 1; since(start) < options.warmup_ms; batch *= 2) {
    const auto batchStart = Clock::now();
    for (int i = 0; i < batch; ++i) round(0);
    CUDA_CHECK(cudaDeviceSynchronize());
    msPerRound = since(batchStart) / batch;
  }
  int repetitions = options.repetitions;
  if (options.timed_ms > 0 && msPerRound > 0) {
    const double wanted = std::ceil(options.timed_ms / msPerRound);
    repetitions = std::max(repetitions, int(std::min<double>(options.max_repetitions, wanted)));
  }

  // Timed rounds, enqueued back to back: events[r][i] brackets launch i in round r.
  std::vector<std::vector<EventPair>> events;
  for (int r = 0; r < repetitions; ++r) events.emplace_back(n);
  for (int r = 0; r < repetitions; ++r) {
    for (size_t j = 0; j < n; ++j) {
      const size_t i = (size_t(r) + j) % n;
      if (options.flush_l2) flush_l2_cache();
      CUDA_CHECK(cudaEventRecord(events[r][i].start));
      works[i]();
      CUDA_CHECK(cudaEventRecord(events[r][i].stop));
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<TimingStats> stats;
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> samples;
    for (int r = 0; r < repetitions; ++r) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events[r][i].start, events[r][i].stop));
      samples.push_back(ms);
    }
    stats.push_back(summarize_samples(std::move(samples)));
  }
  return stats;
}

}  // namespace tutorial
