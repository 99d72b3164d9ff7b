// Tests of the CPU backend itself (built only for it, label common/cpu): barriers order the
// threads of a block, shared memory is per block, asynchronous copies land when waited for,
// and the two planted faults a GPU would punish fail here too: a kernel without its second
// __syncthreads() computes wrong results, and a write past the end of a buffer kills the
// process with a message naming the block and the thread.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cuda_pipeline.h>
#include <string>
#include <type_traits>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/cpu_backend/guarded_memory.hpp"
#include "common/cpu_backend/scheduler.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/gemm.hpp"
#include "common/launch.cuh"

using namespace tutorial;

// Kernels with external linkage, so that the fault handler can name them.
namespace cpu_backend_test {

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

// Chapter 02's tiled GEMM (M, N, K multiples of TILE), with each barrier optional: the
// planted bugs are the same kernel with one barrier left out.
template <int TILE, bool FIRST_BARRIER, bool SECOND_BARRIER>
__global__ void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float regC = 0.0f;
  for (int tileK = 0; tileK < K; tileK += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * K + tileK + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(tileK + threadIdx.y) * N + col];
    if (FIRST_BARRIER) __syncthreads();
    for (int k = 0; k < TILE; ++k) regC += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    if (SECOND_BARRIER) __syncthreads();
  }
  (void)M;
  C[row * N + col] = regC;
}

template <int TILE, bool FIRST_BARRIER, bool SECOND_BARRIER>
void launch_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  launch(tiled_gemm<TILE, FIRST_BARRIER, SECOND_BARRIER>, dim3(N / TILE, M / TILE),
         dim3(TILE, TILE), 0, A, B, C, M, N, K);
}

// Each thread writes its own slot, then reads its mirror image, written by another thread.
__global__ void reverse_through_shared(const int* in, int* out) {
  __shared__ int tile[256];
  const int i = int(threadIdx.x), base = int(blockIdx.x * blockDim.x);
  tile[i] = in[base + i];
  __syncthreads();
  out[base + i] = tile[int(blockDim.x) - 1 - i];
}

// Odd threads leave at once; the even ones still meet at two barriers, as on a GPU where
// exited threads no longer count for __syncthreads().
constexpr int kEarlyExitBarrierLine = __LINE__ + 6;  // the first barrier below
__global__ void early_exit(int* out) {
  __shared__ int tile[64];
  const int i = int(threadIdx.x);
  if (i % 2) return;
  tile[i] = i;
  __syncthreads();
  const int sum = tile[i] + tile[(i + 2) % 64];
  __syncthreads();
  tile[i] = sum;
  out[i] = tile[i];
}

// Legitimate early exits: after the block's last barrier, or a whole block at once.
__global__ void exit_after_last_barrier(int* out) {
  __shared__ int tile[64];
  const int i = int(threadIdx.x);
  tile[i] = i;
  __syncthreads();
  if (i % 2) return;
  out[i] = tile[(i + 2) % 64];
}

__global__ void whole_block_exits(int* out) {
  __shared__ int tile[64];
  if (blockIdx.x == 1) return;
  const int i = int(threadIdx.x);
  tile[i] = i;
  __syncthreads();
  out[i] = tile[63 - i];
}

// Dynamic shared memory: sized by the launch, visible to the whole block.
__global__ void reverse_through_dynamic_shared(float* out) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}

// An asynchronous copy is only visible once waited for: before[i] sees the poison.
__global__ void async_copy(const float* in, float* before, float* after) {
  __shared__ alignas(16) float staged[32];
  __pipeline_memcpy_async(&staged[threadIdx.x], &in[threadIdx.x], sizeof(float));
  __pipeline_commit();
  before[threadIdx.x] = staged[threadIdx.x];
  __pipeline_wait_prior(0);
  after[threadIdx.x] = staged[threadIdx.x];
}

// Writes one element past the end of `out` from a single, known thread.
__global__ void write_one_past_the_end(float* out, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i <= n) out[i] = 1.0f;  // i == n is the planted bug
}

// Deep enough to need a real stack: the register tile of chapter 04's kernels, at 1024 threads.
__global__ void register_tile(float* out) {
  float regC[8][8];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) regC[i][j] = float(threadIdx.x + i * j);
  __syncthreads();
  float sum = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) sum += regC[i][j];
  out[threadIdx.x] = sum;
}

// Writes threadIdx through a const_cast (nvcc compiles it and drops the write).
__global__ void write_thread_index(float* out) {
  const_cast<uint3&>(threadIdx).x = 7;
  out[0] = 1.0f;
}

