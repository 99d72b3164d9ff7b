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

TEST_CASE("the carveout sets the SM's shared memory: P% rounded up to a capacity", "[occupancy]") {
  const SmLimits h100 = SmLimits::h100(), a100 = SmLimits::a100();
  // H100: 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB. 25% of 233,472 B = 58,368 B -> 64 KB;
  // 50% = 116,736 B -> 132 KB; 100% and no preference: 228 KB.
  CHECK(smem_per_sm_for(h100, 25, 1024) == 64 * 1024);
  CHECK(smem_per_sm_for(h100, 50, 1024) == 132 * 1024);
  CHECK(smem_per_sm_for(h100, 100, 1024) == 228 * 1024);
  CHECK(smem_per_sm_for(h100, -1, 1024) == 228 * 1024);
  // Carveout 0 gives 0 KB, but a block of 1.5 KB must still fit: the smallest capacity that
  // holds one block, 8 KB.
  CHECK(smem_per_sm_for(h100, 0, 1536) == 8 * 1024);
  CHECK(smem_per_sm_for(h100, 0, 9 * 1024) == 16 * 1024);
  // A100: 50% of 167,936 B = 83,968 B -> 100 KB. Turing has no 0 KB: 0% -> 32 KB.
  CHECK(smem_per_sm_for(a100, 50, 1024) == 100 * 1024);
  CHECK(smem_per_sm_for(SmLimits::t4(), 0, 256) == 32 * 1024);
  // An architecture the table does not know: no carveout modelled.
  SmLimits unknown = h100;
  unknown.smem_capacities_kb.clear();
  CHECK(smem_per_sm_for(unknown, 0, 1536) == h100.smem_per_sm);
}

TEST_CASE("chapter 03's tiled kernels at carveout 0: 5, 2 and 1 blocks on an H100",
          "[occupancy]") {
  // 32 registers; 512 B, 2 KB and 8 KB of tiles; 1.5, 3 and 9 KB allocated with the reservation.
  const SmLimits h100 = SmLimits::h100();
  struct Case { KernelResources k; int at0, at25, at100; };
  const Case cases[] = {
      {{64, 32, 512, 0}, 5, 32, 32},     // 8 KB / 1.5 KB = 5; at 25%: 64 KB / 1.5 KB = 42 -> 32 slots
      {{256, 32, 2048, 0}, 2, 8, 8},     // 8 KB / 3 KB = 2; 64 KB / 3 KB = 21 -> 8 (threads)
      {{1024, 32, 8192, 0}, 1, 2, 2}};   // 16 KB / 9 KB = 1; 64 KB / 9 KB = 7 -> 2 (threads)
  for (const Case& c : cases) {
    KernelResources k = c.k;
    INFO(k.threads_per_block << " threads, " << k.smem_per_block << " B");
    k.carveout_percent = 0;
    Occupancy o = compute_occupancy(k, h100);
    CHECK(o.blocks_per_sm == c.at0);
    CHECK(o.limiter == Limiter::SharedMemory);
    k.carveout_percent = 25;
    CHECK(compute_occupancy(k, h100).blocks_per_sm == c.at25);
    k.carveout_percent = 100;
    CHECK(compute_occupancy(k, h100).blocks_per_sm == c.at100);
    k.carveout_percent = -1;
    CHECK(compute_occupancy(k, h100).blocks_per_sm == c.at100);
  }
}

TEST_CASE("the carveout and PMPP's A100 block; the simple model ignores it", "[occupancy]") {
  KernelResources k{256, 32, 32 * 1024, 50};
  // 50% of 164 KB -> 100 KB: 102,400 / 33,792 = 3 blocks.
  CHECK(compute_occupancy(k, SmLimits::a100()).blocks_per_sm == 3);
  // 0%: one 33 KB block needs the 64 KB capacity: 1 block.
  k.carveout_percent = 0;
  const Occupancy o = compute_occupancy(k, SmLimits::a100());
  CHECK(o.blocks_per_sm == 1);
  CHECK(o.smem_per_sm == 64 * 1024);
  CHECK(compute_occupancy(k, SmLimits::a100(), SmemModel::Simple).blocks_per_sm == 5);
  // A block that uses no shared memory still has its 1 KB reservation: at 0%, 8 KB, 8 blocks.
  CHECK(compute_occupancy({128, 32, 0, 0}, SmLimits::h100()).blocks_per_sm == 8);
}
