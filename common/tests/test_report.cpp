#include <algorithm>
#include <sstream>

#include "common/catch_compat.hpp"
#include "common/report.hpp"

using namespace tutorial;

namespace {
ReportHeader header() {
  ReportHeader h;
  h.problem = "gemm";
  h.gpu = "Test GPU";
  h.driver = "13.0";
  h.runtime = "13.0";
  h.date = "2026-01-01T00:00:00Z";
  h.shape = "M=N=K=16";
  h.copy_bandwidth_gbs = 1000;
  h.fp32_peak_gflops = 2000;
  return h;
}
std::vector<ReportRow> rows() {
  ReportRow r;
  r.chapter = "01_naive";
  r.kernel = "naive, \"quoted\"";
  r.median_ms = 1.5;
  r.rate = 123.4;
  r.rate_unit = "GFLOP/s";
  r.pct_of_ceiling = 12.5;
  r.ceiling = "cuBLAS";
  r.occupancy = 0.5;
  r.limiter = "warps";
  return {r};
}
}  // namespace

TEST_CASE("table shows the GPU, the rate and the ceiling ratio", "[report]") {
  std::ostringstream out;
  print_table(out, header(), rows());
  const std::string s = out.str();
  CHECK(s.find("Test GPU") != std::string::npos);
  CHECK(s.find("123 GFLOP/s") != std::string::npos);
  CHECK(s.find("12.5% cuBLAS") != std::string::npos);
  CHECK(s.find("50% (warps)") != std::string::npos);
}

TEST_CASE("the roofline columns are labelled as the model's", "[report]") {
  // An executable knows only its kernels' traffic models, which can be far from the bytes that
  // reach DRAM (chapter 01's naive kernel: 0.25 FLOP/B modelled, 31.5 measured): its roofline
  // figure must not pass for a measurement.
  std::vector<ReportRow> r = rows();
  r[0].intensity = 0.25;
  r[0].pct_of_roofline_model = 844.0;
  std::ostringstream table, csv, json;
  print_table(table, header(), r);
  print_csv(csv, header(), r);
  print_json(json, header(), r);
  CHECK(table.str().find("FLOP/B (model)") != std::string::npos);
  CHECK(table.str().find("% roofline (model)") != std::string::npos);
  CHECK(table.str().find("844.0%") != std::string::npos);
  CHECK(csv.str().find(",intensity,pct_of_roofline_model,") != std::string::npos);
  CHECK(json.str().find("\"pct_of_roofline_model\": 844.00") != std::string::npos);
  CHECK(json.str().find("\"pct_of_roofline\":") == std::string::npos);
}

TEST_CASE("CSV quotes fields and has one line per row plus a header", "[report]") {
  std::ostringstream out;
  print_csv(out, header(), rows());
  const std::string s = out.str();
  CHECK(std::count(s.begin(), s.end(), '\n') == 2);
  CHECK(s.find("\"naive, \"\"quoted\"\"\"") != std::string::npos);
  CHECK(s.rfind("problem,gpu,", 0) == 0);  // the problem kind: one field, first
  CHECK(s.find("\ngemm,Test GPU,") != std::string::npos);
}

TEST_CASE("JSON escapes strings and writes null for n/a", "[report]") {
  std::ostringstream out;
  print_json(out, header(), rows());
  const std::string s = out.str();
  CHECK(s.find("\"kernel\": \"naive, \\\"quoted\\\"\"") != std::string::npos);
  CHECK(s.find("\"intensity\": null") != std::string::npos);
  CHECK(s.find("\"gpu\": \"Test GPU\"") != std::string::npos);
  CHECK(s.find("\"problem\": \"gemm\"") != std::string::npos);
  CHECK(json_escape("a\nb") == "a\\nb");
}