// Copies `in` to `out`, and to the host buffer whose address it finds in device memory (a
// host pointer in disguise: the launch's pointer check sees an integer).
__global__ void copy_through_host(const float* in, const unsigned long long* host, float* out) {
  reinterpret_cast<float*>(*host)[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = in[threadIdx.x];
}

}  // namespace cpu_backend_test

using namespace cpu_backend_test;

namespace {

// Runs `work` in a child process with stdout and stderr captured; returns the child's wait
// status and its output.
template <typename Work>
int run_in_child(Work work, std::string* output) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    // The default action for the signals, so that the child dies of them without the test
    // framework's report.
    std::signal(SIGSEGV, SIG_DFL);
    std::signal(SIGBUS, SIG_DFL);
    std::signal(SIGABRT, SIG_DFL);
    work();
    _exit(0);
  }
  REQUIRE(pid > 0);
  close(fds[1]);
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) output->append(buffer, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

struct OrderGuard {  // restores the scheduler's options at the end of a test
  cpu::SchedulerOptions saved = cpu::scheduler_options();
  ~OrderGuard() { cpu::set_scheduler_options(saved); }
};

void set_order(cpu::ThreadOrder order, uint64_t seed = 1) {
  cpu::SchedulerOptions o = cpu::scheduler_options();
  o.order = order;
  o.seed = seed;
  cpu::set_scheduler_options(o);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// What a correct kernel can rely on
// ---------------------------------------------------------------------------------------

TEST_CASE("a correct tiled GEMM gives the right result in every thread order", "[barrier]") {
  OrderGuard guard;
  for (cpu::ThreadOrder order :
       {cpu::ThreadOrder::Shuffle, cpu::ThreadOrder::Reverse, cpu::ThreadOrder::Forward}) {
    for (uint64_t seed : {1, 2, 3}) {
      set_order(order, seed);
      const CompareResult r = check_gemm(launch_tiled<16, true, true>, 48, 64, 80);
      INFO("order " << int(order) << " seed " << seed << ": " << r.summary());
      CHECK(r.ok());
    }
  }
}

TEST_CASE("threads of a block read each other's shared-memory writes after __syncthreads()",
          "[barrier]") {
  const int blocks = 3, threads = 256;
  std::vector<int> in(blocks * threads);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i);
  DeviceBuffer<int> d_in(in), d_out(in.size());
  launch(reverse_through_shared, dim3(blocks), dim3(threads), 0, d_in.data(), d_out.data());
  const std::vector<int> out = d_out.download();
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < threads; ++i) {
      INFO("block " << b << " thread " << i);
      REQUIRE(out[size_t(b * threads + i)] == in[size_t(b * threads + threads - 1 - i)]);
    }
}

TEST_CASE("threads that return before a barrier the others reach fail the launch, named",
          "[barrier]") {
  // Every thread of a block must reach each __syncthreads() (CUDA C++ Programming Guide);
  // since Volta a GPU lets the others pass and says nothing, and whatever the threads that
  // left were to do before the barrier is missing. The backend runs the block to its end, as
  // the GPU would, then fails the launch naming the barrier.
  DeviceBuffer<int> d_out(64);
  device_memset(d_out.data(), 0, d_out.bytes());
  CHECK_THROWS_AS(launch(early_exit, dim3(1), dim3(64), 0, d_out.data()), CudaError);
  const std::string problem = tutorial::cpu::last_launch_problem();
  INFO(problem);
  CHECK(problem.find("32 threads of block (0, 0) exited before the barrier at "
                     "tests/test_cpu_backend.cu:" + std::to_string(kEarlyExitBarrierLine) +
                     " ") == 0);
  CHECK(problem.find("threadIdx (1) is one that exited") != std::string::npos);
  const std::vector<int> out = d_out.download();
  for (int i = 0; i < 64; ++i) CHECK(out[size_t(i)] == (i % 2 ? 0 : i + (i + 2) % 64));
}

TEST_CASE("threads that return after the last barrier, or a whole block, are fine", "[barrier]") {
  DeviceBuffer<int> d_out(64);
  device_memset(d_out.data(), 0, d_out.bytes());
  launch(exit_after_last_barrier, dim3(1), dim3(64), 0, d_out.data());
  std::vector<int> out = d_out.download();
  for (int i = 0; i < 64; ++i) CHECK(out[size_t(i)] == (i % 2 ? 0 : (i + 2) % 64));
  device_memset(d_out.data(), 0, d_out.bytes());
  launch(whole_block_exits, dim3(2), dim3(64), 0, d_out.data());
  out = d_out.download();
  for (int i = 0; i < 64; ++i) CHECK(out[size_t(i)] == 63 - i);
  CHECK(tutorial::cpu::last_launch_problem().empty());
}

