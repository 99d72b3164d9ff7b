// Chapter 05, lab: where the time goes when N is not a multiple of 4 (lab/LOG.md#odd-n).
//   - width_split_gemm: step 6's one-slice tile kernel with B's loads and C's stores each on the
//     16-byte path or not, chosen apart (the steps tie both to VEC_BC), so that a run at an N on
//     16 bytes can charge the 4-byte path's cost to B or to C;
//   - padded_planned: planned_gemm on copies of B and C whose rows are padded to a multiple of 4
//     floats (a kernel copies B in, C out): the padding candidate the chooser could time.
#pragma once

#include <algorithm>
#include <string>

#include "05_double_buffer/9_planned.cuh"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"

namespace ch05lab {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_B, bool VEC_C>
__global__ void __launch_bounds__(ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    width_split_gemm(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K) {
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  ch05::product_over_k<BM, BN, BK, WM, WN, TM, TN, true, VEC_B>(A, B, M, N, K, 0, K, blockRow,
                                                               blockCol, regC);
  ch05::store_c_tile<BM, BN, BK, WM, WN, TM, TN, VEC_C>(C, M, N, blockRow, blockCol, regC);
}

// The 64 x 128 tile (8 x 8 lanes, half-deep tiles: tile_depth), one slice; A's rows on 16 bytes.
template <bool VEC_B, bool VEC_C>
void launch_width_split(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("width_split", M, N, K);
  if (K % 4 != 0 || ((VEC_B || VEC_C) && N % 4 != 0))
    throw tutorial::UnsupportedShape("width_split: K and (for a float4 side) N multiples of 4");
  using L = ch05::HalfRowsTile;
  constexpr int BK = ch05::tile_depth<L>(true, true);
  tutorial::launch(width_split_gemm<64, 128, BK, 32, 64, 8, 8, VEC_B, VEC_C>,
                   dim3(tutorial::ceil_div(N, 128), tutorial::ceil_div(M, 64)), dim3(L::THREADS),
                   ch05::warp_tiles_smem_bytes<64, 128, BK, 2>(), A, B, C, M, N, K);
}

// dst (rows x dstCols, rows dstPitch apart) = src (rows x srcCols), zeros past srcCols.
__global__ void copy_rows(const float* __restrict__ src, int srcPitch, int srcCols,
                          float* __restrict__ dst, int dstPitch, int dstCols, long long count) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < count; i += gridDim.x * 256LL) {
    const long long r = i / dstCols;
    const int c = int(i - r * dstCols);
    dst[r * dstPitch + c] = c < srcCols ? src[r * srcPitch + c] : 0.0f;
  }
}

inline void launch_copy_rows(const float* src, int srcPitch, int srcCols, float* dst,
                             int dstPitch, int dstCols, int rows) {
  const long long count = (long long)rows * dstCols;
  const int blocks = int(std::min<long long>((count + 255) / 256, 1 << 16));
  tutorial::launch(copy_rows, dim3(blocks), dim3(256), 0, src, srcPitch, srcCols, dst, dstPitch,
                   dstCols, count);
}

// PLAN: run planned_gemm on the padded copies; else only the two copies (their cost alone).
template <bool PLAN>
void padded_planned(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("padded_planned", M, N, K);
  const int Np = tutorial::ceil_div(N, 4) * 4;
  static tutorial::PerDeviceBuffer<float> paddedB, paddedC;
  float* Bp = paddedB.at_least(size_t(K) * Np);
  float* Cp = paddedC.at_least(size_t(M) * Np);
  launch_copy_rows(B, N, N, Bp, Np, Np, K);
  if (PLAN) ch05::launch_planned_gemm(A, Bp, Cp, M, Np, K);
  launch_copy_rows(Cp, Np, N, C, N, N, M);
}

}  // namespace ch05lab
