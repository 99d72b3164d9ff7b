// Chapter 06, step 6: transpose_thin, matrices of a few rows or columns.
//
// What changed since step 5: the tile kernels move 64 x 64 (or 128 x 32) patches, of which a
// thin matrix fills a few rows; their stores are a few floats per warp. Seen as flat arrays, a
// chunk of whole rows (tall) or columns (wide) is one contiguous range on one side and a few
// on the other: transpose_thin copies such chunks through shared memory, float4 on both sides
// where the addresses allow.
// And the thinnest (up to 16 rows or columns) need no shared memory at all: transpose_thin_regs.
// transpose_thin_cut is step 5's cut at sectors inside the chunks of a tall matrix; it does not
// replace transpose_thin (which of the two is faster depends on the thin side), step 7 times both.
// transpose_thin_bulk (wide matrices) hands the chunk's contiguous output to the copy engine.
// Their loads go through step 5's load1_line / load4_line (float4.cuh).
// What it still gets wrong: a chunk must hold 32 elements along the long side for each on the
// thin side (launch_thin refuses a thin side of 256 or more, at 8,192 floats a chunk), so it is
// for thin matrices only; even there some shapes stay below the copy, and which chunk size is
// fastest depends on the shape and the GPU.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "06_transpose/bulk_store.cuh"
#include "06_transpose/float4.cuh"
#include "common/ceil_div.hpp"
#include "common/device_facts.hpp"
#include "common/cuda_check.hpp"
#include "common/launch.cuh"

