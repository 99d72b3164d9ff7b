#include "common/catch_compat.hpp"
#include "common/occupancy.hpp"

using namespace tutorial;

TEST_CASE("PMPP's A100 example: 32 KB and 256 threads per block", "[occupancy]") {
  const KernelResources k{256, 32, 32 * 1024};
  SECTION("the simple model: 164 KB / 128 B per thread = 1280 threads, 62.5%") {
    const Occupancy o = compute_occupancy(k, SmLimits::a100(), SmemModel::Simple);
    CHECK(o.blocks_per_sm == 5);
    CHECK(o.threads_per_sm == 1280);
    CHECK(o.occupancy == Approx(0.625));
    CHECK(o.limiter == Limiter::SharedMemory);
  }
  SECTION("with the driver's 1 KB reservation per block: 4 blocks, 1024 threads, 50%") {
    const Occupancy o = compute_occupancy(k, SmLimits::a100());
    CHECK(o.smem_allocated_per_block == 33 * 1024);
    CHECK(o.blocks_per_sm == 4);
    CHECK(o.threads_per_sm == 1024);
    CHECK(o.occupancy == Approx(0.5));
    CHECK(o.limiter == Limiter::SharedMemory);
  }
}

TEST_CASE("the same block on an H100/H200: 228 KB per SM fits 6 blocks", "[occupancy]") {
  const Occupancy o = compute_occupancy({256, 32, 32 * 1024}, SmLimits::h100());
  CHECK(o.blocks_per_sm == 6);  // 233472 / 33792 = 6.9
  CHECK(o.occupancy == Approx(0.75));
  CHECK(o.limiter == Limiter::SharedMemory);
}

TEST_CASE("registers limit in whole warps per sub-partition", "[occupancy]") {
  // 64 registers × 32 lanes = 2048 per warp; 16384 per sub-partition -> 8 warps each, 32 per SM.
  Occupancy o = compute_occupancy({256, 64, 0}, SmLimits::h100());
  CHECK(o.limit_registers == 4);
  CHECK(o.blocks_per_sm == 4);
  CHECK(o.occupancy == Approx(0.5));
  CHECK(o.limiter == Limiter::Registers);
  // 33 registers round up to 40×32 = 1280 per warp (unit 256): 12 warps per sub-partition.
  o = compute_occupancy({128, 33, 0}, SmLimits::h100());
  CHECK(o.limit_registers == 12);
  CHECK(o.warps_per_sm == 48);
  // 255 registers: 8192 per warp, 2 warps per sub-partition, 8 per SM: one 256-thread block
  // fits exactly, a 512-thread block does not fit at all.
  o = compute_occupancy({256, 255, 0}, SmLimits::h100());
  CHECK(o.blocks_per_sm == 1);
  CHECK(o.limiter == Limiter::Registers);
  o = compute_occupancy({512, 255, 0}, SmLimits::h100());
  CHECK(o.blocks_per_sm == 0);
  CHECK(o.limiter == Limiter::DoesNotFit);
}

TEST_CASE("small blocks hit the 32-blocks-per-SM limit, big ones the thread limit", "[occupancy]") {
  Occupancy o = compute_occupancy({32, 16, 0}, SmLimits::h100());
  CHECK(o.blocks_per_sm == 32);
  CHECK(o.occupancy == Approx(0.5));
  CHECK(o.limiter == Limiter::Blocks);
  o = compute_occupancy({1024, 16, 0}, SmLimits::h100());
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.occupancy == Approx(1.0));
  CHECK(o.limiter == Limiter::Warps);
}

TEST_CASE("shared memory beyond the per-block maximum does not fit", "[occupancy]") {
  const Occupancy o = compute_occupancy({256, 32, 228 * 1024}, SmLimits::h100());
  CHECK(o.blocks_per_sm == 0);
  CHECK(o.limiter == Limiter::DoesNotFit);
  CHECK(std::string(to_string(o.limiter)) == "does not fit");
}

TEST_CASE("allocation rounds shared memory up to 128 bytes", "[occupancy]") {
  const Occupancy o = compute_occupancy({128, 32, 1}, SmLimits::h100());
  CHECK(o.smem_allocated_per_block == 1024 + 128);
}
