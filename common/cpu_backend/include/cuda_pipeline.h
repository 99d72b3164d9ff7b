// <cuda_pipeline.h> for the CPU backend: the primitives interface of asynchronous copies.
//
// Each CUDA thread keeps a queue of its copies. __pipeline_commit() closes the current batch;
// __pipeline_wait_prior(N) performs every committed batch but the N most recent, which is
// when the data becomes visible, as on the GPU. A kernel that reads a destination before
// waiting for it therefore reads what was there before (shared memory is poisoned at launch).
#pragma once

#include <cstddef>

#include "common/cpu_backend/cuda_shim.hpp"

#ifdef TUTORIAL_CPU_ANALYZE
// The memory model's build (analyze/memory_model.cpp): the copy's global read is a load of
// the kernel, counted at this call site; its destination must be shared memory, as on the GPU
// (the write itself, performed later by the scheduler, is not counted).
extern "C" void tutorial_analyze_async_copy(const void* src, size_t bytes, const void* dst,
                                            size_t dst_bytes);
#endif

// size_and_align: 4, 8 or 16 bytes, and both pointers aligned to it; the last zfill bytes of
// the destination are zero-filled instead of copied.
inline void __pipeline_memcpy_async(void* __restrict__ dst, const void* __restrict__ src,
                                    size_t size_and_align, size_t zfill = 0) {
#ifdef TUTORIAL_CPU_ANALYZE
  tutorial_analyze_async_copy(src, size_and_align - zfill, dst, size_and_align);
#endif
  ::tutorial::cpu::pipeline_memcpy_async(dst, src, size_and_align, zfill);
}
inline void __pipeline_commit() { ::tutorial::cpu::pipeline_commit(); }
inline void __pipeline_wait_prior(size_t prior) { ::tutorial::cpu::pipeline_wait_prior(prior); }
inline void __pipeline_arrive_on(void*) {
  ::tutorial::cpu::device_error("__pipeline_arrive_on is not supported by the CPU backend");
}
