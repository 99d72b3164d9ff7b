// One include for Catch2 2.13 (Debian 12) and Catch2 3.x (current distros, the GPU machine).
// CMake defines TUTORIAL_CATCH2_MAJOR from the Catch2 it found.
#pragma once

#if TUTORIAL_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
using Catch::Approx;  // Catch2 2.x already has a global Approx
#else
#include <catch2/catch.hpp>
#endif

namespace tutorial::test {
// Counters the shared test main uses to turn "every test in this process was skipped" into
// CTest's skip exit code (77) rather than a pass.
void note_skipped();
}  // namespace tutorial::test

// GPU test cases start with this. Without a usable GPU the test is reported as skipped with
// a one-line reason (CTest shows "Skipped"), never as passed.
#if TUTORIAL_CATCH2_MAJOR >= 3
#define TUTORIAL_SKIP_(reason) SKIP(reason)
#else
#define TUTORIAL_SKIP_(reason) \
  do {                         \
    WARN(reason);              \
    return;                    \
  } while (0)
#endif

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string tutorial_why_;                                                 \
    if (!::tutorial::test::gpu_available(&tutorial_why_)) {                    \
      ::tutorial::test::note_skipped();                                        \
      TUTORIAL_SKIP_("SKIPPED: " << tutorial_why_);                            \
    }                                                                          \
  } while (0)

#include <string>
namespace tutorial::test {
bool gpu_available(std::string* why);

// True in the CPU-backend build (common/cpu_backend/), where the kernels run on the CPU.
constexpr bool on_cpu_backend() {
#ifdef TUTORIAL_CPU_BACKEND
  return true;
#else
  return false;
#endif
}
}  // namespace tutorial::test

// Test cases that need the hardware itself (timing, the runtime's occupancy answer, registers
// per thread, copy bandwidth) start with this instead of REQUIRE_GPU(): the same on a GPU
// build, skipped on the CPU backend, which runs every other GPU test.
#ifdef TUTORIAL_CPU_BACKEND
#define REQUIRE_REAL_GPU()                                                                   \
  do {                                                                                       \
    ::tutorial::test::note_skipped();                                                        \
    TUTORIAL_SKIP_("SKIPPED: needs a real GPU, not the CPU backend");                      \
  } while (0)
#else
#define REQUIRE_REAL_GPU() REQUIRE_GPU()
#endif
