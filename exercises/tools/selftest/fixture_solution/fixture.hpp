// The grader's self-test fixture: a tiny host-only "exercise" whose solution is public. The
// self-test grades this solution, its stub and planted faults (planted.json), each in a clean
// tree, and checks that every fault costs exactly the points of its own test.
#pragma once

#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "exercises/support/exercise.hpp"

namespace fixture {

inline int add(int a, int b) {
  // BEGIN SOLUTION
  return a + b;
  // END SOLUTION
  // STUB: return exercise::todo<int>("selftest_fixture: add", a, b);
}

// 1 + 2 + ... + n
inline long sum_to(int n) {
  // BEGIN SOLUTION
  long sum = 0;
  for (int i = 1; i <= n; ++i) sum += i;
  return sum;
  // END SOLUTION
  // STUB: return exercise::todo<long>("selftest_fixture: sum_to", n);
}

inline int max_of(const std::vector<int>& values) {
  // BEGIN SOLUTION
  const int* p = values.data();
  int best = p[0];
  for (size_t i = 1; i < values.size(); ++i) best = p[i] > best ? p[i] : best;
  return best;
  // END SOLUTION
  // STUB: return exercise::todo<int>("selftest_fixture: max_of", values);
}

// Sets the first n elements of v to 7 and nothing else.
inline void fill_first(std::vector<int>& v, int n) {
  // BEGIN SOLUTION
  int* p = v.data();
  for (int i = 0; i < n; ++i) p[i] = 7;
  // END SOLUTION
  // STUB: exercise::todo("selftest_fixture: fill_first");
  // STUB: (void)v, (void)n;
}

// Four threads: thread t publishes t*t, waits for all four (a barrier), then reads the square
// of thread t+1. The host twin of a kernel's __syncthreads().
inline std::vector<int> neighbour_squares() {
  // BEGIN SOLUTION
  std::vector<int> squares(4, -1), out(4, -1);
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  auto barrier = [&] {
    std::unique_lock<std::mutex> lock(m);
    if (++arrived == 4) cv.notify_all();
    cv.wait(lock, [&] { return arrived == 4; });
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::this_thread::sleep_for(std::chrono::milliseconds(40 * t));  // thread 1 is late
      squares[t] = t * t;
      barrier();
      out[t] = squares[(t + 1) % 4];
    });
  for (auto& thread : threads) thread.join();
  return out;
  // END SOLUTION
  // STUB: return exercise::todo<std::vector<int>>("selftest_fixture: neighbour_squares");
}

inline double mean(const std::vector<double>& values) {
  // BEGIN SOLUTION
  double sum = 0;
  for (double v : values) sum += v;
  return sum / values.size();
  // END SOLUTION
  // STUB: return exercise::todo<double>("selftest_fixture: mean", values);
}

inline int answer() {
  // BEGIN SOLUTION
  return 42;
  // END SOLUTION
  // STUB: return exercise::todo<int>("selftest_fixture: answer");
}

}  // namespace fixture
