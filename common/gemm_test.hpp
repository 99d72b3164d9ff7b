// What the GEMM chapters' tests share (test code: it uses Catch2). check_gemm (common/gemm.hpp)
// fills A and B with random data seeded by the shape, poisons C with NaN, runs the launcher and
// compares with the CPU reference (up to 512^3 multiply-adds) or cuBLAS (above) at a
// K-dependent tolerance; a failure names the kernel, the shape and the first wrong elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_resources.hpp"
#include "common/occupancy.hpp"
#include "common/reference.hpp"

namespace tutorial {

struct TestShape {
  int M, N, K;
};

// A kernel of chapters 02 and 03 with its TILE_WIDTH, for building shapes around the tile.
struct TiledKernel {
  int width;
  GemmKernel kernel;
};

inline void check_kernel_at(const GemmKernel& kernel, const std::vector<TestShape>& shapes) {
  for (const TestShape& s : shapes) {
    INFO(kernel.name << " at M=" << s.M << " N=" << s.N << " K=" << s.K);
    const uint64_t seed = uint64_t(s.M) * 7 + uint64_t(s.N) * 3 + uint64_t(s.K);
    const CompareResult r = check_gemm(kernel.launch, s.M, s.N, s.K, seed);
    INFO(r.summary());
    CHECK(r.ok());
  }
}

// The shapes every kernel from chapter 04 on must get right, whatever its tile:
// tiny and odd; K far longer than the tile (127x33x1025); K % 4 == 0 and N % 4 == 0 with
// partial tiles at the bottom and right edges (the 16-byte paths with their guards; K = 4, 12,
// 20 leave a pipelined kernel fewer tiles than stages). Small, so they also suit
// compute-sanitizer.
inline const std::vector<TestShape> kOddAndEdgeShapes = {
    {1, 1, 1},  {3, 5, 7},      {1, 4097, 3},  {17, 19, 23},  {129, 257, 65},  // tiny, odd
    {127, 33, 1025},                                                           // long K
    {33, 4, 4}, {127, 132, 68}, {200, 36, 12}, {130, 260, 20}};                // edge tiles
// Prime and non-square sides, a few hundred to a thousand.
inline const std::vector<TestShape> kPrimeShapes = {
    {509, 521, 503}, {1021, 131, 257}, {67, 1031, 97}};

// The published occupancy rules for one SM, written out step by step, for the GPU tests to
// hold common/occupancy.hpp's calculator and the CUDA runtime to: resident blocks are the
// fewest that threads, block slots, registers (per warp in units of 256, whole warps per
// quarter of the SM) and shared memory (plus the per-block reservation, in allocation units,
// in the capacity the kernel's carveout gives the SM) allow. For a block that fits
// (does_not_fit(k, sm) is empty); it does not check that itself.
inline int blocks_by_the_rules(const KernelResources& k, const SmLimits& sm) {
  const int warps = (k.threads_per_block + sm.warp_size - 1) / sm.warp_size;
  const int by_threads = sm.max_threads_per_sm / sm.warp_size / warps;
  const int regs_per_warp = (k.registers_per_thread * sm.warp_size + 255) / 256 * 256;
  const int by_registers =
      regs_per_warp == 0 ? by_threads : (sm.registers_per_sm / 4 / regs_per_warp) * 4 / warps;
  const size_t unit = size_t(sm.smem_alloc_unit);
  const size_t smem = (k.smem_per_block + sm.reserved_smem_per_block + unit - 1) / unit * unit;
  // The carveout: P% of the SM's shared memory, rounded up to a capacity the architecture
  // offers; if one block does not fit in that, the smallest capacity that holds one block.
  size_t per_sm = sm.smem_per_sm;
  if (k.carveout_percent >= 0 && !sm.smem_capacities_kb.empty()) {
    const size_t wanted = size_t(k.carveout_percent) * sm.smem_per_sm / 100;
    size_t preferred = sm.smem_per_sm, one_block = sm.smem_per_sm;
    for (auto kb = sm.smem_capacities_kb.rbegin(); kb != sm.smem_capacities_kb.rend(); ++kb) {
      if (size_t(*kb) * 1024 >= wanted) preferred = size_t(*kb) * 1024;
      if (size_t(*kb) * 1024 >= smem) one_block = size_t(*kb) * 1024;
    }
    per_sm = preferred >= smem ? preferred : one_block;
  }
  const int by_smem = smem == 0 ? by_threads : int(per_sm / smem);
  return std::min({by_threads, sm.max_blocks_per_sm, by_registers, by_smem});
}

// A kernel this GPU cannot run (tutorial::launch refused it with KernelDoesNotFit: more
// shared memory, registers or threads per block than the GPU allows) is not a failure: a test
// case checks every kernel that fits, then reports itself skipped, naming each kernel left out
// and the limit. Use:
//   KernelsThatDoNotFit unfit;
//   for (const GemmKernel& k : kernels) unfit.run(k.name, [&] { ...launch and check k... });
//   unfit.skip_if_any();  // last statement of the test case
class KernelsThatDoNotFit {
 public:
  // Runs body(); returns false, remembering the reason, when the kernel does not fit.
  template <typename Body>
  bool run(const std::string& kernel, Body&& body) {
    try {
      body();
      return true;
    } catch (const KernelDoesNotFit& e) {
      add(kernel, e.what());
      return false;
    }
  }
  void add(const std::string& kernel, const std::string& reason) {
    reasons_ += (reasons_.empty() ? "" : "; ") + kernel + ": " + reason;
  }
  // Skips the test case (Catch2 3: SKIP; 2.13: a warning, and CTest's skip code when it is
  // the only test case run) when a kernel did not fit. Failed checks still fail the test.
  void skip_if_any() const {
    if (reasons_.empty()) return;
    ::tutorial::test::note_skipped();
    TUTORIAL_SKIP_("SKIPPED: " << reasons_);  // "SKIPPED: " is what `make check` collects
  }
  const std::string& reasons() const { return reasons_; }

