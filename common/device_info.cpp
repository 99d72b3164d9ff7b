#include "common/device_info.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <sstream>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/timing.hpp"

namespace tutorial {

int cuda_device_count(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    // One short line: Catch2 wraps messages at 80 columns, and the reason must stay one line.
    // cudaErrorInsufficientDriver means two things to a student: no driver library at all (a
    // machine without a GPU, a container started without one; the driver's version reads 0)
    // or a driver older than this runtime.
    std::string detail = cudaGetErrorName(err);
    int driver = 0, runtime = 0;
    if (err == cudaErrorInsufficientDriver) {
      (void)cudaDriverGetVersion(&driver);
      (void)cudaRuntimeGetVersion(&runtime);
      detail = driver == 0 ? "no NVIDIA driver found"
                           : "driver for CUDA " + version_string(driver) + ", runtime " +
                                 version_string(runtime);
    }
    if (why) *why = "no CUDA device found (" + detail + ")";
    (void)cudaGetLastError();
    return 0;
  }
  if (count == 0 && why) *why = "no CUDA device found (the driver reports 0 devices)";
  return count;
}

std::string version_string(int v) {
  std::ostringstream s;
  s << v / 1000 << "." << (v % 1000) / 10;
  return s.str();
}

DeviceInfo query_device(int device) {
  DeviceInfo d;
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  d.index = device;
  d.name = p.name;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  d.memory_bus_bits = p.memoryBusWidth;
  d.l2_bytes = size_t(p.l2CacheSize);
  d.global_memory_bytes = p.totalGlobalMem;
  CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  d.sm = sm_limits_of_device(device);
  return d;
}

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 8 && minor == 0) return 64;  // A100
  if (major <= 7) return 64;                // Volta, Turing
  return 128;                               // 8.6, 8.7, 8.9, 9.0, 10.x, 12.x
}

double theoretical_bandwidth_gbs(int memory_clock_khz, int memory_bus_bits) {
  return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9;
}

double fp32_peak_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz) {
  return 2.0 * sm_count * lanes_per_sm * sm_clock_khz * 1e3 / 1e9;
}

double roofline_gflops(double intensity, double bandwidth_gbs, double peak_gflops) {
  return std::min(peak_gflops, intensity * bandwidth_gbs);
}

double DeviceInfo::theoretical_bandwidth_gbs() const {
  return tutorial::theoretical_bandwidth_gbs(memory_clock_khz, memory_bus_bits);
}

double DeviceInfo::fp32_peak_gflops() const {
  return tutorial::fp32_peak_gflops(sm_count, fp32_lanes_per_sm(compute_major, compute_minor),
                                    sm_clock_khz);
}

double measure_copy_bandwidth_gbs(size_t bytes) {
  DeviceBuffer<char> src(bytes), dst(bytes);
  device_memset(src.data(), 1, bytes);
  const TimingStats t = time_gpu([&] { copy_device_to_device(dst.data(), src.data(), bytes); },
                                 TimingOptions{2, 10, false});
  return 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

}  // namespace tutorial
