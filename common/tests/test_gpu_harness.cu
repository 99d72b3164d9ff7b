// The harness's GPU tests: references agree, the occupancy calculator agrees with the CUDA
// runtime, the copy ceiling is sane, and the launch point/buffers fail with clear errors.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/chapter_main.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"
#include "common/launch.cuh"
#include "common/launch_record.hpp"
#include "common/occupancy.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

using namespace tutorial;

namespace {

__global__ void simple_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0;
  for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
  C[row * N + col] = sum;
}

void launch_simple_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(16, 16);
  launch(simple_gemm, dim3(ceil_div(N, 16), ceil_div(M, 16)), block, 0, A, B, C, M, N, K);
}

// Forgets the last column: the poisoned output must make the check fail.
void launch_gemm_missing_last_column(const float* A, const float* B, float* C, int M, int N,
                                     int K) {
  const dim3 block(16, 16);
  launch(simple_gemm, dim3(ceil_div(N - 1, 16), ceil_div(M, 16)), block, 0, A, B, C, M, N - 1, K);
}

// INSTANCE: another copy of the same kernel, for a test that changes a kernel's attributes
// (the carveout test) without changing those the other tests see.
template <int SMEM_FLOATS, int INSTANCE = 0>
__global__ void smem_kernel(float* out) {
  __shared__ float tile[SMEM_FLOATS];
  tile[threadIdx.x % SMEM_FLOATS] = float(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % SMEM_FLOATS];
}

__global__ void dynamic_smem_kernel(float* out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// A kernel only the carveout test launches, so that the preference it sets stays its own.
__global__ void carveout_kernel(float* out) { out[threadIdx.x] = float(threadIdx.x); }

// Only the carveout occupancy test uses this one (it sets the kernel's carveout preference);
// its static counterparts are smem_kernel<N, 1>.
__global__ void carveout_dynamic_kernel(float* out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// Enough live values to need many registers.
__global__ void register_hungry_kernel(const float* in, float* out) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x + i];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = acc[i] * acc[(i + r) % 64] + 1.0f;
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) sum += acc[i];
  out[threadIdx.x] = sum;
}

// A transpose the way a library call makes one (cuBLAS's cublasSgeam): no launch through
// tutorial::launch. At one row the transpose is a copy of the input.
void library_one_row_transpose(const float* in, float* out, int rows, int cols) {
  CUDA_CHECK(cudaMemcpy(out, in, size_t(rows) * cols * sizeof(float), cudaMemcpyDeviceToDevice));
}

// The same, with a launch of ours that is not kept (a timed trial, as chapter 05's shortlist
// makes): it counts in launch_count() but is no launch of this row's to report.
void trial_then_library_transpose(const float* in, float* out, int rows, int cols) {
  {
    LaunchesNotRecorded trial;
    tutorial::launch(smem_kernel<64>, dim3(1), dim3(32), 0, out);
  }
  library_one_row_transpose(in, out, rows, cols);
}

// One CSV line's fields ("..." may hold commas; a doubled quote inside one is dropped).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) fields.emplace_back();
    else fields.back() += c;
  }
  return fields;
}

size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

// Sends std::cout to `to` while it lives.
class CoutTo {
 public:
  explicit CoutTo(std::ostream& to) : saved_(std::cout.rdbuf(to.rdbuf())) {}
  ~CoutTo() { std::cout.rdbuf(saved_); }
  CoutTo(const CoutTo&) = delete;
  CoutTo& operator=(const CoutTo&) = delete;

 private:
  std::streambuf* saved_;
};

}  // namespace

