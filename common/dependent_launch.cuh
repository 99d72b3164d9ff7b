// Programmatic dependent launch, the device side (compute capability 9.0 and later; elsewhere,
// and on the CPU backend, these do nothing and launch_after is a plain launch).
//
// A kernel launched with tutorial::launch_after (common/launch.cuh) may be scheduled while the
// kernel ahead of it in the stream still runs: its blocks are placed on SMs as that kernel's
// blocks free them, and wait there. Two calls make it safe and useful:
//   - in the kernel ahead, allow_next_kernel(): from then on this block does not hold back the
//     next kernel's scheduling (a block that never calls it holds it back until it ends);
//   - in the kernel launched after, wait_for_previous_kernel() before reading anything the
//     kernel ahead wrote: it returns once that kernel has ended and its writes are visible.
// What it saves is part of the gap between two dependent kernels (the second one's launch, its
// blocks' start): 1-2 us a launch on an H200 (05_double_buffer/lab/LOG.md#early-sum).
#pragma once

namespace tutorial {

__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

}  // namespace tutorial
