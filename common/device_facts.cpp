#include "common/device_facts.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "common/cuda_check.hpp"
#include "common/launch_record.hpp"
#include "common/occupancy.hpp"

namespace tutorial {

namespace {
int current_device_index() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}
}  // namespace

// (One host thread, as everywhere in this tutorial.)
const DeviceInfo& current_device_info() {
  static std::map<int, DeviceInfo> devices;
  const int device = current_device_index();
  auto it = devices.find(device);
  if (it == devices.end()) it = devices.emplace(device, query_device(device)).first;
  return it->second;
}

double dram_bytes_per_sm_clock(const DeviceInfo& d) {
  return d.theoretical_bandwidth_gbs() * 1e9 / (double(d.sm_clock_khz) * 1e3);
}

long long resident_blocks(const void* kernel, int threads, size_t dynamic_smem,
                          int blocks_per_sm_without_gpu) {
  using Key = std::tuple<int, const void*, int, size_t>;
  static std::map<Key, long long> known;
  const int device = current_device_index();
  const Key key{device, kernel, threads, dynamic_smem};
  auto it = known.find(key);
  if (it != known.end()) return it->second;
  const DeviceInfo& d = current_device_info();
#ifdef TUTORIAL_CPU_BACKEND
  KernelResources k;
  k.threads_per_block = threads;
  k.registers_per_thread = 0;
  k.smem_per_block = dynamic_smem;
  const int perSm = blocks_per_sm_without_gpu > 0 ? blocks_per_sm_without_gpu
                                                  : compute_occupancy(k, d.sm).blocks_per_sm;
#else
  (void)blocks_per_sm_without_gpu;
  ensure_dynamic_smem(kernel, dynamic_smem);  // above 48 KB the runtime answers 0 without it
  const int perSm = runtime_blocks_per_sm(kernel, threads, dynamic_smem);
#endif
  const long long blocks = (long long)d.sm_count * std::max(1, perSm);
  known.emplace(key, blocks);
  return blocks;
}

}  // namespace tutorial