namespace ch06 {

// Thin matrices: fewer than 64 rows or 64 columns. A 64 × 64 tile holds only a few of them,
// and each output row (or input row) piece is a few floats: stores of 12 bytes per warp.
// Seen as flat arrays, though, a chunk of `span` input rows (tall: `cols` small) is one
// contiguous range of `in`, and its transpose is `cols` contiguous ranges ("segments") of
// `out`, `rows` floats apart; a chunk of `span` input columns (wide: `rows` small) is `rows`
// segments of `in` and one contiguous range of `out`. The block copies its chunk through shared
// memory (dynamic: the launcher sizes it), from one side to the other.
//
// Element (i, c) of a chunk, i along the long side (< span), c along the thin side (< thin),
// is word i * P + c of the chunk, P = thin | 1, turned at an odd thin side (chunk_word below):
// an odd pitch puts 32 consecutive i of one c in 32 different banks (an even thin side's
// segments, one float a lane). Both sides move float4 where the addresses allow (a third
// fewer instructions, and whole sectors on the segments):
//   - the contiguous side whenever its start is 16-byte aligned;
//   - each segment from its first 16-byte boundary on, a few floats before and after it one at
//     a time, when P == thin. With an even thin side, P = thin + 1 breaks the contiguous
//     side's float4s into scattered shared-memory accesses, and float4 segments on top of
//     that measured slower than one float per lane (lab/LOG.md#every-shape).
// Element k of a walk is (k / n, k % n) for the walk's row length n; a thread steps k by
// THREADS, so it steps the pair by (THREADS / n, THREADS % n) instead of dividing each time
// (an integer division costs about 20 instructions, as much as the copy's whole budget).
struct Walk {
  int q, r;          // k / n and k % n of the thread's current k
  int dq, dr, n;
  __device__ Walk(int k, int step, int n_) : q(k / n_), r(k % n_), dq(step / n_), dr(step % n_), n(n_) {}
  __device__ void next() {
    q += dq;
    r += dr;
    if (r >= n) {
      r -= n;
      ++q;
    }
  }
};

// One float, or four, between global memory and the chunk: TO_CHUNK reads global memory
// (the side a chunk is loaded from), else writes it. G is const float* or float*.
template <bool TO_CHUNK, class G>
__device__ __forceinline__ void move1(G global, float& shared) {
  if constexpr (TO_CHUNK) shared = load1_line(global);
  else *global = shared;
}
template <bool TO_CHUNK, class G>
__device__ __forceinline__ void move4(G global, float& s0, float& s1, float& s2, float& s3) {
  if constexpr (TO_CHUNK) {
    const float4 v = load4_line(global);
    s0 = v.x, s1 = v.y, s2 = v.z, s3 = v.w;
  } else {
    store4(global, make_float4(s0, s1, s2, s3));
  }
}

// Where element (i, c) lives in the chunk: word e = i * P + c, and for an odd thin side (P ==
// thin) the low two bits of e XORed with (e / 32) % 4. The segments' float4s read or write
// words P apart, and a warp's lanes sit 4P apart: 32 words in 8 banks, 4-way conflicts, unless
// consecutive 32-word rows of banks are permuted differently (every_shape.md part 3;
// lab/LOG.md#turned-chunk). The XOR keeps each aligned group of 4 words together, so the
// contiguous side still moves a float4 in one 16-byte access (conflict-free, turned or not),
// its components permuted (turn4). An even thin side (P = thin + 1) is not turned: its
// segments move one float a lane, words P apart, 32 banks already; its contiguous side's
// float4s land on words 4 apart plus a row's pad, 2- to 4-way (lab/chunk_banks.py).
__device__ __forceinline__ int chunk_word(int e, bool turn) {
  return turn ? e ^ ((e >> 5) & 3) : e;
}
// Component s of the result is component s ^ t of v (its own inverse).
__device__ __forceinline__ float4 turn4(float4 v, int t) {
  if (t & 1) v = make_float4(v.y, v.x, v.w, v.z);
  if (t & 2) v = make_float4(v.z, v.w, v.x, v.y);
  return v;
}

// The contiguous side: flat[k] is element (k / thin, k % thin), k < thin * span.
template <int THREADS, bool TO_CHUNK, class G>
__device__ void move_contiguous(G flat, float* chunk, int thin, int span) {
  const int P = thin | 1, count = thin * span;
  int k0 = 0;  // where the one-float loop starts
  if (reinterpret_cast<uintptr_t>(flat) % 16 == 0) {
    // float4 k holds elements 4k .. 4k + 3, words 4k + j + (P - thin) * (their rows).
    const int pad = P - thin;
    if (pad == 0) {  // odd thin: words 4k .. 4k + 3, one aligned group, in the order j ^ turn
      float4* words = reinterpret_cast<float4*>(chunk);
#pragma unroll 4
      for (int k = threadIdx.x; k < count / 4; k += THREADS) {
        if constexpr (TO_CHUNK) words[k] = turn4(load4_line(flat + 4 * k), (k >> 3) & 3);
        else store4(flat + 4 * k, turn4(words[k], (k >> 3) & 3));
      }
    } else {  // even thin: elements (q, r) .. (q, r + 3), wrapping to row q + 1 at most once
      Walk w(4 * threadIdx.x, 4 * THREADS, thin);
#pragma unroll 4
      for (int k = threadIdx.x; k < count / 4; k += THREADS, w.next()) {
        float* e = chunk + 4 * k + w.q;  // pad = 1
        const int wrap = thin - w.r;     // elements j >= wrap are on the next row
        move4<TO_CHUNK>(flat + 4 * k, e[0], e[1 + (1 >= wrap)], e[2 + (2 >= wrap)],
                        e[3 + (3 >= wrap)]);
      }
    }
    k0 = count / 4 * 4;
  }
  Walk w(k0 + threadIdx.x, THREADS, thin);
  for (int k = k0 + threadIdx.x; k < count; k += THREADS, w.next())
    move1<TO_CHUNK>(flat + k, chunk[chunk_word(w.q * P + w.r, P == thin)]);
}

// The segments: seg[c * stride + i] is element (i, c), c < thin, i < span.
// TURN = false keeps the words in order (transpose_thin_bulk's chunk is its output range).
template <int THREADS, bool TO_CHUNK, class G, bool TURN = true>
__device__ void move_segments(G seg, size_t stride, float* chunk, int thin, int span) {
  const int P = thin | 1;
  if (P != thin) {  // one float per lane, 32 consecutive i of a segment per warp
    Walk v(threadIdx.x, THREADS, span);
#pragma unroll 4
    for (int k = threadIdx.x; k < thin * span; k += THREADS, v.next())
      move1<TO_CHUNK>(seg + v.q * stride + v.r, chunk[v.r * P + v.q]);
    return;
  }
  // Segment c's float4 j covers i = head + 4j .. + 3, head < 4 floats before its first 16-byte
  // boundary; n4 = span / 4 - 1 of them fit every segment whatever its head.
  auto head = [&](int c) {
    return int((16 - reinterpret_cast<uintptr_t>(seg + c * stride) % 16) % 16 / 4);
  };
  const int n4 = span / 4 - 1;
  if (n4 > 0) {
    Walk v(threadIdx.x, THREADS, n4);
#pragma unroll 4
    for (int k = threadIdx.x; k < thin * n4; k += THREADS, v.next()) {
      const int c = v.q, i = head(c) + 4 * v.r, e = i * P + c;
      move4<TO_CHUNK>(seg + c * stride + i, chunk[chunk_word(e, TURN)],
                      chunk[chunk_word(e + P, TURN)], chunk[chunk_word(e + 2 * P, TURN)],
                      chunk[chunk_word(e + 3 * P, TURN)]);
    }
  }
  // The rest of each segment, i < head and i >= head + 4 * n4: at most 7 floats.
  constexpr int REST = 8;
  Walk v(threadIdx.x, THREADS, REST);
  for (int k = threadIdx.x; k < thin * REST; k += THREADS, v.next()) {
    const int c = v.q, h = n4 > 0 ? head(c) : 0;
    const int i = v.r < h ? v.r : v.r + 4 * max(n4, 0);
    if (i < span) move1<TO_CHUNK>(seg + c * stride + i, chunk[chunk_word(i * P + c, TURN)]);
  }
}

template <int THREADS, int MIN_BLOCKS = 1>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                   int span_max) {
  extern __shared__ float4 chunk4[];  // float4: 16-byte aligned (move_contiguous' float4s)
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span_max][thin | 1] words
  const bool tall = cols < rows;    // the thin side is cols (tall) or rows (wide)
  const int thin = tall ? cols : rows;
  const int first = blockIdx.x * span_max;  // first input row (tall) or column (wide)
  const int span = min(span_max, (tall ? rows : cols) - first);
  if (tall) {
    move_contiguous<THREADS, true>(in + size_t(first) * cols, chunk, thin, span);
    __syncthreads();
    move_segments<THREADS, false>(out + first, size_t(rows), chunk, thin, span);
  } else {
    move_segments<THREADS, true>(in + first, size_t(cols), chunk, thin, span);
    __syncthreads();
    move_contiguous<THREADS, false>(out + size_t(first) * rows, chunk, thin, span);
  }
}