TEST_CASE("a launcher that launches nothing of ours reports no other kernel's occupancy",
          "[gpu][report]") {
  REQUIRE_GPU();
  DeviceBuffer<float> out(64);
  // A kernel of ours first, so that the launch record holds a launch the library rows must not
  // borrow (they did: the row showed that kernel's occupancy; in a fresh process it failed).
  tutorial::launch(smem_kernel<64>, dim3(2), dim3(32), 0, out.data());
  device_synchronize();
  CliOptions o;
  o.problem = Problem::Transpose;
  o.m = 1;
  o.n = 1000;
  o.iters = 2;
  o.format = OutputFormat::Csv;
  std::ostringstream captured;
  int rc = -1;
  {
    CoutTo redirect(captured);
    rc = run_transpose_chapter("test", {},
                               {{"library", library_one_row_transpose},
                                {"trial then library", trial_then_library_transpose}},
                               o, query_device(0));
  }
  INFO(captured.str());
  CHECK(rc == 0);
  std::istringstream lines(captured.str());
  std::string line;
  std::vector<std::string> header;
  int rows_seen = 0;
  while (std::getline(lines, line)) {
    const std::vector<std::string> fields = csv_fields(line);
    if (line.rfind("problem,", 0) == 0) {
      header = fields;
      continue;
    }
    if (header.empty() || fields.size() != header.size()) continue;
    const std::string kernel = fields[column(header, "kernel")];
    if (kernel != "library" && kernel != "trial then library") continue;
    ++rows_seen;
    INFO(kernel);
    CHECK(fields[column(header, "status")] == "ok");
    // No kernel of this row's ran: no occupancy and no limiter, not smem_kernel's.
    CHECK(fields[column(header, "occupancy")] == "-");
    CHECK(fields[column(header, "limiter")].empty());
  }
  CHECK(rows_seen == 2);
}

TEST_CASE("cuBLAS SGEMM (row-major) matches the CPU reference", "[gpu][reference]") {
  REQUIRE_GPU();
  const int shapes[][3] = {{1, 1, 1}, {1, 4097, 3}, {127, 33, 1025}, {256, 256, 256}, {3, 5, 7}};
  CublasHandle handle;
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    CAPTURE(M, N, K);
    GemmProblem p(M, N, K, 7);
    p.dC.poison();
    cublas_sgemm(handle.get(), p.dA.data(), p.dB.data(), p.dC.data(), M, N, K);
    const std::vector<float> got = p.dC.download();
    const HostMatrix want = cpu_reference(p);
    const CompareResult r = compare(got.data(), want.data(), M, N, Tolerance::for_gemm(K));
    INFO(r.summary());
    CHECK(r.ok());
  }
}

TEST_CASE("check_gemm passes a correct kernel and catches an unwritten column", "[gpu][gemm]") {
  REQUIRE_GPU();
  for (auto ref : {GemmReference::Cpu, GemmReference::Cublas}) {
    CompareResult good = check_gemm(launch_simple_gemm, 37, 41, 29, 3, ref);
    INFO(good.summary());
    CHECK(good.ok());
    CompareResult bad = check_gemm(launch_gemm_missing_last_column, 37, 41, 29, 3, ref);
    CHECK_FALSE(bad.ok());
    CHECK(bad.nonfinite == 37);  // the poison of column 40 survived
  }
}

TEST_CASE("occupancy calculator agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor",
          "[gpu][occupancy]") {
  REQUIRE_REAL_GPU();
  const SmLimits sm = sm_limits_of_device(0);
  struct Case {
    const void* kernel;
    int threads;
    size_t dynamic_smem;
    const char* what;
  };
  // The largest block this GPU allows: all the shared memory one block may have (opt-in).
  const size_t most = sm.max_smem_per_block;
  allow_dynamic_smem(dynamic_smem_kernel, most);
  const Case cases[] = {
      {reinterpret_cast<const void*>(smem_kernel<8192>), 256, 0, "32 KB static, 256 threads"},
      {reinterpret_cast<const void*>(smem_kernel<8192>), 1024, 0, "32 KB static, 1024 threads"},
      {reinterpret_cast<const void*>(smem_kernel<1000>), 64, 0, "4000 B static, 64 threads"},
      {reinterpret_cast<const void*>(smem_kernel<12000>), 128, 0, "48000 B static, 128 threads"},
      {reinterpret_cast<const void*>(dynamic_smem_kernel), 256, 0, "no shared memory"},
      {reinterpret_cast<const void*>(dynamic_smem_kernel), 256, 20000, "20000 B dynamic"},
      {reinterpret_cast<const void*>(dynamic_smem_kernel), 512, most, "the opt-in maximum"},
      {reinterpret_cast<const void*>(dynamic_smem_kernel), 32, 1, "1 B dynamic, 32 threads"},
      {reinterpret_cast<const void*>(register_hungry_kernel), 256, 0, "register-hungry, 256"},
      {reinterpret_cast<const void*>(register_hungry_kernel), 96, 0, "register-hungry, 96"},
  };
  for (const Case& c : cases) {
    const KernelResources k = kernel_resources(c.kernel, c.threads, c.dynamic_smem);
    const Occupancy ours = compute_occupancy(k, sm);
    const int runtime = runtime_blocks_per_sm(c.kernel, c.threads, c.dynamic_smem);
    INFO(c.what << ": " << k.registers_per_thread << " registers, " << k.smem_per_block
                << " B shared; ours " << ours.blocks_per_sm << " (" << to_string(ours.limiter)
                << "), runtime " << runtime);
    CHECK(ours.blocks_per_sm == blocks_by_the_rules(k, sm));
    CHECK(ours.blocks_per_sm == runtime);
  }
}

