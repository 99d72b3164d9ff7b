// Exercise 05a: the double-buffered main loop, for C = A^T B (chapter 05).
//
// Here A is stored transposed: the buffer A holds K rows of M floats (A[k * M + m] is element
// (m, k) of the product's left factor), and C = A^T B. Its tile is loaded as float4 along m,
// As[k][m] as it lies in memory: no transpose on the way to shared memory (chapter 05's kernel
// transposes A there; this one need not).
//
// Chapter 04's kernel alternates   load tile -> barrier -> compute -> barrier,   so while a
// block waits for global memory it computes nothing. With two shared buffers and the next
// tile staged in registers, the wait hides behind the math:
//
//   step t:  loadNext(tile t+1)      global -> registers; the loads are in flight ...
//            computeTile(t % 2)      ... while the block multiplies the current buffer,
//            storeNext((t+1) % 2)    registers -> the OTHER buffer,
//            __syncthreads()         ONE barrier per step (chapter 04 needed two).
//
// Everything except the main loop is written for you: the lambdas loadNext, storeNext and
// computeTile, the accumulators and the final store.
//
// Your task: first answer why one barrier per step is enough, with the two functions of
// "Why one barrier" below (a test checks them); then the main loop, including the first tile
// before it (load, store into buffer 0, barrier), and delete the exercise::todo() line.
// Test with `make check` in this folder.
#pragma once

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "common/vector_access.cuh"  // load_float4, store_float4, starts_on_16_bytes
#include "exercises/support/exercise.hpp"

namespace ex05a {

using tutorial::load_float4;
using tutorial::store_float4;

// ---- Why one barrier: your answer, checked by a test ----------------------------------
// Number the main loop's steps t = 0, 1, 2, ... With `buffers` shared buffers (this kernel
// has 2), step t computes from buffer t % buffers, stores the next tile into buffer
// (t + 1) % buffers, and ends at its barrier. Answer for any number of buffers >= 1.

// The step whose computeTile last read the buffer that step t's storeNext overwrites, or -1
// if no step has read that buffer yet. A barrier must lie between that read and the store:
// which one is it, and is there one at all when the answer is t itself?
inline int last_read_step(int t, int buffers) {
  return exercise::todo<int>("05a_double_buffer: last_read_step", t, buffers);
}

// The fewest __syncthreads() per step that keep every tile stored before any thread reads it
// and every buffer read by all threads before any thread overwrites it.
inline int barriers_per_step(int buffers) {
  return exercise::todo<int>("05a_double_buffer: barriers_per_step", buffers);
}

// Rows of the A tile are BM + PAD_A floats apart; each row still starts on 16 bytes.
constexpr int PAD_A = 4;

// BM x BN block tile, BK deep k step, TM x TN results per thread; VEC: 16-byte global
// accesses (the launcher picks it when rows are 16-byte aligned: M % 4 == 0 for the stored A,
// N % 4 == 0 for B and C).
template <int BM, int BN, int BK, int TM, int TN, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    prefetch_gemm(const float* __restrict__ A, const float* __restrict__ B,
                  float* __restrict__ C, int M, int N, int K) {
  static_assert(BM % TM == 0 && BN % TN == 0,
                "a thread owns a whole TM x TN tile: BM and BN must be multiples of TM and TN");
  static_assert(TM % 4 == 0 && TN % 4 == 0,
                "a thread reads its TM values of A and TN values of B as float4");
  static_assert(BM % 4 == 0 && BN % 4 == 0,
                "tiles are loaded as float4 along m (the stored A) and along n (B)");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024,
                "(BM/TM)*(BN/TN) threads must be whole warps and at most 1024 per block");
  static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                "the float4 counts of the A and B tiles must be multiples of the thread count");
  constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of A per thread per tile
  constexpr int B_LOADS = BK * BN / 4 / THREADS;

  __shared__ alignas(16) float As[2][BK][BM + PAD_A];  // (2, BK, BM+PAD_A): As[k][m]
  __shared__ alignas(16) float Bs[2][BK][BN];          // (2, BK, BN)

  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);

  // The tile starting at tileK, global -> registers (zeros outside A and B).
  float4 nextA[A_LOADS];
  float4 nextB[B_LOADS];
  auto loadNext = [&](int tileK) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextA[i] = load_float4<VEC>(A, tileK + idx / (BM / 4), blockRow + idx % (BM / 4) * 4, K, M);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      nextB[i] = load_float4<VEC>(B, tileK + idx / (BN / 4), blockCol + idx % (BN / 4) * 4, K, N);
    }
  };
  // Registers -> shared buffer `stage`, both tiles as they lie in memory.
  auto storeNext = [&](int stage) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      *reinterpret_cast<float4*>(&As[stage][idx / (BM / 4)][idx % (BM / 4) * 4]) = nextA[i];
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = threadIdx.x + i * THREADS;
      *reinterpret_cast<float4*>(&Bs[stage][idx / (BN / 4)][idx % (BN / 4) * 4]) = nextB[i];
    }
  };
  // regC += this thread's share of the product of shared buffer `stage`.
  float regC[TM][TN] = {};
  auto computeTile = [&](int stage) {
    float regM[TM];
    float regN[TN];
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 a =
            *reinterpret_cast<const float4*>(&As[stage][k][threadRow * TM + i]);  // (2, BK, BM+PAD_A)
        regM[i + 0] = a.x;
        regM[i + 1] = a.y;
        regM[i + 2] = a.z;
        regM[i + 3] = a.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b =
            *reinterpret_cast<const float4*>(&Bs[stage][k][threadCol * TN + j]);  // (2, BK, BN)
        regN[j + 0] = b.x;
        regN[j + 1] = b.y;
        regN[j + 2] = b.z;
        regN[j + 3] = b.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) regC[i][j] += regM[i] * regN[j];
    }
  };

  // TODO(05a): load tile 0 into buffer 0 and wait; then for each tileK: start loading the
  // next tile, compute the current buffer, store the next tile into the other buffer,
  // one __syncthreads(), switch buffers.
  (void)loadNext, (void)storeNext, (void)computeTile;  // delete this line

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      store_float4<VEC>(C, row, blockCol + threadCol * TN + j, M, N,
                        make_float4(regC[i][j], regC[i][j + 1], regC[i][j + 2], regC[i][j + 3]));
  }
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_prefetch_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("05a_double_buffer: write the main loop of prefetch_gemm, then delete this line");
  tutorial::check_gemm_shape("ex05a::prefetch_gemm", M, N, K);
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM));
  // 16-byte rows: M floats for the stored A, N for B and C.
  if (M % 4 == 0 && N % 4 == 0 && tutorial::starts_on_16_bytes(A) &&
      tutorial::starts_on_16_bytes(B) && tutorial::starts_on_16_bytes(C))
    tutorial::launch(prefetch_gemm<BM, BN, BK, TM, TN, true>, grid, block, 0, A, B, C, M, N, K);
  else
    tutorial::launch(prefetch_gemm<BM, BN, BK, TM, TN, false>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ex05a