TEST_CASE("dynamic shared memory is the launch's size and needs the opt-in above 48 KB",
          "[shared]") {
  const int threads = 1024;
  DeviceBuffer<float> d_out(threads);
  launch(reverse_through_dynamic_shared, dim3(1), dim3(threads), threads * sizeof(float),
         d_out.data());
  const std::vector<float> out = d_out.download();
  for (int i = 0; i < threads; ++i) CHECK(out[size_t(i)] == float(threads - 1 - i));
  // 64 KB without the opt-in fails as cudaLaunchKernel would (the runtime layer, below
  // tutorial::launch); tutorial::launch opts in by itself, and then it runs.
  auto body = [] {};
  cpu::run_grid(reinterpret_cast<const void*>(reverse_through_dynamic_shared), dim3(1),
                dim3(threads), 64 * 1024,
                cpu::ThreadBody{&body, [](void* f) { (*static_cast<decltype(body)*>(f))(); }});
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  launch(reverse_through_dynamic_shared, dim3(1), dim3(threads), 64 * 1024, d_out.data());
  CHECK(d_out.download()[0] == float(threads - 1));
}

TEST_CASE("an asynchronous copy becomes visible at __pipeline_wait_prior, not before",
          "[pipeline]") {
  std::vector<float> in(32);
  for (int i = 0; i < 32; ++i) in[size_t(i)] = float(i + 1);
  DeviceBuffer<float> d_in(in), before(32), after(32);
  launch(async_copy, dim3(1), dim3(32), 0, d_in.data(), before.data(), after.data());
  const std::vector<float> b = before.download(), a = after.download();
  for (int i = 0; i < 32; ++i) {
    CHECK(a[size_t(i)] == in[size_t(i)]);
    CHECK(b[size_t(i)] != in[size_t(i)]);
  }
}

TEST_CASE("1024 threads with an 8x8 register tile each fit in their fiber stacks", "[stack]") {
  DeviceBuffer<float> d_out(1024);
  launch(register_tile, dim3(2), dim3(1024), 0, d_out.data());
  const std::vector<float> out = d_out.download();
  CHECK(out[5] == Approx(64 * 5 + 28 * 28));  // sum over i, j of (5 + i*j)
  WARN("deepest fiber stack use so far: " << cpu::deepest_stack_use() << " bytes");
}

// ---------------------------------------------------------------------------------------
// Planted faults: they must fail here, as they would on a GPU
// ---------------------------------------------------------------------------------------

TEST_CASE("planted: a tiled GEMM without its second __syncthreads() gives wrong results",
          "[planted][barrier]") {
  OrderGuard guard;
  for (cpu::ThreadOrder order :
       {cpu::ThreadOrder::Shuffle, cpu::ThreadOrder::Reverse, cpu::ThreadOrder::Forward}) {
    set_order(order);
    const CompareResult r = check_gemm(launch_tiled<16, true, false>, 32, 32, 64);
    INFO("order " << int(order) << ": " << r.summary());
    CHECK_FALSE(r.ok());
  }
}

TEST_CASE("planted: a tiled GEMM without its first __syncthreads() gives wrong results",
          "[planted][barrier]") {
  OrderGuard guard;
  for (cpu::ThreadOrder order :
       {cpu::ThreadOrder::Shuffle, cpu::ThreadOrder::Reverse, cpu::ThreadOrder::Forward}) {
    set_order(order);
    const CompareResult r = check_gemm(launch_tiled<16, false, true>, 32, 32, 64);
    INFO("order " << int(order) << ": " << r.summary());
    CHECK_FALSE(r.ok());
  }
}

TEST_CASE("planted: a write past the end of a buffer kills the process and names the block and thread",
          "[planted][bounds]") {
  std::string output;
  const int status = run_in_child(
      [] {
        const int n = 64 * 3 + 8;  // 200 floats = 800 bytes, a multiple of 16: ends at the guard
        DeviceBuffer<float> out(n);
        // Thread n = 200 is block 3 (of 64 threads), thread 8.
        launch(write_one_past_the_end, dim3(4), dim3(64), 0, out.data(), n);
      },
      &output);
  INFO(output);
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(output.find("invalid memory access") != std::string::npos);
  CHECK(output.find("blockIdx (3, 0, 0) threadIdx (8, 0, 0)") != std::string::npos);
  CHECK(output.find("byte 800 of a device allocation of 800 bytes") != std::string::npos);
}

TEST_CASE("planted: a write into the slack after an odd-sized buffer fails the launch",
          "[planted][bounds]") {
  const int n = 3;  // 12 bytes: the allocation is rounded up to 16, the canary catches it
  DeviceBuffer<float> out(n);
  try {
    launch(write_one_past_the_end, dim3(1), dim3(32), 0, out.data(), n);
    FAIL("no error");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find("cudaErrorIllegalAddress") != std::string::npos);
  }
}