TEST_CASE("with a carveout preference of 0, 25 and 100% the calculator agrees with the runtime",
          "[gpu][occupancy][carveout]") {
  REQUIRE_REAL_GPU();
  const SmLimits sm = sm_limits_of_device(0);
  INFO(sm.name << ": " << sm.smem_per_sm << " B of shared memory per SM, "
               << sm.smem_capacities_kb.size() << " capacities known");
  // Without the architecture's capacities the calculator cannot model a carveout.
  REQUIRE_FALSE(sm.smem_capacities_kb.empty());
  struct Case {
    const void* kernel;
    int threads;
    size_t dynamic_smem;
    const char* what;
  };
  const size_t big = sm.max_smem_per_block / 2, most = sm.max_smem_per_block;
  allow_dynamic_smem(carveout_dynamic_kernel, most);
  const Case cases[] = {
      // the shapes of chapter 03's tiled_gemm<8>, <16>, <32> (two tiles of floats)
      {reinterpret_cast<const void*>(smem_kernel<128, 1>), 64, 0, "512 B static, 64 threads"},
      {reinterpret_cast<const void*>(smem_kernel<512, 1>), 256, 0, "2 KB static, 256 threads"},
      {reinterpret_cast<const void*>(smem_kernel<2048, 1>), 1024, 0, "8 KB static, 1024 threads"},
      {reinterpret_cast<const void*>(smem_kernel<8192, 1>), 256, 0, "32 KB static, 256 threads"},
      {reinterpret_cast<const void*>(smem_kernel<12000, 1>), 128, 0, "48000 B static, 128 threads"},
      {reinterpret_cast<const void*>(carveout_dynamic_kernel), 128, 0, "no shared memory, 128 threads"},
      {reinterpret_cast<const void*>(carveout_dynamic_kernel), 32, 20000, "20000 B dynamic, 32 threads"},
      {reinterpret_cast<const void*>(carveout_dynamic_kernel), 128, big, "half the opt-in maximum"},
      {reinterpret_cast<const void*>(carveout_dynamic_kernel), 128, most, "the opt-in maximum"},
  };
  for (int carveout : {0, 25, 100}) {
    for (const Case& c : cases) {
      CUDA_CHECK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      carveout));
      const KernelResources k = kernel_resources(c.kernel, c.threads, c.dynamic_smem);
      const Occupancy ours = compute_occupancy(k, sm);
      const int runtime = runtime_blocks_per_sm(c.kernel, c.threads, c.dynamic_smem);
      INFO("carveout " << carveout << "%, " << c.what << ": " << k.registers_per_thread
                       << " registers, " << k.smem_per_block << " B shared; SM shared memory "
                       << ours.smem_per_sm << " B; ours " << ours.blocks_per_sm << " ("
                       << to_string(ours.limiter) << "), runtime " << runtime);
      CHECK(k.carveout_percent == carveout);  // kernel_resources read the preference back
      CHECK(ours.blocks_per_sm == blocks_by_the_rules(k, sm));
      CHECK(ours.blocks_per_sm == runtime);
    }
  }
  // On an SM of 228 KB (H100, H200) the tiled shapes at 0% give 5, 2 and 1 blocks: the
  // carveout, not the kernel's own resources, limits them.
  if (sm.smem_per_sm == 228 * 1024) {
    int expected[] = {5, 2, 1};
    for (int i = 0; i < 3; ++i) {
      CUDA_CHECK(cudaFuncSetAttribute(cases[i].kernel,
                                      cudaFuncAttributePreferredSharedMemoryCarveout, 0));
      CHECK(runtime_blocks_per_sm(cases[i].kernel, cases[i].threads, 0) == expected[i]);
    }
  }
}

