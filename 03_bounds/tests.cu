// Chapter 03 tests: the README's occupancy arithmetic on the host; every tile width on any
// size against the CPU reference (small sizes) and cuBLAS (large sizes), and the occupancy
// calculator against the CUDA runtime (also with a carveout preference), on the GPU.
#include <string>
#include <vector>

#include "03_bounds/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/cuda_check.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"
#include "common/occupancy.hpp"

using namespace tutorial;

namespace {

// Every shipped configuration, with its tile width for building shapes.
const std::vector<TiledKernel> kTiles = {
    {8, ch03::tiled_kernel<8>()}, {16, ch03::tiled_kernel<16>()}, {32, ch03::tiled_kernel<32>()}};

}  // namespace

// ---------------------------------------------------------------------------------------
// Host: every number the README derives
// ---------------------------------------------------------------------------------------

TEST_CASE("A100, 32 KB and 256 threads per block: 62.5% on paper, 50% for real",
          "[occupancy]") {
  const KernelResources block{256, 32, 32 * 1024};
  // The simple model: 32 KB / 256 threads = 128 B per thread; 164 KB / 128 B = 1312 threads,
  // in whole blocks of 256: 5 blocks, 1280 threads, 1280 / 2048 = 62.5%.
  const Occupancy simple = compute_occupancy(block, SmLimits::a100(), SmemModel::Simple);
  CHECK(32 * 1024 / 256 == 128);
  CHECK(simple.blocks_per_sm == 5);
  CHECK(simple.threads_per_sm == 1280);
  CHECK(simple.occupancy == Approx(0.625));
  // The runtime: 1 KB reserved per block, 33 KB each; 164 / 33 = 4.97, so 4 blocks, 50%.
  const Occupancy real = compute_occupancy(block, SmLimits::a100());
  CHECK(real.smem_allocated_per_block == 33 * 1024);
  CHECK(real.blocks_per_sm == 4);
  CHECK(real.threads_per_sm == 1024);
  CHECK(real.occupancy == Approx(0.5));
  CHECK(real.limiter == Limiter::SharedMemory);
}

TEST_CASE("H100/H200, the same block: 228 KB per SM fits 6 blocks, 75%", "[occupancy]") {
  const KernelResources block{256, 32, 32 * 1024};
  const Occupancy real = compute_occupancy(block, SmLimits::h100());
  CHECK(real.blocks_per_sm == 6);  // 233472 / 33792 = 6.9
  CHECK(real.threads_per_sm == 1536);
  CHECK(real.occupancy == Approx(0.75));
  const Occupancy simple = compute_occupancy(block, SmLimits::h100(), SmemModel::Simple);
  CHECK(simple.blocks_per_sm == 7);  // 228 / 32 = 7.1 without the reservation: 87.5%
  CHECK(simple.occupancy == Approx(0.875));
}

TEST_CASE("registers: 256 per warp at a time, a quarter of the file per sub-partition",
          "[occupancy]") {
  // 65536 registers / 2048 threads: full occupancy needs at most 32 registers per thread.
  CHECK(65536 / 2048 == 32);
  const SmLimits h100 = SmLimits::h100();
  // 32 registers: 1024 per warp, 16384 / 1024 = 16 warps per sub-partition, 64 per SM.
  CHECK(compute_occupancy({256, 32, 0}, h100).occupancy == Approx(1.0));
  // 33 registers: 33 x 32 = 1056, rounded up to 1280; 16384 / 1280 = 12 warps per
  // sub-partition, 48 per SM: 6 blocks of 8 warps, 75%.
  const Occupancy r33 = compute_occupancy({256, 33, 0}, h100);
  CHECK(r33.warps_per_sm == 48);
  CHECK(r33.blocks_per_sm == 6);
  CHECK(r33.occupancy == Approx(0.75));
  CHECK(r33.limiter == Limiter::Registers);
  // 64 registers: 2048 per warp, 8 warps per sub-partition, 32 per SM: 4 blocks, 50%.
  const Occupancy r64 = compute_occupancy({256, 64, 0}, h100);
  CHECK(r64.blocks_per_sm == 4);
  CHECK(r64.occupancy == Approx(0.5));
}

