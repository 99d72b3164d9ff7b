// The kernels of chapter 01 as the harness sees them: table names, launchers, and the
// lesson's model of DRAM traffic for the roofline column.
#pragma once

#include <vector>

#include "01_naive/kernels.cuh"
#include "common/gemm.hpp"

namespace ch01 {

// Each multiply-add (2 FLOP) loads one float of A and one of B (8 bytes): 0.25 FLOP/B,
// whatever the size, if every load went to DRAM.
inline double naive_intensity(int /*M*/, int /*N*/, int /*K*/) {
  return 2.0 / (2 * sizeof(float));
}

inline std::vector<tutorial::GemmKernel> chapter_kernels() {
  return {
      {"naive_gemm", launch_naive_gemm, naive_intensity},
      {"naive_gemm_swapped", launch_naive_gemm_swapped, naive_intensity},
  };
}

// The kernel the next chapter races against (named with its namespace so that its rows stay
// apart from the next chapter's own).
inline tutorial::GemmKernel best_kernel() {
  return {"ch01::naive_gemm", launch_naive_gemm, naive_intensity};
}

}  // namespace ch01
