// Chapter 04 tests: every shipped configuration at odd, prime, non-square and tile-multiple
// sizes (random inputs, poisoned output, CPU or cuBLAS reference), the 4-byte fallback for
// unaligned rows and pointers, refusals, and the README's arithmetic (shared loads per FMA,
// DRAM intensity, occupancy).
#include <string>
#include <vector>

#include "04_register_block/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"
#include "common/occupancy.hpp"
#include "common/reference.hpp"

using namespace tutorial;

// ---------------------------------------------------------------------------------------
// GPU: correctness
// ---------------------------------------------------------------------------------------

namespace {

// 256x384x512 is a multiple of every shipped tile (64, 128, 32) and of BK; 1024^3 is checked
// against cuBLAS.
const std::vector<TestShape> kTileMultiples = {{256, 384, 512}, {1024, 1024, 1024}};

}  // namespace

TUTORIAL_GEMM_SHAPE_TEST_CASES(ch04::chapter_kernels(), kTileMultiples)

TEST_CASE("launchers fall back to 4-byte accesses for unaligned pointers", "[gpu]") {
  REQUIRE_GPU();
  check_unaligned_pointers(ch04::chapter_kernels());
}

// ---------------------------------------------------------------------------------------
// GPU: resources of the compiled kernels
// ---------------------------------------------------------------------------------------

TEST_CASE("the occupancy model agrees with the runtime for every shipped kernel", "[gpu]") {
  REQUIRE_REAL_GPU();
  // __launch_bounds__(threads, 2 or 3): at least two blocks per SM, so that one block's loads
  // overlap another's math.
  KernelsThatDoNotFit unfit;
  check_occupancy_rules(ch04::chapter_kernels(), unfit, 2);
  unfit.skip_if_any();
}

// ---------------------------------------------------------------------------------------
// Host: refusals and the README's arithmetic
// ---------------------------------------------------------------------------------------

TEST_CASE("launchers refuse only empty and int-overflowing shapes", "[refusal]") {
  check_refuses_bad_shapes(ch04::chapter_kernels());
}

TEST_CASE("shared-memory loads per FMA fall with the register tile", "[model]") {
  CHECK(ch04::smem_loads_per_fma_tiled() == 2.0);
  CHECK(ch04::smem_loads_per_fma_1d(8) == Approx(9.0 / 8));       // 1.125
  CHECK(ch04::smem_loads_per_fma_1d(16) == Approx(17.0 / 16));    // 1.0625
  CHECK(ch04::smem_loads_per_fma_2d(8, 8) == Approx(0.25));       // 16 floats, 64 FMA
  CHECK(ch04::smem_loads_per_fma_2d(8, 4) == Approx(0.375));      // the one-warp 8 x 4
  CHECK(ch04::lds128_per_fma(8, 8) == Approx(1.0 / 16));          // 4 LDS.128, 64 FMA
  CHECK(ch04::lds128_per_fma(8, 4) == Approx(3.0 / 32));          // 3 LDS.128, 32 FMA
  // The one-warp layout: 8 x 4 per thread reads 2 / 0.375 = 5.3x fewer floats than tiling.
  CHECK(ch04::smem_loads_per_fma_tiled() / ch04::smem_loads_per_fma_2d(8, 4) ==
        Approx(16.0 / 3));
}

TEST_CASE("block-tile DRAM intensity and its roofline bound", "[model]") {
  CHECK(ch04::block_tile_flop_per_byte(64, 64) == Approx(16));
  CHECK(ch04::block_tile_flop_per_byte(128, 128) == Approx(32));
  CHECK(ch04::block_tile_flop_per_byte(32, 32) == Approx(8));
  CHECK(ch04::block_tile_flop_per_byte(16, 16) == Approx(16.0 / 4));  // chapter 02: TILE/4
  // With ~3000 GB/s of copy bandwidth and ~67 TFLOP/s of FP32 (an H100), a kernel is compute
  // bound above 67000 / 3000 = 22 FLOP/B: a 128 x 128 tile is, 64 x 64 and 32 x 32 are not.
  CHECK(roofline_gflops(8, 3000, 67000) == Approx(24000));    // 32 x 32: memory bound
  CHECK(roofline_gflops(16, 3000, 67000) == Approx(48000));   // 64 x 64: memory bound
  CHECK(roofline_gflops(32, 3000, 67000) == Approx(67000));   // 128 x 128: compute bound
}

TEST_CASE("occupancy of the shipped configurations on an H100/H200 (registers from ptxas)",
          "[occupancy]") {
  const SmLimits h100 = SmLimits::h100();
  SECTION("128x128 tiles, 256 threads, 8 KB: 128 registers fit 2 blocks, 16 warps (25%)") {
    const Occupancy o = compute_occupancy({256, 128, 8192}, h100);
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.warps_per_sm == 16);
    CHECK(o.occupancy == Approx(0.25));
    CHECK(o.limiter == Limiter::Registers);
  }
  SECTION("...but two registers more, 130, fit only 1 block: an occupancy cliff") {
    const Occupancy o = compute_occupancy({256, 130, 8192}, h100);
    CHECK(o.blocks_per_sm == 1);
    CHECK(o.limiter == Limiter::Registers);
  }
  SECTION("1D: 512 threads, 40 registers, 4 KB: 3 blocks, 48 warps (75%)") {
    const Occupancy o = compute_occupancy({512, 40, 4096}, h100);
    CHECK(o.blocks_per_sm == 3);
    CHECK(o.occupancy == Approx(0.75));
    CHECK(o.limiter == Limiter::Registers);
    // With 48 registers (what ptxas picks with no bound) only 2 blocks fit: 40 warps' worth of
    // registers, but blocks are resident whole.
    CHECK(compute_occupancy({512, 48, 4096}, h100).blocks_per_sm == 2);
  }
  SECTION("1D with TM = 16: 256 threads, 80 registers: 3 blocks, 24 warps (37.5%)") {
    const Occupancy o = compute_occupancy({256, 80, 4096}, h100);
    CHECK(o.blocks_per_sm == 3);
    CHECK(o.warps_per_sm == 24);
    CHECK(o.limiter == Limiter::Registers);
  }
  SECTION("the one-warp 8 x 4 layout: one warp per block, 8 KB of tiles") {
    // With few registers, shared memory binds: 228 KB / (8 KB + 1 KB reserved) = 25 blocks,
    // 25 warps (39%). An SM with 48 KB of shared memory would hold the same block 6 times.
    Occupancy o = compute_occupancy({32, 64, 8192}, h100);
    CHECK(o.blocks_per_sm == 25);
    CHECK(o.limiter == Limiter::SharedMemory);
    SmLimits old = h100;
    old.smem_per_sm = 48 * 1024;
    CHECK(compute_occupancy({32, 64, 8192}, old, SmemModel::Simple).blocks_per_sm == 6);
    // With the ~150 registers ptxas gives our BK = 32 version (it keeps 16 float4 loads in
    // flight), registers bind first: 3 warps per sub-partition, 12 blocks.
    o = compute_occupancy({32, 150, 8192}, h100);
    CHECK(o.blocks_per_sm == 12);
    CHECK(o.limiter == Limiter::Registers);
  }
}
