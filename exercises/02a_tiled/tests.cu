// Tests of exercise 02a (tiled GEMM). Points per test: exercises/manifest.json.
#include <string>

#include "02_tiled/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/gemm.hpp"
#include "exercises/02a_tiled/tiled.cuh"
#include "exercises/support/grading.hpp"

using namespace tutorial;

namespace {

template <int TILE_WIDTH>
void require_correct(int M, int N, int K) {
  const CompareResult r = check_gemm(ex02a::launch_tiled_gemm<TILE_WIDTH>, M, N, K);
  INFO("ex02a::tiled_gemm<" << TILE_WIDTH << "> at M=" << M << " N=" << N << " K=" << K << ": "
                            << r.summary());
  REQUIRE(r.ok());
}

}  // namespace

TEST_CASE("02a correct with TILE_WIDTH 16 at 16x16x16", "[gpu]") {
  REQUIRE_GPU();
  require_correct<16>(16, 16, 16);
}

TEST_CASE("02a correct with TILE_WIDTH 16 at 64x128x48", "[gpu]") {
  REQUIRE_GPU();
  require_correct<16>(64, 128, 48);
}

TEST_CASE("02a correct with TILE_WIDTH 32 at 96x64x160", "[gpu]") {
  REQUIRE_GPU();
  require_correct<32>(96, 64, 160);
}

TEST_CASE("02a correct with TILE_WIDTH 32 at 512x256x1024", "[gpu]") {
  REQUIRE_GPU();
  require_correct<32>(512, 256, 1024);
}

TEST_CASE("02a correct with TILE_WIDTH 8 at 40x24x72", "[gpu]") {
  REQUIRE_GPU();
  require_correct<8>(40, 24, 72);
}

// Host only: the launcher must refuse before it touches the GPU.
TEST_CASE("02a refuses sizes that are not multiples of TILE_WIDTH") {
  auto launch = ex02a::launch_tiled_gemm<16>;
  REQUIRE_THROWS_AS(launch(nullptr, nullptr, nullptr, 100, 96, 96), UnsupportedShape);
  REQUIRE_THROWS_AS(launch(nullptr, nullptr, nullptr, 96, 100, 96), UnsupportedShape);
  REQUIRE_THROWS_AS(launch(nullptr, nullptr, nullptr, 96, 96, 100), UnsupportedShape);
  try {
    launch(nullptr, nullptr, nullptr, 100, 96, 96);
  } catch (const UnsupportedShape& e) {
    INFO("the message should name the constraint: " << e.what());
    CHECK(std::string(e.what()).find("16") != std::string::npos);
  }
}

TEST_CASE("02a speed with TILE_WIDTH 32 vs ch02 tiled_gemm at 2048", "[gpu][perf]") {
  REQUIRE_REAL_GPU();  // timed: never on the CPU backend (pending there)
  const int n = 2048;
  require_correct<32>(n, n, n);
  const GemmKernel reference = ch02::best_kernel();
  const auto race =
      exercise::grading::race_gemm(ex02a::launch_tiled_gemm<32>, reference.launch, n, n, n);
  exercise::grading::report_race("ex02a::tiled_gemm<32>", reference.name, race);
}
