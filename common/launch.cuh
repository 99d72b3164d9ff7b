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
//     line that made it, and
//   * remembers the configuration (kernel, grid, block, dynamic shared memory) so the
//     harness can compute occupancy for "the kernel that just ran" without each chapter
//     repeating its launch geometry.
// Without a GPU this file is not compiled: the CPU-backend build puts
// common/cpu_backend/include first on the include path, so `#include "common/launch.cuh"`
// finds common/cpu_backend/include/common/launch.cuh instead, the same launch() running the
// grid on the CPU (common/cpu_backend/README.md lists everything that build replaces).
#pragma once

#include "common/ceil_div.hpp"
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

}  // namespace tutorial
