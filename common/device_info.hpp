// What the GPU is and what it can do at best: the ceilings every measurement is compared to.
#pragma once

#include <cstddef>
#include <string>

#include "common/occupancy.hpp"

namespace tutorial {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;        // peak (boost) clock
  int memory_clock_khz = 0;    // peak memory clock
  int memory_bus_bits = 0;
  size_t l2_bytes = 0;
  size_t global_memory_bytes = 0;
  int driver_version = 0;      // e.g. 13000 for 13.0
  int runtime_version = 0;
  SmLimits sm;

  double theoretical_bandwidth_gbs() const;
  double fp32_peak_gflops() const;
};

// Never throws: 0 devices (and the reason in *why) when there is no usable GPU or driver.
int cuda_device_count(std::string* why = nullptr);
DeviceInfo query_device(int device = 0);
std::string version_string(int cuda_version);  // 13000 -> "13.0"

// Pure arithmetic, unit-tested on the host.
int fp32_lanes_per_sm(int compute_major, int compute_minor);  // FP32 FMA units per SM
// DDR-style memory transfers twice per clock: 2 × clock × bus width / 8 bytes.
double theoretical_bandwidth_gbs(int memory_clock_khz, int memory_bus_bits);
// One FMA = 2 FLOP per lane per clock.
double fp32_peak_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz);
// The roofline: min(peak, intensity × bandwidth), in GFLOP/s for FLOP/B × GB/s.
double roofline_gflops(double intensity_flop_per_byte, double bandwidth_gbs, double peak_gflops);

// Device-to-device cudaMemcpy of `bytes`, counting bytes read plus bytes written: the
// practical bandwidth ceiling of this GPU (median of several runs).
double measure_copy_bandwidth_gbs(size_t bytes = size_t(1) << 30);

}  // namespace tutorial
