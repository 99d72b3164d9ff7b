// RAII ownership of device memory, plus the few copies the harness needs.
//
// Every cudaMalloc/cudaFree/cudaMemcpy of the tutorial goes through these functions, so a
// CPU backend can replace them in one place and an out-of-memory error names the size asked.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tutorial {

void* device_alloc(size_t bytes);  // throws CudaError with a clear "out of GPU memory" message
// Throws the same clear error before anything is allocated (host memory included) when this
// GPU has fewer than `bytes` free: a run asks once for all it will need.
void require_device_memory(size_t bytes, const std::string& what);
void device_free(void* ptr) noexcept;
void copy_to_device(void* dst, const void* src, size_t bytes);
void copy_to_host(void* dst, const void* src, size_t bytes);
void copy_device_to_device(void* dst, const void* src, size_t bytes);  // cudaMemcpy D2D
void device_memset(void* ptr, int byte, size_t bytes);
void device_synchronize();
int current_device();  // cudaGetDevice, checked

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count)
      : data_(static_cast<T*>(device_alloc(count * sizeof(T)))), count_(count) {}
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { device_free(data_); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    copy_to_device(data_, host.data(), std::min(host.size(), count_) * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    copy_to_host(host.data(), data_, bytes());
    return host;
  }
  // All bytes 0xFF: every float reads as NaN, so an element the kernel never wrote fails
  // the comparison instead of passing by luck.
  void poison() { device_memset(data_, 0xFF, bytes()); }

 private:
  T* data_ = nullptr;
  size_t count_ = 0;
};

// A device buffer kept from call to call, one per GPU of the process: the scratch space a
// launcher reuses (split-K slices, the L2 flush) must be on the GPU the launch runs on, and
// after cudaSetDevice that is another one. Grown, contents not kept, when a call needs more.
// The pointer stays valid until the next call on the same GPU asks for more; the launchers
// that use one are not meant to be called from two host threads at once.
template <typename T>
class PerDeviceBuffer {
 public:
  T* at_least(size_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceBuffer<T>& buffer = buffers_[current_device()];
    if (buffer.size() < count) {
      buffer = DeviceBuffer<T>();  // free the old one first (cudaFree waits for its kernels)
      buffer = DeviceBuffer<T>(count);
    }
    return buffer.data();
  }
  // at_least, with memory set to zero where it is new (counters that every kernel using them
  // leaves at zero when it ends).
  T* zeroed_at_least(size_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceBuffer<T>& buffer = buffers_[current_device()];
    if (buffer.size() < count) {
      buffer = DeviceBuffer<T>();
      buffer = DeviceBuffer<T>(count);
      device_memset(buffer.data(), 0, count * sizeof(T));
    }
    return buffer.data();
  }

 private:
  std::mutex mutex_;
  std::map<int, DeviceBuffer<T>> buffers_;
};

}  // namespace tutorial
