// GPU timing with CUDA events: warm-up, L2 flushed before every repetition, median/min/max;
// several launches timed side by side in interleaved rounds (time_gpu_interleaved).
#pragma once

#include <functional>
#include <vector>

namespace tutorial {

struct TimingOptions {
  int warmup = 2;        // untimed runs: module load, cuBLAS heuristics, clocks ramping up
  int repetitions = 10;  // timed runs
  bool flush_l2 = true;  // overwrite the L2 before each run so inputs come from DRAM
  // time_gpu_interleaved only: after the warm-up runs, keep the GPU busy (rounds of every
  // launch, no waiting in between) until this much wall time has passed, so that the first
  // timed round does not run at a lower clock than the last.
  double warmup_ms = 0;
  // time_gpu_interleaved only: more rounds than `repetitions` where a round is short, until
  // the timed rounds take about this long (at most max_repetitions): the median of a few
  // microseconds' runs needs more samples to settle than that of a few milliseconds'.
  double timed_ms = 0;
  int max_repetitions = 0;
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

// Times several launches against each other: each timed round runs every launch once (L2
// flushed before each, a pair of events around it), starting one later in the list each round,
// and the GPU is never left idle between them; stats[i] is launch i's over `repetitions`
// rounds. A ratio of two of them compares runs made at the same clocks, in the same
// conditions. Before timing: `warmup` runs of each, then more rounds until `warmup_ms` passed;
// then `repetitions` rounds, or more (timed_ms, max_repetitions).
std::vector<TimingStats> time_gpu_interleaved(const std::vector<std::function<void()>>& works,
                                              const TimingOptions& options);

// Writes a buffer twice the size of the L2 cache, evicting whatever the last run left there.
void flush_l2_cache();

}  // namespace tutorial
