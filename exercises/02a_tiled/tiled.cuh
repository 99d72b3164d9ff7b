// Exercise 02a: a tiled GEMM for C = A B^T, for any TILE_WIDTH (chapter 02).
//
// Here B is stored by columns: the buffer B holds N rows of K floats, row n being column n of
// the product's right factor (B[n * K + k] is its element (k, n)). C = A B^T, so
// C[row][col] = sum over k of A[row][k] * B[col][k]. This is chapter 02's tiled kernel with
// a new B tile: a block of TILE_WIDTH x TILE_WIDTH threads computes one tile of C, walking K
// in phases; each phase copies a tile of A and a tile of B^T into shared memory, one element
// of each per thread, waits, multiplies, and waits again.
//
//        A (M x K)                    B (N x K, stored)
//   by  +----+----+----+         bx  +----+----+----+      C tile (by, bx) =
//       | p0 | p1 | p2 |  ...        | p0 | p1 | p2 |        As(p0) Bs(p0) + As(p1) Bs(p1) + ...
//       +----+----+----+             +----+----+----+      where Bs(p) holds the tile of B
//                                                          p transposed: Bs[k][n]
//
// Two rules of the chapter decide how B's tile is copied. Coalescing: the 32 lanes of a warp
// (consecutive threadIdx.x) should read consecutive addresses, here along a row of B, i.e.
// along k. Banks (README, "Shared memory's banks"): the inner loop's warp reads Bs[k][n] for
// consecutive n, so the tile must end up transposed in shared memory; a warp that writes a
// column of a TILE_WIDTH-wide array hits one bank 32 times, unless each row of the array is
// padded so that the column's words fall into different banks. The memory-model test counts
// both: every global access coalesced, every shared access conflict-free, at TILE_WIDTH 16
// and 32 (exercise 02b computes the padding a tile width needs).
//
// Your task: write the body of tiled_gemm and the launcher's refusal of shapes the kernel
// cannot handle (no bounds checks in this chapter: M, N and K must be multiples of
// TILE_WIDTH; throw tutorial::UnsupportedShape with a message that names TILE_WIDTH).
// Then delete the exercise::todo() line. Test with `make check` in this folder.
#pragma once

#include <string>

#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace ex02a {

// TILE_WIDTH: side of the tile of C a block computes, of the A and B tiles it stages in
// shared memory, and of the block itself (one thread per element of the tile).
template <int TILE_WIDTH>
__global__ void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  static_assert(TILE_WIDTH * TILE_WIDTH <= 1024,
                "one thread per element of the C tile, and a block holds at most 1024 threads");
  static_assert(TILE_WIDTH * TILE_WIDTH % 32 == 0,
                "TILE_WIDTH^2 must be a multiple of the warp size (32), or the last warp of "
                "every block runs partly empty");
  // TODO(02a): declare the two shared tiles As and Bs (Bs holding B's tile transposed),
  // then for each phase: copy one element of each tile (coalesced), __syncthreads(),
  // accumulate TILE_WIDTH products in a register, __syncthreads() again. Finally store
  // the register to C.
}

template <int TILE_WIDTH>
void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  exercise::todo("02a_tiled: write tiled_gemm and the shape check, then delete this line");
  const std::string name = "ex02a::tiled_gemm<" + std::to_string(TILE_WIDTH) + ">";
  tutorial::check_gemm_shape(name, M, N, K);
  // TODO(02a): refuse shapes tiled_gemm cannot handle (throw tutorial::UnsupportedShape).
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid(N / TILE_WIDTH, M / TILE_WIDTH);  // one block per tile of C (x: columns)
  tutorial::launch(tiled_gemm<TILE_WIDTH>, grid, block, 0, A, B, C, M, N, K);
}

}  // namespace ex02a
