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

SmLimits SmLimits::a100() {
  SmLimits s;
  s.name = "A100";
  s.compute_major = 8;
  s.max_threads_per_sm = 2048;
  s.max_blocks_per_sm = 32;
  s.smem_per_sm = 164 * 1024;
  s.max_smem_per_block = 163 * 1024;
  return s;
}

SmLimits SmLimits::h100() {
  SmLimits s;
  s.name = "H100/H200";
  s.compute_major = 9;
  s.max_threads_per_sm = 2048;
  s.max_blocks_per_sm = 32;
  s.smem_per_sm = 228 * 1024;
  s.max_smem_per_block = 227 * 1024;
  return s;
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
  occ.limit_warps = warps_per_block > 0 ? max_warps / warps_per_block : 0;
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
  if (smem == 0)
    occ.limit_smem = INT_MAX;
  else if (model == SmemModel::Runtime && smem > sm.max_smem_per_block + sm.reserved_smem_per_block)
    occ.limit_smem = 0;
  else
    occ.limit_smem = int(sm.smem_per_sm / smem);

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

SmLimits sm_limits_of_device(int device) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  SmLimits s;
  s.name = p.name;
  s.compute_major = p.major;
  s.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  s.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  s.registers_per_sm = p.regsPerMultiprocessor;
  s.max_registers_per_block = p.regsPerBlock;
  s.smem_per_sm = p.sharedMemPerMultiprocessor;
  s.max_smem_per_block = p.sharedMemPerBlockOptin;
  s.reserved_smem_per_block = p.reservedSharedMemPerBlock;
  s.warp_size = p.warpSize;
  s.smem_alloc_unit = p.major >= 8 ? 128 : 256;
  return s;
}

KernelResources kernel_resources(const void* kernel, int threads_per_block, size_t dynamic_smem) {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  return {threads_per_block, a.numRegs, a.sharedSizeBytes + dynamic_smem};
}

int runtime_blocks_per_sm(const void* kernel, int threads_per_block, size_t dynamic_smem) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads_per_block,
                                                           dynamic_smem));
  return blocks;
}

}  // namespace tutorial
