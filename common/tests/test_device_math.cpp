#include "common/catch_compat.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/timing.hpp"

using namespace tutorial;

TEST_CASE("theoretical bandwidth: 2 transfers per clock x bus width", "[device_math]") {
  // H100 SXM: 2619 MHz HBM3, 5120-bit bus -> 3352 GB/s.
  CHECK(theoretical_bandwidth_gbs(2619000, 5120) == Approx(3352.3).epsilon(1e-4));
  // A100 40GB: 1215 MHz, 5120-bit -> 1555 GB/s (the figure PMPP chapter 5 uses).
  CHECK(theoretical_bandwidth_gbs(1215000, 5120) == Approx(1555.2).epsilon(1e-4));
}

TEST_CASE("FP32 peak: SMs x lanes x 2 FLOP x clock", "[device_math]") {
  CHECK(fp32_lanes_per_sm(8, 0) == 64);
  CHECK(fp32_lanes_per_sm(9, 0) == 128);
  // A100: 108 SMs, 64 lanes, 1410 MHz -> 19.5 TFLOP/s (the figure PMPP chapter 5 uses).
  CHECK(fp32_peak_gflops(108, 64, 1410000) == Approx(19491).epsilon(1e-3));
  // H100 SXM: 132 SMs, 128 lanes, 1980 MHz -> 66.9 TFLOP/s.
  CHECK(fp32_peak_gflops(132, 128, 1980000) == Approx(66908).epsilon(1e-3));
}

TEST_CASE("roofline: naive GEMM on the A100 is memory bound at 389 GFLOP/s, 2% of peak",
          "[device_math]") {
  const double bound = roofline_gflops(0.25, 1555, 19500);
  CHECK(bound == Approx(388.75));
  CHECK(bound / 19500 == Approx(0.02).epsilon(0.01));
  // Tiling with TILE_WIDTH 16 gives 4 FLOP/B: 6220 GFLOP/s, still under the 19.5 TFLOP/s roof.
  CHECK(roofline_gflops(4.0, 1555, 19500) == Approx(6220));
  CHECK(roofline_gflops(100.0, 1555, 19500) == Approx(19500));
}

TEST_CASE("GEMM flop and byte counts", "[device_math]") {
  CHECK(gemm_flops(2, 3, 4) == 48);
  CHECK(gemm_compulsory_bytes(2, 3, 4) == 4.0 * (8 + 12 + 6));
  // 4096^3: 137.4 GFLOP over 201 MB: 683 FLOP/B, far beyond any GPU's ridge point.
  CHECK(gemm_flops(4096, 4096, 4096) / gemm_compulsory_bytes(4096, 4096, 4096) ==
        Approx(682.67).epsilon(1e-3));
}

TEST_CASE("timing summary: median, min, max", "[timing]") {
  TimingStats s = summarize_samples({3, 1, 2});
  CHECK(s.median_ms == 2);
  CHECK(s.min_ms == 1);
  CHECK(s.max_ms == 3);
  s = summarize_samples({4, 1, 3, 2});
  CHECK(s.median_ms == 2.5);
  CHECK(s.repetitions == 4);
  CHECK_THROWS(summarize_samples({}));
}

TEST_CASE("version strings", "[device_math]") {
  CHECK(version_string(13000) == "13.0");
  CHECK(version_string(12080) == "12.8");
}
