// The main() of every Catch2 test binary in the repository.
//
// CTest runs one TEST_CASE per process. When every test case that ran was skipped for lack of
// a GPU, we exit with 77, which CTest is told (SKIP_RETURN_CODE) means "skipped", so a machine
// without a GPU shows GPU tests as not run instead of passed.
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
int g_skipped = 0;
}  // namespace

void note_skipped() { ++g_skipped; }

bool gpu_available(std::string* why) {
  static std::string reason;
  static const int count = cuda_device_count(&reason);
  if (why) *why = reason;
  return count > 0;
}

#if TUTORIAL_CATCH2_MAJOR >= 3
struct CountingListener : Catch::EventListenerBase {
  using EventListenerBase::EventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override { ++g_started; }
};
#else
struct CountingListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override { ++g_started; }
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
    std::cout << "all " << g_started << " test case(s) skipped: no usable CUDA device\n";
    return 77;
  }
  return failures;
}
