// Exercise 02b: how shared memory limits occupancy (chapter 02). Host only: no GPU needed.
//
// An SM holds several blocks at once, as many as ALL of its limits allow:
//   threads:        at most max_threads resident threads (2048 on A100 and H100)
//   blocks:         at most max_blocks resident blocks   (32)
//   shared memory:  the blocks' shared memory must fit in smem_bytes (164 KB on A100)
// Occupancy is the resident threads over max_threads. The textbook example: a block of 256
// threads with 32 KB of shared memory uses 128 B per thread; 164 KB / 32 KB = 5 blocks =
// 1280 threads = 62.5% on an A100.
//
// This is the textbook model: registers are ignored, and so are the driver's 1 KB reserved per
// block and its allocation granularity (chapter 05's occupancy table uses the full model).
// threads_per_block is a multiple of 32.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace ex02b {

struct Sm {
  int max_threads;  // resident threads per SM
  int max_blocks;   // resident blocks per SM
  int smem_bytes;   // shared memory per SM usable by blocks
};

constexpr Sm kA100{2048, 32, 164 * 1024};
constexpr Sm kH100{2048, 32, 228 * 1024};

struct Block {
  int threads;     // threads per block (a multiple of 32)
  int smem_bytes;  // shared memory per block (static + dynamic)
};

// Which limit binds. When several bind at once, name the first of this list that does.
enum class Limit { DoesNotFit, SharedMemory, Threads, Blocks };

// Resident blocks per SM: the smallest of the three limits (0 when one block does not fit).
inline int blocks_per_sm(Block block, Sm sm) {
  return exercise::todo<int>("02b_occupancy: blocks_per_sm", block, sm);
}

// Resident threads over max_threads, 0..1.
inline double occupancy(Block block, Sm sm) {
  return exercise::todo<double>("02b_occupancy: occupancy", block, sm);
}

inline Limit limiter(Block block, Sm sm) {
  return exercise::todo<Limit>("02b_occupancy: limiter", block, sm);
}

// The most shared memory a block of `threads` threads may use while the SM still holds
// max_threads threads (100% occupancy), in bytes.
inline int max_smem_for_full_occupancy(int threads, Sm sm) {
  return exercise::todo<int>("02b_occupancy: max_smem_for_full_occupancy", threads, sm);
}

}  // namespace ex02b
