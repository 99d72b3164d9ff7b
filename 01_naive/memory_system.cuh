// The kernels of the memory-system measurements (01_memory_system, memory_system_demo.cuh):
// how long one load waits at each level, how many bytes must be in flight to keep DRAM busy,
// what a random gather costs, and what `__restrict__` changes.
//
//   pointer_chase          one thread, each load's address the value of the previous load:
//                          no two loads overlap, so time per step = latency of the level that
//                          holds the chain.
//   read_in_flight<LOADS>  every thread issues LOADS independent float4 loads, then adds them:
//                          bytes in flight per SM = resident threads × LOADS × 16 (Little's
//                          law), and, with enough of them, the bandwidth of the level that
//                          holds the buffer.
//   gather                 out[i] = in[index[i]]: coalescing is about which sectors a warp
//                          touches, not the order of its lanes.
//   weighted_sum_may_alias / weighted_sum_restrict: the same loop, with and without the promise
//                          that the pointers do not overlap.
#pragma once

#include <cstddef>

#include "common/ceil_div.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch01 {

// =====================================================================================
// Kernels
// =====================================================================================

// Launched with one thread. `next` holds a cycle: next[i] is the index of the next node.
__global__ void pointer_chase(const unsigned* __restrict__ next, int steps,
                              unsigned* __restrict__ last) {
  unsigned i = 0;
  for (int s = 0; s < steps; ++s) i = next[i];  // the next address needs this load's value
  *last = i;  // the result is stored, so the compiler cannot drop the chain
}

// Reads n4 float4 `passes` times over; each thread writes the sum of what it read to
// sink[thread], so no load can be dropped. LOADS loads are issued before the first add.
template <int LOADS>
__global__ void read_in_flight(const float4* __restrict__ in, size_t n4, int passes,
                               float* __restrict__ sink) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int p = 0; p < passes; ++p) {
    // Each pass starts 1024 float4 further on (wrapping around), so no two passes read in
    // the same order and the compiler cannot reuse a pass's loads for the next one.
    const size_t shift = (size_t(p) * 1024) % n4;
    for (size_t i = first; i < n4; i += LOADS * threads) {
      float4 v[LOADS];
#pragma unroll
      for (int l = 0; l < LOADS; ++l) {
        size_t j = i + l * threads;
        if (j < n4) {
          j += shift;
          if (j >= n4) j -= n4;
          v[l] = in[j];
        } else {
          v[l] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
      }
#pragma unroll
      for (int l = 0; l < LOADS; ++l) sum += (v[l].x + v[l].y) + (v[l].z + v[l].w);
    }
  }
  sink[first] = sum;
}

// out[i] = in[index[i]]. Each thread moves kGatherPerThread elements a block apart, all index
// loads first, then all data loads, then the stores: loads in flight, as in gather_copy.
constexpr int kGatherPerThread = 4;

__global__ void gather(const float* __restrict__ in, const int* __restrict__ index,
                       float* __restrict__ out, int n) {
  const int first = blockIdx.x * blockDim.x * kGatherPerThread + threadIdx.x;
  int j[kGatherPerThread];
  float v[kGatherPerThread];
#pragma unroll
  for (int e = 0; e < kGatherPerThread; ++e) {
    const int i = first + e * blockDim.x;
    j[e] = i < n ? index[i] : 0;
  }
#pragma unroll
  for (int e = 0; e < kGatherPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) v[e] = in[j[e]];
  }
#pragma unroll
  for (int e = 0; e < kGatherPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) out[i] = v[e];
  }
}

// out[i] = Σ_t w[t]·in[i + t], accumulated in out[i] as a first attempt often is.
constexpr int kTaps = 8;

// Without __restrict__, out may overlap in or w: each `out[i] +=` must reach memory before the
// next load of in or w (which might read it), so the loop stores kTaps + 1 times per element
// (9 STG in the SASS), and the loads take the ordinary coherent path (LDG.E).
__global__ void weighted_sum_may_alias(const float* in, const float* w, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = 0.0f;
#pragma unroll
  for (int t = 0; t < kTaps; ++t) out[i] += w[t] * in[i + t];
}

// The same loop with the promise that nothing overlaps: the compiler keeps out[i] in a register
// and stores it once (1 STG), and loads in and w through the read-only, non-coherent path
// (LDG.E.CONSTANT): nothing can write them while the kernel runs.
__global__ void weighted_sum_restrict(const float* __restrict__ in, const float* __restrict__ w,
                                      float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = 0.0f;
#pragma unroll
  for (int t = 0; t < kTaps; ++t) out[i] += w[t] * in[i + t];
}

// =====================================================================================
// Launchers
// =====================================================================================

inline void launch_pointer_chase(const unsigned* next, int steps, unsigned* last) {
  tutorial::launch(pointer_chase, dim3(1), dim3(1), 0, next, steps, last);
}

// blocks × threads threads read `n4` float4 `passes` times with LOADS loads in flight each;
// `sink` holds blocks × threads floats.
template <int LOADS>
void launch_read_in_flight(const float4* in, size_t n4, int passes, float* sink, int blocks,
                           int threads) {
  tutorial::launch(read_in_flight<LOADS>, dim3(blocks), dim3(threads), 0, in, n4, passes, sink);
}

constexpr int kMemoryThreads = 256;

inline void launch_gather(const float* in, const int* index, float* out, int n) {
  tutorial::launch(gather, dim3(tutorial::ceil_div(n, kMemoryThreads * kGatherPerThread)),
                   dim3(kMemoryThreads), 0, in, index, out, n);
}

// `in` holds n + kTaps - 1 floats, `w` kTaps, `out` n.
inline void launch_weighted_sum(bool restrict_pointers, const float* in, const float* w,
                                float* out, int n) {
  const dim3 grid(tutorial::ceil_div(n, kMemoryThreads)), block(kMemoryThreads);
  if (restrict_pointers)
    tutorial::launch(weighted_sum_restrict, grid, block, 0, in, w, out, n);
  else
    tutorial::launch(weighted_sum_may_alias, grid, block, 0, in, w, out, n);
}

}  // namespace ch01
