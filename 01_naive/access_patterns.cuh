// The kernels of chapter 01's coalescing demo (coalescing_demo.cuh).
//
// Each demo kernel reads with one access pattern and writes contiguously, so that the only
// difference between two rows of the demo table is the read pattern:
//   gather_copy       out[i] = in[offset + i·stride]: stride 1 is coalesced, stride 2 uses
//                     half of every sector it fetches, stride ≥ 8 one float per sector;
//                     offset 1 shifts a warp's 128 bytes across a line boundary.
//   x_of_points_aos   one field of an array of 16-byte structs: a stride of 4 floats.
//   x_of_points_soa   the same field stored as its own array: stride 1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch01 {

// =====================================================================================
// Kernels
// =====================================================================================

// Each thread moves kPerThread elements a block apart, every load issued before the first
// store: enough bytes in flight that DRAM, not latency, limits every row of the demo (with
// one float per thread even the coalesced copy stalls on latency).
constexpr int kPerThread = 4;

__global__ void gather_copy(const float* __restrict__ in, float* __restrict__ out, int n,
                            int stride, int offset) {
  const int first = blockIdx.x * blockDim.x * kPerThread + threadIdx.x;
  float v[kPerThread];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) v[e] = in[offset + size_t(i) * stride];
  }
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) out[i] = v[e];
  }
}

// A point of a lidar scan: 16 bytes, so a float4-aligned array of them.
struct Point {
  float x, y, z, intensity;
};
static_assert(sizeof(Point) == 16, "the demo's struct is 16 bytes: x is every 4th float");

__global__ void x_of_points_aos(const Point* __restrict__ points, float* __restrict__ out, int n) {
  const int first = blockIdx.x * blockDim.x * kPerThread + threadIdx.x;
  float v[kPerThread];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) v[e] = points[i].x;
  }
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) out[i] = v[e];
  }
}

__global__ void x_of_points_soa(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int first = blockIdx.x * blockDim.x * kPerThread + threadIdx.x;
  float v[kPerThread];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) v[e] = x[i];
  }
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = first + e * blockDim.x;
    if (i < n) out[i] = v[e];
  }
}

// =====================================================================================
// Launchers
// =====================================================================================

constexpr int kDemoThreads = 256;
constexpr int kDemoPerBlock = kDemoThreads * kPerThread;

inline void launch_gather_copy(const float* in, float* out, int n, int stride, int offset) {
  tutorial::launch(gather_copy, dim3(tutorial::ceil_div(n, kDemoPerBlock)), dim3(kDemoThreads), 0,
                   in, out, n, stride, offset);
}

inline void launch_x_of_points_aos(const Point* points, float* out, int n) {
  tutorial::launch(x_of_points_aos, dim3(tutorial::ceil_div(n, kDemoPerBlock)), dim3(kDemoThreads),
                   0, points, out, n);
}

inline void launch_x_of_points_soa(const float* x, float* out, int n) {
  tutorial::launch(x_of_points_soa, dim3(tutorial::ceil_div(n, kDemoPerBlock)), dim3(kDemoThreads),
                   0, x, out, n);
}

}  // namespace ch01
