// Chapter 02 tests: the README's arithmetic and the launcher's refusals on the host; every
// tile width against the CPU reference (small sizes) and cuBLAS (large sizes) on the GPU.
#include <string>
#include <vector>

#include "02_tiled/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"

using namespace tutorial;

namespace {

// Every shipped configuration, with its tile width for building shapes.
const std::vector<TiledKernel> kTiles = {
    {8, ch02::tiled_kernel<8>()}, {16, ch02::tiled_kernel<16>()}, {32, ch02::tiled_kernel<32>()}};

}  // namespace

// ---------------------------------------------------------------------------------------
// Host: every number the README derives
// ---------------------------------------------------------------------------------------

TEST_CASE("tiling cuts global traffic TILE_WIDTH-fold: T/4 FLOP/B", "[model]") {
  CHECK(ch02::tiled_intensity<8>(64, 64, 64) == 2.0);
  CHECK(ch02::tiled_intensity<16>(64, 64, 64) == 4.0);
  CHECK(ch02::tiled_intensity<32>(64, 64, 64) == 8.0);
  CHECK(ch02::tiled_intensity<16>(1, 1, 1) == 16 * 0.25);  // 16 times the naive 0.25
  // Bytes each thread loads from global memory: 2K floats naive, 2K/T floats tiled.
  const double M = 4096, N = 4096, K = 4096;
  const double naive_bytes = 2 * M * N * K * sizeof(float);
  CHECK(naive_bytes / 1e9 == Approx(549.76).epsilon(1e-4));
  CHECK(naive_bytes / 16 / 1e9 == Approx(34.36).epsilon(1e-3));
}

TEST_CASE("model throughput: A100 6220 GFLOP/s at 16, H100 SXM 13400 at 16", "[model]") {
  CHECK(roofline_gflops(ch02::tiled_intensity<16>(1, 1, 1), 1555, 19500) == Approx(6220));
  CHECK(100 * 6220.0 / 19500 == Approx(31.9).epsilon(0.01));
  CHECK(roofline_gflops(ch02::tiled_intensity<32>(1, 1, 1), 1555, 19500) == Approx(12440));
  CHECK(roofline_gflops(ch02::tiled_intensity<8>(1, 1, 1), 1555, 19500) == Approx(3110));
  const double h100_peak = fp32_peak_gflops(132, 128, 1980000);
  CHECK(roofline_gflops(4.0, 3350, h100_peak) == Approx(13400));
  CHECK(roofline_gflops(8.0, 3350, h100_peak) == Approx(26800));
  // Ridge points (FLOP/B where memory stops being the limit): A100 12.5, H100 SXM 20.
  CHECK(19500.0 / 1555 == Approx(12.54).epsilon(0.001));
  CHECK(h100_peak / 3350 == Approx(19.97).epsilon(0.001));
}

TEST_CASE("shared memory issue rate: at most one warp-wide load per clock per SM", "[model]") {
  // Each FMA of the inner loop needs Bs[k][threadCol], a warp-wide shared load of 128 bytes,
  // and an SM's shared memory delivers 32 banks x 4 bytes = 128 bytes per clock.
  const int bytes_per_clock = 32 * 4;
  const int warp_fmas_per_clock_h100 = 128 / 32;  // 128 FP32 lanes
  const int warp_fmas_per_clock_a100 = 64 / 32;   // 64 FP32 lanes
  CHECK(bytes_per_clock == 128);
  CHECK(1.0 / warp_fmas_per_clock_h100 == 0.25);  // at most 25% of the H100's FP32 peak
  CHECK(1.0 / warp_fmas_per_clock_a100 == 0.5);   // at most 50% of the A100's
  CHECK(0.25 * fp32_peak_gflops(132, 128, 1980000) == Approx(16727).epsilon(1e-3));
}

