// The exercise's interface with the grader: which functions of the student's file the tests
// call, by name.
//
// Every exercise has an entry file (exercises/<exercise>/entry.cu or entry.cpp) that includes
// the student's file and lists its launchers or functions here. The entry file and the
// student's file are compiled together, in a translation unit of their own that sees only
// this interface (exercises/support/, common/launch.cuh and what it includes), and linked
// into a small program, the runner (support/runner_main.cpp). The grader hands the runner a
// list of calls; the runner makes them and writes what came out; a separate program, the
// checker, compares that with its own reference. Nothing the student's code prints or returns
// from main decides a grade: only answers the checker verified do.
#pragma once

#include <string>
#include <vector>

namespace exercise {

// Row-major C (M x N) = A (M x K) * B (K x N); device pointers; throws to refuse a shape.
using GemmLauncher = void (*)(const float* A, const float* B, float* C, int M, int N, int K);
// out (cols x rows) = in (rows x cols) transposed; device pointers.
using TransposeLauncher = void (*)(const float* in, float* out, int rows, int cols);
// A host function: numbers in, numbers out (a scalar result is a list of one).
using HostFunction = std::vector<double> (*)(const std::vector<double>& args);

struct Entry {
  std::string name;
  GemmLauncher gemm = nullptr;
  TransposeLauncher transpose = nullptr;
  HostFunction host = nullptr;
};

inline Entry gemm_entry(std::string name, GemmLauncher launch) {
  Entry e;
  e.name = std::move(name);
  e.gemm = launch;
  return e;
}

inline Entry transpose_entry(std::string name, TransposeLauncher launch) {
  Entry e;
  e.name = std::move(name);
  e.transpose = launch;
  return e;
}

inline Entry host_entry(std::string name, HostFunction function) {
  Entry e;
  e.name = std::move(name);
  e.host = function;
  return e;
}

// Defined once, in the exercise's entry file.
const std::vector<Entry>& entries();

}  // namespace exercise