TEST_CASE("tiled_gemm occupancy: full at 32 registers, halved at 40 for TILE_WIDTH 32",
          "[occupancy]") {
  // Static shared memory per block: two TILE_WIDTH^2 float tiles.
  CHECK(2 * 8 * 8 * sizeof(float) == 512);
  CHECK(2 * 16 * 16 * sizeof(float) == 2048);
  CHECK(2 * 32 * 32 * sizeof(float) == 8192);
  for (const SmLimits& sm : {SmLimits::a100(), SmLimits::h100()}) {
    INFO(sm.name);
    // With at most 32 registers every tile width reaches 2048 threads per SM.
    const Occupancy t8 = compute_occupancy({64, 32, 512}, sm);
    CHECK(t8.blocks_per_sm == 32);
    CHECK(t8.occupancy == Approx(1.0));
    const Occupancy t16 = compute_occupancy({256, 32, 2048}, sm);
    CHECK(t16.blocks_per_sm == 8);
    CHECK(t16.occupancy == Approx(1.0));
    const Occupancy t32 = compute_occupancy({1024, 32, 8192}, sm);
    CHECK(t32.blocks_per_sm == 2);
    CHECK(t32.occupancy == Approx(1.0));
    // 40 registers: 1280 per warp, 12 warps per sub-partition, 48 per SM: one block of 32
    // warps fits, a second does not.
    const Occupancy t32r40 = compute_occupancy({1024, 40, 8192}, sm);
    CHECK(t32r40.blocks_per_sm == 1);
    CHECK(t32r40.occupancy == Approx(0.5));
    CHECK(t32r40.limiter == Limiter::Registers);
    // The same 40 registers cost the 256-thread block much less: 48 / 8 = 6 blocks, 75%.
    CHECK(compute_occupancy({256, 40, 2048}, sm).occupancy == Approx(0.75));
  }
}

TEST_CASE("dynamic shared memory: 48 KB without the opt-in, 227 KB with it on H100",
          "[occupancy]") {
  CHECK(SmLimits::h100().max_smem_per_block == 227 * 1024);
  CHECK(SmLimits::a100().max_smem_per_block == 163 * 1024);
  // Chapter 02's whole-strip kernel with K chosen at run time, BLOCK = 16, K = 1024:
  // 2 x 16 x 1024 x 4 B = 128 KB of dynamic shared memory, above 48 KB, so it needs the opt-in.
  const size_t strip = 2 * 16 * 1024 * sizeof(float);
  CHECK(strip == 128 * 1024);
  CHECK(strip > 48 * 1024);
  // And it pays in occupancy: 129 KB per block leaves room for one 256-thread block, 12.5%.
  for (const SmLimits& sm : {SmLimits::a100(), SmLimits::h100()}) {
    INFO(sm.name);
    const Occupancy o = compute_occupancy({256, 32, strip}, sm);
    CHECK(o.blocks_per_sm == 1);
    CHECK(o.occupancy == Approx(0.125));
    CHECK(o.limiter == Limiter::SharedMemory);
  }
}

TEST_CASE("bounds checks do not change the model: T/4 FLOP/B", "[model]") {
  CHECK(ch03::tiled_intensity<8>(1, 4097, 3) == 2.0);
  CHECK(ch03::tiled_intensity<16>(127, 33, 1025) == 4.0);
  CHECK(ch03::tiled_intensity<32>(1, 1, 1) == 8.0);
}

TEST_CASE("chapter 03 ships TILE_WIDTH 8, 16 and 32 under chapter 02's names", "[list]") {
  const std::vector<GemmKernel> kernels = ch03::chapter_kernels();
  REQUIRE(kernels.size() == 3);
  CHECK(kernels[0].name == "tiled_gemm<8>");
  CHECK(kernels[1].name == "tiled_gemm<16>");
  CHECK(kernels[2].name == "tiled_gemm<32>");
  CHECK(ch03::best_kernel().name == "ch03::tiled_gemm<32>");
}

