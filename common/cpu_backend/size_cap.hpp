// The CPU backend runs a kernel some hundred times slower than a GPU, so the harness's checks
// (check_gemm, check_transpose) shrink the few large shapes of the tests before they run:
// every dimension above 256 becomes 128 + (its remainder mod 128). The remainders modulo every
// tile size up to 128 stay the same, so the same code paths run (full tiles, edge tiles,
// the 16-byte path or the 4-byte one), just over fewer tiles. Shapes up to 256^3 multiply-adds
// (GEMM) or 2048^2 elements (transpose) run as asked.
#pragma once

namespace tutorial::cpu {

constexpr double kMaxGemmMultiplyAdds = 256.0 * 256.0 * 256.0;
constexpr double kMaxTransposeElements = 2048.0 * 2048.0;

// Both print one line to stderr naming the shape asked for and the shape run, and return
// whether they changed it.
bool scale_down_gemm(int& M, int& N, int& K);
bool scale_down_transpose(int& rows, int& cols);

}  // namespace tutorial::cpu
