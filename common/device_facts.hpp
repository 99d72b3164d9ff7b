// What a launcher needs to know of the GPU in hand, read once per device: its properties
// (DeviceInfo: SMs, clocks, memory bus, L2, the SM's limits) and, per kernel, how many of its
// blocks the whole GPU holds at once. Chapters 05 and 06 choose their kernels from these.
#pragma once

#include <cstddef>

#include "common/device_info.hpp"

namespace tutorial {

// The current device's properties, queried on first use and kept (one entry per device).
const DeviceInfo& current_device_info();

// DRAM bytes the whole GPU moves per clock of its SMs, at the memory's theoretical rate:
// bus width / 8 bytes x 2 transfers per memory clock x memory clock / SM clock.
double dram_bytes_per_sm_clock(const DeviceInfo& d);

// Blocks of `kernel` (launched with `threads` threads and `dynamic_smem` bytes of dynamic
// shared memory) that the GPU holds at once: SMs x the runtime's resident blocks per SM
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor), at least SMs. Kept per kernel and launch
// shape. The CPU backend has no SMs to ask: there it is SMs x `blocks_per_sm_without_gpu`
// where that is given (a kernel's __launch_bounds__ minimum, say), else what the occupancy
// calculator makes of the threads and the dynamic shared memory alone (registers unknown).
long long resident_blocks(const void* kernel, int threads, size_t dynamic_smem,
                          int blocks_per_sm_without_gpu = 0);

template <typename... Params>
long long resident_blocks(void (*kernel)(Params...), int threads, size_t dynamic_smem,
                          int blocks_per_sm_without_gpu = 0) {
  return resident_blocks(reinterpret_cast<const void*>(kernel), threads, dynamic_smem,
                         blocks_per_sm_without_gpu);
}

}  // namespace tutorial
