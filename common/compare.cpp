#include "common/compare.hpp"

#include <cfloat>
#include <cmath>
#include <sstream>

namespace tutorial {

Tolerance Tolerance::for_gemm(int K) {
  const double eps = FLT_EPSILON;
  return {2.0 * K * eps, 8.0 * std::sqrt(double(K)) * eps};
}

CompareResult compare(const float* got, const float* want, int rows, int cols, Tolerance tol,
                      int max_reported) {
  CompareResult result;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const size_t i = size_t(r) * cols + c;
      const double g = got[i], w = want[i];
      ++result.checked;
      bool bad = false;
      if (!std::isfinite(g) || !std::isfinite(w)) {
        ++result.nonfinite;
        bad = true;
      } else {
        const double err = std::fabs(g - w);
        if (err > result.max_abs_error) result.max_abs_error = err;
        bad = err > tol.atol + tol.rtol * std::fabs(w);
      }
      if (bad) {
        ++result.mismatches;
        if (int(result.first.size()) < max_reported)
          result.first.push_back({r, c, got[i], want[i]});
      }
    }
  }
  return result;
}

std::string CompareResult::summary() const {
  std::ostringstream out;
  if (ok()) {
    out << "all " << checked << " elements match (max |error| " << max_abs_error << ")";
    return out.str();
  }
  out << mismatches << " of " << checked << " elements differ";
  if (nonfinite) out << " (" << nonfinite << " are NaN/Inf: unwritten or overflowed)";
  out << ", max |error| among finite " << max_abs_error;
  for (const Mismatch& m : first)
    out << "\n  at (row " << m.row << ", col " << m.col << "): got " << m.got << ", expected "
        << m.want;
  return out.str();
}

}  // namespace tutorial
