#include "common/launch_record.hpp"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

#include "common/occupancy.hpp"

namespace tutorial {

namespace {
thread_local LaunchRecord g_last_launch;
thread_local std::deque<std::pair<long, LaunchRecord>> g_recent;  // (launch number, record)
std::atomic<long> g_launches{0};
thread_local int g_not_recorded = 0;  // LaunchesNotRecorded alive on this thread

// The current device's limits, read once per device: the launch path stays cheap.
SmLimits limits_of_current_device() {
  static std::mutex mutex;
  static std::map<int, SmLimits> limits;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = limits.find(device);
  if (it == limits.end()) it = limits.emplace(device, sm_limits_of_device(device)).first;
  return it->second;
}

[[noreturn]] void refuse(const SmLimits& sm, const std::string& why) {
  throw KernelDoesNotFit("cannot launch on " + sm.name + ": " + why);
}
}  // namespace

const LaunchRecord& last_launch() { return g_last_launch; }
const LaunchRecord& first_launch_since(long count) {
  for (const auto& [number, record] : g_recent)
    if (number > count) return record;
  return g_last_launch;
}
bool launch_kept_since(long count) { return !g_recent.empty() && g_recent.back().first > count; }
void record_launch(const LaunchRecord& record) {
  const long number = ++g_launches;
  if (g_not_recorded > 0) return;
  g_last_launch = record;
  g_recent.emplace_back(number, record);
  if (g_recent.size() > 16) g_recent.pop_front();
}
LaunchesNotRecorded::LaunchesNotRecorded() { ++g_not_recorded; }
LaunchesNotRecorded::~LaunchesNotRecorded() { --g_not_recorded; }
long launch_count() { return g_launches.load(); }

void validate_launch(dim3 grid, dim3 block) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  std::ostringstream why;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    why << "empty grid (" << grid.x << "x" << grid.y << "x" << grid.z
        << "): a size was 0 — every dimension must be at least 1";
  else if (threads == 0 || threads > 1024)
    why << "a block of " << threads << " threads: CUDA allows 1 to 1024 threads per block";
  else if (grid.x > 2147483647u || grid.y > unsigned(kMaxGridY) || grid.z > unsigned(kMaxGridY))
    why << "grid " << grid.x << "x" << grid.y << "x" << grid.z
        << " exceeds the limits 2147483647 x 65535 x 65535: the matrix is too large for this "
           "kernel's launch geometry";
  const std::string message = why.str();
  if (!message.empty()) throw UnsupportedShape("cannot launch: " + message);
}

namespace {

int preferred_carveout = -1;  // set_preferred_carveout; -1: the driver's choice

// The carveout preference, on the kernel's first launch (require_fit's first check of it).
void apply_carveout(const void* kernel) {
  if (preferred_carveout >= 0)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    preferred_carveout));
}

}  // namespace

void require_fit(const void* kernel, dim3 block, size_t dynamic_smem) {
  static std::mutex mutex;
  static std::set<std::tuple<const void*, unsigned long long, size_t, int>> fits;
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(kernel, threads, dynamic_smem, device);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (fits.count(key)) return;
  }
  const SmLimits sm = limits_of_current_device();
  cudaFuncAttributes attributes{};
  const cudaError_t read = cudaFuncGetAttributes(&attributes, kernel);
  if (read != cudaSuccess) {
    cudaGetLastError();  // not left behind for the next launch's check to report again
    CUDA_CHECK(read);    // e.g. no machine code for this GPU in the binary
  }
  const KernelResources resources{int(threads), attributes.numRegs,
                                  attributes.sharedSizeBytes + dynamic_smem};
  const std::string why = does_not_fit(resources, sm);
  if (!why.empty()) refuse(sm, why);
  // The runtime's own bound for this compiled kernel (its registers, or its
  // __launch_bounds__), should the model above ever miss one.
  if (threads > (unsigned long long)attributes.maxThreadsPerBlock)
    refuse(sm, "needs " + with_thousands(threads) + " threads per block; this compiled kernel "
                   "(" + std::to_string(attributes.numRegs) + " registers per thread) allows at "
                   "most " + with_thousands(size_t(attributes.maxThreadsPerBlock)));
  // The opt-in above 48 KB counts static and dynamic shared memory together: a kernel with
  // 40 KB of static arrays needs it for 16 KB of dynamic memory too.
  ensure_dynamic_smem(kernel, dynamic_smem, attributes.sharedSizeBytes);
  apply_carveout(kernel);
  std::lock_guard<std::mutex> lock(mutex);
  fits.insert(key);
}

void set_preferred_carveout(int percent) { preferred_carveout = percent; }

void allow_dynamic_smem(const void* kernel, size_t bytes) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
}

void ensure_dynamic_smem(const void* kernel, size_t bytes, size_t static_bytes) {
  constexpr size_t kWithoutOptIn = 48 * 1024;
  if (bytes == 0 || static_bytes + bytes <= kWithoutOptIn) return;
  static std::mutex mutex;
  static std::map<const void*, size_t> allowed;  // per kernel: the largest size opted in
  std::lock_guard<std::mutex> lock(mutex);
  size_t& done = allowed[kernel];
  if (done >= bytes) return;
  const SmLimits sm = limits_of_current_device();
  if (static_bytes + bytes > sm.max_smem_per_block)
    refuse(sm, "needs " + with_thousands(static_bytes + bytes) + " B of shared memory per block; " +
                   "this GPU allows " + with_thousands(sm.max_smem_per_block) + " B");
  allow_dynamic_smem(kernel, bytes);
  done = bytes;
}

}  // namespace tutorial
