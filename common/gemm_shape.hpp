// The sizes every GEMM launcher of the tutorial accepts before it looks at its own tile
// constraints: M, N, K >= 1, and no matrix with more than INT_MAX elements, because the
// kernels index with 32-bit int (row * K + k would overflow and read the wrong element).
// Host-only and header-only: a launcher calls it before any CUDA call, so refusals can be
// tested on a machine without a GPU.
#pragma once

#include <climits>
#include <cstdint>
#include <string>

#include "common/cuda_check.hpp"

namespace tutorial {

inline std::string gemm_shape_string(int M, int N, int K) {
  return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
}

// Throws UnsupportedShape naming the kernel, the sizes and the broken constraint.
inline void check_gemm_shape(const std::string& kernel, int M, int N, int K) {
  if (M < 1 || N < 1 || K < 1)
    throw UnsupportedShape(kernel + ": M, N and K must all be >= 1, got " +
                           gemm_shape_string(M, N, K));
  struct Operand {
    const char* name;
    int64_t elements;
  };
  const Operand operands[] = {{"A (M x K)", int64_t(M) * K},
                              {"B (K x N)", int64_t(K) * N},
                              {"C (M x N)", int64_t(M) * N}};
  for (const Operand& m : operands)
    if (m.elements > INT_MAX)
      throw UnsupportedShape(kernel + ": " + m.name + " has " + std::to_string(m.elements) +
                             " elements for " + gemm_shape_string(M, N, K) +
                             "; the kernels index with 32-bit int, so at most " +
                             std::to_string(INT_MAX) + " elements per matrix");
}

}  // namespace tutorial
