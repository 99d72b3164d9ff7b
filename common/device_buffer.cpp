#include "common/device_buffer.hpp"

#include <cuda_runtime.h>

#include <sstream>

#include "common/cuda_check.hpp"

namespace tutorial {

void* device_alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* ptr = nullptr;
  const cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free error so later calls work
    size_t free_bytes = 0, total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    std::ostringstream msg;
    msg << "out of GPU memory: asked for " << (bytes >> 20) << " MiB, "
        << (free_bytes >> 20) << " MiB free of " << (total_bytes >> 20)
        << " MiB. Try a smaller --size.";
    throw CudaError(msg.str());
  }
  CUDA_CHECK(err);
  return ptr;
}

void require_device_memory(size_t bytes, const std::string& what) {
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes <= free_bytes) return;
  std::ostringstream msg;
  msg << "out of GPU memory: " << what << " need " << (bytes >> 20) << " MiB, this GPU has "
      << (free_bytes >> 20) << " MiB free of " << (total_bytes >> 20)
      << " MiB. Try a smaller --size.";
  throw CudaError(msg.str());
}

void device_free(void* ptr) noexcept {
  if (ptr) (void)cudaFree(ptr);  // destructors must not throw
}

void copy_to_device(void* dst, const void* src, size_t bytes) {
  if (bytes) CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, size_t bytes) {
  if (bytes) CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void copy_device_to_device(void* dst, const void* src, size_t bytes) {
  if (bytes) CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
}
void device_memset(void* ptr, int byte, size_t bytes) {
  if (bytes) CUDA_CHECK(cudaMemset(ptr, byte, bytes));
}
void device_synchronize() { CUDA_CHECK(cudaDeviceSynchronize()); }

int current_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

}  // namespace tutorial
