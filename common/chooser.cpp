#include "common/chooser.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>

#include "common/cuda_check.hpp"
#include "common/launch_record.hpp"
#include "common/timing.hpp"

namespace tutorial {

namespace {
// -1: not set by the program (the environment, then the backend, decide).
int g_choose_by = -1;
int g_print = -1;

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}
}  // namespace

ChooseBy choose_by() {
  if (g_choose_by >= 0) return ChooseBy(g_choose_by);
  if (env_is("TUTORIAL_CHOOSE", "estimate")) return ChooseBy::Estimate;
  if (env_is("TUTORIAL_CHOOSE", "measure")) return ChooseBy::Measure;
#ifdef TUTORIAL_CPU_BACKEND
  return ChooseBy::Estimate;
#else
  return ChooseBy::Measure;
#endif
}
void set_choose_by(ChooseBy by) { g_choose_by = int(by); }
ChooseByScope::ChooseByScope(ChooseBy by) : saved_(g_choose_by) { g_choose_by = int(by); }
ChooseByScope::~ChooseByScope() { g_choose_by = saved_; }

bool print_choices() {
  if (g_print >= 0) return g_print != 0;
  const char* v = std::getenv("TUTORIAL_CHOOSE_PRINT");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}
void set_print_choices(bool on) { g_print = on ? 1 : 0; }

int pick_fastest(const std::vector<double>& medians) {
  int best = 0;
  for (int i = 1; i < int(medians.size()); ++i)
    if (medians[i] >= 0 && (medians[best] < 0 || medians[i] < medians[best])) best = i;
  if (best == 0 || medians[0] < 0) return best;
  return medians[best] < (1.0 - kMeasuredMargin) * medians[0] ? best : 0;
}

namespace detail {

int current_device_for_chooser() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

int time_candidates(const std::vector<std::function<void()>>& runs, std::vector<double>& ms) {
  ms.assign(runs.size(), -1.0);
  // The trial runs are not the launcher's launch: the harness's report of "the kernel that
  // ran" must not name a candidate that lost.
  const LaunchesNotRecorded trials;
  std::vector<size_t> runnable;
  for (size_t i = 0; i < runs.size(); ++i) {
    try {
      runs[i]();
    } catch (const std::exception&) {
      if (i == 0) throw;  // the estimate's choice must run
      continue;
    }
    runnable.push_back(i);
  }
  if (runnable.size() == 1) {
    ms[runnable[0]] = 0.0;
    return int(runnable[0]);
  }
  std::vector<std::function<void()>> timed;
  for (size_t i : runnable) timed.push_back(runs[i]);
  TimingOptions options;
  options.warmup = 0;        // (the trial runs above)
  options.warmup_ms = 50.0;  // the clocks up first: a first call may come right after start-up
  options.repetitions = 3;   // more for short runs: up to 50 rounds or about 5 ms of them
  options.timed_ms = 5.0;
  options.max_repetitions = 50;
  const std::vector<TimingStats> stats = time_gpu_interleaved(timed, options);
  for (size_t j = 0; j < runnable.size(); ++j) ms[runnable[j]] = stats[j].median_ms;
  return pick_fastest(ms);
}

void print_choice(const std::string& key, const std::vector<std::string>& names,
                  const std::vector<double>& estimates, const std::vector<double>& ms, int chosen,
                  ChooseBy by) {
  std::ostringstream s;
  s << "[choose] " << key << ": " << names[size_t(chosen)]
    << (by == ChooseBy::Estimate ? " (estimate)" : " (measured)");
  if (names.size() > 1) {
    s << ";";
    for (size_t i = 0; i < names.size(); ++i) {
      s << " " << names[i] << " est " << estimates[i] / estimates[0];
      if (ms[i] >= 0) s << " " << ms[i] << " ms";
      s << (i + 1 < names.size() ? "," : "");
    }
  }
  std::cerr << s.str() << "\n";
}

}  // namespace detail
}  // namespace tutorial
