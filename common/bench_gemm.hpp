// Google Benchmark support for the GEMM chapters: every kernel and cuBLAS at each size, in
// the same process, with GFLOP/s and % of cuBLAS as counters.
#pragma once

#include <string>
#include <vector>

#include "common/gemm.hpp"

namespace tutorial {

// Registers "<chapter>/<kernel>/<size>" for every kernel and "cuBLAS/<size>" for each size.
// Each iteration is one launch timed with CUDA events after an L2 flush; the counters use
// the median iteration, and cuBLAS's median at the same size is measured in this process.
void register_gemm_benchmarks(const std::string& chapter, const std::vector<GemmKernel>& kernels,
                              const std::vector<int>& sizes);

// main() of a benchmark binary: refuses to run without a GPU (exit 3) except to list the names
// (--benchmark_list_tests), else runs them all.
int benchmark_main(int argc, char** argv);

}  // namespace tutorial
