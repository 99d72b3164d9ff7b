// A row-major host matrix and seeded random data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tutorial {

struct HostMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;  // row-major: element (r, c) is values[r * cols + c]

  HostMatrix() = default;
  HostMatrix(int rows_, int cols_, float fill = 0.0f)
      : rows(rows_), cols(cols_), values(size_t(rows_) * size_t(cols_), fill) {}

  float& operator()(int r, int c) { return values[size_t(r) * cols + c]; }
  float operator()(int r, int c) const { return values[size_t(r) * cols + c]; }
  float* data() { return values.data(); }
  const float* data() const { return values.data(); }
  size_t size() const { return values.size(); }
};

// Uniform in [lo, hi), reproducible from the seed on every platform (mt19937_64 and our own
// mapping to float, not std::uniform_real_distribution whose output is implementation-defined).
void fill_random(std::vector<float>& values, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
HostMatrix random_matrix(int rows, int cols, uint64_t seed);

}  // namespace tutorial
