// Chapter 05, lab: C = A * B with M = 1, step 8's row_times_matrix with its block's shape as
// template arguments, for lab/LOG.md#column-strips. A block owns a strip of 32 * COLS columns
// of C and one slice of K; its WARPS warps share the slice's rows (warp w: rows w, w + WARPS,
// ...), each lane keeps U loads of COLS floats in flight, and the warps' sums are added in
// shared memory in warp order. With S = 1 a strip covers all of K and writes C in one launch.
// row_times_matrix<true> was strip_kernel<4, 8, 8> when these ran (it is now one launch, 16 warps).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "05_double_buffer/8_thin.cuh"
#include "05_double_buffer/lab/vectors.cuh"

namespace ch05lab {

template <int COLS, int WARPS, int U>
__global__ void __launch_bounds__(WARPS * 32)
    strip_kernel(const float* __restrict__ A, const float* __restrict__ B,
                 float* __restrict__ C, int N, int K, int sliceK) {
  using Vec = std::conditional_t<COLS == 4, float4, std::conditional_t<COLS == 2, float2, float>>;
  __shared__ float sums[WARPS][32 * COLS];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
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
        Vec v{};
        if (in) v = *reinterpret_cast<const Vec*>(&B[size_t(ku) * N + n]);
        const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
        for (int c = 0; c < COLS; ++c) b[u][c] = f[c];
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
  for (int t = threadIdx.x; t < 32 * COLS; t += WARPS * 32) {
    if (first + t >= N) break;
    float total = sums[0][t];
    for (int w = 1; w < WARPS; ++w) total += sums[w][t];
    C[size_t(blockIdx.y) * N + first + t] = total;
  }
}

// M = 1 and N a multiple of COLS: strips of 32 * COLS columns in SLICES slices (then the
// slices' sum); other shapes: step 8's run_vector_gemm.
template <int COLS, int WARPS, int U, int SLICES>
void launch_strips(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("strips", M, N, K);
  if (M != 1 || N % COLS != 0 || (COLS > 1 && !tutorial::starts_on_16_bytes(B)))
    return ch05::run_vector_gemm(A, B, C, M, N, K, SLICES);
  int slices = 1, sliceK = K;
  ch05::slice_k(K, SLICES, slices, sliceK);
  float* out = slices == 1 ? C : ch05::slice_workspace(size_t(N) * slices, slices, M, N);
  const dim3 grid(tutorial::ceil_div(N, 32 * COLS), slices);
  tutorial::launch(strip_kernel<COLS, WARPS, U>, grid, dim3(WARPS * 32), 0, A, B, out, N, K,
                   sliceK);
  if (slices > 1) ch05::sum_partials(out, C, N, slices, ch05::kThinManySlices);
}

// The same strips in one launch: each block writes its strip's partial sums for its slice, and
// the last block of a strip to finish (an arrival counter per strip) adds the S partials in
// slice order, 0, 1, ..., so C is the same bit for bit whichever block is last. The counters
// are zero between launches (the last block sets its own back): one launch at a time on a
// device, as for the slices' workspace.
template <int COLS, int WARPS, int U>
__global__ void __launch_bounds__(WARPS * 32)
    strip_fused(const float* __restrict__ A, const float* __restrict__ B,
                float* __restrict__ partials, float* __restrict__ C,
                unsigned* __restrict__ arrivals, int N, int K, int sliceK) {
  using Vec = std::conditional_t<COLS == 4, float4, std::conditional_t<COLS == 2, float2, float>>;
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
        Vec v{};
        if (in) v = *reinterpret_cast<const Vec*>(&B[size_t(ku) * N + n]);
        const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
        for (int c = 0; c < COLS; ++c) b[u][c] = f[c];
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
    if (slices == 1) {
      C[first + t] = total;
      return;
    }
    partials[size_t(blockIdx.y) * N + first + t] = total;
  }
  if (slices == 1) return;
  __threadfence();  // this block's partials reach L2 before its arrival is counted
  __syncthreads();
  if (t == 0) last = atomicAdd(&arrivals[blockIdx.x], 1u) == unsigned(slices - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other blocks' partials are read after their arrivals
  if (mine) {  // 8 slices' loads in flight at a time, added in slice order
    const float* p = partials + first + t;
    float sum = __ldcg(p);
    int s = 1;
    for (; s + 8 <= slices; s += 8) {
      float v[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) v[j] = __ldcg(p + size_t(s + j) * N);
#pragma unroll
      for (int j = 0; j < 8; ++j) sum += v[j];
    }
    for (; s < slices; ++s) sum += __ldcg(p + size_t(s) * N);
    C[first + t] = sum;
  }
  if (t == 0) arrivals[blockIdx.x] = 0;  // ready for the next launch
}

template <int COLS, int WARPS, int U, int SLICES>
void launch_strips_fused(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("strips_fused", M, N, K);
  if (M != 1 || N % COLS != 0 || (COLS > 1 && !tutorial::starts_on_16_bytes(B)))
    return ch05::run_vector_gemm(A, B, C, M, N, K, SLICES);
  int slices = 1, sliceK = K;
  ch05::slice_k(K, SLICES, slices, sliceK);
  float* partials = slices == 1 ? C : ch05::slice_workspace(size_t(N) * slices, slices, M, N);
  const int strips = tutorial::ceil_div(N, 32 * COLS);
  unsigned* arrivals = arrival_counters(size_t(strips));
  tutorial::launch(strip_fused<COLS, WARPS, U>, dim3(strips, slices), dim3(WARPS * 32), 0, A, B,
                   partials, C, arrivals, N, K, sliceK);
}

}  // namespace ch05lab
