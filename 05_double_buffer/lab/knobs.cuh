// Chapter 05, lab: the knobs behind the chapter's choices, for comparisons (lab/lab.cu,
// bench.cu) and the tests; no launcher of a step uses them.
//   - stream-K with other shares of the iterations: the last two waves' tiles (each block gets
//     at least one tile's iterations), or none (every tile whole);
//   - stream-K with a fixed number of stream-K blocks (the tests cut tiles at many places);
//   - thin_gemm with a fixed slice count.
#pragma once

#include <algorithm>

#include "05_double_buffer/7_stream_k.cuh"
#include "05_double_buffer/8_thin.cuh"

namespace ch05lab {

enum class StreamKShare { LastWave, LastTwoWaves, None };

inline ch05::StreamKPlan plan_stream_k_share(int M, int N, int K, int BM, int BN, int BK,
                                             int slots, StreamKShare share) {
  ch05::StreamKPlan p = ch05::plan_stream_k(M, N, K, BM, BN, BK, slots);
  const int tiles = p.dpTiles + p.skTiles;
  if (share == StreamKShare::None || p.skTiles == 0)
    p.skTiles = 0;
  else if (share == StreamKShare::LastTwoWaves)
    p.skTiles = std::min(tiles, p.skTiles + slots);
  p.dpTiles = tiles - p.skTiles;
  return p;
}

// SLOTS stream-K blocks (0: one per resident slot), SHARE of the tiles shared out.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int SLOTS,
          StreamKShare SHARE = StreamKShare::LastWave>
void launch_stream_k_slots(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("stream_k_gemm", M, N, K);
  const int slots =
      SLOTS > 0 ? SLOTS : ch05::sm_count() * ch05::WarpLayout<BM, BN, WM, WN, TM, TN>::MIN_BLOCKS;
  ch05::run_stream_k_plan<BM, BN, BK, WM, WN, TM, TN>(
      A, B, C, M, N, K, plan_stream_k_share(M, N, K, BM, BN, BK, slots, SHARE));
}

// thin_gemm's tile S with K cut into SLICES slices.
template <ch05::ThinShape S, int SLICES>
void launch_thin_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  ch05::run_thin_gemm<S>(A, B, C, M, N, K, SLICES);
}

}  // namespace ch05lab
