// Chapter 05: the warp tile, shared by steps 3-7 and the appendix. How the threads of a block
// divide the block tile by warp, and the pieces of the main loop that every warp-tiled kernel
// uses (each says which plain loop it stands for).
#pragma once

#include "05_double_buffer/padding.cuh"  // PAD_A
#include "common/vector_access.cuh"

namespace ch05 {

using tutorial::load_float4;
using tutorial::store_float4;
using tutorial::load_4_floats;
using tutorial::starts_on_8_bytes;

// Shared memory of STAGES pairs of tiles, dynamic (so that more than 48 KB is possible): A
// transposed, BK x (BM + PAD_A) floats, and B, BK x BN floats.
template <int BM, int BN, int BK, int STAGES>
constexpr size_t warp_tiles_smem_bytes() {
  return size_t(STAGES) * (BK * (BM + PAD_A) + BK * BN) * sizeof(float);
}

// How the threads of a block share a BM x BN tile when they are organised by warp (used by
// steps 3-7 and the appendix). Warps tile the block tile with WM x WN pieces; inside a
// warp piece, the 32 lanes form a LANES_M x LANES_N grid, and a lane owns TM/4 x TN/4 sub-tiles
// of 4 x 4, WSUB_M rows and WSUB_N columns apart:
//
//   warp piece, WM = 64 x WN = 32, TM = TN = 8 (LANES_M = 8, LANES_N = 4, WSUB = 32 x 16):
//        cols 0..15 (lanes 0..3 x 4)   cols 16..31 (again)
//   rows 0..31   sub-tile (0,0)          sub-tile (0,1)        lane (r, c) owns rows 4r..4r+3
//   rows 32..63  sub-tile (1,0)          sub-tile (1,1)        and cols 4c..4c+3 of each
//
// At one k, a warp's LDS.128 of A reads LANES_M consecutive float4s (each lane row shares
// one), and of B LANES_N consecutive float4s: 128 bytes or less, no bank conflict in any
// quarter warp (the 8 lanes shared memory serves at a time for 16-byte loads).
template <int BM, int BN, int WM, int WN, int TM, int TN>
struct WarpLayout {
  static_assert(BM % WM == 0 && BN % WN == 0, "warp pieces must tile the block tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a lane's tile is made of 4 x 4 sub-tiles");
  static_assert(WM % TM == 0 && WN % TN == 0, "lanes must tile a warp piece");
  static_assert((WM / TM) * (WN / TN) == 32, "a warp piece holds exactly 32 lane tiles");
  // The arguments, for code that holds a layout as a type (step 9's list of tiles).
  static constexpr int TILE_M = BM, TILE_N = BN, PIECE_M = WM, PIECE_N = WN, LANE_M = TM,
                       LANE_N = TN;
  static constexpr int WARPS_N = BN / WN;
  static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  static constexpr int LANES_M = WM / TM, LANES_N = WN / TN;
  static constexpr int WSUB_M = LANES_M * 4, WSUB_N = LANES_N * 4;
  // Registers a lane needs, roughly: its accumulators, two sets of fragments (the compiler
  // loads the next k's while multiplying this one's) and about 32 for addresses and counters.
  // As many blocks as that lets fit on an SM go into __launch_bounds__: 2 for 8 x 8 lanes in
  // 256-thread blocks (a 128-register cap), 1 for 8 x 16 lanes in 256-thread blocks.
  static constexpr int REGS_ESTIMATE = TM * TN + 2 * (TM + TN) + 32;
  static constexpr int MIN_BLOCKS =
      65536 / (THREADS * REGS_ESTIMATE) > 1 ? 65536 / (THREADS * REGS_ESTIMATE) : 1;

  // BEGIN QUOTE lane-layout
  int warpRow, warpCol;  // the warp's piece, relative to the block tile
  int laneRow, laneCol;  // the lane's position in the LANES_M x LANES_N grid
  __device__ WarpLayout() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    warpRow = warp / WARPS_N * WM;
    warpCol = warp % WARPS_N * WN;
    laneRow = lane / LANES_N;
    laneCol = lane % LANES_N;
  }
  // Tile row of the lane's sub-tile row i (i < TM/4) and tile column of sub-tile column j.
  __device__ int row(int i) const { return warpRow + i * WSUB_M + laneRow * 4; }
  __device__ int col(int j) const { return warpCol + j * WSUB_N + laneCol * 4; }
  // END QUOTE lane-layout
};