TEST_CASE("the whole-strip kernel (not shipped): K limited by shared memory", "[model]") {
  // It keeps a BLOCK x K strip of A and a K x BLOCK strip of B: 2 * BLOCK * K * 4 bytes.
  auto max_k = [](int bytes, int block) { return bytes / (2 * block * int(sizeof(float))); };
  CHECK(max_k(48 * 1024, 16) == 384);   // static shared memory limit, 48 KB
  CHECK(max_k(48 * 1024, 32) == 192);
  CHECK(max_k(227 * 1024, 16) == 1816); // H100 opt-in limit, 227 KB
  CHECK(max_k(227 * 1024, 32) == 908);
  CHECK(max_k(163 * 1024, 16) == 1304); // A100 opt-in limit, 163 KB
  // Global reads (elements): naive 2*M*N*K; whole strip or sliding tile M*K*(N/BLOCK) +
  // K*N*(M/BLOCK) = 2*M*N*K/BLOCK. The sliding tile needs only 2 * BLOCK^2 * 4 bytes.
  const double M = 1024, N = 1024, K = 1024, BLOCK = 16;
  const double naive = 2 * M * N * K;
  const double tiled = M * K * (N / BLOCK) + K * N * (M / BLOCK);
  CHECK(naive / tiled == BLOCK);
  CHECK(2 * 16 * 16 * sizeof(float) == 2048);
  CHECK(2 * 32 * 32 * sizeof(float) == 8192);
}

TEST_CASE("chapter 02 ships TILE_WIDTH 8, 16 and 32", "[list]") {
  const std::vector<GemmKernel> kernels = ch02::chapter_kernels();
  REQUIRE(kernels.size() == 3);
  CHECK(kernels[0].name == "tiled_gemm<8>");
  CHECK(kernels[1].name == "tiled_gemm<16>");
  CHECK(kernels[2].name == "tiled_gemm<32>");
  CHECK(kernels[2].launch == &ch02::launch_tiled_gemm<32>);
  CHECK(ch02::best_kernel().name == "ch02::tiled_gemm<32>");
  CHECK(ch02::best_kernel().launch == &ch02::launch_tiled_gemm<32>);
}

TEST_CASE("sizes that are not multiples of TILE_WIDTH are refused with a clear message",
          "[refusal]") {
  for (const TiledKernel& t : kTiles) {
    const int T = t.width;
    const std::vector<TestShape> refused = {{1, 1, 1},         {T + 1, T, T},    {T, T + 1, T},
                                        {T, T, T + 1},     {T, T, T / 2},    {127, 33, 1025},
                                        {1, 4097, 3},      {4 * T, 4 * T, 4 * T - 1}};
    for (const TestShape& s : refused) {
      INFO(t.kernel.name << " at M=" << s.M << " N=" << s.N << " K=" << s.K);
      try {
        t.kernel.launch(nullptr, nullptr, nullptr, s.M, s.N, s.K);  // throws before any launch
        FAIL("shape accepted");
      } catch (const UnsupportedShape& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find(t.kernel.name) != std::string::npos);
        CHECK(what.find("multiples of TILE_WIDTH=" + std::to_string(T)) != std::string::npos);
        CHECK(what.find(gemm_shape_string(s.M, s.N, s.K)) != std::string::npos);
        CHECK(what.find("03_bounds") != std::string::npos);
      }
    }
    CHECK_THROWS_AS(t.kernel.launch(nullptr, nullptr, nullptr, 0, T, T), UnsupportedShape);
    CHECK_THROWS_AS(t.kernel.launch(nullptr, nullptr, nullptr, 65536, T, 32768), UnsupportedShape);
  }
}

// ---------------------------------------------------------------------------------------
// GPU: correctness of every tile width
// ---------------------------------------------------------------------------------------

TEST_CASE("tiled_gemm matches the CPU reference on multiples of each tile width",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const TiledKernel& t : kTiles) {
    const int T = t.width;
    check_kernel_at(t.kernel, {{T, T, T},                       // one block, one phase
                            {T, 4 * T, 2 * T},               // one block row
                            {3 * T, T, 7 * T},               // one block column
                            {2 * T, 3 * T, 5 * T},
                            {32, 96, 64}, {128, 32, 256}, {96, 160, 224}, {256, 256, 256}});
  }
}

TEST_CASE("tiled_gemm matches cuBLAS at 1024^3 and on large non-square sizes",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const TiledKernel& t : kTiles) check_kernel_at(t.kernel, {{1024, 1024, 1024}, {1024, 3072, 640}});
}