TEST_CASE("measured copy bandwidth is within sane bounds of the theoretical figure",
          "[gpu][device]") {
  REQUIRE_REAL_GPU();
  const DeviceInfo d = query_device(0);
  const double theory = d.theoretical_bandwidth_gbs();
  const double measured = measure_copy_bandwidth_gbs(size_t(512) << 20);
  WARN(d.name << ": copy " << measured << " GB/s of " << theory << " GB/s theoretical, FP32 peak "
              << d.fp32_peak_gflops() << " GFLOP/s, " << d.sm_count << " SMs");
  CHECK(measured > 0.3 * theory);
  CHECK(measured < 1.1 * theory);
  CHECK(d.fp32_peak_gflops() > 1000);
}

TEST_CASE("GPU timing returns ordered statistics", "[gpu][timing]") {
  REQUIRE_REAL_GPU();
  DeviceBuffer<float> buf(1 << 24);
  const TimingStats t = time_gpu([&] { buf.poison(); }, TimingOptions{1, 5, true});
  CHECK(t.repetitions == 5);
  CHECK(t.min_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);
}

TEST_CASE("launch point refuses empty grids and oversized blocks with a clear message",
          "[gpu][launch]") {
  REQUIRE_GPU();
  DeviceBuffer<float> A(1), B(1), C(1);
  try {
    launch(simple_gemm, dim3(0, 1), dim3(16, 16), 0, A.data(), B.data(), C.data(), 0, 1, 1);
    FAIL("no exception");
  } catch (const UnsupportedShape& e) {
    CHECK(std::string(e.what()).find("empty grid") != std::string::npos);
  }
  CHECK_THROWS_AS(launch(simple_gemm, dim3(1), dim3(64, 32), 0, A.data(), B.data(), C.data(), 1, 1, 1),
                  UnsupportedShape);
  launch(simple_gemm, dim3(1, 1), dim3(16, 16), 0, A.data(), B.data(), C.data(), 1, 1, 1);
  CHECK(last_launch().threads_per_block() == 256);
  CHECK(last_launch().kernel == reinterpret_cast<const void*>(simple_gemm));
  // A launcher of two kernels (split-K and its sum): its first launch is its main kernel.
  const long before = launch_count();
  launch(simple_gemm, dim3(1, 1), dim3(8, 8), 0, A.data(), B.data(), C.data(), 1, 1, 1);
  launch(simple_gemm, dim3(1, 1), dim3(16, 4), 0, A.data(), B.data(), C.data(), 1, 1, 1);
  CHECK(first_launch_since(before).threads_per_block() == 64);
  CHECK(first_launch_since(before).block.x == 8);
  CHECK(last_launch().block.x == 16);
  CHECK(first_launch_since(launch_count()).block.x == 16);  // none since: the last
  // Trial runs before a launcher's real launch (LaunchesNotRecorded) count, but are not kept.
  const long beforeTrials = launch_count();
  {
    const LaunchesNotRecorded trials;
    launch(simple_gemm, dim3(1, 1), dim3(4, 4), 0, A.data(), B.data(), C.data(), 1, 1, 1);
  }
  CHECK(launch_count() == beforeTrials + 1);
  CHECK(last_launch().block.x == 16);
  launch(simple_gemm, dim3(1, 1), dim3(32, 2), 0, A.data(), B.data(), C.data(), 1, 1, 1);
  CHECK(first_launch_since(beforeTrials).block.x == 32);
}

