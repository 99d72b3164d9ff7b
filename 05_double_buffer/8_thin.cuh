// Chapter 05, step 8: thin_gemm, the problems whose time is memory, not FMAs.
//
// What changed since step 7: a second kernel, for the shapes the 128 x 128 tile cannot serve.
// A GEMM moves at least 4 (MK + KN + MN) bytes for 2 MNK FLOPs. With one side small that ratio
// is small too: about K / 2 FLOP per byte when K is short (C's writes dominate), M / 2 when M
// is (B's reads dominate), N / 2 when N is (A's). A GPU that does 50 TFLOP/s against 3 TB/s
// does about 17 FLOP per byte of DRAM bandwidth, so below a side of about 32 it waits on memory,
// and the fastest kernel is the one that streams the big matrix at the copy's speed:
//   - every global access coalesced whatever M, N, K and the pointers' alignment: the tiles
//     come through shared memory, each loaded by consecutive threads along the side that is
//     contiguous in memory, and C is written by 32 lanes at 32 consecutive columns (rows, for a
//     small N), 128 bytes per store instruction with 4-byte stores: no float4 needed, so an
//     odd N or K costs nothing;
//   - a block tile shaped like the problem: 64 x 128 with all of a short K in one chunk, 4 or
//     16 rows by 512 columns for a small M, 512 rows by 4 or 16 columns for a small N, so
//     that few of its FMAs fall outside C (a 128 x 128 tile at M = 8 wastes 15 of every 16);
//   - the next chunk's loads issued before the current chunk's FMAs (step 2's prefetch), and,
//     where the tiles are too few to keep every SM's loads in flight, K cut into slices summed
//     afterwards in a fixed order (step 6's sum_partials).
// And where C is a single row or column, vector kernels that skip shared memory altogether
// (for one row, one launch: the last block of each strip of columns adds the slices).
// launch_thin_gemm takes them where the roofline says memory binds (the bytes that must move
// take longer at the DRAM rate than the FMAs at the FP32 peak), step 7's launcher elsewhere.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>

#include "05_double_buffer/7_stream_k.cuh"  // launch_stream_k_gemm; slice_k, sum_partials
#include "common/device_facts.hpp"
#include "common/gemm.hpp"

namespace ch05 {

// Which side of C the 32 lanes of a warp walk along: N (short K, small M: C is written along
// its rows, 128 bytes per instruction) or M (small N: A, the big matrix, is read along its rows
// into shared memory, and each lane owns rows of C).
enum class Lanes { AlongN, AlongM };

// A thread's TM x TN outputs: rows row0 + i * ROW_STEP, columns col0 + j * COL_STEP of the block
// tile. Along N: warps stacked WARPS_M x WARPS_N, a warp covers TM rows and 32 * TN columns,
// lane l the columns l, l + 32, ... Along M the roles of rows and columns swap.
template <int TM, int TN, int WARPS_M, int WARPS_N, Lanes LANES>
struct ThinLayout {
  static constexpr bool ALONG_N = LANES == Lanes::AlongN;
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int BM = ALONG_N ? WARPS_M * TM : WARPS_M * 32 * TM;
  static constexpr int BN = ALONG_N ? WARPS_N * 32 * TN : WARPS_N * TN;
  static constexpr int ROW_STEP = ALONG_N ? 1 : 32;
  static constexpr int COL_STEP = ALONG_N ? 32 : 1;
  static_assert((ALONG_N ? TM : TN) % 4 == 0,
                "the side every lane shares is read from shared memory as float4");

  int row0, col0;
  __device__ ThinLayout() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    row0 = ALONG_N ? wm * TM : wm * 32 * TM + lane;
    col0 = ALONG_N ? wn * 32 * TN + lane : wn * TN;
  }
};

