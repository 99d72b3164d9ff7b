// What the GEMM chapters share: the launcher signature, a kernel's entry in a chapter's list,
// and "run this launcher on random data and compare it with a reference".
#pragma once

#include <cstdint>
#include <string>

#include "common/compare.hpp"
#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"

namespace tutorial {

// Every GEMM launcher in the tutorial: row-major C (M×N) = A (M×K) · B (K×N), device pointers,
// default stream. A launcher that cannot handle a shape throws UnsupportedShape.
using GemmLauncher = void (*)(const float* A, const float* B, float* C, int M, int N, int K);

// An optional model of the kernel's DRAM traffic, for the roofline column: FLOP per byte.
using IntensityModel = double (*)(int M, int N, int K);

struct GemmKernel {
  std::string name;
  GemmLauncher launch = nullptr;
  IntensityModel intensity = nullptr;  // nullptr: compulsory traffic (each matrix moved once)
};

// The arithmetic of a GEMM, for its rate and its roofline column (unit-tested on the host).
double gemm_flops(int M, int N, int K);             // 2·M·N·K
double gemm_compulsory_bytes(int M, int N, int K);  // every input read once, C written once

// DRAM model of a BM x BN block tile (chapters 04 and 05): per k step it loads BM*BK floats of
// A and BK*BN of B for 2*BM*BN*BK FLOP, i.e. BM*BN / (2*(BM + BN)) FLOP per byte, whatever
// BK. (Chapter 02's TILE_WIDTH/4 is the square case BM = BN = TILE_WIDTH.)
constexpr double block_tile_flop_per_byte(int BM, int BN) {
  return double(BM) * BN / (2.0 * (BM + BN));
}
// The same as a GemmKernel's IntensityModel.
template <int BM, int BN>
double block_tile_intensity(int /*M*/, int /*N*/, int /*K*/) {
  return block_tile_flop_per_byte(BM, BN);
}

// Random A and B (host and device, from the seed), C on the device.
struct GemmProblem {
  int M, N, K;
  HostMatrix A, B;
  DeviceBuffer<float> dA, dB, dC;
  GemmProblem(int M_, int N_, int K_, uint64_t seed);
};

enum class GemmReference { Auto, Cpu, Cublas };

// Poisons C, runs the launcher once, compares with the reference at Tolerance::for_gemm(K).
// Auto uses the CPU reference up to 2^28 multiply-adds (512³) and cuBLAS above.
CompareResult check_gemm(GemmLauncher launch, int M, int N, int K, uint64_t seed = 1,
                         GemmReference reference = GemmReference::Auto);

// The C = A·B reference computed on the CPU from the problem's host matrices.
HostMatrix cpu_reference(const GemmProblem& problem);

}  // namespace tutorial