TEST_CASE("a block needing more shared memory than this GPU allows is refused before launch",
          "[gpu][launch][fit]") {
  REQUIRE_GPU();  // the CPU backend checks the dynamic opt-in the same way
  const SmLimits sm = sm_limits_of_device(0);
  DeviceBuffer<float> out(1024);
  const long launches = launch_count();
  const size_t too_much = sm.max_smem_per_block + 128;
  try {
    launch(dynamic_smem_kernel, dim3(1), dim3(32), too_much, out.data());
    FAIL("no exception for " << too_much << " B of shared memory");
  } catch (const KernelDoesNotFit& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("needs " + with_thousands(too_much) + " B") != std::string::npos);
    CHECK(what.find("this GPU allows " + with_thousands(sm.max_smem_per_block) + " B") !=
          std::string::npos);
  }
  CHECK(launch_count() == launches);          // refused, not launched
  CHECK(cudaGetLastError() == cudaSuccess);   // and nothing left behind for the next launch
  // Exactly the maximum is allowed (the launch opts in above 48 KB).
  out.poison();
  launch(dynamic_smem_kernel, dim3(1), dim3(32), sm.max_smem_per_block, out.data());
  device_synchronize();
  CHECK(out.download()[0] == 31.0f);
}

TEST_CASE("static and dynamic shared memory count together against the limit",
          "[gpu][launch][fit]") {
  REQUIRE_REAL_GPU();  // static shared memory sizes exist only in a GPU build
  const SmLimits sm = sm_limits_of_device(0);
  DeviceBuffer<float> out(1024);
  // 48,000 B static + just enough dynamic to pass the maximum by 128 B.
  const size_t dynamic = sm.max_smem_per_block - 48000 + 128;
  try {
    launch(smem_kernel<12000>, dim3(1), dim3(128), dynamic, out.data());
    FAIL("no exception");
  } catch (const KernelDoesNotFit& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("needs " + with_thousands(sm.max_smem_per_block + 128) +
                    " B of shared memory per block; this GPU allows " +
                    with_thousands(sm.max_smem_per_block) + " B") != std::string::npos);
  }
  launch(smem_kernel<12000>, dim3(1), dim3(128), dynamic - 128, out.data());
  device_synchronize();
}

TEST_CASE("the fit check's register arithmetic agrees with the runtime at every block size",
          "[gpu][fit]") {
  REQUIRE_REAL_GPU();
  // cudaFuncAttributes::maxThreadsPerBlock is the runtime's own answer to "how many threads
  // can one block of this compiled kernel have here", registers included.
  const SmLimits sm = sm_limits_of_device(0);
  const void* kernels[] = {reinterpret_cast<const void*>(register_hungry_kernel),
                           reinterpret_cast<const void*>(simple_gemm),
                           reinterpret_cast<const void*>(dynamic_smem_kernel)};
  for (const void* kernel : kernels) {
    cudaFuncAttributes a{};
    CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    for (int threads = 32; threads <= sm.max_threads_per_block; threads += 32) {
      const KernelResources k{threads, a.numRegs, a.sharedSizeBytes};
      INFO(a.numRegs << " registers, " << threads << " threads: runtime allows "
                     << a.maxThreadsPerBlock << "; " << does_not_fit(k, sm));
      CHECK(does_not_fit(k, sm).empty() == (threads <= a.maxThreadsPerBlock));
    }
  }
}

TEST_CASE("the carveout preference (--carveout) reaches each kernel before its first launch", "[gpu][launch]") {
  REQUIRE_REAL_GPU();
  DeviceBuffer<float> out(32);
  set_preferred_carveout(100);  // what `--carveout 100` asks for
  tutorial::launch(carveout_kernel, dim3(1), dim3(32), 0, out.data());
  set_preferred_carveout(-1);   // the other tests keep the driver's choice
  device_synchronize();
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, carveout_kernel));
  CHECK(attributes.preferredShmemCarveout == 100);
}

TEST_CASE("out of GPU memory is a clear error, and the device stays usable", "[gpu][buffer]") {
  REQUIRE_GPU();
  try {
    DeviceBuffer<float> huge(size_t(1) << 50);  // 4 PiB
    FAIL("allocation succeeded");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find("out of GPU memory") != std::string::npos);
  }
  DeviceBuffer<float> small(16);
  small.poison();
  CHECK(std::isnan(small.download()[3]));
}