// Which elements of a ROWS x COLS chunk (row-major, columns contiguous in memory) a thread
// loads, so that consecutive threads read consecutive columns: with COLS >= THREADS, columns
// c0 + j * THREADS of every row; with fewer, the one column c0 of rows r0, r0 + THREADS / COLS,
// ... All divisions are by powers of two, done once.
template <int ROWS, int COLS, int THREADS>
struct ChunkWalk {
  static_assert((COLS & (COLS - 1)) == 0 && (THREADS & (THREADS - 1)) == 0,
                "chunk widths and thread counts are powers of two");
  static constexpr bool WIDE = COLS >= THREADS;
  static constexpr int COLS_PER = WIDE ? COLS / THREADS : 1;
  static constexpr int ROW_STEP = WIDE ? 1 : THREADS / COLS;
  static constexpr int ROWS_PER = WIDE ? ROWS : (ROWS + ROW_STEP - 1) / ROW_STEP;
  static constexpr int COUNT = ROWS_PER * COLS_PER;
  int r0, c0;
  __device__ ChunkWalk() {
    const unsigned t = threadIdx.x;
    r0 = WIDE ? 0 : int(t / COLS);
    c0 = WIDE ? int(t) : int(t % COLS);
  }
  __device__ int row(int i) const { return r0 + i * ROW_STEP; }
  __device__ int col(int j) const { return c0 + j * THREADS; }
  // Rows past ROWS exist only where ROW_STEP does not divide ROWS (a chunk smaller than a pass).
  __device__ bool inside(int i) const { return ROWS % ROW_STEP == 0 || row(i) < ROWS; }
};

// C (or slice blockIdx.y of the workspace) = A[rows of the tile][K slice] * B[K slice][columns],
// one block per BM x BN tile (blockIdx.x: tiles along N first, so that the blocks of one band of
// rows run together and share its A in the L2) and per slice of K (blockIdx.y), KC values of k
// per chunk. Any M, N, K >= 1 and any pointer alignment.
template <int TM, int TN, int WARPS_M, int WARPS_N, Lanes LANES, int KC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 2)
    thin_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int M, int N, int K, int sliceK) {
  tutorial::allow_next_kernel();  // step 6's sum_slices may be placed as this block runs
  using Layout = ThinLayout<TM, TN, WARPS_M, WARPS_N, LANES>;
  constexpr int BM = Layout::BM, BN = Layout::BN, THREADS = Layout::THREADS;
  constexpr bool ALONG_N = Layout::ALONG_N;
  // The A chunk transposed, As[k][m]; LDA = BM + 4 keeps its rows 16-byte aligned for the
  // float4 reads along N and spreads the transposing stores over 8 banks (4-way conflicts on a
  // few stores per chunk) instead of 1.
  constexpr int LDA = BM + 4;
  __shared__ alignas(16) float As[KC][LDA];
  __shared__ alignas(16) float Bs[KC][BN];

  const int tilesN = (N + BN - 1) / BN;
  const int blockRow = int(blockIdx.x / tilesN) * BM, blockCol = int(blockIdx.x % tilesN) * BN;
  const int kBegin = blockIdx.y * sliceK, kEnd = min(K, kBegin + sliceK);

  // Both chunks are loaded along the side that is contiguous in memory: A's BM x KC along k
  // (its rows), B's KC x BN along n. ChunkWalk says which elements a thread loads: column
  // c0 + j * THREADS (j < COLS_PER) of rows r0 + i * ROW_STEP (i < ROWS_PER).
  using AWalk = ChunkWalk<BM, KC, THREADS>;
  using BWalk = ChunkWalk<KC, BN, THREADS>;
  const AWalk aw;
  const BWalk bw;
  float nextA[AWalk::COUNT], nextB[BWalk::COUNT];
  auto loadChunk = [&](int k0) {
    const int kLeft = kEnd - k0;  // k < kLeft are inside the slice
    // A: rows blockRow + m (m < M - blockRow), columns k0 + k.
    const int mLeft = M - blockRow;
#pragma unroll
    for (int i = 0; i < AWalk::ROWS_PER; ++i)
#pragma unroll
      for (int j = 0; j < AWalk::COLS_PER; ++j) {
        const int m = aw.row(i), k = aw.col(j);
        nextA[i * AWalk::COLS_PER + j] =
            aw.inside(i) && m < mLeft && k < kLeft ? A[(blockRow + m) * K + k0 + k] : 0.0f;
      }
    const int nLeft = N - blockCol;
#pragma unroll
    for (int i = 0; i < BWalk::ROWS_PER; ++i)
#pragma unroll
      for (int j = 0; j < BWalk::COLS_PER; ++j) {
        const int k = bw.row(i), n = bw.col(j);
        nextB[i * BWalk::COLS_PER + j] =
            bw.inside(i) && k < kLeft && n < nLeft ? B[(k0 + k) * N + blockCol + n] : 0.0f;
      }
  };
  auto storeChunk = [&] {
#pragma unroll
    for (int i = 0; i < AWalk::ROWS_PER; ++i)
#pragma unroll
      for (int j = 0; j < AWalk::COLS_PER; ++j)
        if (aw.inside(i)) As[aw.col(j)][aw.row(i)] = nextA[i * AWalk::COLS_PER + j];
#pragma unroll
    for (int i = 0; i < BWalk::ROWS_PER; ++i)
#pragma unroll
      for (int j = 0; j < BWalk::COLS_PER; ++j)
        if (bw.inside(i)) Bs[bw.row(i)][bw.col(j)] = nextB[i * BWalk::COLS_PER + j];
  };

  const Layout w;
  float acc[TM][TN] = {};
  loadChunk(kBegin);
  storeChunk();
  __syncthreads();
  for (int k0 = kBegin; k0 < kEnd; k0 += KC) {
    const bool more = k0 + KC < kEnd;
    if (more) loadChunk(k0 + KC);  // in flight during this chunk's FMAs
    const int kc = min(KC, kEnd - k0);
#pragma unroll 4
    for (int k = 0; k < kc; ++k) {  // k ascending: every output's sum in one fixed order
      float a[TM], b[TN];
      if constexpr (ALONG_N) {
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&As[k][w.row0 + i]);
          a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < TN; ++j) b[j] = Bs[k][w.col0 + 32 * j];
      } else {
#pragma unroll
        for (int i = 0; i < TM; ++i) a[i] = As[k][w.row0 + 32 * i];
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&Bs[k][w.col0 + j]);
          b[j] = v.x, b[j + 1] = v.y, b[j + 2] = v.z, b[j + 3] = v.w;
        }
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    if (more) {
      __syncthreads();  // everyone is done with this chunk
      storeChunk();
      __syncthreads();
    }
  }
  float* out = C + size_t(blockIdx.y) * M * N;  // (S, M, N): this slice's partial product
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int r = blockRow + w.row0 + i * Layout::ROW_STEP;
      const int c = blockCol + w.col0 + j * Layout::COL_STEP;
      if (r < M && c < N) out[r * N + c] = acc[i][j];
    }
}