 private:
  std::string reasons_;
};

inline void check_kernels_at(const std::vector<GemmKernel>& kernels,
                             const std::vector<TestShape>& shapes) {
  KernelsThatDoNotFit unfit;
  for (const GemmKernel& kernel : kernels)
    unfit.run(kernel.name, [&] { check_kernel_at(kernel, shapes); });
  unfit.skip_if_any();
}

// The correctness test cases every GEMM chapter from 04 on runs over its kernel list
// (KERNELS, an expression giving std::vector<GemmKernel>): the tiny, odd and edge-tile
// shapes (tagged [small]: `make sanitize` runs these), the prime and non-square ones, and
// TILE_MULTIPLES, the chapter's own std::vector<TestShape> of multiples of its block tiles.
// Equivalent to writing, in the chapter's tests.cu,
//   TEST_CASE("every kernel is correct at tiny, odd and edge-tile sizes", "[gpu][small]") {
//     REQUIRE_GPU();
//     check_kernels_at(KERNELS, kOddAndEdgeShapes);
//   }
// and the same for kPrimeShapes and TILE_MULTIPLES.
#define TUTORIAL_GEMM_SHAPE_TEST_CASES(KERNELS, TILE_MULTIPLES)                                  \
  TEST_CASE("every kernel is correct at tiny, odd and edge-tile sizes", "[gpu][small]") {       \
    REQUIRE_GPU();                                                                              \
    ::tutorial::check_kernels_at(KERNELS, ::tutorial::kOddAndEdgeShapes);                       \
  }                                                                                             \
  TEST_CASE("every kernel is correct at prime and non-square sizes", "[gpu]") {                 \
    REQUIRE_GPU();                                                                              \
    ::tutorial::check_kernels_at(KERNELS, ::tutorial::kPrimeShapes);                            \
  }                                                                                             \
  TEST_CASE("every kernel is correct at multiples of its block tile (the fast path)", "[gpu]") { \
    REQUIRE_GPU();                                                                              \
    ::tutorial::check_kernels_at(KERNELS, TILE_MULTIPLES);                                      \
  }

// Rows whose lengths are multiples of 16 bytes but base pointers off a 16-byte boundary: a
// launcher must fall back to narrower accesses rather than issue misaligned float4 loads (which
// fault). Each kernel is compared with cuBLAS on the same offset operands.
// offA, offB, offC: each operand's offset in floats (1: 4-byte accesses only; 2: 8-byte ones
// allowed, chapter 05's pairs; 0: aligned. One operand at a time checks launchers that choose
// each operand's width on its own, chapter 05 from step 6 on).
inline void check_unaligned_pointers(const std::vector<GemmKernel>& kernels, int offA = 1,
                                     int offB = 1, int offC = 1, int M = 70, int N = 68,
                                     int K = 36) {
  GemmProblem p(M, N, K, 11);
  DeviceBuffer<float> A(size_t(M) * K + offA), B(size_t(K) * N + offB), C(size_t(M) * N + offC),
      ref(size_t(M) * N + 1);
  copy_to_device(A.data() + offA, p.A.data(), size_t(M) * K * sizeof(float));
  copy_to_device(B.data() + offB, p.B.data(), size_t(K) * N * sizeof(float));
  CublasHandle handle;
  cublas_sgemm(handle.get(), A.data() + offA, B.data() + offB, ref.data() + 1, M, N, K);
  const std::vector<float> want = ref.download();
  KernelsThatDoNotFit unfit;
  for (const GemmKernel& kernel : kernels) {
    INFO(kernel.name);
    C.poison();
    const bool fits = unfit.run(
        kernel.name,
        [&] { kernel.launch(A.data() + offA, B.data() + offB, C.data() + offC, M, N, K); });
    if (!fits) continue;
    device_synchronize();
    const std::vector<float> got = C.download();
    const CompareResult r =
        compare(got.data() + offC, want.data() + 1, M, N, Tolerance::for_gemm(K));
    INFO(r.summary());
    CHECK(r.ok());
  }
  unfit.skip_if_any();
}

// Every launcher from chapter 03 on refuses, before touching the GPU (the pointers here are
// null), exactly the shapes it cannot compute: a side below 1, and a matrix of 2^31 or more
// elements (its indices are 32-bit ints). Any other shape is the kernel's to get right.
inline void check_refuses_bad_shapes(const std::vector<GemmKernel>& kernels) {
  for (const GemmKernel& kernel : kernels) {
    INFO(kernel.name);
    try {
      kernel.launch(nullptr, nullptr, nullptr, 16, 0, 16);
      FAIL("no exception for N = 0");
    } catch (const UnsupportedShape& e) {
      CHECK(std::string(e.what()).find("must all be >= 1") != std::string::npos);
    }
    CHECK_THROWS_AS(kernel.launch(nullptr, nullptr, nullptr, 0, 16, 16), UnsupportedShape);
    CHECK_THROWS_AS(kernel.launch(nullptr, nullptr, nullptr, 16, 16, -1), UnsupportedShape);
    // B (K x N) would have 2^31 elements.
    CHECK_THROWS_AS(kernel.launch(nullptr, nullptr, nullptr, 1, 65536, 32768), UnsupportedShape);
  }
}

// Launches each kernel once (gemm_resources: the configuration its launcher really picks) and
// holds the occupancy calculator to the published rules (blocks_by_the_rules) and to the CUDA
// runtime, and checks that at least min_blocks_per_sm blocks are resident. Returns the rows of
// the kernels that ran, for the chapter's own checks; a kernel this GPU cannot run is left out
// and named in `unfit` (call unfit.skip_if_any() last).
inline std::vector<GemmResources> check_occupancy_rules(const std::vector<GemmKernel>& kernels,
                                                        KernelsThatDoNotFit& unfit,
                                                        int min_blocks_per_sm = 1) {
  const DeviceInfo device = query_device(0);
  std::vector<GemmResources> fitted;
  for (const GemmResources& r : gemm_resources(device, kernels)) {
    if (!r.does_not_fit.empty()) {
      unfit.add(r.name, r.does_not_fit);
      continue;
    }
    INFO(r.name << " on " << device.sm.name << ": " << r.resources.threads_per_block
                << " threads, " << r.resources.registers_per_thread << " registers, "
                << r.resources.smem_per_block << " B shared -> " << r.occupancy.blocks_per_sm
                << " blocks/SM (" << to_string(r.occupancy.limiter) << "), runtime "
                << r.runtime_blocks_per_sm);
    CHECK(r.occupancy.blocks_per_sm == blocks_by_the_rules(r.resources, device.sm));
    CHECK(r.occupancy.blocks_per_sm == r.runtime_blocks_per_sm);
    CHECK(r.occupancy.blocks_per_sm >= min_blocks_per_sm);
    fitted.push_back(r);
  }
  return fitted;
}

}  // namespace tutorial
