// The timed repetitions of a speed test, the same code in the student's runner and in the
// reference timer (support/reference_main.cu), so that both processes do identical work
// around the launch they are compared on.
//
// Per repetition r: every operand gets new values on the device (inputs::repetition_seed), the
// launcher runs and the device synchronizes (every stream), and a checksum of the whole output
// (sum of +-1-weighted elements, float64) is stored. The grader runs the reference timer first at
// the same seed; the checker compares every one of the student's checksums with the reference's
// and the last output with its own CPU answer, so each repetition must compute the whole answer
// for its own inputs: skipping a repetition, replaying an old answer or recomputing only what
// changed (nothing is left unchanged) fails the test.
//
// The grader does not trust a time measured inside the student's process: it times the
// whole runner process from outside and compares it with the reference process doing the
// same repetitions (exercises/tools/gradelib/race.py). median_ms is reported for the reference
// and, for the student, only shown.
#pragma once

#include <cstdint>
#include <vector>

#include "exercises/support/entry.hpp"

namespace exercise::timing {

struct Timed {
  std::vector<float> output;  // the output after the last repetition
  std::vector<double> sums;   // one checksum per repetition
  double median_ms = 0;       // host clock around launch + device synchronize
  long launches = 0;          // kernel launches made through tutorial::launch
};

Timed time_gemm(GemmLauncher launch, int M, int N, int K, uint64_t seed, int reps);
Timed time_transpose(TransposeLauncher launch, int rows, int cols, uint64_t seed, int reps);

}  // namespace exercise::timing
