// Choosing a kernel on the GPU in hand: a list of candidates, an estimate that ranks them, and
// a measurement that settles what the estimate cannot.
//
//   tutorial::Chooser<Plan> chooser;            // one per launcher (a static)
//   Plan p = chooser.choose(key, [&] { return candidates; },   // each {plan, estimate, name}
//                           [&](const Plan& p) { run(p); });   // runs one candidate
//
// choose() looks `key` up in its cache first (one entry per device, key and way of choosing).
// Otherwise it asks for the candidates, ranks them by estimate and either takes the cheapest
// (ChooseBy::Estimate) or times a shortlist (ChooseBy::Measure): every candidate whose
// estimate is within `window` times the cheapest's, at most `most` of them, best first. Each
// runs once untimed (module load, workspaces; one that throws is dropped, unless it is the
// estimate's first), then all of them side by side in interleaved rounds, the L2 flushed before
// each run (time_gpu_interleaved); the fastest median wins, unless it beats the estimate's first
// by less than the timer's own spread (kMeasuredMargin): a tie keeps the estimate's choice, so
// that two processes agree where they cannot tell.
//
// How it chooses: ChooseBy::Measure on a GPU, ChooseBy::Estimate on the CPU backend (its times
// are the CPU's) or where TUTORIAL_CHOOSE=estimate (the chapters' --choose estimate sets the
// same); TUTORIAL_CHOOSE_PRINT=1 (or --print-choices) prints every choice to stderr, with the
// estimate and the time of each candidate timed.
//
// What it cannot do: the first call of a key synchronizes the device to read its timers, so it
// cannot be captured into a CUDA graph (call it once before capturing, or choose by estimate);
// its trial runs write the output, so it needs an output buffer the candidates may overwrite;
// where two candidates time within noise, the measured choice may differ from one process to
// the next (the estimate's is the same everywhere); one host thread at a time.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tutorial {

enum class ChooseBy { Estimate, Measure };

// The way of choosing in effect: set_choose_by's, else TUTORIAL_CHOOSE's (estimate | measure),
// else Measure on a GPU and Estimate on the CPU backend.
ChooseBy choose_by();
void set_choose_by(ChooseBy by);
// set_choose_by for a scope, then back to what was in effect before (the tests).
class ChooseByScope {
 public:
  explicit ChooseByScope(ChooseBy by);
  ~ChooseByScope();
  ChooseByScope(const ChooseByScope&) = delete;
  ChooseByScope& operator=(const ChooseByScope&) = delete;

 private:
  int saved_;
};
// Whether choices are printed: set_print_choices's, else TUTORIAL_CHOOSE_PRINT set and not 0.
bool print_choices();
void set_print_choices(bool on);

// A timed candidate must beat the estimate's first by this fraction of its time to replace it:
// the medians of repeated interleaved timings of one launch spread by about 1-2%.
constexpr double kMeasuredMargin = 0.03;

template <class Plan>
struct Candidate {
  Plan plan;
  double estimate = 0;  // any unit, the same for every candidate (chapter 05: SM clocks)
  std::string name;     // for --print-choices and the tests
};

// Candidates ranked by estimate (stable: ties keep their order), then cut to those within
// `window` times the cheapest estimate, at most `most` of them.
template <class Plan>
std::vector<Candidate<Plan>> shortlist(std::vector<Candidate<Plan>> all, double window, int most) {
  std::stable_sort(all.begin(), all.end(), [](const Candidate<Plan>& a, const Candidate<Plan>& b) {
    return a.estimate < b.estimate;
  });
  std::vector<Candidate<Plan>> kept;
  for (const Candidate<Plan>& c : all)
    if (int(kept.size()) < most && (kept.empty() || c.estimate <= window * all[0].estimate))
      kept.push_back(c);
  return kept;
}

namespace detail {
int current_device_for_chooser();
// Runs each of `runs` once (untimed; the ones that throw are marked not runnable, but for the
// first, whose exception propagates), then times the runnable ones side by side; returns the
// index of the winner (see kMeasuredMargin) and fills `ms` with each run's median (< 0: not run).
int time_candidates(const std::vector<std::function<void()>>& runs, std::vector<double>& ms);
// The choice, one line on stderr (print_choices()).
void print_choice(const std::string& key, const std::vector<std::string>& names,
                  const std::vector<double>& estimates, const std::vector<double>& ms, int chosen,
                  ChooseBy by);
}  // namespace detail

// Index of the fastest median, unless it beats medians[0] by less than kMeasuredMargin (then 0).
// Entries < 0 (not run) never win.
int pick_fastest(const std::vector<double>& medians);

template <class Plan>
class Chooser {
 public:
  // window, most: the shortlist's cut (see shortlist()).
  Chooser(double window, int most) : window_(window), most_(most) {}

  template <class MakeCandidates, class Run>
  Plan choose(const std::string& key, MakeCandidates make_candidates, Run run) {
    // BEGIN QUOTE choose
    const ChooseBy by = choose_by();
    const Key k{detail::current_device_for_chooser(), int(by), key};
    auto it = cache_.find(k);
    if (it != cache_.end()) return it->second;
    std::vector<Candidate<Plan>> list =
        shortlist(std::vector<Candidate<Plan>>(make_candidates()), window_,
                  by == ChooseBy::Estimate ? 1 : most_);
    if (list.empty()) throw std::logic_error("Chooser: no candidate for " + key);
    int chosen = 0;
    std::vector<double> ms(list.size(), -1.0);
    if (list.size() > 1) {
      std::vector<std::function<void()>> runs;
      for (const Candidate<Plan>& c : list) runs.push_back([&run, &c] { run(c.plan); });
      chosen = detail::time_candidates(runs, ms);
    }
    // BEGIN ELIDE choose: print the choice where asked (TUTORIAL_CHOOSE_PRINT)
    if (print_choices()) {
      std::vector<std::string> names;
      std::vector<double> estimates;
      for (const Candidate<Plan>& c : list) {
        names.push_back(c.name);
        estimates.push_back(c.estimate);
      }
      detail::print_choice(key, names, estimates, ms, chosen, by);
    }
    // END ELIDE choose
    cache_.emplace(k, list[size_t(chosen)].plan);
    return list[size_t(chosen)].plan;
    // END QUOTE choose
  }

  // Times choose() took a measurement (the tests: a cached key is never timed again).
  size_t cached() const { return cache_.size(); }
  void forget() { cache_.clear(); }

 private:
  using Key = std::tuple<int, int, std::string>;
  double window_;
  int most_;
  std::map<Key, Plan> cache_;
};

}  // namespace tutorial
