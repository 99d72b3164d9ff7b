// The reference of exercise 06a's speed test (exercises/support/race_references.hpp):
// chapter 06's padded transpose, 32 x 32 tiles, 32 x 8 threads.
#include "06_transpose/3_padded.cuh"
#include "exercises/support/race_references.hpp"

static const exercise::race::Register padded("ch06::transpose_padded<32,8>",
                                             ch06::launch_padded<32, 8>);
