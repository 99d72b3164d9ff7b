#include "common/host_matrix.hpp"

#include <random>

namespace tutorial {

void fill_random(std::vector<float>& values, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  const double scale = double(hi) - double(lo);
  for (float& v : values) {
    const double unit = double(rng() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1) from 53 bits
    v = float(lo + scale * unit);
  }
}

HostMatrix random_matrix(int rows, int cols, uint64_t seed) {
  HostMatrix m(rows, cols);
  fill_random(m.values, seed);
  return m;
}

}  // namespace tutorial
