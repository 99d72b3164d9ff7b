// Exercise 01c: the roofline numbers of chapters 01 and 02. Host only: no GPU needed.
//
// Arithmetic intensity is FLOP per byte moved from DRAM. A kernel with intensity I on a GPU
// with bandwidth BW (GB/s) and peak P (GFLOP/s) can reach at most min(P, I * BW) GFLOP/s:
//
//   GFLOP/s
//     P |            ______________  compute bound
//       |           /
//       |          /   memory bound: I * BW
//       |         /
//       +--------+----------------- I (FLOP/B)
//              ridge = P / BW
//
// The naive GEMM does one multiply-add (2 FLOP) per two 4-byte loads. The tiled GEMM loads
// each element once per tile and uses it TILE_WIDTH times.
//
// A block that computes a BM x BN tile of C instead of a square one loads BM + BN floats per
// k for 2 * BM * BN FLOP: rectangles trade one side for the other.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>

#include "exercises/support/exercise.hpp"

namespace ex01c {

struct Gpu {
  double bandwidth_gbs;  // DRAM bandwidth, GB/s
  double peak_gflops;    // FP32 peak, GFLOP/s
};

// The A100 numbers of the lesson (40 GB, FP32 without tensor cores).
constexpr Gpu kA100{1555.0, 19500.0};

// FLOP per byte of the naive kernel, if every load went to DRAM.
inline double naive_intensity() {
  return exercise::todo<double>("01c_roofline: naive_intensity");
}

// FLOP per byte of the tiled kernel with square tiles of side tile_width.
inline double tiled_intensity(int tile_width) {
  return exercise::todo<double>("01c_roofline: tiled_intensity", tile_width);
}

// The roofline: the best GFLOP/s a kernel of this intensity can reach on this GPU.
inline double attainable_gflops(double intensity, Gpu gpu) {
  return exercise::todo<double>("01c_roofline: attainable_gflops", intensity, gpu);
}

// attainable_gflops as a percentage of the peak (0..100).
inline double percent_of_peak(double intensity, Gpu gpu) {
  return exercise::todo<double>("01c_roofline: percent_of_peak", intensity, gpu);
}

// The intensity at which the two roofs meet (FLOP/B).
inline double ridge_point(Gpu gpu) {
  return exercise::todo<double>("01c_roofline: ridge_point", gpu);
}

// The smallest tile_width whose tiled kernel is no longer memory bound in this model. The
// answer may be a tile chapter 02's kernel cannot build: with one thread per element of the
// tile, TILE_WIDTH 51 (the A100's answer) is a block of 51 × 51 = 2,601 threads, above the
// 1,024 a block may have. The model tells how far that kernel is from the ridge; chapter 04
// closes the gap with several results per thread.
inline int smallest_compute_bound_tile(Gpu gpu) {
  return exercise::todo<int>("01c_roofline: smallest_compute_bound_tile", gpu);
}

// Floats loaded from global memory to compute C = A * B (M x K times K x N): by the naive
// kernel, and by the tiled kernel (M, N, K multiples of tile_width).
inline double naive_global_loads(int M, int N, int K) {
  return exercise::todo<double>("01c_roofline: naive_global_loads", M, N, K);
}

inline double tiled_global_loads(int M, int N, int K, int tile_width) {
  return exercise::todo<double>("01c_roofline: tiled_global_loads", M, N, K, tile_width);
}

// Rectangular block tiles (chapter 04 takes them): a block computes a BM x BN tile of C and,
// per k, loads BM floats of A and BN of B, each once. FLOP per byte, if every load went to DRAM.
inline double block_intensity(int BM, int BN) {
  return exercise::todo<double>("01c_roofline: block_intensity", BM, BN);
}

// The fewest rows BM for blocks BN columns wide whose intensity reaches this GPU's ridge, or -1
// if no int BM does (the intensity approaches BN / 2 but never reaches it).
inline int smallest_block_rows(int BN, Gpu gpu) {
  return exercise::todo<int>("01c_roofline: smallest_block_rows", BN, gpu);
}

}  // namespace ex01c
