#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/compare.hpp"
#include "common/host_matrix.hpp"

using namespace tutorial;

TEST_CASE("identical matrices match", "[compare]") {
  const HostMatrix a = random_matrix(7, 5, 3);
  const CompareResult r = compare(a.data(), a.data(), 7, 5, Tolerance::exact());
  CHECK(r.ok());
  CHECK(r.checked == 35);
  CHECK(r.max_abs_error == 0);
}

TEST_CASE("NaN and Inf always fail, whatever the tolerance", "[compare]") {
  std::vector<float> want(6, 1.0f), got(6, 1.0f);
  got[1] = std::numeric_limits<float>::quiet_NaN();
  got[4] = std::numeric_limits<float>::infinity();
  const CompareResult r = compare(got.data(), want.data(), 2, 3, {1e9, 1e9});
  CHECK_FALSE(r.ok());
  CHECK(r.mismatches == 2);
  CHECK(r.nonfinite == 2);
  REQUIRE(r.first.size() == 2);
  CHECK(r.first[0].row == 0);
  CHECK(r.first[0].col == 1);
  CHECK(r.first[1].row == 1);
  CHECK(r.first[1].col == 1);
}

TEST_CASE("the poison pattern (all bytes 0xFF) reads as NaN", "[compare]") {
  std::vector<float> got(4);
  std::memset(got.data(), 0xFF, got.size() * sizeof(float));
  CHECK(std::isnan(got[0]));
  std::vector<float> want(4, 0.0f);
  CHECK(compare(got.data(), want.data(), 2, 2, {1, 1}).nonfinite == 4);
}

TEST_CASE("atol + rtol*|ref| is the boundary", "[compare]") {
  std::vector<float> want = {100.0f, 1.0f};
  std::vector<float> got = {100.5f, 1.6f};
  // 100.5: |err| 0.5 <= 0.1 + 0.01*100 = 1.1 passes; 1.6: 0.6 > 0.1 + 0.01 fails.
  const CompareResult r = compare(got.data(), want.data(), 1, 2, {0.1, 0.01});
  CHECK(r.mismatches == 1);
  CHECK(r.first.at(0).col == 1);
  CHECK(r.summary().find("(row 0, col 1)") != std::string::npos);
}

TEST_CASE("only the first few mismatches are reported, all are counted", "[compare]") {
  std::vector<float> want(100, 0.0f), got(100, 1.0f);
  const CompareResult r = compare(got.data(), want.data(), 10, 10, Tolerance::exact(), 3);
  CHECK(r.mismatches == 100);
  CHECK(r.first.size() == 3);
}

TEST_CASE("GEMM tolerance grows with K and still catches one dropped term", "[compare]") {
  const Tolerance t1 = Tolerance::for_gemm(1), t4096 = Tolerance::for_gemm(4096);
  CHECK(t4096.atol > t1.atol);
  CHECK(t4096.rtol > t1.rtol);
  // A typical |C| for K=4096 of U[-1,1] inputs is sqrt(4096/9) ≈ 21; a dropped product of two
  // inputs is ~0.25 in magnitude on average — well above the tolerance.
  CHECK(t4096.atol + t4096.rtol * 21.0 < 0.01);
}

TEST_CASE("random fill is reproducible and in range", "[host_matrix]") {
  const HostMatrix a = random_matrix(33, 65, 42), b = random_matrix(33, 65, 42);
  const HostMatrix c = random_matrix(33, 65, 43);
  CHECK(a.values == b.values);
  CHECK(a.values != c.values);
  for (float v : a.values) {
    CHECK(v >= -1.0f);
    CHECK(v <= 1.0f);
  }
  CHECK(a(1, 2) == a.values[1 * 65 + 2]);
}
