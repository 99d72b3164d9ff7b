// Exercise 02a: the tiled GEMM kernel, for any TILE_WIDTH (chapter 02).
//
// A block of TILE_WIDTH x TILE_WIDTH threads computes one TILE_WIDTH x TILE_WIDTH tile of C.
// It walks K in phases; in each phase it copies one tile of A and one tile of B into shared
// memory (one element of each per thread), waits until both tiles are complete, lets every
// thread take TILE_WIDTH multiply-adds from shared memory, and waits again before the next
// phase overwrites the tiles.
//
// With K = 4 * TILE_WIDTH the block of tile row `by`, tile column `bx` runs 4 phases:
//
//              A (M x K)                          B (K x N)
//        +----+----+----+----+                  +----+
//   by   | p0 | p1 | p2 | p3 |  phase p copies  | p0 |  bx
//        +----+----+----+----+  A tile p -> As  +----+
//                               B tile p -> Bs  | p1 |
//                                               +----+
//                                               | p2 |
//                                               +----+
//                                               | p3 |
//                                               +----+
//
//   C tile (by, bx) = As(p0) Bs(p0) + As(p1) Bs(p1) + As(p2) Bs(p2) + As(p3) Bs(p3)
//
// Your task: write the body of tiled_gemm and the launcher's refusal of shapes the kernel
// cannot handle (this chapter's kernel has no bounds checks: M, N and K must be multiples of
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
  // TODO(02a): declare the two shared tiles As and Bs, then for each phase: copy one
  // element of each tile, __syncthreads(), accumulate TILE_WIDTH products in a
  // register, __syncthreads() again. Finally store the register to C.
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