// The thin tiles, one instantiation each:
//   ShortK   64 x 128, lanes along N, 8 x 4 per thread, chunks of 32: all of a short K at once
//   SmallM4  4 x 512 (M <= 4, down to a row vector times a matrix), lanes along N
//   SmallM16 16 x 512 (M <= 16), lanes along N
//   SmallN4  512 x 4 (N <= 4, down to a matrix times a vector), lanes along M
//   SmallN16 512 x 16 (N <= 16), lanes along M
// (The tiles beyond 16 rows or columns are step 6's 32 x 128 and its mirror's job; a thin tile
// still covers any M and N, tile after tile.)
enum class ThinShape { ShortK, SmallM4, SmallM16, SmallN4, SmallN16 };

template <int TM_, int TN_, int WARPS_M_, int WARPS_N_, Lanes LANES_, int KC_>
struct ThinTile {
  static constexpr int TM = TM_, TN = TN_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, KC = KC_;
  static constexpr Lanes LANES = LANES_;
};
template <ThinShape S>
struct ThinConfig;
//                                                     TM  TN  warps M x N  lanes        KC
template <> struct ThinConfig<ThinShape::ShortK> : ThinTile<8, 4, 8, 1, Lanes::AlongN, 32> {};
template <> struct ThinConfig<ThinShape::SmallM4> : ThinTile<4, 2, 1, 8, Lanes::AlongN, 16> {};
template <> struct ThinConfig<ThinShape::SmallM16> : ThinTile<16, 2, 1, 8, Lanes::AlongN, 16> {};
template <> struct ThinConfig<ThinShape::SmallN4> : ThinTile<2, 4, 8, 1, Lanes::AlongM, 16> {};
template <> struct ThinConfig<ThinShape::SmallN16> : ThinTile<2, 16, 8, 1, Lanes::AlongM, 16> {};

