#include "common/transpose.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"
#ifdef TUTORIAL_CPU_BACKEND
#include "common/cpu_backend/size_cap.hpp"
#endif

namespace tutorial {

void check_transpose_size(const std::string& chapter, int rows, int cols) {
  const int64_t elements = int64_t(rows) * cols;
  if (rows < 1 || cols < 1)
    throw UnsupportedShape(chapter + ": rows and cols must be >= 1");
  if (elements > INT_MAX)
    throw UnsupportedShape(chapter + ": " + std::to_string(elements) +
                           " elements; the kernels index with 32-bit int, so at most " +
                           std::to_string(INT_MAX));
  require_device_memory(2 * size_t(elements) * sizeof(float), "the input and output");
}

double transpose_bytes(int rows, int cols) { return 2.0 * double(rows) * double(cols) * sizeof(float); }

void cpu_transpose(const float* in, float* out, int rows, int cols) {
  constexpr int B = 64;  // a 64×64 block of each matrix fits in L1 (2 × 16 KB)
  for (int r0 = 0; r0 < rows; r0 += B)
    for (int c0 = 0; c0 < cols; c0 += B)
      for (int r = r0; r < std::min(rows, r0 + B); ++r)
        for (int c = c0; c < std::min(cols, c0 + B); ++c)
          out[size_t(c) * rows + r] = in[size_t(r) * cols + c];
}

CompareResult check_transpose(TransposeLauncher launch, int rows, int cols, uint64_t seed) {
#ifdef TUTORIAL_CPU_BACKEND
  cpu::scale_down_transpose(rows, cols);  // large shapes at a CPU-friendly size
#endif
  const HostMatrix in = random_matrix(rows, cols, seed);
  HostMatrix want(cols, rows);
  cpu_transpose(in.data(), want.data(), rows, cols);
  DeviceBuffer<float> d_in(in.values);
  DeviceBuffer<float> d_out(size_t(rows) * cols);
  d_out.poison();
  launch(d_in.data(), d_out.data(), rows, cols);
  device_synchronize();
  const std::vector<float> got = d_out.download();
  return compare(got.data(), want.data(), cols, rows, Tolerance::exact());
}

}  // namespace tutorial