TEST_CASE("planted: reading a device buffer through a host pointer is refused by the copies",
          "[planted][bounds]") {
  std::vector<float> host(16);
  DeviceBuffer<float> device(16);
  CHECK_THROWS_AS(copy_to_host(host.data(), host.data() + 4, 16), CudaError);
  CHECK_THROWS_AS(copy_to_device(device.data() + 8, host.data(), 16 * sizeof(float)), CudaError);
}

// ---------------------------------------------------------------------------------------
// Device memory is the device's: the answer must come from a kernel
// ---------------------------------------------------------------------------------------

static_assert(std::is_same_v<decltype(threadIdx), const uint3&> &&
                  std::is_same_v<decltype(blockIdx), const uint3&> &&
                  std::is_same_v<decltype(blockDim), const dim3&> &&
                  std::is_same_v<decltype(gridDim), const dim3&>,
              "kernels see the built-in variables read-only, as on a GPU");

TEST_CASE("planted: host code reading a device buffer outside a launch dies, and says why",
          "[planted][host]") {
  for (bool write : {false, true}) {
    std::string output;
    const int status = run_in_child(
        [write] {
          DeviceBuffer<float> buffer(64);
          volatile float* p = buffer.data();
          if (write) p[3] = 1.0f;
          else std::printf("%f\n", double(p[3]));
        },
        &output);
    INFO(output);
    CHECK(WIFSIGNALED(status));
    CHECK(output.find("by host code at byte 12 of a device allocation of 256 bytes") !=
          std::string::npos);
    CHECK(output.find("outside a kernel launch") != std::string::npos);
  }
}

TEST_CASE("the backend's own copies still reach device memory, and close it again", "[host]") {
  std::vector<float> host(16, 2.0f);
  DeviceBuffer<float> device(host);
  device_memset(device.data() + 8, 0, 8 * sizeof(float));
  const std::vector<float> back = device.download();
  CHECK(back[0] == 2.0f);
  CHECK(back[15] == 0.0f);
  CHECK(!cpu::device_memory_open());
}

TEST_CASE("planted: a kernel given a host pointer is not launched", "[planted][host]") {
  std::vector<float> host(64);
  try {
    launch(write_one_past_the_end, dim3(1), dim3(32), 0, host.data(), 16);
    FAIL("no error");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find("cudaErrorInvalidValue") != std::string::npos);
  }
  CHECK(host[0] == 0.0f);  // the kernel did not run
}

TEST_CASE("planted: a kernel that writes threadIdx through a const_cast is stopped",
          "[planted][builtins]") {
  std::string output;
  const int status = run_in_child(
      [] {
        DeviceBuffer<float> out(1);
        launch(write_thread_index, dim3(1), dim3(32), 0, out.data());
      },
      &output);
  INFO(output);
  CHECK(WIFSIGNALED(status));
  CHECK(output.find("wrote a built-in variable") != std::string::npos);
}

TEST_CASE("isolated launches: what a kernel writes to host memory stays with the kernel",
          "[host]") {
  // The exercise grader's CPU runners isolate every launch (a child process that shares only
  // device memory): a kernel that copies its input to a host buffer hands the host nothing.
  struct Isolation {
    Isolation() { cpu::isolate_launches(true); }
    ~Isolation() { cpu::isolate_launches(false); }
  } isolation;
  std::vector<float> values{1, 2, 3, 4, 5, 6, 7, 8};
  DeviceBuffer<float> in(values), out(8);
  DeviceBuffer<unsigned long long> where(1);
  std::vector<float> host(8, 0.0f);
  const unsigned long long address = reinterpret_cast<unsigned long long>(host.data());
  where.upload(std::vector<unsigned long long>{address});
  launch(copy_through_host, dim3(1), dim3(8), 0, in.data(), where.data(), out.data());
  CHECK(out.download() == values);  // device memory: written
  CHECK(host == std::vector<float>(8, 0.0f));  // host memory: untouched here
  // A fault in the launch ends this process the same way.
  std::string output;
  const int status = run_in_child(
      [] {
        cpu::isolate_launches(true);
        const int n = 64 * 3 + 8;
        DeviceBuffer<float> past(n);
        launch(write_one_past_the_end, dim3(4), dim3(64), 0, past.data(), n);
      },
      &output);
  INFO(output);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGSEGV);
  CHECK(output.find("blockIdx (3, 0, 0) threadIdx (8, 0, 0)") != std::string::npos);
}
