// What the launch point remembers about the last launch, and its checks (no CUDA syntax here,
// so host-only code can include it). See launch.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "common/cuda_check.hpp"

namespace tutorial {

struct LaunchRecord {
  const void* kernel = nullptr;  // the __global__ function, as the runtime API wants it
  dim3 grid{0, 0, 0};
  dim3 block{0, 0, 0};
  size_t dynamic_smem = 0;
  int threads_per_block() const { return int(block.x * block.y * block.z); }
};

// The configuration of the most recent launch made through launch() on this host thread.
const LaunchRecord& last_launch();
void record_launch(const LaunchRecord& record);
// Launches recorded so far in this process, on every thread (the exercise runner checks
// that an answer came from a kernel launch).
long launch_count();

// Throws UnsupportedShape for an empty grid, more than 1024 threads per block, or a grid
// beyond the hardware limits (2^31-1 × 65535 × 65535).
void validate_launch(dim3 grid, dim3 block);

// Above 48 KB of dynamic shared memory a kernel must opt in, once per kernel, before launch:
// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
// tutorial::launch does it for every launch that asks for more (ensure_dynamic_smem).
void allow_dynamic_smem(const void* kernel, size_t bytes);
// allow_dynamic_smem(kernel, bytes) unless this kernel already opted in for that much; does
// nothing up to 48 KB, which every kernel may use.
void ensure_dynamic_smem(const void* kernel, size_t bytes);
template <typename... Params>
void allow_dynamic_smem(void (*kernel)(Params...), size_t bytes) {
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace tutorial
