// The occupancy calculator and the fit check on the GPUs a student is likely to have, from
// NVIDIA's published limits (common/occupancy.cpp cites them). Host only: CI runs these without
// a GPU. Every expected number is worked out by hand in the comment next to it.
#include <string>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/cuda_check.hpp"
#include "common/gemm_test.hpp"
#include "common/occupancy.hpp"

using namespace tutorial;

namespace {

struct Expected {
  SmLimits sm;
  int blocks;
  double occupancy;
  Limiter limiter;
};

void check_occupancy(const KernelResources& k, const Expected& e) {
  INFO(e.sm.name << ": " << k.threads_per_block << " threads, " << k.registers_per_thread
                 << " registers, " << k.smem_per_block << " B shared");
  CHECK(does_not_fit(k, e.sm).empty());
  const Occupancy o = compute_occupancy(k, e.sm);
  CHECK(o.blocks_per_sm == e.blocks);
  CHECK(o.occupancy == Approx(e.occupancy));
  CHECK(o.limiter == e.limiter);
}

}  // namespace

TEST_CASE("the published table: seven GPUs, oldest first", "[fit]") {
  const std::vector<SmLimits> all = published_sm_limits();
  REQUIRE(all.size() == 7);
  const int capability[] = {75, 80, 86, 89, 90, 100, 120};
  for (size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].name);
    CHECK(all[i].compute_major * 10 + all[i].compute_minor == capability[i]);
    // What every architecture since Volta shares: 64 K registers per SM and per block,
    // 255 per thread, 1,024 threads per block, warps of 32. The table takes these from
    // SmLimits' defaults, so a change there shows up here.
    CHECK(all[i].registers_per_sm == 65536);
    CHECK(all[i].max_registers_per_block == 65536);
    CHECK(all[i].max_registers_per_thread == 255);
    CHECK(all[i].max_threads_per_block == 1024);
    // A block may use all of an SM's shared memory but the per-block reservation.
    CHECK(all[i].max_smem_per_block + all[i].reserved_smem_per_block == all[i].smem_per_sm);
  }
}

TEST_CASE("PMPP's block (256 threads, 32 KB) on each GPU", "[fit][occupancy]") {
  // 32,768 B + 1,024 B reserved = 33,792 B per block from sm_80 on; the T4 reserves nothing.
  //   T4:        65,536 / 32,768 = 2 blocks, 16 of 32 warps: 50%
  //   A100:     167,936 / 33,792 = 4.97 -> 4, 32 of 64 warps: 50%
  //   sm_86/89/120: 102,400 / 33,792 = 3.03 -> 3, 24 of 48 warps: 50%
  //   H100, B200: 233,472 / 33,792 = 6.9 -> 6, 48 of 64 warps: 75%
  const KernelResources block{256, 32, 32 * 1024};
  const Expected expected[] = {{SmLimits::t4(), 2, 0.5, Limiter::SharedMemory},
                               {SmLimits::a100(), 4, 0.5, Limiter::SharedMemory},
                               {SmLimits::rtx3090(), 3, 0.5, Limiter::SharedMemory},
                               {SmLimits::l4(), 3, 0.5, Limiter::SharedMemory},
                               {SmLimits::h100(), 6, 0.75, Limiter::SharedMemory},
                               {SmLimits::b200(), 6, 0.75, Limiter::SharedMemory},
                               {SmLimits::rtx5090(), 3, 0.5, Limiter::SharedMemory}};
  for (const Expected& e : expected) check_occupancy(block, e);
}

