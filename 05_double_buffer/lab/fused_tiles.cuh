// Chapter 05, lab: step 6's split-K in one launch. sliced_gemm as it is, then the last block of
// each tile to arrive (an arrival counter per tile, as step 8's row_times_matrix) adds the S
// partial tiles in slice order, 0 first: the same sum as sum_slices, the same bits.
#pragma once

#include <cstdint>

#include "05_double_buffer/9_planned.cuh"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"

namespace ch05lab {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_A, bool VEC_BC>
__global__ void __launch_bounds__(ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    sliced_gemm_fused(const float* __restrict__ A, const float* __restrict__ B,
                      float* __restrict__ partials, float* __restrict__ C, unsigned* arrivals,
                      int M, int N, int K, int sliceK) {
  constexpr int THREADS = ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS;
  __shared__ bool last;
  const int k0 = blockIdx.z * sliceK;
  const int Ks = min(sliceK, K - k0);
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  ch05::product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC_A, VEC_BC>(A, B, M, N, K, k0, Ks,
                                                                  blockRow, blockCol, regC);
  const size_t count = size_t(M) * N;
  ch05::store_c_tile<BM, BN, BK, WM, WN, TM, TN, VEC_BC>(partials + blockIdx.z * count, M, N,
                                                         blockRow, blockCol, regC);
  __threadfence();  // this block's partial tile reaches L2 before its arrival is counted
  __syncthreads();
  const unsigned tile = blockIdx.y * gridDim.x + blockIdx.x;
  if (threadIdx.x == 0) last = atomicAdd(&arrivals[tile], 1u) == gridDim.z - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other blocks' tiles are read after their arrivals
  const int S = gridDim.z;
  if (VEC_BC && reinterpret_cast<uintptr_t>(C) % 16 == 0) {  // 4 columns at a time
    constexpr int QUADS = BM * BN / 4;
#pragma unroll 4
    for (int e = threadIdx.x; e < QUADS; e += THREADS) {
      const int row = blockRow + e / (BN / 4), col = blockCol + e % (BN / 4) * 4;
      if (row >= M || col >= N) continue;
      const size_t at = size_t(row) * N + col;
      float4 sum = __ldcg(reinterpret_cast<const float4*>(partials + at));
      for (int s = 1; s < S; ++s) {
        const float4 p = __ldcg(reinterpret_cast<const float4*>(partials + s * count + at));
        sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
      }
      *reinterpret_cast<float4*>(C + at) = sum;
    }
  } else {
#pragma unroll 4
    for (int e = threadIdx.x; e < BM * BN; e += THREADS) {
      const int row = blockRow + e / BN, col = blockCol + e % BN;
      if (row >= M || col >= N) continue;
      const size_t at = size_t(row) * N + col;
      float sum = __ldcg(partials + at);
      for (int s = 1; s < S; ++s) sum += __ldcg(partials + s * count + at);
      C[at] = sum;
    }
  }
  if (threadIdx.x == 0) arrivals[tile] = 0;  // zero again for the next launch
}

// run_sliced_gemm, the sum in the same launch.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void run_sliced_fused(const float* A, const float* B, float* C, int M, int N, int K,
                      int wantedSlices) {
  int slices = 1, sliceK = K;
  ch05::slice_k(K, wantedSlices, slices, sliceK);
  if (slices == 1)
    return ch05::run_sliced_gemm<BM, BN, BK, WM, WN, TM, TN>(A, B, C, M, N, K, 1);
  const size_t count = size_t(M) * N;
  float* out = ch05::slice_workspace(count * slices, slices, M, N);
  static tutorial::PerDeviceBuffer<unsigned> arrivals;
  const dim3 block(ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM), slices);
  unsigned* counters = arrivals.zeroed_at_least(size_t(grid.x) * grid.y);
  tutorial::dispatch_vec_operands(A, B, out, N, K, [&](auto vecA, auto vecBC) {
    constexpr bool VEC_A = decltype(vecA)::value, VEC_BC = decltype(vecBC)::value;
    constexpr int KT =
        ch05::tile_depth<ch05::WarpLayout<BM, BN, WM, WN, TM, TN>, BK>(VEC_A, VEC_BC);
    tutorial::launch(sliced_gemm_fused<BM, BN, KT, WM, WN, TM, TN, VEC_A, VEC_BC>, grid, block,
                     ch05::warp_tiles_smem_bytes<BM, BN, KT, 2>(), A, B, out, C, counters, M, N,
                     K, sliceK);
  });
}

// A plan of step 9 with its tile path's split-K in one launch (SCALE x its slices).
template <int SCALE>
void run_plan_fused(const ch05::GemmPlan& p, const float* A, const float* B, float* C, int M,
                    int N, int K) {
  if (p.path != ch05::GemmPath::Tiles) return ch05::run_gemm_plan(p, A, B, C, M, N, K);
  using Run = void (*)(const float*, const float*, float*, int, int, int, int);
  constexpr Run kRuns[ch05::kPlanTileCount] = {
      run_sliced_fused<128, 128, 16, 32, 64, 8, 8>, run_sliced_fused<64, 64, 16, 32, 32, 8, 4>,
      run_sliced_fused<32, 128, 16, 32, 32, 8, 4>,  run_sliced_fused<128, 32, 16, 32, 32, 8, 4>,
      run_sliced_fused<64, 128, 16, 32, 64, 8, 8>,  run_sliced_fused<128, 64, 16, 32, 64, 8, 8>};
  kRuns[p.tile](A, B, C, M, N, K, p.slices * SCALE);
}

