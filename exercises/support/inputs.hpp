// The grader's inputs: every value a function of (seed, index), the same on the CPU and the
// GPU, so that the runner (which makes the inputs) and the checker (which recomputes them to
// build its reference) agree bit for bit without passing matrices between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define EXERCISE_HD __host__ __device__
#else
#define EXERCISE_HD
#endif

namespace exercise::inputs {

// SplitMix64's finaliser: a good 64-bit mix in a handful of instructions.
EXERCISE_HD inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

EXERCISE_HD inline uint64_t hash(uint64_t seed, uint64_t index) {
  return mix(mix(seed) ^ index);
}

// The seed of each operand of a call (0: A or the transpose's input, 1: B).
EXERCISE_HD inline uint64_t operand_seed(uint64_t seed, int operand) {
  return hash(seed, 0x0BE4A4D0ull + uint64_t(operand));
}

// Uniform in [-1, 1) on a grid of 2^-23: exactly representable, so no rounding differs.
EXERCISE_HD inline float value(uint64_t seed, uint64_t index) {
  const uint32_t bits = uint32_t(hash(seed, index) >> 40);  // 24 bits
  return float(int32_t(bits) - (1 << 23)) * (1.0f / float(1 << 23));
}

// All elements of one operand of a call (host code).
inline std::vector<float> operand_values(uint64_t seed, int operand, size_t elements) {
  std::vector<float> values(elements);
  const uint64_t s = operand_seed(seed, operand);
  for (size_t i = 0; i < elements; ++i) values[i] = value(s, i);
  return values;
}

// +1 or -1: the weights of the checksums that the timed runs report per repetition.
EXERCISE_HD inline double weight(uint64_t seed, uint64_t index) {
  return (hash(seed ^ 0xC0FFEEull, index) & 1) ? 1.0 : -1.0;
}

// The seed of timed repetition r's inputs: every repetition runs on operands of its own (A and B,
// or the transpose's input, all new), so no part of an earlier answer can be reused.
EXERCISE_HD inline uint64_t repetition_seed(uint64_t seed, int repetition) {
  return hash(seed ^ 0x7E4E5EEDull, uint64_t(repetition));
}

}  // namespace exercise::inputs
