// Chapter 05, lab: where the time of a timed M = 1 call goes beyond its kernel (lab/LOG.md,
// "M = 1: the time beyond the kernel"). For one shape (default 1 x 4096 x 4096), beside cuBLAS:
//   host    each launcher's host time per call (no flush, no events, no waiting) and the
//           launches step 9's launcher makes per call (tutorial::launch_count);
//   timer   time_gpu_interleaved's loop with one more event before each flush: the flush, the
//           timed call and the gap after it, per call, with the timer's flush (a memset, which
//           leaves the L2 full of dirty lines), a clean flush (the memset, then a kernel that
//           reads twice the L2: clean lines) and none;
//   ncu     (--ncu) a few calls after the timer's flush, for Nsight Compute with
//           --profile-from-start off --cache-control none: the kernels' time and DRAM bytes
//           in the timer's conditions.
//   harness (after the change) time_gpu_interleaved as the chapter's executable calls it: cuBLAS,
//           step 9's launcher, and the same launcher with step 8's kernel as it was before B's
//           loads were evict-first ("planned before": its own chooser, the same shortlist).
// Step 8's row_times_matrix as it was is copied here (probe_row) with B read three ways: as it was,
// with __ldcs (ld.global.cs: evict-first in L2) and with ld.global.nc.L1::no_allocate and an
// L2 evict-first cache policy (createpolicy).
//     05_double_buffer_overhead [--m 1 --n 4096 --k 4096] [--ncu]
// TUTORIAL_CHOOSE_PRINT=1 prints both choosers' choices.
// Not built by default (`cmake --build build --target 05_double_buffer_overhead`).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "05_double_buffer/9_planned.cuh"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/gemm.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