TEST_CASE("only empty and int-overflowing shapes are refused", "[refusal]") {
  check_refuses_bad_shapes(ch03::chapter_kernels());
}

// ---------------------------------------------------------------------------------------
// GPU: correctness on any size, and the calculator against the runtime
// ---------------------------------------------------------------------------------------

TEST_CASE("tiled_gemm matches the CPU reference on odd, prime and non-square sizes",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const TiledKernel& t : kTiles) {
    const int T = t.width;
    check_kernel_at(t.kernel, {{1, 1, 1},       {1, 4097, 3},  {127, 33, 1025}, {4097, 1, 2},
                            {31, 37, 41},    {97, 89, 101}, {3, 5, 7},       {1025, 7, 1},
                            {257, 255, 129}, {T, T, T},     {T - 1, T + 1, T},
                            {T + 1, T - 1, 2 * T + 1},      {32, 96, 64},    {128, 32, 256}});
  }
}

TEST_CASE("tiled_gemm matches cuBLAS at 1024^3 and on large odd sizes", "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const TiledKernel& t : kTiles)
    check_kernel_at(t.kernel, {{1024, 1024, 1024}, {1000, 1537, 999}, {1025, 1023, 1021}});
}

TEST_CASE("occupancy calculator agrees with the CUDA runtime for every tile width",
          "[gpu][occupancy]") {
  REQUIRE_REAL_GPU();
  KernelsThatDoNotFit unfit;
  const std::vector<GemmResources> rows = check_occupancy_rules(ch03::chapter_kernels(), unfit);
  REQUIRE(rows.size() == kTiles.size());  // a TILE_WIDTH x TILE_WIDTH block fits every GPU
  for (size_t i = 0; i < rows.size(); ++i) {
    const int T = kTiles[i].width;
    INFO(rows[i].name);
    CHECK(rows[i].resources.threads_per_block == T * T);
    CHECK(rows[i].resources.smem_per_block == size_t(2 * T * T) * sizeof(float));  // As, Bs
  }
  unfit.skip_if_any();
}

TEST_CASE("with a carveout of 0, 25 and 100% the calculator still agrees with the runtime",
          "[gpu][occupancy][carveout]") {
  REQUIRE_REAL_GPU();
  const SmLimits sm = sm_limits_of_device(0);
  const void* kernels[] = {reinterpret_cast<const void*>(ch03::tiled_gemm<8>),
                           reinterpret_cast<const void*>(ch03::tiled_gemm<16>),
                           reinterpret_cast<const void*>(ch03::tiled_gemm<32>)};
  const int widths[] = {8, 16, 32};
  for (int carveout : {0, 25, 100}) {
    for (int i = 0; i < 3; ++i) {
      CUDA_CHECK(cudaFuncSetAttribute(kernels[i], cudaFuncAttributePreferredSharedMemoryCarveout,
                                      carveout));
      const int threads = widths[i] * widths[i];
      const KernelResources k = kernel_resources(kernels[i], threads, 0);
      const Occupancy ours = compute_occupancy(k, sm);
      const int runtime = runtime_blocks_per_sm(kernels[i], threads, 0);
      INFO("tiled_gemm<" << widths[i] << "> at carveout " << carveout << "%: ours "
                         << ours.blocks_per_sm << " (" << to_string(ours.limiter)
                         << ", SM shared memory " << ours.smem_per_sm << " B), runtime " << runtime);
      CHECK(k.carveout_percent == carveout);
      CHECK(ours.blocks_per_sm == runtime);
    }
  }
  // Back to the driver's choice (cudaSharedmemCarveoutDefault, -1) for the tests that follow;
  // the last preference set, 100%, gives the same occupancy should a runtime refuse -1.
  for (const void* kernel : kernels)
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, -1) !=
        cudaSuccess)
      cudaGetLastError();
}
