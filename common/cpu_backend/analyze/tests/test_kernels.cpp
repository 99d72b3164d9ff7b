// The kernels of the memory model's tests, with the load/store hooks (clang; see
// analyze/CMakeLists.txt). Chapter kernels come from their own headers, unchanged.
#include "common/cpu_backend/analyze/tests/test_kernels.hpp"

#include <cuda_pipeline.h>

#include "01_naive/kernels.cuh"
#include "06_transpose/kernels.cuh"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/launch.cuh"
#include "common/cpu_backend/scheduler.hpp"

namespace memory_model_test {

namespace an = tutorial::analyze;

namespace {

// Model of one launch: buffers zeroed (their values do not matter to the model).
template <typename Launch>
MemoryStats measure(Launch&& launch) {
  an::begin();
  launch();
  return an::end();
}

// Every value loaded is stored, by the same lanes: a load whose value only some lanes use
// would be moved under their branch by the compiler (nvcc's as well as clang's).
__global__ void float4_copy_kernel(const float4* in, float4* out) {
  out[threadIdx.x] = in[threadIdx.x];
}

__global__ void copy_kernel(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

__global__ void even_lanes_kernel(const float* in, float* out) {
  if (threadIdx.x % 2 == 0) out[threadIdx.x] = in[threadIdx.x];
}

__global__ void shared_float4_kernel(const float4* in, float4* out, int stride) {
  __shared__ float4 s[32 * 2];
  s[threadIdx.x * stride] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * stride];
}

// First half warp: each quarter reads one float4 (all 8 lanes the same), s[0] and s[2];
// second half: both quarters read the same 8 float4, s[lane % 8].
__global__ void shared_float4_halves_kernel(const float4* in, float4* out) {
  __shared__ float4 s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x < 16 ? threadIdx.x / 8 * 2 : threadIdx.x % 8];
}

// The model's lanes come from the scheduler, and this write stops the process.
__global__ void write_thread_index_kernel(float* out) {
  const_cast<uint3&>(threadIdx).x = 31 - threadIdx.x;
  out[threadIdx.x] = 1.0f;
}

void plain_function(float* out) { out[0] = 1.0f; }  // no __global__

// ch06::transpose_padded without its __syncthreads(): a thread writes out tile elements
// that other threads wrote in the same phase.
__global__ void transpose_no_barrier_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int col = blockIdx.x * 32 + threadIdx.x;
  int row = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (row + j < rows && col < cols) tile[threadIdx.y + j][threadIdx.x] = in[(row + j) * cols + col];
  col = blockIdx.y * 32 + threadIdx.x;
  row = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (row + j < cols && col < rows) out[(row + j) * rows + col] = tile[threadIdx.x][threadIdx.y + j];
}

// Two steps through one tile with the barrier between them, but none after the first step's
// reads: the second step's writes may overwrite what a slower thread has yet to read.
__global__ void overwrite_no_barrier_kernel(const float* in, float* out) {
  __shared__ float tile[64];
  float sum = 0.0f;
  for (int step = 0; step < 2; ++step) {
    tile[threadIdx.x] = in[step * 64 + threadIdx.x];
    __syncthreads();
    sum += tile[63 - threadIdx.x];
  }
  out[threadIdx.x] = sum;
}

// The launch's problem ("" when it ran without one).
template <typename Launch>
std::string problem_of(Launch&& launch) {
  try {
    launch();
  } catch (const tutorial::CudaError&) {
    return tutorial::cpu::last_launch_problem();
  }
  return "";
}

}  // namespace

MemoryStats write_thread_index() {
  tutorial::DeviceBuffer<float> out(32);
  return measure([&] { tutorial::launch(write_thread_index_kernel, dim3(1), dim3(32), 0, out.data()); });
}

// External linkage, so that its stores are not dead code.
__device__ float device_variable[32];
__global__ void write_device_variable_kernel(const float* in) {
  device_variable[threadIdx.x] = in[threadIdx.x];
}

