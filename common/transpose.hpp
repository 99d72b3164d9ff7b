// What the transpose chapter shares with its tests and benchmarks: the launcher signature,
// a kernel's entry in a list, the CPU reference and "run it on random data and compare".
#pragma once

#include <cstdint>
#include <string>

#include "common/compare.hpp"

namespace tutorial {

// Every transpose launcher: `in` is rows×cols row-major, `out` (cols×rows) receives its
// transpose, out[c][r] = in[r][c]. Device pointers, default stream, out-of-place.
// Ceilings that are not transposes (a copy kernel) use the same signature so that they can
// be timed and listed beside the transposes.
using TransposeLauncher = void (*)(const float* in, float* out, int rows, int cols);

struct TransposeKernel {
  std::string name;
  TransposeLauncher launch = nullptr;
};

// Refuses, with UnsupportedShape, a transpose the kernels cannot index (more than INT_MAX
// elements) or this GPU cannot hold (input and output), before anything is allocated.
void check_transpose_size(const std::string& chapter, int rows, int cols);

// Bytes a transpose must move at the least: every element read once and written once,
// 2 × rows × cols × 4 — exactly what a copy of the matrix moves.
double transpose_bytes(int rows, int cols);

// Blocked, so that neither side walks memory with a large stride for long.
void cpu_transpose(const float* in, float* out, int rows, int cols);

// Random input from the seed, poisoned output, one launch, exact comparison with
// cpu_transpose (a transpose moves values, it never rounds them).
CompareResult check_transpose(TransposeLauncher launch, int rows, int cols, uint64_t seed = 1);

}  // namespace tutorial
