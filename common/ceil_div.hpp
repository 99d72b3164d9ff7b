// Rounds up a/b: the number of tiles of size b needed to cover a. Shared by both editions of
// common/launch.cuh (the GPU's and the CPU backend's), through which every launcher sees it.
#pragma once

namespace tutorial {

// In 64-bit arithmetic: a + b - 1 overflows an int for a near INT_MAX (a matrix side may be).
constexpr int ceil_div(int a, int b) { return int((static_cast<long long>(a) + b - 1) / b); }

}  // namespace tutorial
