// Tests of exercise 01a (coalesced naive GEMM). Points per test: exercises/manifest.json.
#include "01_naive/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/gemm.hpp"
#include "exercises/01a_coalesce/coalesce.cuh"
#include "exercises/support/grading.hpp"

using namespace tutorial;
using exercise::grading::gemm_guard_check;

namespace {

void require_correct(int M, int N, int K) {
  const CompareResult r = check_gemm(ex01a::launch_naive_gemm, M, N, K);
  INFO("ex01a::naive_gemm at M=" << M << " N=" << N << " K=" << K << ": " << r.summary());
  REQUIRE(r.ok());
}

}  // namespace

TEST_CASE("01a correct at 1x1x1", "[gpu]") {
  REQUIRE_GPU();
  require_correct(1, 1, 1);
}

TEST_CASE("01a correct at 1x4097x3 and 4097x1x3", "[gpu]") {
  REQUIRE_GPU();
  require_correct(1, 4097, 3);
  require_correct(4097, 1, 3);
}

TEST_CASE("01a correct at 127x33x1025", "[gpu]") {
  REQUIRE_GPU();
  require_correct(127, 33, 1025);
}

TEST_CASE("01a correct at 256x512x128", "[gpu]") {
  REQUIRE_GPU();
  require_correct(256, 512, 128);
}

TEST_CASE("01a writes nothing outside C", "[gpu]") {
  REQUIRE_GPU();
  const auto guard = gemm_guard_check(ex01a::launch_naive_gemm, 127, 33, 65);
  INFO(guard.summary());
  REQUIRE(guard.ok());
}

TEST_CASE("01a speed vs ch01 naive_gemm at 2048", "[gpu][perf]") {
  REQUIRE_REAL_GPU();  // timed: never on the CPU backend (pending there)
  const int n = 2048;
  require_correct(n, n, n);
  const GemmKernel reference = ch01::best_kernel();
  const auto race = exercise::grading::race_gemm(ex01a::launch_naive_gemm, reference.launch, n, n, n);
  exercise::grading::report_race("ex01a::naive_gemm", reference.name, race);
}
