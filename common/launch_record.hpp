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
// The first launch kept on this host thread after launch_count() was `count`: a launcher's main
// kernel, where it makes several (split-K's sum_slices and stream-K's fixup come after it).
// Only the last 16 are kept: after more, the oldest kept since. With none kept since, the
// most recent launch kept (another launcher's, or an empty record): ask launch_kept_since first
// where a launcher may launch nothing of its own (a library call such as cuBLAS).
const LaunchRecord& first_launch_since(long count);
// Whether this host thread kept a launch after launch_count() was `count` (launches inside a
// LaunchesNotRecorded, and other threads' launches, are counted but not kept here).
bool launch_kept_since(long count);
void record_launch(const LaunchRecord& record);
// While one lives on this host thread, launches count in launch_count() but are not kept for
// last_launch() and first_launch_since(): the trial runs a launcher makes before its real launch
// (chapter 05's timed shortlist) do not stand in for that launch where the harness reports a
// launcher's kernel, occupancy and resources.
class LaunchesNotRecorded {
 public:
  LaunchesNotRecorded();
  ~LaunchesNotRecorded();
  LaunchesNotRecorded(const LaunchesNotRecorded&) = delete;
  LaunchesNotRecorded& operator=(const LaunchesNotRecorded&) = delete;
};
// Launches recorded so far in this process, on every thread (the exercise runner checks
// that an answer came from a kernel launch).
long launch_count();

// The most blocks a grid may have along y (and z); along x it is 2^31 - 1.
constexpr int kMaxGridY = 65535;

// Throws UnsupportedShape for an empty grid, more than 1024 threads per block, or a grid
// beyond the hardware limits (2^31-1 × kMaxGridY × kMaxGridY).
void validate_launch(dim3 grid, dim3 block);

// Throws KernelDoesNotFit when one block of `kernel` needs more than this GPU allows a block
// (tutorial::does_not_fit: threads, registers, static + dynamic shared memory against the
// opt-in maximum), e.g. "cannot launch on NVIDIA GeForce RTX 3090: needs 131,072 B of shared
// memory per block; this GPU allows 101,376 B". Checked once per kernel, block size, dynamic
// size and device; later launches only look the answer up.
void require_fit(const void* kernel, dim3 block, size_t dynamic_smem);

// The L1/shared-memory split (`--carveout P`): from now on, before its first launch, every
// kernel asks for P% of each SM's unified L1/shared memory as shared memory
// (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, P); the rest
// is L1). A preference: the driver still gives a kernel the shared memory it needs. -1 (the
// default) leaves every kernel to the driver's choice.
void set_preferred_carveout(int percent);

// Above 48 KB of shared memory per block (static + dynamic) a kernel must opt in, once per
// kernel, before launch: cudaFuncSetAttribute(kernel,
// cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic bytes). tutorial::launch does it for
// every launch that needs it (ensure_dynamic_smem, from require_fit, which knows the static
// size).
void allow_dynamic_smem(const void* kernel, size_t bytes);
// allow_dynamic_smem(kernel, bytes) unless this kernel already opted in for that much; does
// nothing while static_bytes + bytes stays within the 48 KB every kernel may use. Above this
// GPU's opt-in maximum it throws KernelDoesNotFit rather than the runtime's "invalid argument".
void ensure_dynamic_smem(const void* kernel, size_t bytes, size_t static_bytes = 0);
template <typename... Params>
void allow_dynamic_smem(void (*kernel)(Params...), size_t bytes) {
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace tutorial
