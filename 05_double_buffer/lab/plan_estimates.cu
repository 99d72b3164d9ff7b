// Chapter 05, lab: every plan step 9 considers and its estimate, on the host, for a GPU given by
// its figures (no GPU needed): reads "M N K" lines from stdin, prints
//     MxNxK <tab> plan <tab> estimate in us
// replay_shortlist.py uses it to replay the chooser on the [choose] lines of earlier runs.
// Build (from the repository's root; the one function of common/ it needs is defined below):
//     nvcc -std=c++17 --expt-relaxed-constexpr -I. 05_double_buffer/lab/plan_estimates.cu -o PATH
// Figures: an H200 (132 SMs of 128 FP32 lanes at 1.98 GHz, HBM3e at 3,201 MHz on 6,144 bits),
// each tile's kernel at its __launch_bounds__ minimum of resident blocks, as tests.cu's model.
#include <cstdio>

#include "05_double_buffer/9_planned.cuh"

namespace tutorial {
double gemm_compulsory_bytes(int M, int N, int K) {
  return 4.0 * (double(M) * K + double(K) * N + double(M) * N);
}
}  // namespace tutorial

int main() {
  ch05::PlanGpu g;
  g.sms = 132;
  g.fmaPerClock = 128;
  g.clockGHz = 1.98;
  g.dramBytesPerClock = 2.0 * 3201e6 * 6144 / 8 / 1980e6;
  for (int t = 0; t < ch05::kPlanTileCount; ++t)
    g.tileBlocksPerSm[t] = ch05::kPlanTiles[t].minBlocks;
  g.thinBlocksPerSm = 2;
  g.rowBlocksPerSm = 4;
  g.columnBlocksPerSm = 8;
  int M, N, K;
  while (std::scanf("%d %d %d", &M, &N, &K) == 3)
    for (const auto& c : ch05::plan_candidates(g, M, N, K))
      std::printf("%dx%dx%d\t%s\t%.17g\n", M, N, K, c.name.c_str(), c.estimate / g.clockGHz / 1000);
}
