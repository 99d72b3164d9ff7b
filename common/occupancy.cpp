#include "common/occupancy.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "common/cuda_check.hpp"

namespace tutorial {

namespace {
int round_up(int value, int unit) { return (value + unit - 1) / unit * unit; }
size_t round_up(size_t value, size_t unit) { return (value + unit - 1) / unit * unit; }
}  // namespace

// The published per-SM limits, one GPU per architecture. Sources:
//   * NVIDIA, CUDA C++ Programming Guide (CUDA 13.0), section 5.1 "Compute Capabilities",
//     table "Technical Specifications per Compute Capability": resident blocks, warps and
//     threads per SM, 64 K 32-bit registers per SM and per block, 255 per thread, shared
//     memory per SM and per block (the latter with the opt-in), 1024 threads per block;
//     https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html
//     (in CUDA 12.x: cuda-c-programming-guide, "Features and Technical Specifications").
//   * The same guide's per-architecture sections and NVIDIA's tuning guides (Turing, Ampere,
//     Ada, Hopper, Blackwell; docs.nvidia.com/cuda/<arch>-tuning-guide): "1 KB of shared memory
//     [per block] is reserved for system use" from compute capability 8.0 on (none on 7.5),
//     shared memory configurable per SM up to 64 KB (7.5), 164 KB (8.0), 100 KB (8.6, 8.9,
//     12.0), 228 KB (9.0, 10.0).
//   * Allocation units (registers: 256 per warp, whole warps per quarter SM; shared memory:
//     256 B on 7.x, 128 B from 8.0) as in NVIDIA's CUDA Occupancy Calculator and Nsight
//     Compute's occupancy section; the runtime agrees (the GPU tests compare).
//   * The capacities the unified L1/shared memory can be split into (the carveout's choices):
//     the CUDA C++ Programming Guide's per-architecture "Shared Memory" sections and the
//     Ampere and Hopper tuning guides (A100: 0, 8, 16, 32, 64, 100, 132 or 164 KB; 8.6: up to
//     100 KB; H100: up to 228 KB), and the capacities CUDA's occupancy calculator rounds a
//     carveout up to (cuda_occupancy.h in the toolkit, cudaOccAlignUpShmemSizeVoltaPlus).
//   * SM counts: the products' datasheets and whitepapers (H100: the SXM5 part).
// On a real GPU the tutorial reads its limits from the device (sm_limits_of_device); these
// are for host tests and for reading what a kernel needs on a GPU you do not have.
namespace {
SmLimits published(const char* name, int major, int minor, int sm_count, int max_threads_per_sm,
                   int max_blocks_per_sm, int smem_per_sm_kb, int max_smem_per_block_kb) {
  SmLimits s;
  s.name = name;
  s.compute_major = major;
  s.compute_minor = minor;
  s.sm_count = sm_count;
  s.max_threads_per_sm = max_threads_per_sm;
  s.max_blocks_per_sm = max_blocks_per_sm;
  s.smem_per_sm = size_t(smem_per_sm_kb) * 1024;
  s.max_smem_per_block = size_t(max_smem_per_block_kb) * 1024;
  s.reserved_smem_per_block = major >= 8 ? 1024 : 0;
  s.smem_alloc_unit = major >= 8 ? 128 : 256;
  s.smem_capacities_kb = smem_capacities_kb(major, minor);
  return s;  // registers: 65536 per SM and per block, 255 per thread (every architecture here)
}
}  // namespace

//                                                 SMs  threads blocks smem/SM smem/block
//                                                      per SM  per SM  (KB)  (KB, opt-in)
SmLimits SmLimits::t4() { return published("T4 (sm_75)", 7, 5, 40, 1024, 16, 64, 64); }
SmLimits SmLimits::a100() { return published("A100 (sm_80)", 8, 0, 108, 2048, 32, 164, 163); }
SmLimits SmLimits::rtx3090() {
  return published("RTX 3090 / A10 (sm_86)", 8, 6, 82, 1536, 16, 100, 99);
}
SmLimits SmLimits::l4() {
  return published("L4 / RTX 4090 (sm_89)", 8, 9, 58, 1536, 24, 100, 99);
}
SmLimits SmLimits::h100() {
  return published("H100/H200 (sm_90)", 9, 0, 132, 2048, 32, 228, 227);
}
SmLimits SmLimits::b200() { return published("B200 (sm_100)", 10, 0, 148, 2048, 32, 228, 227); }
SmLimits SmLimits::rtx5090() {
  return published("RTX 5090 (sm_120)", 12, 0, 170, 1536, 32, 100, 99);
}

std::vector<SmLimits> published_sm_limits() {
  return {SmLimits::t4(),  SmLimits::a100(), SmLimits::rtx3090(), SmLimits::l4(),
          SmLimits::h100(), SmLimits::b200(), SmLimits::rtx5090()};
}

std::vector<int> smem_capacities_kb(int major, int minor) {
  if (major == 7 && minor == 5) return {32, 64};                           // Turing
  if (major == 7) return {0, 8, 16, 32, 64, 96};                           // Volta
  if (major == 8 && (minor == 0 || minor == 7)) return {0, 8, 16, 32, 64, 100, 132, 164};
  if (major == 8 || major == 12) return {0, 8, 16, 32, 64, 100};          // 8.6, 8.9, 12.x
  if (major == 9 || major == 10 || major == 11) return {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  return {};
}

size_t smem_per_sm_for(const SmLimits& sm, int carveout_percent, size_t allocated_per_block) {
  if (carveout_percent < 0 || sm.smem_capacities_kb.empty()) return sm.smem_per_sm;
  // The smallest supported capacity holding `bytes`; the SM's maximum if none does.
  const auto capacity_for = [&](size_t bytes) {
    for (int kb : sm.smem_capacities_kb)
      if (size_t(kb) * 1024 >= bytes) return size_t(kb) * 1024;
    return sm.smem_per_sm;
  };
  const size_t preferred = capacity_for(size_t(carveout_percent) * sm.smem_per_sm / 100);
  // The preference holds as long as one block still fits in it; otherwise the SM takes the
  // smallest capacity that holds one block (a kernel always gets the shared memory one block
  // needs, but no more blocks than that capacity holds).
  return preferred >= allocated_per_block ? preferred : capacity_for(allocated_per_block);
}

const char* to_string(Limiter limiter) {
  switch (limiter) {
    case Limiter::Warps: return "warps";
    case Limiter::Blocks: return "blocks";
    case Limiter::Registers: return "registers";
    case Limiter::SharedMemory: return "shared memory";
    case Limiter::DoesNotFit: return "does not fit";
  }
  return "?";
}

Occupancy compute_occupancy(const KernelResources& k, const SmLimits& sm, SmemModel model) {
  Occupancy occ;
  const int max_warps = sm.max_threads_per_sm / sm.warp_size;
  const int warps_per_block = (k.threads_per_block + sm.warp_size - 1) / sm.warp_size;

  // Warps (threads) and the block-slot limit.
  occ.limit_warps = warps_per_block > 0 && k.threads_per_block <= sm.max_threads_per_block
                        ? max_warps / warps_per_block
                        : 0;
  occ.limit_blocks = sm.max_blocks_per_sm;

  // Registers: each warp gets registers_per_thread*32 rounded up to 256; a sub-partition
  // (a quarter of the SM) can only hold whole warps.
  occ.limit_registers = INT_MAX;
  if (k.registers_per_thread > 0) {
    const int regs_per_warp = round_up(k.registers_per_thread * sm.warp_size, sm.register_alloc_unit);
    const int regs_per_block_hw =
        regs_per_warp * round_up(warps_per_block, sm.sub_partitions);  // the hardware's check
    if (k.registers_per_thread > sm.max_registers_per_thread ||
        regs_per_block_hw > sm.max_registers_per_block) {
      occ.limit_registers = 0;
    } else {
      const int warps_per_sub = (sm.registers_per_sm / sm.sub_partitions) / regs_per_warp;
      occ.limit_registers = warps_per_sub * sm.sub_partitions / warps_per_block;
    }
  }

  // Shared memory.
  size_t smem = k.smem_per_block;
  if (model == SmemModel::Runtime) smem = round_up(smem + sm.reserved_smem_per_block, size_t(sm.smem_alloc_unit));
  occ.smem_allocated_per_block = smem;
  occ.smem_per_sm = model == SmemModel::Runtime ? smem_per_sm_for(sm, k.carveout_percent, smem)
                                                : sm.smem_per_sm;
  if (smem == 0)
    occ.limit_smem = INT_MAX;
  else if (model == SmemModel::Runtime && smem > sm.max_smem_per_block + sm.reserved_smem_per_block)
    occ.limit_smem = 0;
  else
    occ.limit_smem = int(occ.smem_per_sm / smem);

  occ.blocks_per_sm = std::min({occ.limit_warps, occ.limit_blocks, occ.limit_registers, occ.limit_smem});
  if (warps_per_block == 0) occ.blocks_per_sm = 0;
  // Name the resource that binds. When several bind equally, the thread (warp) limit is named
  // first: a kernel at the hardware's maximum threads per SM is not "limited" by its registers.
  if (occ.blocks_per_sm == 0)
    occ.limiter = Limiter::DoesNotFit;
  else if (occ.blocks_per_sm == occ.limit_warps)
    occ.limiter = Limiter::Warps;
  else if (occ.blocks_per_sm == occ.limit_registers)
    occ.limiter = Limiter::Registers;
  else if (occ.blocks_per_sm == occ.limit_smem)
    occ.limiter = Limiter::SharedMemory;
  else
    occ.limiter = Limiter::Blocks;

  occ.warps_per_sm = occ.blocks_per_sm * warps_per_block;
  occ.threads_per_sm = occ.blocks_per_sm * k.threads_per_block;
  occ.occupancy = max_warps > 0 ? double(occ.warps_per_sm) / max_warps : 0;
  return occ;
}

std::string with_thousands(size_t value) {
  std::string digits = std::to_string(value);
  for (int i = int(digits.size()) - 3; i > 0; i -= 3) digits.insert(size_t(i), ",");
  return digits;
}

std::string does_not_fit(const KernelResources& k, const SmLimits& sm) {
  // "needs <need><unit> <what>; this GPU allows <allowed><unit>"
  const auto needs = [](size_t need, const std::string& what, size_t allowed, const char* unit) {
    return "needs " + with_thousands(need) + unit + " " + what + "; this GPU allows " +
           with_thousands(allowed) + unit;
  };
  if (k.threads_per_block > sm.max_threads_per_block)
    return needs(size_t(k.threads_per_block), "threads per block",
                 size_t(sm.max_threads_per_block), "");
  if (k.registers_per_thread > sm.max_registers_per_thread)
    return needs(size_t(k.registers_per_thread), "registers per thread",
                 size_t(sm.max_registers_per_thread), "");
  if (k.registers_per_thread > 0) {
    // As the hardware allocates them: per warp in units of 256, whole warps per quarter SM.
    const int warps = (k.threads_per_block + sm.warp_size - 1) / sm.warp_size;
    const int regs_per_warp =
        round_up(k.registers_per_thread * sm.warp_size, sm.register_alloc_unit);
    const int regs_per_block = regs_per_warp * round_up(warps, sm.sub_partitions);
    if (regs_per_block > sm.max_registers_per_block)
      return needs(size_t(regs_per_block),
                   "registers per block (" + std::to_string(k.registers_per_thread) +
                       " per thread, " + with_thousands(size_t(k.threads_per_block)) + " threads)",
                   size_t(sm.max_registers_per_block), "");
  }
  if (k.smem_per_block > sm.max_smem_per_block)
    return needs(k.smem_per_block, "of shared memory per block", sm.max_smem_per_block, " B");
  return "";
}

SmLimits sm_limits_of_device(int device) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  SmLimits s;
  s.name = p.name;
  s.compute_major = p.major;
  s.compute_minor = p.minor;
  s.sm_count = p.multiProcessorCount;
  s.max_threads_per_block = p.maxThreadsPerBlock;
  s.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  s.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  s.registers_per_sm = p.regsPerMultiprocessor;
  s.max_registers_per_block = p.regsPerBlock;
  s.smem_per_sm = p.sharedMemPerMultiprocessor;
  s.max_smem_per_block = p.sharedMemPerBlockOptin;
  s.reserved_smem_per_block = p.reservedSharedMemPerBlock;
  s.warp_size = p.warpSize;
  s.smem_alloc_unit = p.major >= 8 ? 128 : 256;
  s.smem_capacities_kb = smem_capacities_kb(p.major, p.minor);
  return s;
}

KernelResources kernel_resources(const void* kernel, int threads_per_block, size_t dynamic_smem) {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  // preferredShmemCarveout is -1 (cudaSharedmemCarveoutDefault) until the kernel states one.
  return {threads_per_block, a.numRegs, a.sharedSizeBytes + dynamic_smem,
          a.preferredShmemCarveout >= 0 ? a.preferredShmemCarveout : -1};
}

int runtime_blocks_per_sm(const void* kernel, int threads_per_block, size_t dynamic_smem) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads_per_block,
                                                           dynamic_smem));
  return blocks;
}

}  // namespace tutorial
