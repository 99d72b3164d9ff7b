// Chapter 01 tests: the README's arithmetic on the host; both kernels against the CPU
// reference (small sizes) and cuBLAS (large sizes) on the GPU.
#include <string>
#include <vector>

#include "01_naive/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"

using namespace tutorial;

namespace {

// 1x1x1, a single row/column, primes, one past a block edge, non-square.
const std::vector<TestShape> kSmallShapes = {
    {1, 1, 1},    {1, 4097, 3},    {127, 33, 1025}, {4097, 1, 2},  {31, 37, 41},
    {97, 89, 101}, {32, 32, 32},   {33, 33, 33},    {64, 96, 128}, {257, 255, 129},
    {5, 3, 2},    {1025, 7, 1}};

// Large enough that check_gemm compares with cuBLAS.
const std::vector<TestShape> kLargeShapes = {
    {1024, 1024, 1024}, {2048, 1024, 512}, {1000, 1537, 999}};

}  // namespace

// ---------------------------------------------------------------------------------------
// Host: every number the README derives
// ---------------------------------------------------------------------------------------

TEST_CASE("naive GEMM: 2 FLOP per 8 bytes loaded is 0.25 FLOP/B", "[model]") {
  CHECK(ch01::naive_intensity(4096, 4096, 4096) == 0.25);
  CHECK(ch01::naive_intensity(1, 4097, 3) == 0.25);  // independent of the shape
  for (const GemmKernel& k : ch01::chapter_kernels()) CHECK(k.intensity(7, 7, 7) == 0.25);
}

TEST_CASE("A100 roofline: 1555 GB/s x 0.25 FLOP/B = 389 GFLOP/s, 2% of 19.5 TFLOP/s",
          "[model]") {
  const double bound = roofline_gflops(ch01::naive_intensity(1, 1, 1), 1555, 19500);
  CHECK(bound == Approx(388.75));
  CHECK(100 * bound / 19500 == Approx(1.99).epsilon(0.01));
  // 19500 / 1555 = 12.5 FLOP/B is where the A100 stops being memory bound.
  CHECK(19500.0 / 1555 == Approx(12.54).epsilon(0.001));
}

TEST_CASE("H100 SXM and H200 rooflines at 0.25 FLOP/B", "[model]") {
  const double h100_peak = fp32_peak_gflops(132, 128, 1980000);  // 66.9 TFLOP/s
  CHECK(h100_peak == Approx(66908).epsilon(1e-3));
  const double h100 = roofline_gflops(0.25, 3350, h100_peak);
  CHECK(h100 == Approx(837.5));
  CHECK(100 * h100 / h100_peak == Approx(1.25).epsilon(0.01));
  CHECK(roofline_gflops(0.25, 4800, h100_peak) == Approx(1200));  // H200: same SM, 4.8 TB/s
}

TEST_CASE("bytes moved per warp and k step: coalesced 160 B, swapped 1056 B", "[model]") {
  const int sector = 32, line = 128, warp = 32;
  const int coalesced = sector /* A: one broadcast */ + line /* B: 32 consecutive floats */;
  const int swapped = warp * sector /* A: 32 rows, one sector each */ + sector /* B: broadcast */;
  CHECK(coalesced == 160);
  CHECK(swapped == 1056);
  CHECK(double(swapped) / coalesced == Approx(6.6));
}

TEST_CASE("chapter 01 ships the coalesced and the swapped kernel", "[list]") {
  const std::vector<GemmKernel> kernels = ch01::chapter_kernels();
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "naive_gemm");
  CHECK(kernels[1].name == "naive_gemm_swapped");
  CHECK(ch01::best_kernel().launch == &ch01::launch_naive_gemm);
  CHECK(ch01::best_kernel().name == "ch01::naive_gemm");
}

TEST_CASE("launchers refuse empty and int-overflowing shapes before touching the GPU",
          "[refusal]") {
  for (const GemmKernel& k : ch01::chapter_kernels()) {
    INFO(k.name);
    try {
      k.launch(nullptr, nullptr, nullptr, 0, 8, 8);
      FAIL("M=0 accepted");
    } catch (const UnsupportedShape& e) {
      CHECK(std::string(e.what()).find("must all be >= 1, got M=0 N=8 K=8") != std::string::npos);
    }
    CHECK_THROWS_AS(k.launch(nullptr, nullptr, nullptr, 8, 8, -1), UnsupportedShape);
    try {
      k.launch(nullptr, nullptr, nullptr, 65536, 1, 32768);  // A has 2^31 elements
      FAIL("2^31-element A accepted");
    } catch (const UnsupportedShape& e) {
      CHECK(std::string(e.what()).find("A (M x K)") != std::string::npos);
      CHECK(std::string(e.what()).find("32-bit int") != std::string::npos);
    }
  }
}

// ---------------------------------------------------------------------------------------
// GPU: correctness of every kernel
// ---------------------------------------------------------------------------------------

TEST_CASE("naive kernels match the CPU reference on odd, prime and non-square sizes",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const GemmKernel& k : ch01::chapter_kernels()) check_kernel_at(k, kSmallShapes);
}

TEST_CASE("naive kernels match cuBLAS at 1024^3 and on large non-square sizes",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const GemmKernel& k : ch01::chapter_kernels()) check_kernel_at(k, kLargeShapes);
}