// One block per chunk of span_max rows (tall) or columns (wide), span_max a multiple of 32:
// the chunk holds at most CHUNK floats whatever the thin side, and at least 32 elements along
// the long side for each one along the thin side (so that every segment moves at least 128
// bytes, a warp's worth), which bounds the thin side it takes: below CHUNK / 32.
inline int thin_span(int chunk, int thin) { return std::max(32, chunk / (thin | 1) / 32 * 32); }

// A small matrix makes few chunks: 19 x 59566 is 187 chunks of 6,144 floats, where a GPU of 132
// SMs holds 1,056 blocks of 256 threads at once. Each SM then runs one or two of its eight, and
// each such block waits out its loads' round trip, then its stores', with little beside it
// (Little's law, every_shape.md part 4). The filled launchers (FILL) shorten the span, a multiple
// of 32, until the grid has at most a block for every slot the GPU holds (`slots`, from the
// device: SMs x resident blocks an SM), between min(floor, span_max) and the chunk's own span
// (small_matrices.md).
// BEGIN QUOTE filled-span
inline int filled_span(long long along, long long slots, int span_max, int floor) {
  const long long per = (along + slots - 1) / std::max(1LL, slots);  // elements a slot
  const int span = int(std::min<long long>(span_max, (per + 31) / 32 * 32));
  return std::max(span, std::min(floor, span_max));
}
// END QUOTE filled-span

