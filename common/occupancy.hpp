// An occupancy calculator you can read: threads, registers and shared memory per block,
// against the per-SM limits, give resident blocks and warps per SM and the limiting resource.
//
// It models what the runtime does on recent GPUs (compare cudaOccupancyMaxActiveBlocksPerMultiprocessor):
//   * registers are allocated per warp in units of 256, and each of the SM's 4 sub-partitions
//     holds a quarter of the register file;
//   * shared memory is allocated per block in units of 128 bytes (compute capability 8.x/9.x),
//     and the driver reserves 1 KB per block on top of what the kernel asks for;
//   * the SM's unified L1/shared memory is split per kernel: a kernel with a carveout
//     preference (cudaFuncAttributePreferredSharedMemoryCarveout, P% of the SM's shared
//     memory) gets P% rounded up to a capacity the architecture supports (H100: 0, 8, 16, 32,
//     64, 100, 132, 164, 196 or 228 KB), or, when one block would not fit in that, the smallest
//     capacity that holds one block; without a preference, the most shared memory there is
//     (the driver picks its own split then, which can be smaller; the block count comes out the
//     same, which the resources table of `make run` shows beside the runtime's).
//     This is the rule of CUDA's occupancy calculator (cuda_occupancy.h,
//     cudaOccSMemPreferenceVoltaPlus and cudaOccMaxBlocksPerSMSmemLimit).
// SmemModel::Simple drops the reservation and the rounding: the arithmetic of the example in
// chapter 5 of Hwu, Kirk and El Hajj, "Programming Massively Parallel Processors" (4th ed.).
//
// does_not_fit() is the check tutorial::launch makes before every launch: a block that asks
// for more than this GPU allows one block to have is refused with the limit named, instead of
// the runtime's "invalid argument" or "too many resources requested for launch".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tutorial {

struct SmLimits {
  std::string name;                 // for tables, e.g. "A100 (sm_80)"
  int compute_major = 8;
  int compute_minor = 0;
  int sm_count = 0;                 // of the named product (not a limit of the architecture)
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;
  size_t smem_per_sm = 0;           // usable by blocks, bytes (A100: 164 KB, H100: 228 KB)
  size_t max_smem_per_block = 0;    // with the opt-in (A100: 163 KB, H100: 227 KB)
  size_t reserved_smem_per_block = 1024;
  int warp_size = 32;
  int register_alloc_unit = 256;    // registers, per warp
  int smem_alloc_unit = 128;        // bytes, per block
  int sub_partitions = 4;
  // The shared-memory capacities the unified L1/shared memory can be configured with, in KB,
  // smallest first (the carveout's choices); empty: only smem_per_sm (no carveout modelled).
  std::vector<int> smem_capacities_kb;

  // NVIDIA's published limits of one GPU per architecture (occupancy.cpp cites the sources).
  static SmLimits t4();       // compute capability 7.5 (Turing)
  static SmLimits a100();     // 8.0 (Ampere, data center)
  static SmLimits rtx3090();  // 8.6 (Ampere, GeForce RTX 30 and A10/A40)
  static SmLimits l4();       // 8.9 (Ada: L4, GeForce RTX 40)
  static SmLimits h100();     // 9.0 (Hopper: H100 and H200 share the SM)
  static SmLimits b200();     // 10.0 (Blackwell, data center)
  static SmLimits rtx5090();  // 12.0 (Blackwell, GeForce RTX 50)
};

// The seven above, oldest first: the GPUs a student is likely to have or rent.
std::vector<SmLimits> published_sm_limits();

// The shared-memory capacities (KB) an SM of compute capability major.minor supports, as
// SmLimits::smem_capacities_kb; empty for an architecture this tutorial does not know.
std::vector<int> smem_capacities_kb(int major, int minor);

// The shared memory an SM gives a kernel's blocks, in bytes: the carveout rule above for a
// block that allocates `allocated_per_block` bytes (reservation and rounding included).
// carveout_percent < 0 (no preference) or no capacities known: sm.smem_per_sm.
size_t smem_per_sm_for(const SmLimits& sm, int carveout_percent, size_t allocated_per_block);

struct KernelResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  size_t smem_per_block = 0;  // static + dynamic, as the kernel asks (without the reservation)
  int carveout_percent = -1;  // the kernel's preferred carveout, 0..100; -1: none (the driver's)
};

enum class Limiter { Warps, Blocks, Registers, SharedMemory, DoesNotFit };
const char* to_string(Limiter limiter);

enum class SmemModel { Runtime, Simple };

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int threads_per_sm = 0;
  double occupancy = 0;     // resident warps / maximum warps per SM
  Limiter limiter = Limiter::DoesNotFit;
  // Each resource's own limit on resident blocks (INT_MAX where it does not limit).
  int limit_warps = 0;
  int limit_blocks = 0;
  int limit_registers = 0;
  int limit_smem = 0;
  size_t smem_allocated_per_block = 0;  // after the reservation and rounding
  size_t smem_per_sm = 0;               // the SM's shared memory for this kernel (the carveout)
};

// SmemModel::Simple also ignores the carveout (the textbook's SM has one fixed size).
Occupancy compute_occupancy(const KernelResources& kernel, const SmLimits& sm,
                            SmemModel model = SmemModel::Runtime);

// Why one block of this kernel cannot run on this SM at all, naming the limit, e.g.
// "needs 131,072 B of shared memory per block; this GPU allows 101,376 B"; empty when it
// fits. The limits, in the order checked: threads per block, registers per thread, registers
// per block (allocated per warp, as compute_occupancy counts them), and static + dynamic
// shared memory per block with the opt-in (sharedMemPerBlockOptin). A kernel that fits has
// compute_occupancy(...).blocks_per_sm >= 1, one that does not has 0 (Limiter::DoesNotFit).
std::string does_not_fit(const KernelResources& kernel, const SmLimits& sm);

// 131072 -> "131,072": the numbers in does_not_fit's messages.
std::string with_thousands(size_t value);

// GPU side (needs a device): the limits of a real device, a compiled kernel's resources
// (its carveout preference included), and the CUDA runtime's own answer, for comparison.
SmLimits sm_limits_of_device(int device = 0);
KernelResources kernel_resources(const void* kernel, int threads_per_block, size_t dynamic_smem);
int runtime_blocks_per_sm(const void* kernel, int threads_per_block, size_t dynamic_smem);

}  // namespace tutorial