namespace {

// B's loads: 0 as step 8, 1 __ldcs, 2 non-coherent, no L1 allocation, an evict-first L2 policy.
template <int LOAD>
__device__ __forceinline__ float4 load_b(const float* p) {
  if constexpr (LOAD == 1) {
    return __ldcs(reinterpret_cast<const float4*>(p));
  } else if constexpr (LOAD == 2) {
    float4 v;  // (an L2 eviction priority on ld takes a cache policy on sm_90)
    asm volatile(
        "{\n\t.reg .b64 pol;\n\t"
        "createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n\t"
        "ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], pol;\n\t}"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
  } else {
    return *reinterpret_cast<const float4*>(p);
  }
}

// Step 8's row_times_matrix<true> (float4) before B's loads were __ldcs, reading B as LOAD says.
template <int LOAD>
__global__ void __launch_bounds__(ch05::kRowWarps * 32)
    probe_row(const float* __restrict__ A, const float* __restrict__ B,
              float* __restrict__ partials, float* __restrict__ C,
              unsigned* __restrict__ arrivals, int N, int K, int sliceK) {
  constexpr int COLS = 4, WARPS = ch05::kRowWarps, U = ch05::kVectorUnroll;
  __shared__ float sums[WARPS][32 * COLS];
  __shared__ bool last;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, slices = gridDim.y;
  const long long first = static_cast<long long>(blockIdx.x) * 32 * COLS;
  const long long n = first + lane * COLS;
  const long long k0 = static_cast<long long>(blockIdx.y) * sliceK;
  const long long k1 = min(static_cast<long long>(K), k0 + sliceK);
  float acc[COLS] = {};
  if (n < N) {
    for (long long k = k0 + warp; k < k1; k += WARPS * U) {
      float b[U][COLS], a[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const long long ku = k + u * WARPS;
        const bool in = ku < k1;
        a[u] = in ? A[ku] : 0.0f;
        const float4 v = in ? load_b<LOAD>(&B[size_t(ku) * N + n])
                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc[c] += a[u] * b[u][c];
    }
  }
#pragma unroll
  for (int c = 0; c < COLS; ++c) sums[warp][lane * COLS + c] = acc[c];
  __syncthreads();
  const int t = threadIdx.x;
  const bool mine = t < 32 * COLS && first + t < N;
  float total = 0.0f;
  if (mine) {
    total = sums[0][t];
    for (int w = 1; w < WARPS; ++w) total += sums[w][t];
    if (slices == 1) C[first + t] = total;
  }
  if (slices == 1) return;
  if (mine) {
    partials[size_t(blockIdx.y) * N + first + t] = total;
    __threadfence();
  }
  __syncthreads();
  if (t == 0) last = atomicAdd(&arrivals[blockIdx.x], 1u) == unsigned(slices - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  constexpr int G = WARPS / COLS;
  const int column = t % (32 * COLS), group = t / (32 * COLS);
  float part = 0.0f;
  if (first + column < N) {
#pragma unroll 4
    for (int s = group; s < slices; s += G)
      part += __ldcg(&partials[size_t(s) * N + first + column]);
  }
  sums[group][column] = part;
  __syncthreads();
  if (mine) {
    float sum = sums[0][t];
    for (int g = 1; g < G; ++g) sum += sums[g][t];
    C[first + t] = sum;
  }
  if (t == 0) arrivals[blockIdx.x] = 0;
}

__global__ void empty_kernel() {}

// An empty kernel shaped like probe_row's launch: the same block and static shared memory.
__global__ void __launch_bounds__(ch05::kRowWarps * 32) empty_like_row(float* out, int never) {
  __shared__ float sums[ch05::kRowWarps][128];
  sums[threadIdx.x / 32][threadIdx.x % 128] = float(threadIdx.x);
  __syncthreads();
  if (never == 12345) out[threadIdx.x] = sums[0][threadIdx.x % 128];
}

// Reads `count` floats (the clean flush): the L2 ends full of clean lines.
__global__ void read_all(const float4* __restrict__ p, size_t count4, float* out) {
  float s = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count4;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = __ldcg(&p[i]);
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1.2345f) *out = s;  // (never: keeps the loads)
}

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Step 9's launcher with probe_row<0> (B's loads as before) for its one-row plans: its own
// chooser, the same shortlist and timing as ch05::chosen_plan.
void planned_before(const float* A, const float* B, float* C, int M, int N, int K) {
  static tutorial::Chooser<ch05::GemmPlan> chooser(ch05::kWindow, ch05::kShortlist);
  static tutorial::PerDeviceBuffer<float> workspace;
  static tutorial::PerDeviceBuffer<unsigned> arrivals;
  auto run = [&](const ch05::GemmPlan& p) {
    if (p.path != ch05::GemmPath::Vector || M != 1 || N % 4 != 0)
      return ch05::run_gemm_plan(p, A, B, C, M, N, K);
    int slices = 1, sliceK = K;
    ch05::slice_k(K, p.slices, slices, sliceK);
    const dim3 grid(unsigned(tutorial::ceil_div(N, 128)), unsigned(slices));
    tutorial::launch(probe_row<0>, grid, dim3(ch05::kRowWarps * 32), 0, A, B,
                     workspace.at_least(size_t(slices) * N), C, arrivals.zeroed_at_least(grid.x),
                     N, K, sliceK);
  };
  const std::string key =
      "planned_before " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  run(chooser.choose(
      key, [&] { return ch05::plan_shortlist_input(ch05::plan_gpu(), M, N, K); }, run));
}

struct Variant {
  std::string name;
  std::function<void()> run;
};

}  // namespace

int main(int argc, char** argv) {
  int M = 1, N = 4096, K = 4096;
  bool ncu = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--m" && i + 1 < argc) M = std::atoi(argv[++i]);
    else if (a == "--n" && i + 1 < argc) N = std::atoi(argv[++i]);
    else if (a == "--k" && i + 1 < argc) K = std::atoi(argv[++i]);
    else if (a == "--ncu") ncu = true;
  }
  if (M != 1 || N % 4 != 0) {
    std::fprintf(stderr, "overhead: M = 1 and N a multiple of 4 only\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MB; M=%d N=%d K=%d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, M, N, K);

  tutorial::GemmProblem p(M, N, K, 1);
  tutorial::CublasHandle cublas;
  const float *A = p.dA.data(), *B = p.dB.data();
  float* C = p.dC.data();

  // Step 9's choice (timed on this first call), then the same kernel and slices run directly.
  ch05::launch_planned_gemm(A, B, C, M, N, K);
  const ch05::GemmPlan plan = ch05::chosen_plan(A, B, C, M, N, K);
  planned_before(A, B, C, M, N, K);
  int slices = 1, sliceK = K;
  ch05::slice_k(K, plan.slices, slices, sliceK);
  std::printf("plan: path %d, slices %d (wanted %d), sliceK %d\n", int(plan.path), slices,
              plan.slices, sliceK);
  const dim3 grid(unsigned(tutorial::ceil_div(N, 128)), unsigned(slices));
  const dim3 block(ch05::kRowWarps * 32);
  tutorial::DeviceBuffer<float> partials(size_t(slices) * N), sink(1024);
  tutorial::DeviceBuffer<unsigned> arrivals(grid.x);
  tutorial::device_memset(arrivals.data(), 0, arrivals.bytes());
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t cleanFloats = 2 * size_t(l2) / 4;
  tutorial::DeviceBuffer<float> cleanBuf(cleanFloats);
  tutorial::device_memset(cleanBuf.data(), 0, cleanBuf.bytes());

  std::vector<Variant> variants = {
      {"cuBLAS", [&] { tutorial::cublas_sgemm(cublas.get(), A, B, C, M, N, K); }},
      {"planned", [&] { ch05::launch_planned_gemm(A, B, C, M, N, K); }},
      {"planned before", [&] { planned_before(A, B, C, M, N, K); }},
      {"row direct", [&] {
         probe_row<0><<<grid, block>>>(A, B, partials.data(), C, arrivals.data(), N, K, sliceK);
       }},
      {"row ldcs", [&] {
         probe_row<1><<<grid, block>>>(A, B, partials.data(), C, arrivals.data(), N, K, sliceK);
       }},
      {"row evict_first", [&] {
         probe_row<2><<<grid, block>>>(A, B, partials.data(), C, arrivals.data(), N, K, sliceK);
       }},
      {"empty 1x32", [&] { empty_kernel<<<1, 32>>>(); }},
      {"empty like row", [&] { empty_like_row<<<grid, block>>>(sink.data(), 0); }},
      {"events only", [] {}},
  };
  const size_t nv = variants.size();

  // Bits: every row variant against cuBLAS-free step 9 (planned's C).
  ch05::launch_planned_gemm(A, B, C, M, N, K);
  const std::vector<float> want = p.dC.download();
  for (size_t v = 2; v <= 5; ++v) {
    p.dC.poison();
    variants[v].run();
    CUDA_CHECK(cudaGetLastError());
    const std::vector<float> got = p.dC.download();
    std::printf("bits %-16s %s planned's\n", variants[v].name.c_str(),
                std::memcmp(got.data(), want.data(), want.size() * 4) == 0 ? "==" : "!=");
  }
  tutorial::device_synchronize();

  if (ncu) {  // a few calls each after the timer's flush (ncu --profile-from-start off)
    CUDA_CHECK(cudaProfilerStart());
    for (int r = 0; r < 5; ++r)
      for (size_t v = 0; v < nv; ++v) {
        tutorial::flush_l2_cache();
        variants[v].run();
      }
    tutorial::device_synchronize();
    CUDA_CHECK(cudaProfilerStop());
    std::printf("ncu mode done\n");
    return 0;
  }

  // ---- The chapter executable's timing (chapter_main.cpp's time_side_by_side), three times.
  std::printf("\nharness (time_gpu_interleaved, --iters 9): %% of cuBLAS, median ms\n");
  for (int rep = 0; rep < 3; ++rep) {
    tutorial::TimingOptions options{2, 9, true, 200.0};
    options.timed_ms = 100.0;
    options.max_repetitions = 201;
    const std::vector<tutorial::TimingStats> t =
        tutorial::time_gpu_interleaved({variants[0].run, variants[1].run, variants[2].run},
                                       options);
    std::printf("  cuBLAS %.4f ms, planned %.4f ms %5.1f%%, planned before %.4f ms %5.1f%%\n",
                t[0].median_ms, t[1].median_ms, 100.0 * t[0].median_ms / t[1].median_ms,
                t[2].median_ms, 100.0 * t[0].median_ms / t[2].median_ms);
  }

  // ---- Host: time per call, no flush, nothing waited for (200 calls, then the GPU drains).
  std::printf("\nhost time per call (us): median of 200 calls, mean, [launches per call]\n");
  for (int pass = 0; pass < 2; ++pass)
    for (size_t v = 0; v < nv; ++v) {
      std::vector<double> each;
      const long before = tutorial::launch_count();
      const auto t0 = Clock::now();
      for (int i = 0; i < 200; ++i) {
        const auto t = Clock::now();
        variants[v].run();
        each.push_back(us_since(t));
      }
      const double total = us_since(t0);
      const long launches = tutorial::launch_count() - before;
      tutorial::device_synchronize();
      if (pass == 1)
        std::printf("  %-16s %7.2f %7.2f  [%.2f]\n", variants[v].name.c_str(), median(each),
                    total / 200, launches / 200.0);
    }
  {
    std::vector<double> flush, event;
    cudaEvent_t e;
    CUDA_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < 200; ++i) {
      auto t = Clock::now();
      tutorial::flush_l2_cache();
      flush.push_back(us_since(t));
      t = Clock::now();
      CUDA_CHECK(cudaEventRecord(e));
      event.push_back(us_since(t));
    }
    tutorial::device_synchronize();
    std::printf("  %-16s %7.2f\n  %-16s %7.2f\n", "flush_l2_cache", median(flush),
                "cudaEventRecord", median(event));
    cudaEventDestroy(e);
  }

  // ---- The timer's loop (time_gpu_interleaved: rounds, each variant once, the order rotated,
  // the flush before each, nothing waited for), an event before each flush too.
  auto flushWith = [&](int mode) {
    if (mode >= 1) tutorial::flush_l2_cache();
    if (mode == 2)
      read_all<<<prop.multiProcessorCount * 4, 512>>>(
          reinterpret_cast<const float4*>(cleanBuf.data()), cleanFloats / 4, sink.data());
  };
  const char* modeName[3] = {"no flush", "timer's flush (memset)",
                             "clean flush (memset, read 2x L2)"};
  const int rounds = 201;
  for (int mode : {1, 2, 0}) {
    // warm-up: 200 ms of rounds
    const auto w0 = Clock::now();
    while (us_since(w0) < 200e3) {
      for (size_t v = 0; v < nv; ++v) {
        flushWith(mode);
        variants[v].run();
      }
      tutorial::device_synchronize();
    }
    std::vector<std::vector<cudaEvent_t>> ev(rounds * nv, std::vector<cudaEvent_t>(3));
    for (auto& e3 : ev)
      for (auto& e : e3) CUDA_CHECK(cudaEventCreate(&e));
    const auto h0 = Clock::now();
    for (int r = 0; r < rounds; ++r)
      for (size_t j = 0; j < nv; ++j) {
        const size_t v = (size_t(r) + j) % nv;
        auto& e3 = ev[size_t(r) * nv + v];
        CUDA_CHECK(cudaEventRecord(e3[0]));
        flushWith(mode);
        CUDA_CHECK(cudaEventRecord(e3[1]));
        variants[v].run();
        CUDA_CHECK(cudaEventRecord(e3[2]));
      }
    const double hostUs = us_since(h0);
    tutorial::device_synchronize();
    const double gpuUs = [&] {
      float ms = 0;
      const size_t lastV = (size_t(rounds - 1) + nv - 1) % nv;
      CUDA_CHECK(cudaEventElapsedTime(&ms, ev[0][0], ev[size_t(rounds - 1) * nv + lastV][2]));
      return ms * 1e3;
    }();
    std::printf("\n%s: %d rounds enqueued in %.0f us of host time, %.0f us of GPU time\n",
                modeName[mode], rounds, hostUs, gpuUs);
    std::printf("  %-16s %9s %9s %9s %9s   (us, medians; gap: stop event to the next call's "
                "first event)\n", "", "flush", "timed", "min", "gap");
    double cublasUs = 0;
    for (size_t v = 0; v < nv; ++v) {
      std::vector<double> fl, tm, gp;
      for (int r = 0; r < rounds; ++r) {
        auto& e3 = ev[size_t(r) * nv + v];
        float a = 0, b = 0;
        CUDA_CHECK(cudaEventElapsedTime(&a, e3[0], e3[1]));
        CUDA_CHECK(cudaEventElapsedTime(&b, e3[1], e3[2]));
        fl.push_back(a * 1e3), tm.push_back(b * 1e3);
        // the next event recorded after this call: next variant in the same round, or next round
        const size_t j = (v + nv - size_t(r) % nv) % nv;  // position of v in round r
        const cudaEvent_t* next = nullptr;
        if (j + 1 < nv) next = &ev[size_t(r) * nv + (size_t(r) + j + 1) % nv][0];
        else if (r + 1 < rounds) next = &ev[size_t(r + 1) * nv + size_t(r + 1) % nv][0];
        if (next) {
          float g = 0;
          CUDA_CHECK(cudaEventElapsedTime(&g, e3[2], *next));
          gp.push_back(g * 1e3);
        }
      }
      const double t = median(tm);
      if (v == 0) cublasUs = t;
      std::printf("  %-16s %9.2f %9.2f %9.2f %9.2f   %5.1f%% of cuBLAS\n", variants[v].name.c_str(),
                  median(fl), t, *std::min_element(tm.begin(), tm.end()), median(gp),
                  100.0 * cublasUs / t);
    }
    for (auto& e3 : ev)
      for (auto& e : e3) cudaEventDestroy(e);
  }
  return 0;
}
