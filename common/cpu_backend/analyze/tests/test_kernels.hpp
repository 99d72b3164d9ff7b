// The kernels the memory model's tests measure (test_kernels.cpp, compiled by clang with the
// load/store hooks). Each function allocates its buffers, launches once with the model on and
// returns what the model counted.
#pragma once

#include <string>

#include "common/cpu_backend/analyze/memory_model.hpp"

namespace memory_model_test {

using tutorial::analyze::MemoryStats;

// Chapter 01's kernels, M = N = K = n.
MemoryStats naive_gemm(int n);
MemoryStats naive_gemm_swapped(int n);

// Chapter 06's shared-memory transposes, n × n.
MemoryStats transpose_tiled(int n);   // float tile[32][32]
MemoryStats transpose_padded(int n);  // float tile[32][33]

// One block of 32 threads, one float4 each: out4[lane] = in4[lane].
MemoryStats float4_copy();
// One block of 48 threads (a full warp and half of one): out[thread] = in[thread].
MemoryStats partial_warp_copy();
// One block of 32 threads; only the even lanes copy: if (lane % 2 == 0) out[lane] = in[lane].
MemoryStats even_lanes_copy();
// One block of 32 threads through a __shared__ float4 array: s[lane * stride] = in4[lane],
// a barrier, out4[lane] = s[lane * stride].
MemoryStats shared_float4_copy(int stride);
MemoryStats shared_float4_halves();

// A kernel that writes threadIdx through a const_cast (the process is stopped).
MemoryStats write_thread_index();
// A kernel that writes a __device__ array, which is host memory here (the process is stopped).
MemoryStats write_device_variable();
// A kernel whose __pipeline_memcpy_async writes device memory, not shared memory (stopped).
MemoryStats async_copy_to_global();
// Whether tutorial::launch runs a function that is not __global__ (the model refuses it).
bool launches_a_plain_function();

// Shared-memory races: the problem a launch failed with ("" when it did not fail).
// Chapter 06's padded transpose with its barrier left out (a read of another thread's write,
// or that write after the read, in one phase: whichever the thread order makes it).
std::string transpose_without_barrier(int n);
// Chapter 06's padded transpose as it is (no problem).
std::string transpose_with_barrier(int n);
// A tiled copy whose tile is overwritten for the next step before every thread has read it
// (the second barrier of a tiled loop left out): a write after another thread's read, or the
// read of that write, as the order makes it.
std::string overwrite_without_barrier();

}  // namespace memory_model_test