// Step 6's two launches, the second one a programmatic dependent launch (sm_90 and later): the
// product's blocks say at their start that the sum may be scheduled
// (griddepcontrol.launch_dependents), so the sum's blocks are on the SMs when the product's last
// ones end, and wait there (griddepcontrol.wait) until its writes are visible.
// WAIT: the product itself is launched early too, and waits for the kernel before it.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_A, bool VEC_BC,
          bool WAIT>
__global__ void __launch_bounds__(ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    sliced_gemm_early(const float* __restrict__ A, const float* __restrict__ B,
                      float* __restrict__ C, int M, int N, int K, int sliceK) {
#if __CUDA_ARCH__ >= 900
  if (WAIT) asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  const int k0 = blockIdx.z * sliceK;
  const int Ks = min(sliceK, K - k0);
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  ch05::product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC_A, VEC_BC>(A, B, M, N, K, k0, Ks,
                                                                  blockRow, blockCol, regC);
  ch05::store_c_tile<BM, BN, BK, WM, WN, TM, TN, VEC_BC>(C + size_t(blockIdx.z) * M * N, M, N,
                                                         blockRow, blockCol, regC);
}

__global__ void sum_slices_after(const float* __restrict__ partials, float* __restrict__ C,
                                 int count, int slices) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float sum = partials[i];
  for (int s = 1; s < slices; ++s) sum += partials[size_t(s) * count + i];
  C[i] = sum;
}

inline cudaLaunchConfig_t early_config(dim3 grid, dim3 block, size_t smem,
                                       cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool ALL>
void run_sliced_pdl(const float* A, const float* B, float* C, int M, int N, int K,
                    int wantedSlices) {
  int slices = 1, sliceK = K;
  ch05::slice_k(K, wantedSlices, slices, sliceK);
  if (slices == 1 && !ALL)
    return ch05::run_sliced_gemm<BM, BN, BK, WM, WN, TM, TN>(A, B, C, M, N, K, 1);
  const size_t count = size_t(M) * N;
  float* out = slices == 1 ? C : ch05::slice_workspace(count * slices, slices, M, N);
  const dim3 block(ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS);
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM), slices);
  tutorial::dispatch_vec_operands(A, B, out, N, K, [&](auto vecA, auto vecBC) {
    constexpr bool VEC_A = decltype(vecA)::value, VEC_BC = decltype(vecBC)::value;
    constexpr int KT =
        ch05::tile_depth<ch05::WarpLayout<BM, BN, WM, WN, TM, TN>, BK>(VEC_A, VEC_BC);
    const auto kernel = sliced_gemm_early<BM, BN, KT, WM, WN, TM, TN, VEC_A, VEC_BC, ALL>;
    const size_t smem = ch05::warp_tiles_smem_bytes<BM, BN, KT, 2>();
    if (!ALL) {
      tutorial::launch(kernel, grid, block, smem, A, B, out, M, N, K, sliceK);
    } else {
      tutorial::ensure_dynamic_smem(reinterpret_cast<const void*>(kernel), smem);
      cudaLaunchAttribute attribute[1];
      const cudaLaunchConfig_t config = early_config(grid, block, smem, attribute);
      CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, A, B, out, M, N, K, sliceK));
    }
  });
  if (slices == 1) return;
  cudaLaunchAttribute attribute[1];
  const cudaLaunchConfig_t config =
      early_config(dim3(tutorial::ceil_div(int(count), 256)), dim3(256), 0, attribute);
  const float* partials = out;
  CUDA_CHECK(cudaLaunchKernelEx(&config, sum_slices_after, partials, C, int(count), slices));
}

// A plan of step 9 with its tile path's sum launched early (above); ALL: its product too.
template <bool ALL>
void run_plan_pdl(const ch05::GemmPlan& p, const float* A, const float* B, float* C,
                         int M, int N, int K) {
  if (p.path != ch05::GemmPath::Tiles) return ch05::run_gemm_plan(p, A, B, C, M, N, K);
  using Run = void (*)(const float*, const float*, float*, int, int, int, int);
  constexpr Run kRuns[ch05::kPlanTileCount] = {
      run_sliced_pdl<128, 128, 16, 32, 64, 8, 8, ALL>,
      run_sliced_pdl<64, 64, 16, 32, 32, 8, 4, ALL>,
      run_sliced_pdl<32, 128, 16, 32, 32, 8, 4, ALL>,
      run_sliced_pdl<128, 32, 16, 32, 32, 8, 4, ALL>,
      run_sliced_pdl<64, 128, 16, 32, 64, 8, 8, ALL>,
      run_sliced_pdl<128, 64, 16, 32, 64, 8, 8, ALL>};
  kRuns[p.tile](A, B, C, M, N, K, p.slices);
}

}  // namespace ch05lab