TEST_CASE("one-warp blocks run out of block slots, not warps", "[fit][occupancy]") {
  // 32 threads, 16 registers, no shared memory: warps and registers allow far more, so the
  // resident-block limit binds: 16 (T4: 16 of 32 warps, 50%; sm_86: 16 of 48, 33%),
  // 24 (L4: 24 of 48, 50%), 32 (A100, H100, B200: 32 of 64, 50%; RTX 5090: 32 of 48, 67%).
  const KernelResources block{32, 16, 0};
  const Expected expected[] = {{SmLimits::t4(), 16, 16.0 / 32, Limiter::Blocks},
                               {SmLimits::a100(), 32, 32.0 / 64, Limiter::Blocks},
                               {SmLimits::rtx3090(), 16, 16.0 / 48, Limiter::Blocks},
                               {SmLimits::l4(), 24, 24.0 / 48, Limiter::Blocks},
                               {SmLimits::h100(), 32, 32.0 / 64, Limiter::Blocks},
                               {SmLimits::b200(), 32, 32.0 / 64, Limiter::Blocks},
                               {SmLimits::rtx5090(), 32, 32.0 / 48, Limiter::Blocks}};
  for (const Expected& e : expected) check_occupancy(block, e);
}

TEST_CASE("1,024-thread blocks: 100% where an SM holds 1,024 or 2,048 threads, 67% at 1,536",
          "[fit][occupancy]") {
  // 32 warps per block, 32 registers (1,024 per warp: registers never bind). The T4 holds
  // 1,024 threads: 1 block, 100%. sm_86/89/120 hold 1,536: 1 block, 32 of 48 warps, 67%.
  // sm_80/90/100 hold 2,048: 2 blocks, 100%.
  const KernelResources block{1024, 32, 0};
  const Expected expected[] = {{SmLimits::t4(), 1, 1.0, Limiter::Warps},
                               {SmLimits::a100(), 2, 1.0, Limiter::Warps},
                               {SmLimits::rtx3090(), 1, 32.0 / 48, Limiter::Warps},
                               {SmLimits::l4(), 1, 32.0 / 48, Limiter::Warps},
                               {SmLimits::h100(), 2, 1.0, Limiter::Warps},
                               {SmLimits::b200(), 2, 1.0, Limiter::Warps},
                               {SmLimits::rtx5090(), 1, 32.0 / 48, Limiter::Warps}};
  for (const Expected& e : expected) check_occupancy(block, e);
}

TEST_CASE("shared memory is allocated in 256 B on the T4 and 128 B (+1 KB) from sm_80 on",
          "[fit][occupancy]") {
  CHECK(compute_occupancy({128, 32, 1}, SmLimits::t4()).smem_allocated_per_block == 256);
  CHECK(compute_occupancy({128, 32, 1}, SmLimits::a100()).smem_allocated_per_block == 1152);
  CHECK(compute_occupancy({128, 32, 1}, SmLimits::rtx5090()).smem_allocated_per_block == 1152);
}

TEST_CASE("the fit check names the limit a block exceeds", "[fit]") {
  for (const SmLimits& sm : published_sm_limits()) {
    INFO(sm.name);
    // Threads: 1,024 per block on every GPU.
    CHECK(does_not_fit({2048, 16, 0}, sm) ==
          "needs 2,048 threads per block; this GPU allows 1,024");
    CHECK(does_not_fit({1024, 16, 0}, sm).empty());
    // Registers per thread: 255 at most.
    CHECK(does_not_fit({32, 256, 0}, sm) == "needs 256 registers per thread; this GPU allows 255");
    // Registers per block, as allocated: 64 x 32 = 2,048 per warp x 32 warps = 65,536 fits
    // exactly; 65 x 32 = 2,080, rounded up to 2,304, x 32 warps = 73,728 does not.
    CHECK(does_not_fit({1024, 64, 0}, sm).empty());
    CHECK(does_not_fit({1024, 65, 0}, sm) ==
          "needs 73,728 registers per block (65 per thread, 1,024 threads); "
          "this GPU allows 65,536");
    // 255 registers: 8,160 per warp, rounded up to 8,192; 8 warps = 65,536 fit, 16 do not.
    CHECK(does_not_fit({256, 255, 0}, sm).empty());
    CHECK(does_not_fit({512, 255, 0}, sm) ==
          "needs 131,072 registers per block (255 per thread, 512 threads); "
          "this GPU allows 65,536");
    // Whole warps per quarter SM: 5 warps are allocated as 8. With 255 registers, 160 threads
    // (5 warps) need 8 x 8,192 = 65,536 and fit; 288 threads (9 warps, allocated as 12) do not.
    CHECK(does_not_fit({160, 255, 0}, sm).empty());
    CHECK(does_not_fit({288, 255, 0}, sm) ==
          "needs 98,304 registers per block (255 per thread, 288 threads); this GPU allows 65,536");
    // A block that does not fit has no occupancy, and the calculator says so.
    for (const KernelResources& k :
         {KernelResources{2048, 16, 0}, KernelResources{512, 255, 0}, KernelResources{32, 256, 0}})
      CHECK(compute_occupancy(k, sm).limiter == Limiter::DoesNotFit);
  }
}

