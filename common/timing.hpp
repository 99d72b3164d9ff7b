// GPU timing with CUDA events: warm-up, L2 flushed before every repetition, median/min/max.
#pragma once

#include <functional>
#include <vector>

namespace tutorial {

struct TimingOptions {
  int warmup = 2;        // untimed runs: module load, cuBLAS heuristics, clocks ramping up
  int repetitions = 10;  // timed runs
  bool flush_l2 = true;  // overwrite the L2 before each run so inputs come from DRAM
};

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int repetitions = 0;
};

// Pure host logic, unit-tested: the median of an even count is the mean of the middle two.
TimingStats summarize_samples(std::vector<double> samples_ms);

// Runs `work` (which enqueues GPU work on the default stream) and times each repetition
// with a pair of CUDA events; the L2 flush happens outside the timed region.
TimingStats time_gpu(const std::function<void()>& work, const TimingOptions& options = {});

// Writes a buffer twice the size of the L2 cache, evicting whatever the last run left there.
void flush_l2_cache();

}  // namespace tutorial
