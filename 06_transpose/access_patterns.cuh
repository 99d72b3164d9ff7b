// The kernels of the coalescing demo, and the copy kernel that is the transpose's ceiling.
//
// Each demo kernel reads with one access pattern and writes contiguously, so that the only
// difference between two rows of the demo table is the read pattern:
//   gather_copy       out[i] = in[offset + i·stride]: stride 1 is coalesced, stride 2 uses
//                     half of every sector it fetches, stride ≥ 8 one float per sector;
//                     offset 1 shifts a warp's 128 bytes across a line boundary.
//   x_of_points_aos   one field of an array of 16-byte structs: a stride of 4 floats.
//   x_of_points_soa   the same field stored as its own array: stride 1.
// copy_vec4 moves rows×cols floats with float4 loads and stores: the same bytes as a
// transpose, with perfect access patterns on both sides: the transpose's ceiling as a kernel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06 {

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

// Grid-stride copy, one float4 per thread per iteration, then the last n % 4 floats one by
// one. Pointers 16-byte aligned.
__global__ void copy_vec4(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4* out4 = reinterpret_cast<float4*>(out);
  const size_t n4 = n / 4;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (size_t i = first; i < n4; i += size_t(gridDim.x) * blockDim.x) out4[i] = in4[i];
  if (4 * n4 + first < n) out[4 * n4 + first] = in[4 * n4 + first];
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

// Same signature as a transpose launcher so the copy can sit in the same table: copies the
// rows×cols floats of `in` to `out` unchanged. The grid covers the matrix in one pass (one
// float4 per thread, like cudaMemcpy's own kernel it needs no more: the loop only guards
// grids capped below the size).
inline void launch_copy(const float* in, float* out, int rows, int cols) {
  if (reinterpret_cast<uintptr_t>(in) % 16 || reinterpret_cast<uintptr_t>(out) % 16)
    throw tutorial::UnsupportedShape("copy kernel: float4 needs 16-byte aligned pointers");
  constexpr int THREADS = 256;
  const size_t n = size_t(rows) * size_t(cols);
  const size_t blocks = std::max<size_t>(1, (n / 4 + THREADS - 1) / THREADS);
  tutorial::launch(copy_vec4, dim3(unsigned(std::min<size_t>(blocks, 1u << 30))), dim3(THREADS), 0,
                   in, out, n);
}

}  // namespace ch06
