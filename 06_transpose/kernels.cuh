// Chapter 06: matrix transpose, out = inᵀ (in is rows×cols row-major, out is cols×rows).
//
// What changed since chapter 05: the GEMM chapters were about REUSE (each byte of A and B
// feeds many FLOPs, so tiling cut the bytes). A transpose has no reuse and no arithmetic:
// every element is read once and written once, exactly the bytes of a copy. What is left
// to optimize is HOW the bytes move, and a copy of the same matrix is the ceiling.
// One file per step, read in order; `diff` of two consecutive steps shows one idea:
//
//   1_naive.cuh           transpose_naive      reads coalesced, writes with a stride of `rows`
//                                              floats: one 32-byte sector per lane
//   2_tiled.cuh           transpose_tiled      a TILE×TILE tile in shared memory: both sides
//                                              coalesced; a tile column hits one bank 32 times
//   3_padded.cuh          transpose_padded     tile[TILE][TILE + 1]: no bank conflict
//   float4.cuh            (load4, store4)      16-byte accesses, and when they are possible;
//                         (load1_line, ...)    loads that ask the L2 for whole lines (5, 6)
//   4_vec4.cuh            transpose_vec4       float4 on both sides, a swizzled tile, the
//                                              blocks' order (needs rows, cols multiples of 4)
//   5_sector_aligned.cuh  transpose_sector_    output rows cut at 32-byte sector boundaries,
//                         aligned              for output rows off the sectors
//   6_thin.cuh            transpose_thin       fewer than 64 rows or columns: chunks of whole
//                                              rows or columns through shared memory
//   7_dispatch.cuh        dispatch_transpose   the chapter's final launcher: picks one of the
//                                              above (or a copy) for each shape
//
// Every launcher takes any rows × cols ≥ 1 (the tile kernels up to 65,535 tiles along y, where
// tutorial::launch refuses the grid) but launch_vec4 (float4 shapes and pointers only) and
// launch_thin (thin matrices only), which refuse the rest with the reason; dispatch_transpose
// takes every shape. Every kernel guards each access and is launched through tutorial::launch.
#pragma once

#include "06_transpose/1_naive.cuh"
#include "06_transpose/2_tiled.cuh"
#include "06_transpose/3_padded.cuh"
#include "06_transpose/4_vec4.cuh"
#include "06_transpose/5_sector_aligned.cuh"
#include "06_transpose/6_thin.cuh"
#include "06_transpose/7_dispatch.cuh"
