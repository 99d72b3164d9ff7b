// The main() of every Catch2 test binary in the repository.
//
// CTest runs one TEST_CASE per process. When every test case that ran was skipped (no GPU, or
// a kernel that does not fit this GPU: common/gemm_test.hpp), we exit with 77, which CTest is
// told (SKIP_RETURN_CODE) means "skipped", so a machine without a GPU shows GPU tests as not
// run instead of passed.
#if TUTORIAL_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_case_info.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <iostream>

#include "common/catch_compat.hpp"
#include "common/device_info.hpp"

namespace tutorial::test {

namespace {
int g_started = 0;
int g_skipped = 0;               // test cases that skipped, each counted once
bool g_this_case_skipped = false;
}  // namespace

void note_skipped() {
  if (!g_this_case_skipped) ++g_skipped;
  g_this_case_skipped = true;
}

bool gpu_available(std::string* why) {
  static std::string reason;
  static const int count = cuda_device_count(&reason);
  if (why) *why = reason;
  return count > 0;
}

#if TUTORIAL_CATCH2_MAJOR >= 3
struct CountingListener : Catch::EventListenerBase {
  using EventListenerBase::EventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override {
    ++g_started;
    g_this_case_skipped = false;
  }
};
#else
struct CountingListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override {
    ++g_started;
    g_this_case_skipped = false;
  }
};
#endif

}  // namespace tutorial::test

using tutorial::test::CountingListener;
CATCH_REGISTER_LISTENER(CountingListener)

int main(int argc, char* argv[]) {
  const int failures = Catch::Session().run(argc, argv);
  using namespace tutorial::test;
  // Catch2 3 itself returns 4 when every test case SKIP()ped.
  const bool only_skips = failures == 0 || (TUTORIAL_CATCH2_MAJOR >= 3 && failures == 4);
  if (only_skips && g_started > 0 && g_skipped == g_started) {
    // No usable GPU, or a kernel this GPU cannot run (its limit is named above).
    std::cout << "all " << g_started << " test case(s) skipped (the reason is above)\n";
    return 77;
  }
  return failures;
}
