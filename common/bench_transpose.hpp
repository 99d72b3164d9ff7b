// Google Benchmark support for the transpose chapter: every kernel and cudaMemcpy
// device-to-device at each size, in the same process, with GB/s and % of cudaMemcpy.
#pragma once

#include <string>
#include <vector>

#include "common/transpose.hpp"

namespace tutorial {

// Registers "cudaMemcpy D2D/<n>" and "<chapter>/<kernel>/<n>" for n×n floats. Each
// iteration is one launch timed with CUDA events after an L2 flush; the counters use the
// median iteration: GB/s = 2·n²·4 bytes / time, %memcpy = cudaMemcpy's median time at the
// same size (measured in this process) / the kernel's.
void register_transpose_benchmarks(const std::string& chapter,
                                   const std::vector<TransposeKernel>& kernels,
                                   const std::vector<int>& sizes);

}  // namespace tutorial