template <int THREADS, int CHUNK, int MIN_BLOCKS = 1>
void launch_thin_sized(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (32 * (thin | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin: a chunk of " + std::to_string(CHUNK) +
                                     " floats takes fewer than " + std::to_string(CHUNK / 32) +
                                     " rows or columns, got " + std::to_string(rows) + "x" +
                                     std::to_string(cols));
  const int span_max = thin_span(CHUNK, thin);
  const size_t smem = size_t(span_max) * (thin | 1) * sizeof(float);
  tutorial::launch(transpose_thin<THREADS, MIN_BLOCKS>, dim3(tutorial::ceil_div(along, span_max)),
                   dim3(THREADS), smem, in, out, rows, cols, span_max);
}

// Tall matrices with their segments cut at sectors: step 5's idea inside step 6's chunks.
// Output row c (of `rows` floats) starts s_c floats past a 32-byte sector: s_c = 0 for every c
// only where rows is a multiple of 8 and `out` starts on a sector. transpose_thin's chunk
// [first, first + span) writes each output row from `first` on, so where s_c != 0 the first and
// last sectors of a segment are written in part, twice (by two blocks), and its float4s start
// late. transpose_thin_cut's block writes output row c over [first - s_c, first - s_c + span)
// instead: every segment starts on a sector, every float4 (odd cols) fills half of one. For
// that it stages the 8 input rows before its chunk too, 8 / span more reads: 7 would do, but first is a
// multiple of 32, so input row first - 8 starts on a 16-byte boundary at any cols (where `in`
// does), and first - 7 only where cols is a multiple of 4: move_contiguous' float4 loads need it.
// And the grid has at most a block more, where the last s_c outputs of a row need one
// (lab/LOG.md#thin-cut).
//
// The chunk's pitch P (words a chunk row) at `cols` columns. Odd cols: P = cols, turned as step 6
// (the float4 segments below). Even cols: the segments are stored a warp a row, 32 lanes reading
// words P apart, gcd(P, 32)-way bank conflicts; a pad (P = cols + 1) removes them but costs the
// loads their plain float4s (move_contiguous' padded path). Padded only where cols % 8 == 0, 8-way
// conflicts or worse: at 2- and 4-way the unpadded chunk measured faster, but for one chunk size
// at one shape (lab/LOG.md#cut-rows).
__host__ __device__ inline int cut_pitch(int cols) { return cols % 8 == 0 ? cols + 1 : cols; }

// The shortest span a filled cut takes (launch_thin_cut<..., FILL>): at an even thin side 128,
// since write_cut_rows stores groups of 4 pieces of 32 and a window shorter than a group never
// takes its unchecked path (a speed floor, not a correctness one); at an odd side 32.
inline int cut_fill_floor(int cols) { return cols % 2 == 0 ? 128 : 32; }

// count floats from `from` into the chunk as they lie, float4 where `from` is 16-byte aligned.
template <int THREADS>
__device__ void load_range(const float* from, float* chunk, int count) {
  int k0 = 0;
  if (reinterpret_cast<uintptr_t>(from) % 16 == 0) {
#pragma unroll 4
    for (int k = threadIdx.x; k < count / 4; k += THREADS)
      reinterpret_cast<float4*>(chunk)[k] = load4_line(from + 4 * k);
    k0 = count / 4 * 4;
  }
  for (int k = k0 + threadIdx.x; k < count; k += THREADS) chunk[k] = load1_line(from + k);
}

// Output row c over [first - s_c, first - s_c + span), clipped to [0, rows), where s_c = (address
// of out[c][0] / 4) % 8, in 32 bits: (a + c·rows) % 8 = (a % 8 + c·(rows % 8)) % 8.
struct CutShift {
  unsigned s0, r8;
  __device__ CutShift(const float* out, int rows)
      : s0(unsigned(reinterpret_cast<uintptr_t>(out) / sizeof(float) % 8)),
        r8(unsigned(rows % 8)) {}
  __device__ int operator()(int c) const { return int((s0 + unsigned(c) * r8) % 8); }
};

// Odd cols: input row o is chunk row o - lo of `base` (turned), a float4 a lane, 4 consecutive o
// of one c (on a sector, so 16-byte aligned); one float at a time only where a float4 crosses 0
// or rows.
template <int THREADS>
__device__ void write_cut_segments(float* out, int rows, const float* base, int cols, int lo,
                                   int first, int span) {
  const CutShift shift(out, rows);
  auto word = [&](int o, int c) { return base[chunk_word((o - lo) * cols + c, true)]; };
  // BEGIN QUOTE cut-store
  const int n4 = span / 4;
  Walk v(threadIdx.x, THREADS, n4);
#pragma unroll 4
  for (int k = threadIdx.x; k < cols * n4; k += THREADS, v.next()) {
    const int c = v.q, o = first - shift(c) + 4 * v.r;
    float* row = out + size_t(c) * rows;
    if (o >= 0 && o + 3 < rows) {
      store4(row + o, make_float4(word(o, c), word(o + 1, c), word(o + 2, c), word(o + 3, c)));
    } else {
      for (int u = 0; u < 4; ++u)
        if (o + u >= 0 && o + u < rows) row[o + u] = word(o + u, c);
    }
  }
  // END QUOTE cut-store
}

// Even cols (chunk pitch P, unturned): a warp stores 4 pieces of 32 consecutive o of one c, the
// row, its shift and its chunk column the warp's, with no bounds to check in a block whose
// windows all lie inside [0, rows): fewer instructions than one float a lane, each with its own
// row, shift and bounds (lab/LOG.md#cut-rows).
template <int THREADS>
__device__ void write_cut_rows(float* out, int rows, const float* base, int cols, int P, int lo,
                               int first, int span) {
  const CutShift shift(out, rows);
  constexpr int U = 4, WARPS = THREADS / 32;
  const int lane = threadIdx.x % 32;
  const bool inside = first >= 8 && first + span <= rows;  // no window clipped at 0 or rows
  const int groups = (span + 32 * U - 1) / (32 * U);       // groups of U pieces a window
  Walk v(threadIdx.x / 32, WARPS, groups);
  // BEGIN QUOTE cut-rows
  for (int g = threadIdx.x / 32; g < cols * groups; g += WARPS, v.next()) {
    const int c = v.q, j = v.r * 32 * U;         // the group's first place in window c
    const int o0 = first - shift(c) + j + lane;  // the lane's output in piece 0
    const float* from = base + (o0 - lo) * P + c;
    float* row = out + size_t(c) * rows;  // indexed by o: no pointer before `out` formed
    float x[U];
    if (inside && j + 32 * U <= span) {
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = from[32 * u * P];
#pragma unroll
      for (int u = 0; u < U; ++u) row[o0 + 32 * u] = x[u];
    } else {
      auto in_window = [&](int u) {
        const int o = o0 + 32 * u;
        return j + lane + 32 * u < span && o >= 0 && o < rows;
      };
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = in_window(u) ? from[32 * u * P] : 0.0f;
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (in_window(u)) row[o0 + 32 * u] = x[u];
    }
  }
  // END QUOTE cut-rows
}

// EVEN: cols is even (the launcher picks the instance). Two kernels, not a branch: together, the
// two store paths need more than the 32 registers that MIN_BLOCKS allows, and spill.
template <int THREADS, int MIN_BLOCKS = 1, bool EVEN = false>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_cut(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                       int span) {
  extern __shared__ float4 chunk4[];  // float4: 16-byte aligned (move_contiguous' float4s)
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span + 8][P] words
  // BEGIN QUOTE cut-kernel
  const int P = cut_pitch(cols);
  const int first = blockIdx.x * span;  // the block's outputs: [first, first + span), shifted
  const int lo = max(first - 8, 0), hi = min(first + span, rows);  // the input rows it stages
  // Chunk row j holds input row first - 8 + j; `base` is the chunk row of input row lo.
  float* base = chunk + (lo - (first - 8)) * P;
  if (EVEN && P == cols)  // even, unpadded: the rows as they lie
    load_range<THREADS>(in + size_t(lo) * cols, base, (hi - lo) * cols);
  else  // odd (turned) or padded: step 6's contiguous side
    move_contiguous<THREADS, true>(in + size_t(lo) * cols, base, cols, hi - lo);
  __syncthreads();
  if constexpr (EVEN)
    write_cut_rows<THREADS>(out, rows, base, cols, P, lo, first, span);
  else
    write_cut_segments<THREADS>(out, rows, base, cols, lo, first, span);
  // END QUOTE cut-kernel
}

