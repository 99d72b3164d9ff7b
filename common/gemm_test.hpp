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
#include "common/gemm.hpp"
#include "common/occupancy.hpp"

namespace tutorial {

struct TestShape {
  int M, N, K;
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
// quarter of the SM) and shared memory (plus the per-block reservation, in allocation units)
// allow. For a block that fits (does_not_fit(k, sm) is empty); it does not check that itself.
inline int blocks_by_the_rules(const KernelResources& k, const SmLimits& sm) {
  const int warps = (k.threads_per_block + sm.warp_size - 1) / sm.warp_size;
  const int by_threads = sm.max_threads_per_sm / sm.warp_size / warps;
  const int regs_per_warp = (k.registers_per_thread * sm.warp_size + 255) / 256 * 256;
  const int by_registers =
      regs_per_warp == 0 ? by_threads : (sm.registers_per_sm / 4 / regs_per_warp) * 4 / warps;
  const size_t unit = size_t(sm.smem_alloc_unit);
  const size_t smem = (k.smem_per_block + sm.reserved_smem_per_block + unit - 1) / unit * unit;
  const int by_smem = smem == 0 ? by_threads : int(sm.smem_per_sm / smem);
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
      reasons_ += (reasons_.empty() ? "" : "; ") + kernel + ": " + e.what();
      return false;
    }
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

}  // namespace tutorial
