// Chapter 06: a block's range of shared memory written to global memory by the copy engine.
//
// From sm_90 on, an SM has a bulk copy engine (the Tensor Memory Accelerator; PTX
// `cp.async.bulk`): one thread hands it a range, and it moves the bytes with no instruction per
// element. Step 6's wide chunk kernel ends with one contiguous range of the output in shared
// memory; written by the engine, it measured faster than written by the threads (thin_bulk.md).
// The engine takes a range whose global start and shared start are 16-byte aligned and whose
// size is whole 16 bytes: the threads store the few floats after the last whole 16 bytes, and
// the whole range where the global start is not aligned. Before sm_90, and on the CPU backend,
// the threads store it all, float4 where they can.
#pragma once

#include <cstdint>

#include "06_transpose/float4.cuh"

namespace ch06 {

// Every thread of the block calls it, after writing its part of `chunk` (16-byte aligned):
// `count` floats from `chunk` to `dst`. It waits for the block's shared-memory writes itself.
template <int THREADS>
__device__ void store_range(float* dst, const float* chunk, int count) {
  const bool aligned = reinterpret_cast<uintptr_t>(dst) % 16 == 0;
  const int whole = aligned ? count / 4 * 4 : 0;  // floats in whole 16 bytes
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // BEGIN QUOTE bulk-store
  // The engine reads shared memory through the "async proxy": each thread's writes must be
  // made visible to it (the fence) before the barrier after which one thread starts it.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (whole > 0 && threadIdx.x == 0) {
    const unsigned from = static_cast<unsigned>(__cvta_generic_to_shared(chunk));
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(dst), "r"(from), "r"(unsigned(whole) * 4u) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // The block's shared memory must outlive the engine's reads of it.
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  // END QUOTE bulk-store
#else
  __syncthreads();
  for (int k = threadIdx.x; k < whole / 4; k += THREADS)
    store4(dst + 4 * k, reinterpret_cast<const float4*>(chunk)[k]);
#endif
  for (int k = whole + threadIdx.x; k < count; k += THREADS) dst[k] = chunk[k];
}

}  // namespace ch06
