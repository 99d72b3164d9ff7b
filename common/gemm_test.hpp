// What the GEMM chapters' tests share (test code: it uses Catch2). check_gemm (common/gemm.hpp)
// fills A and B with random data seeded by the shape, poisons C with NaN, runs the launcher and
// compares with the CPU reference (up to 512^3 multiply-adds) or cuBLAS (above) at a
// K-dependent tolerance; a failure names the kernel, the shape and the first wrong elements.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/gemm.hpp"

namespace tutorial {

struct TestShape {
  int M, N, K;
};

inline void check_kernel_at(const GemmKernel& kernel, const std::vector<TestShape>& shapes) {
  for (const TestShape& s : shapes) {
    INFO(kernel.name << " at M=" << s.M << " N=" << s.N << " K=" << s.K);
    const uint64_t seed = uint64_t(s.M) * 7 + uint64_t(s.N) * 3 + uint64_t(s.K);
    const CompareResult r = check_gemm(kernel.launch, s.M, s.N, s.K, seed);
    INFO(r.summary());
    CHECK(r.ok());
  }
}

// The shapes every kernel from chapter 04 on must get right, whatever its tile:
// tiny and odd; K far longer than the tile (127x33x1025); K % 4 == 0 and N % 4 == 0 with
// partial tiles at the bottom and right edges (the 16-byte paths with their guards; K = 4, 12,
// 20 leave a pipelined kernel fewer tiles than stages). Small, so they also suit
// compute-sanitizer.
inline const std::vector<TestShape> kOddAndEdgeShapes = {
    {1, 1, 1},  {3, 5, 7},      {1, 4097, 3},  {17, 19, 23},  {129, 257, 65},  // tiny, odd
    {127, 33, 1025},                                                           // long K
    {33, 4, 4}, {127, 132, 68}, {200, 36, 12}, {130, 260, 20}};                // edge tiles
// Prime and non-square sides, a few hundred to a thousand.
inline const std::vector<TestShape> kPrimeShapes = {
    {509, 521, 503}, {1021, 131, 257}, {67, 1031, 97}};

inline void check_kernels_at(const std::vector<GemmKernel>& kernels,
                             const std::vector<TestShape>& shapes) {
  for (const GemmKernel& kernel : kernels) check_kernel_at(kernel, shapes);
}

}  // namespace tutorial
