#include <chrono>

#include "common/catch_compat.hpp"
#include "common/compare.hpp"
#include "common/host_matrix.hpp"
#include "common/reference.hpp"

using namespace tutorial;

namespace {
HostMatrix triple_loop(const HostMatrix& A, const HostMatrix& B) {
  HostMatrix C(A.rows, B.cols);
  for (int i = 0; i < A.rows; ++i)
    for (int j = 0; j < B.cols; ++j) {
      double sum = 0;
      for (int k = 0; k < A.cols; ++k) sum += double(A(i, k)) * B(k, j);
      C(i, j) = float(sum);
    }
  return C;
}
}  // namespace

TEST_CASE("CPU GEMM matches a double-precision triple loop on odd shapes", "[reference]") {
  const int shapes[][3] = {{1, 1, 1}, {1, 7, 3}, {5, 1, 9}, {33, 65, 17}, {127, 33, 131}, {3, 1030, 2}};
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    CAPTURE(M, N, K);
    const HostMatrix A = random_matrix(M, K, 1), B = random_matrix(K, N, 2);
    HostMatrix C(M, N, -999.0f);
    cpu_gemm(A.data(), B.data(), C.data(), M, N, K);
    const HostMatrix want = triple_loop(A, B);
    const CompareResult r = compare(C.data(), want.data(), M, N, Tolerance::for_gemm(K));
    INFO(r.summary());
    CHECK(r.ok());
  }
}

TEST_CASE("CPU GEMM checks 1024^3 in a few seconds", "[reference]") {
  const int n = 1024;
  const HostMatrix A = random_matrix(n, n, 1), B = random_matrix(n, n, 2);
  HostMatrix C(n, n);
  const auto start = std::chrono::steady_clock::now();
  cpu_gemm(A.data(), B.data(), C.data(), n, n, n);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("cpu_gemm 1024^3: " << seconds << " s");
  CHECK(seconds < 10.0);
  // Spot-check a few entries against a double-precision dot product.
  for (int i : {0, 511, 1023}) {
    double sum = 0;
    for (int k = 0; k < n; ++k) sum += double(A(i, k)) * B(k, 1000 - i / 2);
    CHECK(C(i, 1000 - i / 2) == Approx(sum).margin(Tolerance::for_gemm(n).atol));
  }
}