// A lane's fragments at step k: its TM values of column k of the A tile (TM/4 LDS.128 from
// the transposed tile AsT, rows LDA floats apart) and its TN values of row k of the B tile:
//     regM[4i..4i+3] = AsT[k][w.row(i) .. +3],   regN[4j..4j+3] = Bs[k][w.col(j) .. +3]
template <int LDA, int BN, int TM, int TN, typename Layout>
__device__ __forceinline__ void load_fragments(const float* AsT, const float* Bs, int k,
                                               const Layout& w, float (&regM)[TM],
                                               float (&regN)[TN]) {
#pragma unroll
  for (int i = 0; i < TM / 4; ++i) {
    const float4 a = *reinterpret_cast<const float4*>(&AsT[k * LDA + w.row(i)]);  // (BK, LDA)
    regM[4 * i + 0] = a.x;
    regM[4 * i + 1] = a.y;
    regM[4 * i + 2] = a.z;
    regM[4 * i + 3] = a.w;
  }
#pragma unroll
  for (int j = 0; j < TN / 4; ++j) {
    const float4 b = *reinterpret_cast<const float4*>(&Bs[k * BN + w.col(j)]);  // (BK, BN)
    regN[4 * j + 0] = b.x;
    regN[4 * j + 1] = b.y;
    regN[4 * j + 2] = b.z;
    regN[4 * j + 3] = b.w;
  }
}

// regC += regM (x) regN: the TM * TN FMAs of one outer product from TM + TN registers,
// row by row (regM[i] stays in ptxas's operand-reuse cache across a row):
//     for i: for j: regC[i][j] += regM[i] * regN[j]
template <int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&regM)[TM], const float (&regN)[TN],
                                              float (&regC)[TM][TN]) {
#pragma unroll
  for (int t = 0; t < TM * TN; ++t) {
    const int i = t / TN, j = t % TN;
    regC[i][j] += regM[i] * regN[j];
  }
}

// The same FMAs column by column, i running backwards on odd columns:
//     for j: for i (reversed when j is odd): regC[i][j] += regM[i] * regN[j]
// regN[j] stays in the reuse cache down a column, and at each change of column the same
// regM[i] is read twice in a row. The order decides which registers each FFMA reads from the
// register banks, and with it how often two operands collide in one bank (warp_tiles.md).
template <int TM, int TN>
__device__ __forceinline__ void outer_product_by_columns(const float (&regM)[TM],
                                                         const float (&regN)[TN],
                                                         float (&regC)[TM][TN]) {
  // BEGIN QUOTE fma-columns
#pragma unroll
  for (int t = 0; t < TM * TN; ++t) {
    const int j = t / TM;
    const int i = j % 2 == 1 ? TM - 1 - t % TM : t % TM;
    regC[i][j] += regM[i] * regN[j];
  }
  // END QUOTE fma-columns
}

// All BK steps of one pair of shared tiles:
//     for k < BK: load_fragments(k); outer_product()
template <int BK, int LDA, int BN, int TM, int TN, typename Layout>
__device__ __forceinline__ void multiply_tiles(const float* AsT, const float* Bs,
                                               const Layout& w, float (&regC)[TM][TN]) {
  float regM[TM];
  float regN[TN];
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    load_fragments<LDA, BN>(AsT, Bs, k, w, regM, regN);
    outer_product(regM, regN, regC);
  }
}

// Writes a lane's TM x TN results to C; (blockRow, blockCol) is the block tile's corner:
//     C[blockRow + w.row(i) + r][blockCol + w.col(j) .. +3] = regC[4i + r][4j .. 4j+3]
template <int TM, int TN, bool VEC, typename Layout>
__device__ __forceinline__ void store_lane_tile(float* __restrict__ C, int M, int N, int blockRow,
                                                int blockCol, const Layout& w,
                                                const float (&regC)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM / 4; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const float* c = &regC[4 * i + r][4 * j];
        store_float4<VEC>(C, blockRow + w.row(i) + r, blockCol + w.col(j), M, N,
                          make_float4(c[0], c[1], c[2], c[3]));
      }
}

}  // namespace ch05