template <ThinShape S>
using ThinLayoutOf = ThinLayout<ThinConfig<S>::TM, ThinConfig<S>::TN, ThinConfig<S>::WARPS_M,
                                ThinConfig<S>::WARPS_N, ThinConfig<S>::LANES>;

// Tiles of C with tile S: thin_gemm's blocks per slice of K.
template <ThinShape S>
long long thin_tiles(int M, int N) {
  using Layout = ThinLayoutOf<S>;
  return (long long)tutorial::ceil_div(M, Layout::BM) * tutorial::ceil_div(N, Layout::BN);
}

// Above this many slices thin_gemm's partials are added by sum_many_slices (its C is small, and
// each element's partials are many).
constexpr int kThinManySlices = 8;

// C = A * B with thin_gemm's tile S, K cut into `wantedSlices` slices (fewer when K is short:
// slice_k) summed afterwards.
template <ThinShape S>
void run_thin_gemm(const float* A, const float* B, float* C, int M, int N, int K,
                   int wantedSlices) {
  using Cfg = ThinConfig<S>;
  using Layout = ThinLayoutOf<S>;
  tutorial::check_gemm_shape("thin_gemm", M, N, K);
  int slices = 1, sliceK = K;
  slice_k(K, wantedSlices, slices, sliceK);
  const long long tiles = thin_tiles<S>(M, N);
  if (tiles > 2147483647LL)  // (not reached: M * N < 2^31 and a tile holds 2,048 elements)
    throw tutorial::UnsupportedShape("thin_gemm: " + std::to_string(tiles) + " tiles");
  const size_t count = size_t(M) * N;
  float* out = slices == 1 ? C : slice_workspace(count * slices, slices, M, N);
  tutorial::launch(thin_gemm<Cfg::TM, Cfg::TN, Cfg::WARPS_M, Cfg::WARPS_N, Cfg::LANES, Cfg::KC>,
                   dim3(unsigned(tiles), slices), dim3(Layout::THREADS), 0, A, B, out, M, N, K,
                   sliceK);
  if (slices > 1) sum_partials(out, C, int(count), slices, kThinManySlices);
}

// Whether tile S suits the problem: its thin side fits one tile (K <= 64 for the short-K tile;
// M <= 4 or 16, N <= 4 or 16 for the others). Any shape runs on any tile; these are where
// a tile computes little outside C.
inline bool thin_fits(ThinShape s, int M, int N, int K) {
  switch (s) {
    case ThinShape::ShortK: return K <= 64;
    case ThinShape::SmallM4: return M <= 4;
    case ThinShape::SmallM16: return M <= 16;
    case ThinShape::SmallN4: return N <= 4;
    case ThinShape::SmallN16: return N <= 16;
  }
  return false;
}

// Tile S's block tile, and its name, for code that holds S as a value.
struct ThinExtent {
  int bm, bn, kc;  // the block tile, and the k's of one chunk
};
template <ThinShape S>
constexpr ThinExtent thin_extent_of() {
  return {ThinLayoutOf<S>::BM, ThinLayoutOf<S>::BN, ThinConfig<S>::KC};
}
inline ThinExtent thin_extent(ThinShape s) {
  switch (s) {
    case ThinShape::ShortK: return thin_extent_of<ThinShape::ShortK>();
    case ThinShape::SmallM4: return thin_extent_of<ThinShape::SmallM4>();
    case ThinShape::SmallM16: return thin_extent_of<ThinShape::SmallM16>();
    case ThinShape::SmallN4: return thin_extent_of<ThinShape::SmallN4>();
    default: return thin_extent_of<ThinShape::SmallN16>();
  }
}
inline const char* thin_name(ThinShape s) {
  switch (s) {
    case ThinShape::ShortK: return "short-K 64x128";
    case ThinShape::SmallM4: return "small-M 4x512";
    case ThinShape::SmallM16: return "small-M 16x512";
    case ThinShape::SmallN4: return "small-N 512x4";
    default: return "small-N 512x16";
  }
}