// The instance for `cols` columns.
using ThinCutKernel = void (*)(const float*, float*, int, int, int);
template <int THREADS, int MIN_BLOCKS>
ThinCutKernel thin_cut_kernel(int cols) {
  if (cols % 2 == 0) return transpose_thin_cut<THREADS, MIN_BLOCKS, true>;
  return transpose_thin_cut<THREADS, MIN_BLOCKS, false>;
}

// Tall matrices only (cols < rows), cols below CHUNK / 32 as launch_thin_sized. Its span + 8
// rows can pass 48 KB at 12,288 floats (at most 61,280 bytes: 40 rows of 383 columns):
// tutorial::launch asks for the larger shared memory (cudaFuncSetAttribute); sm_75 and every
// later GPU grant a block 64 KB or more.
// FILL: the span filled_span gives, floored by cut_fill_floor.
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1, bool FILL = false>
void launch_thin_cut(const float* in, float* out, int rows, int cols) {
  if (cols >= rows || 32 * (cols | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_cut: tall matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " columns, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span_max = thin_span(CHUNK, cols);
  if (rows > INT_MAX - 2 * span_max)  // first = blockIdx.x * span, up to rows + span
    throw tutorial::UnsupportedShape("transpose_thin_cut: " + std::to_string(rows) +
                                     " rows: its block indices would pass INT_MAX");
  const ThinCutKernel kernel = thin_cut_kernel<THREADS, MIN_BLOCKS>(cols);
  auto smem = [&](int span) { return size_t(span + 8) * cut_pitch(cols) * sizeof(float); };
  const int span =
      FILL ? filled_span(rows + 7LL, tutorial::resident_blocks(kernel, THREADS, smem(span_max)),
                         span_max, cut_fill_floor(cols))
           : span_max;
  tutorial::launch(kernel, dim3(tutorial::ceil_div(rows + 7, span)), dim3(THREADS), smem(span),
                   in, out, rows, cols, span);
}

// Wide matrices with the chunk written by the copy engine (bulk_store.cuh). A wide chunk's
// output is one contiguous range, so the chunk here is that range itself: element (i, c) at word
// i * rows + c, no pad, no turn, and store_range writes it out. The segments come in as float4s
// at an odd number of rows (move_segments, its words in order: P = rows), else a warp a row: U
// pieces of 32 floats of one input row, one walk step and U loads at constant strides, all
// issued before their shared stores. Those are gcd(rows, 32)-way bank conflicts (no pad: the
// engine copies the words as they lie), and the odd rows' float4 segments, unturned, 4-way; yet
// the kernel measured faster than transpose_thin at 6 to 40 rows (lab/LOG.md#thin-bulk).
template <int THREADS, int MIN_BLOCKS = 1, int U = 4>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    transpose_thin_bulk(const float* __restrict__ in, float* __restrict__ out, int rows,
                        int cols, int span_max) {
  extern __shared__ float4 chunk4[];  // float4: 16-byte aligned, as the engine needs
  float* chunk = reinterpret_cast<float*>(chunk4);  // [span_max][rows] words
  // BEGIN QUOTE bulk-kernel
  const int first = blockIdx.x * span_max;  // the block's input columns [first, first + span)
  const int span = min(span_max, cols - first);
  if (rows % 2 == 1) {  // float4 segments (step 6's), the words in order: P = rows
    move_segments<THREADS, true, const float*, false>(in + first, size_t(cols), chunk, rows, span);
  } else {  // a warp a row: U pieces of 32 floats of input row c, element i0 on
    constexpr int WARPS = THREADS / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int groups = (span + 32 * U - 1) / (32 * U);  // groups of U pieces in a segment
    Walk v(warp, WARPS, groups);
    for (int g = warp; g < rows * groups; g += WARPS, v.next()) {
      const int c = v.q, i0 = v.r * 32 * U + lane;
      const float* src = in + size_t(c) * cols + first + i0;
      float x[U] = {};  // (each one stored is loaded first; zero quiets the compilers)
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (i0 + 32 * u < span) x[u] = load1_line(src + 32 * u);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (i0 + 32 * u < span) chunk[(i0 + 32 * u) * rows + c] = x[u];
    }
  }
  store_range<THREADS>(out + size_t(first) * rows, chunk, span * rows);
  // END QUOTE bulk-kernel
}

// A warp's U pieces should fit the span (a multiple of 32): under 128 columns, U = 4 turns one to
// three of a warp's four loads off and ptxas schedules fewer live loads at once, far slower at
// spans of 32 and 64 (lab/LOG.md#bulk-fit). So U = span / 32, at most U_MAX.
using ThinBulkKernel = void (*)(const float*, float*, int, int, int);
template <int THREADS, int MIN_BLOCKS, int U_MAX>
ThinBulkKernel thin_bulk_kernel(int span) {
  if constexpr (U_MAX > 1)
    if (32 * U_MAX > span) return thin_bulk_kernel<THREADS, MIN_BLOCKS, U_MAX - 1>(span);
  return transpose_thin_bulk<THREADS, MIN_BLOCKS, U_MAX>;
}

// Wide matrices only (rows < cols), rows below CHUNK / 32 as launch_thin_sized.
// FILL: the span filled_span gives (at least 32, a warp's 128 bytes a segment).
template <int THREADS, int CHUNK, int MIN_BLOCKS = 1, int U_MAX = 4, bool FILL = false>
void launch_thin_bulk(const float* in, float* out, int rows, int cols) {
  if (rows >= cols || 32 * (rows | 1) > CHUNK)
    throw tutorial::UnsupportedShape("transpose_thin_bulk: wide matrices of fewer than " +
                                     std::to_string(CHUNK / 32) + " rows, got " +
                                     std::to_string(rows) + "x" + std::to_string(cols));
  const int span_max = thin_span(CHUNK, rows);
  auto smem = [&](int span) { return size_t(span) * rows * sizeof(float); };
  // The filled span from U_MAX's kernel: every U has the same shared memory, and under the
  // launchers' register caps the same 32 registers (lab/LOG.md#bulk-fit).
  const int span =
      FILL ? filled_span(cols,
                         tutorial::resident_blocks(transpose_thin_bulk<THREADS, MIN_BLOCKS, U_MAX>,
                                                   THREADS, smem(span_max)),
                         span_max, 32)
           : span_max;
  tutorial::launch(thin_bulk_kernel<THREADS, MIN_BLOCKS, U_MAX>(span),
                   dim3(tutorial::ceil_div(cols, span)), dim3(THREADS), smem(span), in, out, rows,
                   cols, span);
}

// MIN_BLOCKS asks ptxas for 65,536 / (THREADS * MIN_BLOCKS) registers at most: 32 for 2,048
// threads an SM (all an sm_80 or sm_90 SM holds), so that more warps keep loads in flight (Little's law,
// every_shape.md part 4; lab/LOG.md#resident-chunks). Tall matrices measured fastest with 512
// threads and 12,288-float chunks, wide ones with 256 threads and 6,144 floats at most shapes,
// though not all (lab/LOG.md#every-shape). Both stay within the 48 KB of shared memory any GPU
// gives a block unasked.
inline void launch_thin(const float* in, float* out, int rows, int cols) {
  if (cols < rows)
    launch_thin_sized<512, 12288, 4>(in, out, rows, cols);
  else if (32 * (rows | 1) <= 6144)
    launch_thin_sized<256, 6144, 8>(in, out, rows, cols);
  else  // 192 to 255 rows: only the larger chunk takes them
    launch_thin_sized<256, 8192>(in, out, rows, cols);
}

// The thinnest matrices (at most kThinRegs rows or columns) need no shared memory: a thread
// holds input rows (tall) or columns (wide) of up to kThinRegs floats in registers and writes
// them out. Tall: lane i reads row r0 + i (the warp's loads together cover 32 whole rows, one
// contiguous range) and writes element c of its row to out[c][r0 + i]: 32 consecutive floats
// of output row c per store. Wide: lane i reads column c0 + i of every row (32 consecutive
// floats of input row r per load) and writes its rows floats, a piece of output row c0 + i; the
// warp's stores land in one range of rows x 32 floats, which the L2 assembles into whole
// sectors before they reach DRAM. The side whose floats a thread holds together (the input row,
// tall; the output row, wide) moves 4 or 2 of them at once where its start allows.
// One row of a matrix of 2 columns is 8 bytes in flight, far below what Little's law asks of a
// fast GPU (chapter 01): so a thread takes ITEMS rows (or columns), 256 apart, and issues all
// their loads before its first store. thin_regs_items derives ITEMS from the device.
constexpr int kThinRegs = 16;
constexpr int kThinRegsThreads = 256;
// A block's loads arrive about one DRAM round trip after they issue: ~0.5 us idle, ~1 us under
// load (chapter 01's latency ladder and Little's-law table). Step 7's estimate uses it too.
constexpr double kRoundTripSeconds = 1e-6;

template <int THIN, int ITEMS>
__global__ void __launch_bounds__(kThinRegsThreads)
    transpose_thin_regs(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const bool tall = cols < rows;
  const int thin = tall ? cols : rows, along = tall ? rows : cols;
  // Input row (tall) or column (wide) of item 0; item j is kThinRegsThreads * j further on.
  // 64-bit, since along may be near INT_MAX.
  const long long i0 =
      static_cast<long long>(blockIdx.x) * ITEMS * kThinRegsThreads + threadIdx.x;
  if (i0 >= along) return;  // (and so are its other items)
  // Its own row: input row i0 (tall) or output row i0 (wide), `thin` floats. Items are 256 rows
  // apart (a multiple of 16 bytes), so every item's row starts on the same boundary as item 0's.
  const uintptr_t own = tall ? reinterpret_cast<uintptr_t>(in + size_t(i0) * cols)
                             : reinterpret_cast<uintptr_t>(out + size_t(i0) * rows);
  const int vec = thin % 4 == 0 && own % 16 == 0 ? 4 : thin % 2 == 0 && own % 8 == 0 ? 2 : 1;
  float v[ITEMS][THIN] = {};  // (each float read is loaded first; zero quiets the compilers)
  // Floats t .. t + 3 of a row the thread holds (t < thin): 16, 8 or 4 bytes at a time.
  auto load_group = [&](float (&w)[THIN], const float* row, int t) {
    if (vec == 4) {
      const float4 x = load4_line(row + t);
      w[t] = x.x, w[t + 1] = x.y, w[t + 2] = x.z, w[t + 3] = x.w;
    } else if (vec == 2) {
      const float2 x = *reinterpret_cast<const float2*>(row + t);
      const float2 y = t + 2 < thin ? *reinterpret_cast<const float2*>(row + t + 2)
                                    : make_float2(0.0f, 0.0f);
      w[t] = x.x, w[t + 1] = x.y, w[t + 2] = y.x, w[t + 3] = y.y;
    } else {
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (t + u < thin) w[t + u] = load1_line(row + t + u);
    }
  };
  auto store_group = [&](const float (&w)[THIN], float* row, int t) {
    if (vec == 4) {
      store4(row + t, make_float4(w[t], w[t + 1], w[t + 2], w[t + 3]));
    } else if (vec == 2) {
      *reinterpret_cast<float2*>(row + t) = make_float2(w[t], w[t + 1]);
      if (t + 2 < thin) *reinterpret_cast<float2*>(row + t + 2) = make_float2(w[t + 2], w[t + 3]);
    } else {
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (t + u < thin) row[t + u] = w[t + u];
    }
  };
  // Every load of every item first, then the stores.
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const long long i = i0 + j * kThinRegsThreads;
    if (i >= along) break;
    if (tall) {
#pragma unroll
      for (int t = 0; t < THIN; t += 4)
        if (t < thin) load_group(v[j], in + size_t(i) * cols, t);
    } else {
#pragma unroll
      for (int t = 0; t < THIN; ++t)
        if (t < thin) v[j][t] = load1_line(in + size_t(t) * cols + i);
    }
  }
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const long long i = i0 + j * kThinRegsThreads;
    if (i >= along) break;
    if (tall) {
#pragma unroll
      for (int t = 0; t < THIN; ++t)
        if (t < thin) out[size_t(t) * rows + i] = v[j][t];
    } else {
#pragma unroll
      for (int t = 0; t < THIN; t += 4)
        if (t < thin) store_group(v[j], out + size_t(i) * rows, t);
    }
  }
}

