// Chapter 06, lab: one side of a transpose at a time (a diagnostic, not a transpose).
//
// Step 5's tile reads TR input rows × TC columns (a TC-float piece of each row, a matrix pitch
// apart) and writes TC output rows × TR columns. These kernels copy the same bytes with one side
// in the tile's order and the other in a plain stream, so that a profile can tell which side's
// addresses hold a transpose below the copy kernel:
//   - SIDE = Read:  in[(R0 + j) * cols + C0 + c] → out[block's span + j * TC + c]
//   - SIDE = Write: in[block's span + c * TR + j] → out[(C0 + c) * rows + R0 + j]
//   - SIDE = Both:  each side in the tile's order, a thread's i-th load stored as its i-th store
//     (the tile's addresses on both sides without shared memory or a barrier)
// A warp moves 32 consecutive floats of one row on the tile's side (a block TC of each input row
// on the read side, TR of each output row on the write side). Step 5's 7 extra rows and its
// sector shift are not reproduced: this is the plain TR × TC tile's addresses.
// The block's span is its TR × TC floats, the blocks in launch order. Only whole tiles are moved
// (the last partial band and column block are not), and the output is no transpose: the
// harness's check reports these rows WRONG, and only their times mean anything. Every load of a
// thread is issued before its first store, as in step 5. Block order: groups of GROUP bands;
// within a group consecutive blocks take consecutive bands, then the next column block.
// GROUP = all bands is step 5's output order, GROUP = 1 the input's order (consecutive blocks
// take consecutive column blocks of one band); between them the blocks running at once cover a
// patch about GROUP bands tall.
#pragma once

#include <climits>
#include <cstddef>
#include <string>

#include "common/launch.cuh"

namespace ch06lab {

enum class PatternSide { Read, Write, Both };

template <int TR, int TC, int THREADS, PatternSide SIDE>
__global__ void __launch_bounds__(THREADS)
    pattern_copy(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                 int bands, int group) {
  static_assert((TR * TC) % THREADS == 0 && THREADS % 32 == 0, "whole items a thread");
  constexpr int ITEMS = TR * TC / THREADS;
  const int colBlocks = cols / TC;
  const long long b = blockIdx.x;
  const long long first = b / ((long long)group * colBlocks) * group;  // the group's first band
  const int tall = bands - first < group ? int(bands - first) : group;  // its bands
  const long long r = b - first * colBlocks;
  const int band = int(first + r % tall), colBlock = int(r / tall);
  const size_t span = (size_t)b * (TR * TC);
  const size_t R0 = (size_t)band * TR, C0 = (size_t)colBlock * TC;
  float v[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int item = threadIdx.x + i * THREADS;
    if (SIDE != PatternSide::Write) {  // the tile's reads: TC floats of each of TR input rows
      const int j = item / TC, c = item % TC;
      v[i] = in[(R0 + j) * cols + C0 + c];
    } else {  // a warp reads consecutive floats of the block's span
      v[i] = in[span + item];
    }
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int item = threadIdx.x + i * THREADS;
    if (SIDE == PatternSide::Read) {
      out[span + item] = v[i];
    } else {  // the tile's writes: TR floats of each of TC output rows (Write and Both)
      const int c = item / TR, j = item % TR;
      out[(C0 + c) * rows + R0 + j] = v[i];
    }
  }
}

// GROUP 0: every band in one group (step 5's output order).
template <int TR, int TC, int THREADS, PatternSide SIDE, int GROUP = 0>
void launch_pattern_copy(const float* in, float* out, int rows, int cols) {
  const int bands = rows / TR, colBlocks = cols / TC;
  if (bands < 1 || colBlocks < 1 || (long long)bands * colBlocks > INT_MAX)
    throw tutorial::UnsupportedShape("pattern_copy: " + std::to_string(rows) + "x" +
                                     std::to_string(cols) + " has no whole tile or too many");
  const int group = GROUP == 0 || GROUP > bands ? bands : GROUP;
  tutorial::launch(pattern_copy<TR, TC, THREADS, SIDE>, dim3(bands * colBlocks), dim3(THREADS),
                   0, in, out, rows, cols, bands, group);
}

}  // namespace ch06lab

namespace ch06lab {

// Both sides in the order of an S × S supertile shared by S / H blocks (the addresses a cluster
// of S / H blocks would touch if it transposed an S × S tile through distributed shared memory):
// block k of a supertile at input rows SR0, columns SC0 reads input rows SR0 + k H .. + H - 1,
// columns SC0 .. SC0 + S - 1 (S floats a row), and writes output rows SC0 + k H .. + H - 1,
// columns SR0 .. SR0 + S - 1 (S floats a row). The S / H blocks of a supertile are consecutive in
// launch order; supertiles follow each other down a column of supertiles (INPUT_ORDER false, the
// output's order) or along a row of them (true). Each output float of the whole supertiles is
// written once, but not with its transposed input: a diagnostic, reported WRONG like the others.
// A thread moves ITEMS floats at a time (loads, then stores), H * S / (THREADS * ITEMS) times.
template <int S, int H, int THREADS, int ITEMS, bool INPUT_ORDER>
__global__ void __launch_bounds__(THREADS)
    pattern_super(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  static_assert(S % H == 0 && (H * S) % (THREADS * ITEMS) == 0, "whole passes");
  constexpr int PASSES = H * S / (THREADS * ITEMS), PER = S / H;
  const long long t = blockIdx.x / PER;
  const int k = blockIdx.x % PER;
  const int down = rows / S, across = cols / S;
  const long long sr = INPUT_ORDER ? t / across : t % down;
  const long long sc = INPUT_ORDER ? t % across : t / down;
  const size_t inRow0 = size_t(sr) * S + size_t(k) * H, inCol0 = size_t(sc) * S;
  const size_t outRow0 = size_t(sc) * S + size_t(k) * H, outCol0 = size_t(sr) * S;
  for (int p = 0; p < PASSES; ++p) {
    float v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int item = (p * ITEMS + i) * THREADS + threadIdx.x;
      v[i] = in[(inRow0 + item / S) * cols + inCol0 + item % S];
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int item = (p * ITEMS + i) * THREADS + threadIdx.x;
      out[(outRow0 + item / S) * rows + outCol0 + item % S] = v[i];
    }
  }
}

template <int S, int H, int THREADS, int ITEMS, bool INPUT_ORDER>
void launch_pattern_super(const float* in, float* out, int rows, int cols) {
  const long long blocks = (long long)(rows / S) * (cols / S) * (S / H);
  if (blocks < 1 || blocks > INT_MAX)
    throw tutorial::UnsupportedShape("pattern_super: " + std::to_string(rows) + "x" +
                                     std::to_string(cols) + " has no whole supertile or too many");
  tutorial::launch(pattern_super<S, H, THREADS, ITEMS, INPUT_ORDER>, dim3(unsigned(blocks)),
                   dim3(THREADS), 0, in, out, rows, cols);
}

}  // namespace ch06lab
