// Element-wise comparison: |out − ref| ≤ atol + rtol·|ref|, NaN or Inf always fails.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tutorial {

struct Tolerance {
  double atol = 0;
  double rtol = 0;

  static Tolerance exact() { return {0.0, 0.0}; }
  // For a length-K dot product of inputs in [-1, 1]. Rounding error of a float sum grows
  // with the number of terms (≈ K·ε in the worst realistic case, ≈ √K·ε for random signs),
  // so the tolerance grows with K: two correct FP32 GEMMs that sum in different orders pass,
  // while a dropped or doubled k-term (an error of order 0.1–1) fails at every K.
  static Tolerance for_gemm(int K);
};

struct Mismatch {
  int row = 0;
  int col = 0;
  float got = 0;
  float want = 0;
};

struct CompareResult {
  size_t checked = 0;
  size_t mismatches = 0;  // includes the non-finite ones
  size_t nonfinite = 0;   // NaN or Inf in the output (e.g. a poisoned element never written)
  double max_abs_error = 0;
  std::vector<Mismatch> first;  // the first few, in row-major order

  bool ok() const { return mismatches == 0; }
  std::string summary() const;  // one line, plus one line per reported mismatch
};

CompareResult compare(const float* got, const float* want, int rows, int cols, Tolerance tol,
                      int max_reported = 5);

}  // namespace tutorial
