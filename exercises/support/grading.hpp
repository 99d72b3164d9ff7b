// What the exercise tests share (students do not edit this): a check for writes outside the
// output, and the speed race whose ratio the grader turns into points.
//
// A performance test first checks the student's result at the size it times (a fast wrong
// answer earns nothing), then times the student's launcher and the chapter's reference kernel
// in the same process, on the same inputs, alternating, and prints one line
//     GRADE_RATIO <reference time / student time>
// which exercises/tools/grade.py reads: full points at or above the manifest's full_at
// (0.8 by default: within 20% of the chapter), none at or below zero_at (0.3), linear between.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/gemm.hpp"
#include "common/transpose.hpp"

namespace exercise::grading {

// Floats of a poisoned guard band around the output that the launcher overwrote. The output
// is placed inside a larger buffer (GUARD floats before it, enough after it for a kernel
// that ignores the edge of a tile of up to 128 rows and columns); a guard float that no
// longer holds the poison was written out of bounds.
struct GuardReport {
  size_t before = 0;  // floats written in front of the output
  size_t after = 0;   // floats written past its end
  size_t first_after = 0;  // offset past the end of the first one written there
  bool ok() const { return before == 0 && after == 0; }
  std::string summary() const;
};

GuardReport gemm_guard_check(tutorial::GemmLauncher launch, int M, int N, int K,
                             uint64_t seed = 11);
GuardReport transpose_guard_check(tutorial::TransposeLauncher launch, int rows, int cols,
                                  uint64_t seed = 11);

struct Race {
  double student_ms = 0;    // best median over the rounds
  double reference_ms = 0;
  double ratio() const { return reference_ms / student_ms; }  // > 1: the student is faster
};

// Three rounds; each times the student's launcher, then the reference (tutorial::time_gpu:
// warm-up, L2 flushed before each repetition, median), and the best median of each counts.
Race race_gemm(tutorial::GemmLauncher student, tutorial::GemmLauncher reference, int M, int N,
               int K);
Race race_transpose(tutorial::TransposeLauncher student, tutorial::TransposeLauncher reference,
                    int rows, int cols);

// Prints both times and the GRADE_RATIO line.
void report_race(const std::string& student, const std::string& reference, const Race& race);

}  // namespace exercise::grading
