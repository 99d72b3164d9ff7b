// One row per kernel: time, throughput, % of the ceiling measured in the same run, the model's
// intensity and % of the roofline bound there, occupancy. Printed as an aligned table, CSV or
// JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/cli.hpp"

namespace tutorial {

struct ReportHeader {
  std::string problem;         // what the rows measure: "gemm", "transpose", "memory system"
  std::string gpu;             // device name
  std::string driver;          // CUDA driver version, e.g. "13.0"
  std::string runtime;         // CUDA runtime version
  std::string date;            // UTC, ISO 8601
  std::string shape;           // e.g. "M=N=K=4096" or "8192x8192 floats"
  double copy_bandwidth_gbs = 0;  // measured in this run
  double fp32_peak_gflops = 0;    // from the clocks
};

struct ReportRow {
  std::string chapter;
  std::string kernel;
  std::string status = "ok";   // "ok", "WRONG: …", "skipped: …", "not checked"
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double rate = 0;             // GFLOP/s or GB/s
  std::string rate_unit;       // "GFLOP/s" or "GB/s"
  double pct_of_ceiling = -1;  // % of cuBLAS (GEMM) or of the device copy (transpose); <0: n/a
  std::string ceiling;         // "cuBLAS", "cudaMemcpy D2D"
  double intensity = -1;       // FLOP per DRAM byte of the kernel's model; <0: n/a
  // rate / roofline bound at the MODEL's intensity; <0: n/a. Only a model: where a kernel's
  // operands come from the caches it says little (chapter 01: the naive kernel "beats" its
  // model's roof 8 times). An executable has no profile; `make run` (progression.py) puts each
  // kernel under the roof at the DRAM intensity Nsight Compute measured, where a digest exists.
  double pct_of_roofline_model = -1;
  double occupancy = -1;       // 0..1; <0: n/a
  std::string limiter;         // resource that limits occupancy
};

std::string utc_timestamp();

void print_report(std::ostream& out, const ReportHeader& header, const std::vector<ReportRow>& rows,
                  OutputFormat format);
void print_table(std::ostream& out, const ReportHeader& header, const std::vector<ReportRow>& rows);
// Any table for a terminal: each column as wide as its widest cell, two spaces apart, a rule
// under the titles; the columns listed in `left` (text) left-aligned, the others (numbers)
// right-aligned.
void print_aligned(std::ostream& out, const std::vector<std::string>& titles,
                   const std::vector<std::vector<std::string>>& cells,
                   const std::vector<size_t>& left);
void print_csv(std::ostream& out, const ReportHeader& header, const std::vector<ReportRow>& rows);
void print_json(std::ostream& out, const ReportHeader& header, const std::vector<ReportRow>& rows);

std::string json_escape(const std::string& text);

}  // namespace tutorial