// run_thin_gemm with the tile as a value.
inline void run_thin_shape(ThinShape s, const float* A, const float* B, float* C, int M, int N,
                           int K, int slices) {
  switch (s) {
    case ThinShape::ShortK: return run_thin_gemm<ThinShape::ShortK>(A, B, C, M, N, K, slices);
    case ThinShape::SmallM4: return run_thin_gemm<ThinShape::SmallM4>(A, B, C, M, N, K, slices);
    case ThinShape::SmallM16: return run_thin_gemm<ThinShape::SmallM16>(A, B, C, M, N, K, slices);
    case ThinShape::SmallN4: return run_thin_gemm<ThinShape::SmallN4>(A, B, C, M, N, K, slices);
    case ThinShape::SmallN16: return run_thin_gemm<ThinShape::SmallN16>(A, B, C, M, N, K, slices);
  }
}

// ---------------------------------------------------------------------------------------
// Vectors: C with one row (M = 1) or one column (N = 1)
// ---------------------------------------------------------------------------------------
// Here every element of the matrix is used once: a tile gains nothing from shared memory, and
// what is left is to stream the matrix at the copy's speed. So each lane reads its own part of
// it straight into registers, 16 bytes at a time where the rows allow (VEC), kVectorUnroll loads
// in flight before the first is used, and adds in k order (the same bits every run).
constexpr int kVectorThreads = 256;
constexpr int kVectorUnroll = 8;