__global__ void async_copy_to_global_kernel(const float* in, float* out) {
  __pipeline_memcpy_async(&out[threadIdx.x], &in[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
}

MemoryStats async_copy_to_global() {
  tutorial::DeviceBuffer<float> in(32), out(32);
  return measure([&] { tutorial::launch(async_copy_to_global_kernel, dim3(1), dim3(32), 0, in.data(), out.data()); });
}

MemoryStats write_device_variable() {
  tutorial::DeviceBuffer<float> in(32);
  return measure([&] { tutorial::launch(write_device_variable_kernel, dim3(1), dim3(32), 0, in.data()); });
}

bool launches_a_plain_function() {
  tutorial::DeviceBuffer<float> out(1);
  try {
    tutorial::launch(plain_function, dim3(1), dim3(1), 0, out.data());
    return true;
  } catch (const tutorial::CudaError&) {
    return false;
  }
}

std::string transpose_without_barrier(int n) {
  tutorial::DeviceBuffer<float> in(size_t(n) * n), out(size_t(n) * n);
  const dim3 grid(unsigned(n + 31) / 32, unsigned(n + 31) / 32), block(32, 8);
  return problem_of([&] {
    tutorial::launch(transpose_no_barrier_kernel, grid, block, 0, in.data(), out.data(), n, n);
  });
}

std::string transpose_with_barrier(int n) {
  tutorial::DeviceBuffer<float> in(size_t(n) * n), out(size_t(n) * n);
  return problem_of([&] { ch06::launch_padded<32, 8>(in.data(), out.data(), n, n); });
}

std::string overwrite_without_barrier() {
  tutorial::DeviceBuffer<float> in(128), out(64);
  return problem_of([&] {
    tutorial::launch(overwrite_no_barrier_kernel, dim3(1), dim3(64), 0, in.data(), out.data());
  });
}

MemoryStats naive_gemm(int n) {
  tutorial::DeviceBuffer<float> A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n);
  return measure([&] { ch01::launch_naive_gemm(A.data(), B.data(), C.data(), n, n, n); });
}

MemoryStats naive_gemm_swapped(int n) {
  tutorial::DeviceBuffer<float> A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n);
  return measure([&] { ch01::launch_naive_gemm_swapped(A.data(), B.data(), C.data(), n, n, n); });
}

MemoryStats transpose_tiled(int n) {
  tutorial::DeviceBuffer<float> in(size_t(n) * n), out(size_t(n) * n);
  return measure([&] { ch06::launch_tiled<32, 8>(in.data(), out.data(), n, n); });
}

MemoryStats transpose_padded(int n) {
  tutorial::DeviceBuffer<float> in(size_t(n) * n), out(size_t(n) * n);
  return measure([&] { ch06::launch_padded<32, 8>(in.data(), out.data(), n, n); });
}

MemoryStats float4_copy() {
  tutorial::DeviceBuffer<float4> in(32), out(32);
  return measure([&] { tutorial::launch(float4_copy_kernel, dim3(1), dim3(32), 0, in.data(), out.data()); });
}

MemoryStats partial_warp_copy() {
  tutorial::DeviceBuffer<float> in(48), out(48);
  return measure([&] { tutorial::launch(copy_kernel, dim3(1), dim3(48), 0, in.data(), out.data()); });
}

MemoryStats even_lanes_copy() {
  tutorial::DeviceBuffer<float> in(32), out(32);
  return measure([&] { tutorial::launch(even_lanes_kernel, dim3(1), dim3(32), 0, in.data(), out.data()); });
}

MemoryStats shared_float4_copy(int stride) {
  tutorial::DeviceBuffer<float4> in(32), out(32);
  return measure([&] {
    tutorial::launch(shared_float4_kernel, dim3(1), dim3(32), 0, in.data(), out.data(), stride);
  });
}

MemoryStats shared_float4_halves() {
  tutorial::DeviceBuffer<float4> in(32), out(32);
  return measure([&] {
    tutorial::launch(shared_float4_halves_kernel, dim3(1), dim3(32), 0, in.data(), out.data());
  });
}

}  // namespace memory_model_test
