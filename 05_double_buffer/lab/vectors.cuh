// Chapter 05, lab: C = A * B with M = 1 in one launch, for lab/LOG.md#vector-rows. The
// kernel below is step 8's first row_times_matrix (a thread owns four columns over the whole
// slice), which wrote each slice's partial row to a workspace for sum_partials to add in a
// second launch; here the last block of a column group to finish adds the slices itself, in
// the same order (slice 0, then 1, ...). The blocks of a group count their arrivals in a
// per-device array of counters that the last one sets back to zero: one launch at a time on a
// device, as for the slices' workspace.
#pragma once

#include <cuda_runtime.h>

#include "05_double_buffer/8_thin.cuh"
#include "common/cuda_check.hpp"

namespace ch05lab {

template <bool VEC>
__global__ void __launch_bounds__(ch05::kVectorThreads)
    row_times_matrix_fused(const float* __restrict__ A, const float* __restrict__ B,
                           float* __restrict__ partials, float* __restrict__ C,
                           unsigned* __restrict__ arrivals, int N, int K, int sliceK) {
  constexpr int COLS = VEC ? 4 : 1, U = ch05::kVectorUnroll;
  const long long n =
      (static_cast<long long>(blockIdx.x) * ch05::kVectorThreads + threadIdx.x) * COLS;
  const int slices = gridDim.y;
  float acc[COLS] = {};
  if (n < N) {
    const long long k0 = static_cast<long long>(blockIdx.y) * sliceK;
    const long long k1 = min(static_cast<long long>(K), k0 + sliceK);
    for (long long k = k0; k < k1; k += U) {
      float b[U][COLS], a[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const bool in = k + u < k1;
        a[u] = in ? A[k + u] : 0.0f;
        if constexpr (VEC) {
          const float4 v = in ? *reinterpret_cast<const float4*>(&B[size_t(k + u) * N + n])
                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
        } else {
          b[u][0] = in ? B[size_t(k + u) * N + n] : 0.0f;
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc[c] += a[u] * b[u][c];
    }
    if (slices == 1) {
#pragma unroll
      for (int c = 0; c < COLS; ++c) C[n + c] = acc[c];
      return;
    }
#pragma unroll
    for (int c = 0; c < COLS; ++c) partials[size_t(blockIdx.y) * N + n + c] = acc[c];
  }
  if (slices == 1) return;
  __shared__ bool last;
  __threadfence();  // this block's partials reach L2 before its arrival is counted
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&arrivals[blockIdx.x], 1u) == unsigned(slices - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other blocks' partials are read after their arrivals
  if (n < N) {
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      float sum = __ldcg(&partials[n + c]);  // (from L2: written by other SMs)
      for (int s = 1; s < slices; ++s) sum += __ldcg(&partials[size_t(s) * N + n + c]);
      C[n + c] = sum;
    }
  }
  if (threadIdx.x == 0) arrivals[blockIdx.x] = 0;  // ready for the next launch
}

// The counters: zero when made, zero again after every launch (the last block resets its own).
inline unsigned* arrival_counters(size_t count) {
  static tutorial::PerDeviceBuffer<unsigned> counters;
  static size_t zeroed = 0;
  unsigned* p = counters.at_least(count);
  if (count > zeroed) {
    CUDA_CHECK(cudaMemset(p, 0, count * sizeof(unsigned)));
    zeroed = count;
  }
  return p;
}

// M = 1 in SLICES slices, one launch; other shapes: step 8's run_vector_gemm.
template <int SLICES>
void launch_vector_fused(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("vector_fused", M, N, K);
  if (M != 1) return ch05::run_vector_gemm(A, B, C, M, N, K, SLICES);
  int slices = 1, sliceK = K;
  ch05::slice_k(K, SLICES, slices, sliceK);
  const bool vec = N % 4 == 0 && tutorial::starts_on_16_bytes(B) &&
                   tutorial::starts_on_16_bytes(C);
  const int groups = tutorial::ceil_div(N, ch05::kVectorThreads * (vec ? 4 : 1));
  float* partials = slices == 1 ? C : ch05::slice_workspace(size_t(N) * slices, slices, M, N);
  unsigned* arrivals = arrival_counters(size_t(groups));
  const auto kernel = vec ? row_times_matrix_fused<true> : row_times_matrix_fused<false>;
  tutorial::launch(kernel, dim3(groups, slices), dim3(ch05::kVectorThreads), 0, A, B, partials,
                   C, arrivals, N, K, sliceK);
}

// Step 8's two-launch vector product at a fixed slice count, for the side-by-side comparison.
template <int SLICES>
void launch_vector_sliced(const float* A, const float* B, float* C, int M, int N, int K) {
  ch05::run_vector_gemm(A, B, C, M, N, K, SLICES);
}

}  // namespace ch05lab