// M = 1: C[n] = sum over k of A[k] * B[k][n], in one launch. Block (x, y) owns a strip of
// 32 * COLS columns of C (COLS = 4 with float4) and the k's of slice y; its kRowWarps warps
// share the slice's rows: warp w takes rows w, w + kRowWarps, ..., each lane COLS columns, so a
// warp reads 32 * COLS consecutive floats of a row per load, and the warps' sums are added in
// shared memory in warp order. Owning few columns lets many blocks share a slice (N = 4,096:
// 32 strips). With S slices each block writes its partial row, and the last block of a strip
// to finish (arrivals[x] counts them) adds the S partial rows in a fixed order and writes C:
// the same bits whichever block is last, and no second launch (at 1 x 4,096 x 4,096 the sum's
// kernel took 3 us beside the product's 19: lab/LOG.md#column-strips).
constexpr int kRowWarps = 16;
template <bool VEC>
__global__ void __launch_bounds__(kRowWarps * 32)
    row_times_matrix(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ partials, float* __restrict__ C,
                     unsigned* __restrict__ arrivals, int N, int K, int sliceK) {
  constexpr int COLS = VEC ? 4 : 1, WARPS = kRowWarps, U = kVectorUnroll;
  __shared__ float sums[WARPS][32 * COLS];
  __shared__ bool last;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, slices = gridDim.y;
  // (64-bit: a column or k near INT_MAX must not wrap)
  const long long first = static_cast<long long>(blockIdx.x) * 32 * COLS;
  const long long n = first + lane * COLS;
  const long long k0 = static_cast<long long>(blockIdx.y) * sliceK;
  const long long k1 = min(static_cast<long long>(K), k0 + sliceK);
  float acc[COLS] = {};
  if (n < N) {
    for (long long k = k0 + warp; k < k1; k += WARPS * U) {
      float b[U][COLS], a[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {  // every load of the group first
        const long long ku = k + u * WARPS;
        const bool in = ku < k1;
        a[u] = in ? A[ku] : 0.0f;
        // B is read once: __ldcs marks its lines evict-first, so they, not the dirty lines the
        // previous kernel left in L2, make room for the next (lab/LOG.md#time-beyond-kernel).
        if constexpr (VEC) {
          const float4 v = in ? __ldcs(reinterpret_cast<const float4*>(&B[size_t(ku) * N + n]))
                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
        } else {
          b[u][0] = in ? __ldcs(&B[size_t(ku) * N + n]) : 0.0f;
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc[c] += a[u] * b[u][c];
    }
  }
#pragma unroll
  for (int c = 0; c < COLS; ++c) sums[warp][lane * COLS + c] = acc[c];
  __syncthreads();  // every warp's sums are in shared memory
  // Thread t < 32 * COLS owns column first + t: its warps' sums, warp 0 first.
  const int t = threadIdx.x;
  const bool mine = t < 32 * COLS && first + t < N;
  float total = 0.0f;
  if (mine) {
    total = sums[0][t];
    for (int w = 1; w < WARPS; ++w) total += sums[w][t];
    if (slices == 1) C[first + t] = total;
  }
  if (slices == 1) return;
  if (mine) {
    partials[size_t(blockIdx.y) * N + first + t] = total;  // (S, N): this slice's row
    __threadfence();  // the row reaches L2 before this block's arrival is counted
  }
  __syncthreads();
  if (t == 0) last = atomicAdd(&arrivals[blockIdx.x], 1u) == unsigned(slices - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other blocks' rows are read after their arrivals
  // The S partial rows, by all the block's threads: G groups, group g adds slices g, g + G, ...
  // (__ldcg: from L2, where the other SMs wrote them), then thread t < 32 * COLS adds the G
  // group sums, group 0 first: a fixed order, the same bits every run.
  constexpr int G = WARPS / COLS;
  const int column = t % (32 * COLS), group = t / (32 * COLS);
  float part = 0.0f;
  if (first + column < N) {
#pragma unroll 4
    for (int s = group; s < slices; s += G)
      part += __ldcg(&partials[size_t(s) * N + first + column]);
  }
  sums[group][column] = part;  // (every thread read its warp sums before the barriers above)
  __syncthreads();
  if (mine) {
    float sum = sums[0][t];
    for (int g = 1; g < G; ++g) sum += sums[g][t];
    C[first + t] = sum;
  }
  if (t == 0) arrivals[blockIdx.x] = 0;  // zero again for the next launch
}

// N = 1: C[m] = sum over k of A[m][k] * B[k]. One warp per row of A: lane l reads its floats
// COLS at a time, 32 * COLS apart, so the warp reads 32 * COLS consecutive floats of the row per
// load; the 32 lane sums are added by lane 0 in lane order through shared memory.
template <bool VEC>
__global__ void __launch_bounds__(kVectorThreads)
    matrix_times_column(const float* __restrict__ A, const float* __restrict__ B,
                        float* __restrict__ C, int M, int K, int sliceK) {
  tutorial::allow_next_kernel();  // as thin_gemm
  constexpr int COLS = VEC ? 4 : 1, STEP = 32 * COLS, WARPS = kVectorThreads / 32;
  __shared__ float lanes[WARPS][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m = blockIdx.x * WARPS + warp;
  const long long k0 = static_cast<long long>(blockIdx.y) * sliceK;  // (64-bit, as above)
  const long long k1 = min(static_cast<long long>(K), k0 + sliceK);
  float acc = 0.0f;
  if (m < M) {
    const float* row = A + size_t(m) * K;
    for (long long k = k0 + lane * COLS; k < k1; k += kVectorUnroll * STEP) {
      float a[kVectorUnroll][COLS], b[kVectorUnroll][COLS];
#pragma unroll
      for (int u = 0; u < kVectorUnroll; ++u) {
        const long long ku = k + u * STEP;
        const bool in = ku < k1;  // (VEC: K % 4 == 0, so all 4 or none)
        if constexpr (VEC) {
          const float4 x = in ? *reinterpret_cast<const float4*>(&row[ku])
                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          const float4 y = in ? *reinterpret_cast<const float4*>(&B[ku])
                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          a[u][0] = x.x, a[u][1] = x.y, a[u][2] = x.z, a[u][3] = x.w;
          b[u][0] = y.x, b[u][1] = y.y, b[u][2] = y.z, b[u][3] = y.w;
        } else {
          a[u][0] = in ? row[ku] : 0.0f;
          b[u][0] = in ? B[ku] : 0.0f;
        }
      }
#pragma unroll
      for (int u = 0; u < kVectorUnroll; ++u)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc += a[u][c] * b[u][c];
    }
  }
  lanes[warp][lane] = acc;
  __syncthreads();  // every lane's sum is in shared memory
  if (lane != 0 || m >= M) return;
  float sum = lanes[warp][0];
  for (int l = 1; l < 32; ++l) sum += lanes[warp][l];
  C[size_t(blockIdx.y) * M + m] = sum;  // (S, M, 1)
}

// C = A * B where M == 1 or N == 1, K cut into `wantedSlices` slices summed afterwards.
inline void run_vector_gemm(const float* A, const float* B, float* C, int M, int N, int K,
                            int wantedSlices) {
  tutorial::check_gemm_shape("vector_gemm", M, N, K);
  if (M != 1 && N != 1)
    throw tutorial::UnsupportedShape("vector_gemm: M or N must be 1, got " + std::to_string(M) +
                                     "x" + std::to_string(N) + "x" + std::to_string(K));
  int slices = 1, sliceK = K;
  slice_k(K, wantedSlices, slices, sliceK);
  const size_t count = size_t(M) * N;
  float* out = slices == 1 ? C : slice_workspace(count * slices, slices, M, N);
  if (N != 1) {  // M == 1: a row of C, one launch (its strips' arrival counters start at 0)
    using tutorial::starts_on_16_bytes;
    const bool vec = N % 4 == 0 && starts_on_16_bytes(B);  // (C: 4 bytes at a time)
    const dim3 grid(tutorial::ceil_div(N, 32 * (vec ? 4 : 1)), slices);
    // One launch at a time per device, as for the slices' workspace: two launches at once
    // would count each other's blocks and leave counters off zero for the launches after.
    static tutorial::PerDeviceBuffer<unsigned> arrivals;
    const auto kernel = vec ? row_times_matrix<true> : row_times_matrix<false>;
    tutorial::launch(kernel, grid, dim3(kRowWarps * 32), 0, A, B, out, C,
                     arrivals.zeroed_at_least(grid.x), N, K, sliceK);
    return;
  } else {  // a column of C (a single element too)
    using tutorial::starts_on_16_bytes;
    const bool vec = K % 4 == 0 && starts_on_16_bytes(A) && starts_on_16_bytes(B);
    const dim3 grid(tutorial::ceil_div(M, kVectorThreads / 32), slices);
    const auto kernel = vec ? matrix_times_column<true> : matrix_times_column<false>;
    tutorial::launch(kernel, grid, dim3(kVectorThreads), 0, A, B, out, M, K, sliceK);
  }
  if (slices > 1) sum_partials(out, C, int(count), slices, kThinManySlices);
}

// Step 8's launcher: where the roofline says the problem waits on memory, a vector kernel (C of
// one row or column) or the thin tile its thin side fits, with K cut into enough slices to give
// every SM a block; step 7's launcher elsewhere.
inline void launch_thin_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("thin_gemm", M, N, K);
  const tutorial::DeviceInfo& d = tutorial::current_device_info();
  const double seconds_of_bytes =
      tutorial::gemm_compulsory_bytes(M, N, K) / (d.theoretical_bandwidth_gbs() * 1e9);
  const double seconds_of_flops = 2.0 * M * N * double(K) / (d.fp32_peak_gflops() * 1e9);
  if (seconds_of_bytes < seconds_of_flops) return launch_stream_k_gemm(A, B, C, M, N, K);
  // Slices so that the blocks cover the SMs once: blocks of one slice x S >= SMs.
  auto slices_for = [&](long long blocks) {
    return int(std::min<long long>(64, std::max<long long>(1, d.sm_count / std::max(1LL, blocks))));
  };
  auto thin = [&](auto shape) {
    constexpr ThinShape S = decltype(shape)::value;
    run_thin_gemm<S>(A, B, C, M, N, K, slices_for(thin_tiles<S>(M, N)));
  };
  using T = ThinShape;
  if (M == 1) return run_vector_gemm(A, B, C, M, N, K, slices_for(tutorial::ceil_div(N, 128)));
  if (N == 1) return run_vector_gemm(A, B, C, M, N, K, slices_for(tutorial::ceil_div(M, 8)));
  if (K <= 64) return thin(std::integral_constant<T, T::ShortK>{});
  if (M <= 4) return thin(std::integral_constant<T, T::SmallM4>{});
  if (M <= 16) return thin(std::integral_constant<T, T::SmallM16>{});
  if (N <= 4) return thin(std::integral_constant<T, T::SmallN4>{});
  if (N <= 16) return thin(std::integral_constant<T, T::SmallN16>{});
  launch_stream_k_gemm(A, B, C, M, N, K);  // memory-bound but not thin: the tiles
}

}  // namespace ch05