TEST_CASE("the per-block shared memory limit with the opt-in, GPU by GPU", "[fit]") {
  // 64 KB = 65,536 B (T4), 163 KB = 166,912 B (A100), 99 KB = 101,376 B (sm_86, sm_89,
  // sm_120), 227 KB = 232,448 B (H100, B200): the maximum fits, one byte more does not.
  const struct {
    SmLimits sm;
    size_t allowed;
    const char* message;
  } limits[] = {
      {SmLimits::t4(), 65536,
       "needs 65,537 B of shared memory per block; this GPU allows 65,536 B"},
      {SmLimits::a100(), 166912,
       "needs 166,913 B of shared memory per block; this GPU allows 166,912 B"},
      {SmLimits::rtx3090(), 101376,
       "needs 101,377 B of shared memory per block; this GPU allows 101,376 B"},
      {SmLimits::l4(), 101376,
       "needs 101,377 B of shared memory per block; this GPU allows 101,376 B"},
      {SmLimits::h100(), 232448,
       "needs 232,449 B of shared memory per block; this GPU allows 232,448 B"},
      {SmLimits::b200(), 232448,
       "needs 232,449 B of shared memory per block; this GPU allows 232,448 B"},
      {SmLimits::rtx5090(), 101376,
       "needs 101,377 B of shared memory per block; this GPU allows 101,376 B"}};
  for (const auto& l : limits) {
    INFO(l.sm.name);
    CHECK(does_not_fit({256, 32, l.allowed}, l.sm).empty());
    // The largest block is alone on its SM.
    CHECK(compute_occupancy({256, 32, l.allowed}, l.sm).blocks_per_sm == 1);
    CHECK(does_not_fit({256, 32, l.allowed + 1}, l.sm) == l.message);
    CHECK(compute_occupancy({256, 32, l.allowed + 1}, l.sm).limiter == Limiter::DoesNotFit);
  }
}

TEST_CASE("with_thousands groups digits by three", "[fit]") {
  CHECK(with_thousands(0) == "0");
  CHECK(with_thousands(999) == "999");
  CHECK(with_thousands(1000) == "1,000");
  CHECK(with_thousands(101376) == "101,376");
  CHECK(with_thousands(1234567) == "1,234,567");
}

TEST_CASE("a test meeting a kernel that does not fit remembers why, and fails on anything else",
          "[fit]") {
  KernelsThatDoNotFit unfit;
  CHECK(unfit.run("fits", [] {}));
  CHECK_FALSE(unfit.run("double_buffer 128x128x64", [] {
    throw KernelDoesNotFit("cannot launch on T4: needs 131,072 B of shared memory per block; "
                           "this GPU allows 65,536 B");
  }));
  CHECK(unfit.reasons() ==
        "double_buffer 128x128x64: cannot launch on T4: needs 131,072 B of shared memory per "
        "block; this GPU allows 65,536 B");
  // A wrong size or a CUDA error is not "does not fit": it propagates and fails the test.
  CHECK_THROWS_AS(unfit.run("refused shape", [] { throw UnsupportedShape("M must be >= 1"); }),
                  UnsupportedShape);
  CHECK_THROWS_AS(unfit.run("CUDA error", [] { throw CudaError("invalid argument"); }), CudaError);
  CHECK(unfit.reasons().find("refused shape") == std::string::npos);
}
