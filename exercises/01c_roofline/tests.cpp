// Tests of exercise 01c (roofline numbers). Host only.
// Points per test: exercises/manifest.json.
#include "common/catch_compat.hpp"
#include "common/device_info.hpp"
#include "exercises/01c_roofline/roofline.hpp"

using namespace ex01c;

TEST_CASE("01c the naive kernel does 0.25 FLOP per byte") {
  CHECK(naive_intensity() == Approx(0.25));
}

TEST_CASE("01c on the A100 the naive kernel is bound at 389 GFLOPS or 2 percent of peak") {
  CHECK(attainable_gflops(naive_intensity(), kA100) == Approx(388.75));
  CHECK(percent_of_peak(naive_intensity(), kA100) == Approx(1.9936).epsilon(1e-3));
}

TEST_CASE("01c tiling with TILE_WIDTH 16 gives 4 FLOP per byte and 6220 GFLOPS") {
  CHECK(tiled_intensity(16) == Approx(4.0));
  CHECK(tiled_intensity(32) == Approx(8.0));
  CHECK(attainable_gflops(tiled_intensity(16), kA100) == Approx(6220.0));
  CHECK(percent_of_peak(tiled_intensity(16), kA100) == Approx(31.897).epsilon(1e-3));
}

TEST_CASE("01c the roofline agrees with the harness for many intensities") {
  const Gpu gpus[] = {kA100, {3350.0, 67000.0}, {900.0, 15700.0}};
  for (const Gpu& gpu : gpus) {
    for (double intensity = 0.125; intensity <= 128; intensity *= 1.5) {
      INFO("bandwidth " << gpu.bandwidth_gbs << " GB/s, peak " << gpu.peak_gflops
                        << " GFLOP/s, intensity " << intensity);
      REQUIRE(attainable_gflops(intensity, gpu) ==
              Approx(tutorial::roofline_gflops(intensity, gpu.bandwidth_gbs, gpu.peak_gflops)));
    }
  }
}

TEST_CASE("01c the A100 ridge point is 12.5 FLOP per byte and TILE_WIDTH 51 first reaches it") {
  CHECK(ridge_point(kA100) == Approx(12.54).epsilon(1e-3));
  CHECK(smallest_compute_bound_tile(kA100) == 51);
  const Gpu h100_sxm{3350.0, 67000.0};  // ridge exactly 20 FLOP/B
  CHECK(ridge_point(h100_sxm) == Approx(20.0));
  CHECK(smallest_compute_bound_tile(h100_sxm) == 80);
}

TEST_CASE("01c tiling divides the global loads by TILE_WIDTH") {
  CHECK(naive_global_loads(1024, 1024, 1024) == Approx(2.0 * 1024 * 1024 * 1024));
  CHECK(naive_global_loads(4, 6, 8) == Approx(384.0));
  CHECK(tiled_global_loads(1024, 1024, 1024, 16) == Approx(2.0 * 1024 * 1024 * 1024 / 16));
  CHECK(tiled_global_loads(64, 32, 96, 32) == Approx(2.0 * 64 * 32 * 96 / 32));
}
