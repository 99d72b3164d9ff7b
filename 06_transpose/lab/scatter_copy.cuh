// Chapter 06, lab: a copy whose pieces are visited out of order (a diagnostic, not a transpose).
//
// A transpose's loads and stores are pieces of rows: a tile's side long on one side, a wave's
// worth of tiles on the other. These kernels ask how long a contiguous piece must be for DRAM to
// serve scattered pieces as fast as a stream: float4 accesses, four a thread (loads first), 16 KB
// a block, no shared memory and no barrier. The rows x cols floats are cut into pieces of PIECE4
// float4s; the blocks in launch order take position x = piece p, offset o, and the scattered side
// reads or writes piece (p * stride) mod pieces instead, stride about 0.62 x pieces and coprime
// with it, so the pieces a wave has in flight lie all over the matrix.
//   - SIDE = Read:  in[scattered] -> out[x]
//   - SIDE = Write: in[x] -> out[scattered]
//   - SIDE = Both:  in[scattered] -> out[scattered] (a true copy, in a scattered order)
// SCATTER = false runs the same kernel with stride 1, in order: the control. It differs from the
// scattered copies in the order and, in one respect, in the work: the 64-bit modulo takes a short
// 32-bit path while its operands fit 32 bits, as they always do in order (the copy kernel moves
// one float4 a thread and divides by nothing). Read and Write permute the floats, so the
// harness's check reports them WRONG; only their times mean anything. Shapes: rows x cols a
// multiple of 4 x 1024 and of 4 x PIECE4 floats, with 4 to 2^31 - 1 pieces.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>

#include "06_transpose/lab/pattern_copy.cuh"  // PatternSide
#include "common/launch.cuh"

namespace ch06lab {

constexpr int kScatterThreads = 256, kScatterItems = 4;  // 16 KB a block, as 4 float4 a thread

template <int PIECE4, PatternSide SIDE>
__global__ void __launch_bounds__(kScatterThreads)
    scatter_copy(const float4* __restrict__ in, float4* __restrict__ out, long long pieces,
                 long long stride) {
  const long long first = (long long)blockIdx.x * (kScatterThreads * kScatterItems);
  long long linear[kScatterItems], scattered[kScatterItems];
  float4 v[kScatterItems];
#pragma unroll
  for (int i = 0; i < kScatterItems; ++i) {
    const long long x = first + i * kScatterThreads + threadIdx.x;
    linear[i] = x;
    scattered[i] = (x / PIECE4 * stride) % pieces * PIECE4 + x % PIECE4;
  }
#pragma unroll
  for (int i = 0; i < kScatterItems; ++i)
    v[i] = in[SIDE == PatternSide::Write ? linear[i] : scattered[i]];
#pragma unroll
  for (int i = 0; i < kScatterItems; ++i)
    out[SIDE == PatternSide::Read ? linear[i] : scattered[i]] = v[i];
}

template <int PIECE4, PatternSide SIDE, bool SCATTER = true>
void launch_scatter_copy(const float* in, float* out, int rows, int cols) {
  const long long n4 = (long long)rows * cols / 4;
  constexpr long long kBlock4 = kScatterThreads * kScatterItems;
  // At least 4 pieces (at 2 or 3 the stride below would be 1: no scatter; at 4 and 6 it is
  // pieces - 1, a reversal); under 2^31, so that p * stride fits in 64 bits.
  if (rows < 1 || cols < 1 || (long long)rows * cols % 4 || n4 % kBlock4 || n4 % PIECE4 ||
      n4 / PIECE4 < 4 || n4 / PIECE4 >= (1LL << 31) || n4 / kBlock4 > INT_MAX ||
      reinterpret_cast<uintptr_t>(in) % 16 || reinterpret_cast<uintptr_t>(out) % 16)
    throw tutorial::UnsupportedShape("scatter_copy: " + std::to_string(rows) + "x" +
                                     std::to_string(cols) +
                                     " is not whole blocks and 4 or more pieces");
  const long long pieces = n4 / PIECE4;
  long long stride = (long long)(0.618 * double(pieces));
  while (std::gcd(stride, pieces) != 1) ++stride;  // ends by pieces - 1 at the latest
  if (!SCATTER) stride = 1;
  tutorial::launch(scatter_copy<PIECE4, SIDE>, dim3(unsigned(n4 / kBlock4)),
                   dim3(kScatterThreads), 0, reinterpret_cast<const float4*>(in),
                   reinterpret_cast<float4*>(out), pieces, stride);
}

}  // namespace ch06lab
