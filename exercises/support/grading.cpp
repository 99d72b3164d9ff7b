#include "exercises/support/grading.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"
#include "common/timing.hpp"

namespace exercise::grading {

namespace {

// 1024 floats (4 KB) in front keep the output 16-byte aligned for float4 kernels.
constexpr size_t kGuardBefore = 1024;
// The largest tile edge any exercise uses; a kernel that forgets the edge writes at most
// this many rows and columns past the end of the output.
constexpr size_t kMaxTile = 128;

bool is_poison(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits == 0xFFFFFFFFu;  // DeviceBuffer::poison() sets every byte to 0xFF
}

// Runs `run(output)` with the output inside a poisoned guard band and counts the damage.
template <typename Run>
GuardReport guarded_run(size_t output_floats, size_t row_length, Run run) {
  const size_t after = kMaxTile * (row_length + kMaxTile) + kGuardBefore;
  tutorial::DeviceBuffer<float> buffer(kGuardBefore + output_floats + after);
  buffer.poison();
  run(buffer.data() + kGuardBefore);
  tutorial::device_synchronize();
  const std::vector<float> host = buffer.download();
  GuardReport report;
  for (size_t i = 0; i < kGuardBefore; ++i) report.before += !is_poison(host[i]);
  for (size_t i = 0; i < after; ++i) {
    if (is_poison(host[kGuardBefore + output_floats + i])) continue;
    if (report.after++ == 0) report.first_after = i;
  }
  return report;
}

}  // namespace

std::string GuardReport::summary() const {
  std::ostringstream s;
  if (ok()) {
    s << "no write outside the output";
  } else {
    s << "wrote " << before + after << " float(s) outside the output: " << before
      << " in front of it, " << after << " past its end";
    if (after) s << " (the first " << first_after << " floats past the end)";
  }
  return s.str();
}

GuardReport gemm_guard_check(tutorial::GemmLauncher launch, int M, int N, int K, uint64_t seed) {
  tutorial::GemmProblem p(M, N, K, seed);
  return guarded_run(size_t(M) * N, size_t(N), [&](float* C) {
    launch(p.dA.data(), p.dB.data(), C, M, N, K);
  });
}

GuardReport transpose_guard_check(tutorial::TransposeLauncher launch, int rows, int cols,
                                  uint64_t seed) {
  const tutorial::HostMatrix in = tutorial::random_matrix(rows, cols, seed);
  tutorial::DeviceBuffer<float> d_in(in.values);
  // The output is cols x rows: its rows are `rows` floats long.
  return guarded_run(size_t(rows) * cols, size_t(rows), [&](float* out) {
    launch(d_in.data(), out, rows, cols);
  });
}

namespace {

template <typename Student, typename Reference>
Race race(Student student, Reference reference) {
  tutorial::TimingOptions options;
  options.warmup = 2;
  options.repetitions = 9;
  Race r;
  r.student_ms = r.reference_ms = std::numeric_limits<double>::infinity();
  for (int round = 0; round < 3; ++round) {
    r.student_ms = std::min(r.student_ms, tutorial::time_gpu(student, options).median_ms);
    r.reference_ms = std::min(r.reference_ms, tutorial::time_gpu(reference, options).median_ms);
  }
  return r;
}

}  // namespace

Race race_gemm(tutorial::GemmLauncher student, tutorial::GemmLauncher reference, int M, int N,
               int K) {
  tutorial::GemmProblem p(M, N, K, 7);
  tutorial::DeviceBuffer<float> C2(size_t(M) * N);
  return race([&] { student(p.dA.data(), p.dB.data(), p.dC.data(), M, N, K); },
              [&] { reference(p.dA.data(), p.dB.data(), C2.data(), M, N, K); });
}

Race race_transpose(tutorial::TransposeLauncher student, tutorial::TransposeLauncher reference,
                    int rows, int cols) {
  const tutorial::HostMatrix in = tutorial::random_matrix(rows, cols, 7);
  tutorial::DeviceBuffer<float> d_in(in.values);
  tutorial::DeviceBuffer<float> out1(size_t(rows) * cols), out2(size_t(rows) * cols);
  return race([&] { student(d_in.data(), out1.data(), rows, cols); },
              [&] { reference(d_in.data(), out2.data(), rows, cols); });
}

void report_race(const std::string& student, const std::string& reference, const Race& race) {
  char line[512];
  std::snprintf(line, sizeof line,
                "student   %-40s %9.3f ms (best median of 3 rounds)\n"
                "reference %-40s %9.3f ms\n"
                "speed relative to the reference: %.3fx\n"
                "GRADE_RATIO %.6f\n",
                student.c_str(), race.student_ms, reference.c_str(), race.reference_ms,
                race.ratio(), race.ratio());
  std::cout << line << std::flush;
}

}  // namespace exercise::grading
