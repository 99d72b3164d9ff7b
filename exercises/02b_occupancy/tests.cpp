// Tests of exercise 02b (occupancy and shared memory). Host only.
// Points per test: exercises/manifest.json.
#include "common/catch_compat.hpp"
#include "common/occupancy.hpp"
#include "exercises/02b_occupancy/occupancy.hpp"

using namespace ex02b;

TEST_CASE("02b A100 textbook example: 32 KB and 256 threads give 5 blocks and 62.5 percent") {
  const Block block{256, 32 * 1024};
  CHECK(blocks_per_sm(block, kA100) == 5);
  CHECK(occupancy(block, kA100) == Approx(0.625));
  CHECK(limiter(block, kA100) == Limit::SharedMemory);
}

TEST_CASE("02b the same block on an H100 fits 7 blocks") {
  const Block block{256, 32 * 1024};
  CHECK(blocks_per_sm(block, kH100) == 7);
  CHECK(occupancy(block, kH100) == Approx(0.875));
}

TEST_CASE("02b double buffering doubles shared memory and halves the resident blocks") {
  // The seeds' level 2 vs level 3: 8 KB and 16 KB per block on an SM with 48 KB.
  const Sm small{2048, 32, 48 * 1024};
  CHECK(blocks_per_sm({128, 8 * 1024}, small) == 6);
  CHECK(blocks_per_sm({128, 16 * 1024}, small) == 3);
  CHECK(occupancy({128, 16 * 1024}, small) == Approx(0.1875));
}

TEST_CASE("02b without shared memory threads or block slots limit") {
  CHECK(blocks_per_sm({1024, 0}, kA100) == 2);
  CHECK(limiter({1024, 0}, kA100) == Limit::Threads);
  CHECK(occupancy({1024, 0}, kA100) == Approx(1.0));
  CHECK(blocks_per_sm({32, 0}, kA100) == 32);
  CHECK(limiter({32, 0}, kA100) == Limit::Blocks);
  CHECK(occupancy({32, 0}, kA100) == Approx(0.5));
}

TEST_CASE("02b a block that needs more shared memory than the SM has does not fit") {
  const Block block{128, 200 * 1024};
  CHECK(blocks_per_sm(block, kA100) == 0);
  CHECK(occupancy(block, kA100) == Approx(0.0));
  CHECK(limiter(block, kA100) == Limit::DoesNotFit);
  CHECK(blocks_per_sm(block, kH100) == 1);
}

TEST_CASE("02b shared memory budget for 100 percent occupancy") {
  CHECK(max_smem_for_full_occupancy(256, kA100) == 20992);  // 164 KB / 8 blocks = 20.5 KB
  CHECK(max_smem_for_full_occupancy(1024, kH100) == 116736);  // 228 KB / 2 blocks
  CHECK(occupancy({256, max_smem_for_full_occupancy(256, kA100)}, kA100) == Approx(1.0));
  CHECK(occupancy({256, max_smem_for_full_occupancy(256, kA100) + 1}, kA100) < 1.0);
}

TEST_CASE("02b agrees with the harness's calculator in the textbook model") {
  const tutorial::SmLimits limits[] = {tutorial::SmLimits::a100(), tutorial::SmLimits::h100()};
  const Sm sms[] = {kA100, kH100};
  for (int s = 0; s < 2; ++s) {
    for (int threads = 32; threads <= 1024; threads += 32) {
      for (int smem = 0; smem <= 240 * 1024; smem += 3 * 1024 + 512) {
        const tutorial::Occupancy want = tutorial::compute_occupancy(
            {threads, 0, size_t(smem)}, limits[s], tutorial::SmemModel::Simple);
        INFO(limits[s].name << ": " << threads << " threads, " << smem << " bytes of shared memory");
        REQUIRE(blocks_per_sm({threads, smem}, sms[s]) == want.blocks_per_sm);
        REQUIRE(occupancy({threads, smem}, sms[s]) == Approx(want.occupancy));
      }
    }
  }
}