// Little's law (chapter 01): to move `bandwidth` bytes per second with loads that take a round
// trip of `latency` seconds, bandwidth x latency bytes must be in flight, spread over the
// `threads` the GPU holds at once. A thread of transpose_thin_regs has ITEMS x thin x 4 bytes in
// flight; ITEMS is the smallest of 1, 2, 4 and 8 that covers its share. (Counted at full
// occupancy: an instance whose registers hold fewer threads per SM needs more each, which step
// 7's timing of every ITEMS covers.)
inline int thin_regs_items(int thin, double bandwidth, double latency, long long threads) {
  const double share = bandwidth * latency / double(std::max(1LL, threads));  // bytes a thread
  int items = 1;
  while (items < 8 && items * thin * 4.0 < share) items *= 2;
  return items;
}

// The instance for a thin side of `thin` (at most kThinRegs): THIN = 4, 8 or 16 registers.
using ThinRegsKernel = void (*)(const float*, float*, int, int);
template <int ITEMS>
ThinRegsKernel thin_regs_kernel(int thin) {
  if (thin <= 4) return transpose_thin_regs<4, ITEMS>;
  if (thin <= 8) return transpose_thin_regs<8, ITEMS>;
  return transpose_thin_regs<kThinRegs, ITEMS>;
}

