// The one launch point of the tutorial.
//
// Every kernel launch in the repository goes through tutorial::launch(). It
//   * refuses empty or oversized grids/blocks with a message instead of the runtime's
//     "invalid configuration argument",
//   * refuses a kernel whose block does not fit this GPU (shared memory, registers, threads
//     per block) with a message that names the limit (KernelDoesNotFit), so that a chapter
//     shows it as skipped on a smaller GPU instead of failing,
//   * opts the kernel in to more than 48 KB of dynamic shared memory when a launch asks for it
//     (once per kernel and size: cudaFuncSetAttribute, see launch_record.hpp),
//   * checks cudaGetLastError() right after the launch, so a bad launch is reported at the
//     line that made it,
//   * (launch_after) lets a kernel start before the one ahead of it in the stream has ended,
//     where the GPU can (common/dependent_launch.cuh), and
//   * remembers the configuration (kernel, grid, block, dynamic shared memory) so the
//     harness can compute occupancy for "the kernel that just ran" without each chapter
//     repeating its launch geometry.
// Without a GPU this file is not compiled: the CPU-backend build puts
// common/cpu_backend/include first on the include path, so `#include "common/launch.cuh"`
// finds common/cpu_backend/include/common/launch.cuh instead, the same launch() running the
// grid on the CPU (common/cpu_backend/README.md lists everything that build replaces).
#pragma once

#include <map>
#include <mutex>
#include <utility>

#include "common/ceil_div.hpp"
#include "common/dependent_launch.cuh"
#include "common/launch_record.hpp"

namespace tutorial {

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t dynamic_smem,
            Args&&... args) {
  validate_launch(grid, block);
  require_fit(reinterpret_cast<const void*>(kernel), block, dynamic_smem);
  ensure_dynamic_smem(reinterpret_cast<const void*>(kernel), dynamic_smem);
  kernel<<<grid, block, dynamic_smem>>>(static_cast<Params>(args)...);
  CUDA_CHECK(cudaGetLastError());
  record_launch(LaunchRecord{reinterpret_cast<const void*>(kernel), grid, block, dynamic_smem});
}

// Whether launch_after may let `kernel` start early on the current GPU: the GPU has programmatic
// dependent launch (compute capability 9.0 and later) and the kernel was compiled for it (PTX of
// compute_90 or later: a kernel JIT-compiled from older PTX has no wait in it). Kept per kernel
// and device. Call after require_fit, which reports a kernel the GPU cannot run.
inline bool can_launch_early(const void* kernel) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, bool> known;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(kernel, device);
  const auto found = known.find(key);
  if (found != known.end()) return found->second;
  int major = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return known[key] = major >= 9 && attributes.ptxVersion >= 90;
}

// launch(), as a programmatic dependent launch where the GPU and the kernel allow it
// (can_launch_early; elsewhere a plain launch): the kernel may be scheduled before the kernel
// ahead of it in the stream has ended, and must call wait_for_previous_kernel() before it reads
// what that kernel wrote (common/dependent_launch.cuh). For the chapters' launchers: the
// exercises' grader accepts launch() only.
template <typename... Params, typename... Args>
void launch_after(void (*kernel)(Params...), dim3 grid, dim3 block, size_t dynamic_smem,
                  Args&&... args) {
  validate_launch(grid, block);
  require_fit(reinterpret_cast<const void*>(kernel), block, dynamic_smem);
  if (!can_launch_early(reinterpret_cast<const void*>(kernel)))
    return launch(kernel, grid, block, dynamic_smem, std::forward<Args>(args)...);
  ensure_dynamic_smem(reinterpret_cast<const void*>(kernel), dynamic_smem);
  cudaLaunchAttribute early[1] = {};
  early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = dynamic_smem;
  config.attrs = early;
  config.numAttrs = 1;
  const cudaError_t launched = cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
  const cudaError_t pending = cudaGetLastError();  // read, so that no later check reports it
  CUDA_CHECK(launched);
  CUDA_CHECK(pending);
  record_launch(LaunchRecord{reinterpret_cast<const void*>(kernel), grid, block, dynamic_smem});
}

}  // namespace tutorial
