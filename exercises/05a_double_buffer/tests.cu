// Tests of exercise 05a (double-buffered main loop). Points per test: exercises/manifest.json.
#include "05_double_buffer/kernels.cuh"
#include "common/catch_compat.hpp"
#include "common/gemm.hpp"
#include "exercises/05a_double_buffer/double_buffer.cuh"
#include "exercises/support/grading.hpp"

using namespace tutorial;

namespace {

template <int BM, int BN, int BK, int TM, int TN>
void require_correct(int M, int N, int K) {
  const CompareResult r = check_gemm(ex05a::launch_prefetch_gemm<BM, BN, BK, TM, TN>, M, N, K);
  INFO("ex05a::prefetch_gemm<" << BM << "," << BN << "," << BK << "," << TM << "," << TN
                               << "> at M=" << M << " N=" << N << " K=" << K << ": "
                               << r.summary());
  REQUIRE(r.ok());
}

}  // namespace

TEST_CASE("05a correct at 1x1x1 and with a single k step", "[gpu]") {
  REQUIRE_GPU();
  require_correct<128, 128, 8, 8, 8>(1, 1, 1);
  require_correct<128, 128, 8, 8, 8>(64, 64, 8);
}

TEST_CASE("05a correct at 127x33x1025 with 4-byte accesses", "[gpu]") {
  REQUIRE_GPU();
  require_correct<128, 128, 8, 8, 8>(127, 33, 1025);
}

TEST_CASE("05a correct at 129x260x68 with 16-byte accesses", "[gpu]") {
  REQUIRE_GPU();
  require_correct<128, 128, 8, 8, 8>(129, 260, 68);
}

TEST_CASE("05a correct at 1024x1024x1024", "[gpu]") {
  REQUIRE_GPU();
  require_correct<128, 128, 8, 8, 8>(1024, 1024, 1024);
}

TEST_CASE("05a correct with 64x64x16 and 4x4 per thread at 300x200x999", "[gpu]") {
  REQUIRE_GPU();
  require_correct<64, 64, 16, 4, 4>(300, 200, 999);
  require_correct<64, 64, 16, 4, 4>(256, 512, 256);
}

TEST_CASE("05a writes nothing outside C", "[gpu]") {
  REQUIRE_GPU();
  const auto guard = exercise::grading::gemm_guard_check(
      ex05a::launch_prefetch_gemm<128, 128, 8, 8, 8>, 129, 260, 68);
  INFO(guard.summary());
  REQUIRE(guard.ok());
}

TEST_CASE("05a speed vs ch05 prefetch_gemm at 2048", "[gpu][perf]") {
  REQUIRE_REAL_GPU();  // timed: never on the CPU backend (pending there)
  const int n = 2048;
  require_correct<128, 128, 8, 8, 8>(n, n, n);
  const auto race = exercise::grading::race_gemm(ex05a::launch_prefetch_gemm<128, 128, 8, 8, 8>,
                                                 ch05::launch_prefetch_gemm<128, 128, 8, 8, 8>,
                                                 n, n, n);
  exercise::grading::report_race("ex05a::prefetch_gemm<128,128,8,8,8>",
                                 "ch05::prefetch_gemm<128,128,8,8,8>", race);
}