template <int ITEMS>
void launch_thin_regs_items(const float* in, float* out, int rows, int cols) {
  const int thin = std::min(rows, cols), along = std::max(rows, cols);
  if (thin > kThinRegs)
    throw tutorial::UnsupportedShape("transpose_thin_regs: at most " + std::to_string(kThinRegs) +
                                     " rows or columns, got " + std::to_string(rows) + "x" +
                                     std::to_string(cols));
  tutorial::launch(thin_regs_kernel<ITEMS>(thin),
                   dim3(tutorial::ceil_div(along, ITEMS * kThinRegsThreads)),
                   dim3(kThinRegsThreads), 0, in, out, rows, cols);
}

// Step 6's launcher: ITEMS from this device's bandwidth, the round trip of a loaded DRAM and
// the threads it holds at once.
inline void launch_thin_regs(const float* in, float* out, int rows, int cols) {
  const tutorial::DeviceInfo& d = tutorial::current_device_info();
  const long long threads = (long long)d.sm_count * d.sm.max_threads_per_sm;
  switch (thin_regs_items(std::min(rows, cols), d.theoretical_bandwidth_gbs() * 1e9,
                          kRoundTripSeconds, threads)) {
    case 1: return launch_thin_regs_items<1>(in, out, rows, cols);
    case 2: return launch_thin_regs_items<2>(in, out, rows, cols);
    case 4: return launch_thin_regs_items<4>(in, out, rows, cols);
    default: return launch_thin_regs_items<8>(in, out, rows, cols);
  }
}

}  // namespace ch06
