// Chapter 05, lab: where the time goes when N is not a multiple of 4 (lab/LOG.md#odd-n).
//   - width_split_gemm: step 6's one-slice tile kernel with B's loads and C's stores each on the
//     16-byte path or not, chosen apart (the steps tie both to VEC_BC), so that a run at an N on
//     16 bytes can charge the 4-byte path's cost to B or to C;
//   - padded_b: B copied into rows padded to a multiple of 4 floats (pad_rows), then one tile
//     uncut with B's loads 16 bytes wide and C stored where it is;
//   - padded_planned: planned_gemm on copies of B and C whose rows are padded to a multiple of 4
//     floats (a kernel copies B in, C out): the padding candidate the chooser could time.
#pragma once

#include <algorithm>
#include <string>

#include "05_double_buffer/9_planned.cuh"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"

namespace ch05lab {

// ldb: B's row length (N, or a padded copy's: columns N .. ldb - 1 zeros, never stored).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC_A, bool VEC_B,
          bool VEC_C>
__global__ void __launch_bounds__(ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::THREADS,
                                  ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS)
    width_split_gemm(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K, int ldb) {
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;
  float regC[TM][TN] = {};
  ch05::product_over_k<BM, BN, BK, WM, WN, TM, TN, VEC_A, VEC_B>(A, B, M, ldb, K, 0, K, blockRow,
                                                                blockCol, regC);
  ch05::store_c_tile<BM, BN, BK, WM, WN, TM, TN, VEC_C>(C, M, N, blockRow, blockCol, regC);
}

// Layout L's tile, one slice, B's rows ldb floats long.
template <class L, bool VEC_A, bool VEC_B, bool VEC_C>
void run_width_split(const float* A, const float* B, float* C, int M, int N, int K, int ldb) {
  constexpr int BK = ch05::tile_depth<L>(VEC_A, VEC_B);
  tutorial::launch(width_split_gemm<L::TILE_M, L::TILE_N, BK, L::PIECE_M, L::PIECE_N, L::LANE_M,
                                    L::LANE_N, VEC_A, VEC_B, VEC_C>,
                   dim3(tutorial::ceil_div(N, L::TILE_N), tutorial::ceil_div(M, L::TILE_M)),
                   dim3(L::THREADS), ch05::warp_tiles_smem_bytes<L::TILE_M, L::TILE_N, BK, 2>(),
                   A, B, C, M, N, K, ldb);
}

// The 64 x 128 tile (8 x 8 lanes), one slice; A's rows on 16 bytes.
template <bool VEC_B, bool VEC_C>
void launch_width_split(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("width_split", M, N, K);
  const bool aligned = tutorial::starts_on_16_bytes(A) && tutorial::starts_on_16_bytes(B) &&
                       tutorial::starts_on_16_bytes(C);
  if (K % 4 != 0 || ((VEC_B || VEC_C) && N % 4 != 0) || !aligned)
    throw tutorial::UnsupportedShape(
        "width_split: K and (for a float4 side) N multiples of 4, A, B and C on 16 bytes");
  run_width_split<ch05::HalfRowsTile, true, VEC_B, VEC_C>(A, B, C, M, N, K, N);
}

// dst (rows x pitch4 float4s) = src (rows x cols floats), zeros past cols.
__global__ void pad_rows(const float* __restrict__ src, int cols, float4* __restrict__ dst,
                         int pitch4, int count) {
  for (int i = blockIdx.x * 256 + threadIdx.x; i < count; i += gridDim.x * 256) {
    const int r = i / pitch4, c = (i - r * pitch4) * 4;
    const float* s = src + size_t(r) * cols + c;
    const int left = cols - c;
    dst[i] = make_float4(s[0], left > 1 ? s[1] : 0.0f, left > 2 ? s[2] : 0.0f,
                         left > 3 ? s[3] : 0.0f);
  }
}

// B copied into rows padded to a multiple of 4 floats, then tile L uncut with float4 B loads
// and C stored as N allows (COPY_ONLY: the copy alone).
template <class L, bool COPY_ONLY = false>
void padded_b(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("padded_b", M, N, K);
  const int Np = tutorial::ceil_div(N, 4) * 4;
  tutorial::check_gemm_shape("padded_b", M, Np, K);  // the padded B's 32-bit indices too
  const int count = K * (Np / 4);
  static tutorial::PerDeviceBuffer<float> paddedB;
  float* Bp = paddedB.at_least(size_t(K) * Np);
  tutorial::launch(pad_rows, dim3(std::min(tutorial::ceil_div(count, 256), 1 << 16)), dim3(256), 0,
                   B, N, reinterpret_cast<float4*>(Bp), Np / 4, count);
  if (COPY_ONLY) return;
  const bool vecA = K % 4 == 0 && tutorial::starts_on_16_bytes(A);
  const bool vecC = N % 4 == 0 && tutorial::starts_on_16_bytes(C);
  if (vecA && vecC) run_width_split<L, true, true, true>(A, Bp, C, M, N, K, Np);
  if (vecA && !vecC) run_width_split<L, true, true, false>(A, Bp, C, M, N, K, Np);
  if (!vecA && vecC) run_width_split<L, false, true, true>(A, Bp, C, M, N, K, Np);
  if (!vecA && !vecC) run_width_split<L, false, true, false>(A, Bp, C, M, N, K, Np);
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
