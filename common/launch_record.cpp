#include "common/launch_record.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <sstream>

namespace tutorial {

namespace {
thread_local LaunchRecord g_last_launch;
std::atomic<long> g_launches{0};
}  // namespace

const LaunchRecord& last_launch() { return g_last_launch; }
void record_launch(const LaunchRecord& record) {
  g_last_launch = record;
  ++g_launches;
}
long launch_count() { return g_launches.load(); }

void validate_launch(dim3 grid, dim3 block) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  std::ostringstream why;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    why << "empty grid (" << grid.x << "x" << grid.y << "x" << grid.z
        << "): a size was 0 — every dimension must be at least 1";
  else if (threads == 0 || threads > 1024)
    why << "a block of " << threads << " threads: CUDA allows 1 to 1024 threads per block";
  else if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u)
    why << "grid " << grid.x << "x" << grid.y << "x" << grid.z
        << " exceeds the limits 2147483647 x 65535 x 65535: the matrix is too large for this "
           "kernel's launch geometry";
  const std::string message = why.str();
  if (!message.empty()) throw UnsupportedShape("cannot launch: " + message);
}

void allow_dynamic_smem(const void* kernel, size_t bytes) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
}

void ensure_dynamic_smem(const void* kernel, size_t bytes) {
  constexpr size_t kWithoutOptIn = 48 * 1024;
  if (bytes <= kWithoutOptIn) return;
  static std::mutex mutex;
  static std::map<const void*, size_t> allowed;  // per kernel: the largest size opted in
  std::lock_guard<std::mutex> lock(mutex);
  size_t& done = allowed[kernel];
  if (done >= bytes) return;
  allow_dynamic_smem(kernel, bytes);
  done = bytes;
}

}  // namespace tutorial
