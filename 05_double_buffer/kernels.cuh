// Chapter 05: overlap the next tile's loads with the current tile's math, then organise the
// block by warps: from chapter 04's best kernel (vectorized_gemm) to cuBLAS's speed at large
// sizes. One file per step, read in order; `diff` of two consecutive steps shows one idea:
//
//   1_double_buffer.cuh  double_buffer_gemm  two shared buffers, one barrier per step: hardly
//                                            faster (loads still stall), and twice the shared
//                                            memory (fewer blocks where that limits)
//   2_prefetch.cuh       prefetch_gemm       the next tile in registers during the math
//   padding.cuh          (PAD_A)             the transposed A tile's padding (step 2 on)
//   warp_tile.cuh        (WarpLayout)        how a warp owns a piece of the block tile; the
//                                            fragment loads, the outer product, the store
//   3_warp_tiled.cuh     warp_tiled_gemm     threads laid out by warp: no bank conflicts
//   4_lean.cuh           lean_gemm           the load bookkeeping out of the main loop
//   5_pipelined.cuh      pipelined_gemm      fragments pipelined across the barrier, two tiles
//                                            per loop trip, FMAs by column: the chapter's one
//                                            main loop (product_over_k), which steps 6 and 7
//                                            run too; level with cuBLAS at 4096 and 8192
//                                            (warp_tiles.md)
//   6_any_shape.cuh      any_shape_gemm      the launch picks the tile (128 x 128, 64 x 64 or
//                                            32 x 128) and splits K into slices summed in a
//                                            fixed order when the tiles alone cannot fill the
//                                            GPU
//   7_stream_k.cuh       stream_k_gemm       the last, partly empty wave of a large problem
//                                            shared out by k-iterations (stream-K), partial
//                                            tiles summed in a fixed order
//   8_thin.cuh           thin_gemm           the shapes whose time is memory (short K, small M
//                                            or N, matrix-vector): tiles shaped like the
//                                            problem, every access coalesced at any alignment
//   9_planned.cuh        (planned_gemm)      every path is a candidate, three tiles more
//                                            (128 x 32, 64 x 128, 128 x 64); an estimate
//                                            (waves, FMAs, bytes) ranks them and the closest
//                                            are timed on a shape's first call
//                                            (common/chooser.hpp);
//                                            launch_planned_gemm: the chapter's final launcher
//   appendix_async.cuh   async_gemm          cp.async, 3 stages: measured, no faster here
//
// Every kernel is correct for any M, N, K >= 1, as in chapter 04: out-of-range elements of A
// and B reach the shared tiles as zeros (async_gemm: see its comment) and stores outside C are
// skipped; the VEC = false variants (chosen by the launchers when K % 4 or N % 4 is not 0, or a
// pointer is not 16-byte aligned) move 4 bytes at a time instead of 16 (the 8 x 4-lane tiles of
// steps 6 and 9 move 8 at a time where the rows start on 8 bytes: tutorial::load_4_floats, and
// the 64 x 64 and 32 x 128 tiles copy a narrow B with cp.async; thin_gemm moves 4 bytes at a time
// always, and coalesces them).
#pragma once

#include "05_double_buffer/1_double_buffer.cuh"
#include "05_double_buffer/2_prefetch.cuh"
#include "05_double_buffer/3_warp_tiled.cuh"
#include "05_double_buffer/4_lean.cuh"
#include "05_double_buffer/5_pipelined.cuh"
#include "05_double_buffer/6_any_shape.cuh"
#include "05_double_buffer/7_stream_k.cuh"
#include "05_double_buffer/8_thin.cuh"
#include "05_double_buffer/9_planned.cuh"
#include "05_double_buffer/appendix_async.cuh"
