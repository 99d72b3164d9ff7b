// Exercise 03b: occupancy as CUDA's occupancy calculator computes it (chapter 03). Host only:
// no GPU needed.
//
// An SM holds as many blocks at once as ALL of its limits allow:
//   threads:        at most max_threads resident threads (2048 on A100 and H100)
//   blocks:         at most max_blocks resident blocks   (32)
//   registers:      each warp gets registers_per_thread × 32 registers, rounded up to a
//                   multiple of 256; the register file (65,536) is split into 4 equal
//                   sub-partitions and a warp lives in one of them, so each sub-partition
//                   holds floor((registers / 4) / per-warp registers) warps, and the SM
//                   4 times that; a block's warps must all be resident;
//   shared memory:  the driver adds a reservation (1 KB per block from compute capability 8.0
//                   on) to what the block asks for and allocates in units of 128 bytes; the
//                   blocks' allocations must fit in the shared memory the SM gives this
//                   kernel (smem_per_sm below).
// Occupancy is the resident warps over the SM's maximum warps (max_threads / 32).
//
// The carveout. L1 and shared memory are one array per SM, split per kernel. A kernel may
// state a preference, the carveout: P% of the SM's largest shared memory (smem_bytes; 164 KB
// on an A100, 228 KB on an H100), set with cudaFuncSetAttribute(kernel,
// cudaFuncAttributePreferredSharedMemoryCarveout, P). The SM can only be split into a few
// capacities (smem_capacities below), so P% is rounded UP to the next one; if one block's
// allocation does not fit in that, the SM takes the smallest capacity that holds one block.
// Without a preference (carveout -1) the kernel's blocks may use all of smem_bytes.
// Example: chapter 03's tiled_gemm<8> (64 threads, 512 B: 1,536 B allocated) at carveout 0
// on an H100: 0 KB does not hold one block, the smallest capacity that does is 8 KB, and
// 8,192 / 1,536 = 5 blocks, where the kernel alone would allow 32.
//
// The textbook example, a block of 256 threads with 32 KB of shared memory on an A100, gives
// 164 KB / 32 KB = 5 blocks = 62.5% when the reservation is forgotten; the GPU runs 4 blocks,
// 50%. The chapter's calculator (common/occupancy.hpp) is this model, the rule of CUDA's own
// occupancy calculator (cuda_occupancy.h); chapter 03's GPU tests check it against the CUDA
// runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor, with carveouts of 0, 25 and 100%.
//
// threads is a multiple of 32 from 32 to 1024; registers_per_thread from 1 to 255. An SM may
// have no reservation (compute capability 7.x: reserved_smem = 0): then a block that asks for
// no shared memory is not limited by it.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

#include <vector>

#include "exercises/support/exercise.hpp"

namespace ex03b {

struct Sm {
  int max_threads;    // resident threads per SM
  int max_blocks;     // resident blocks per SM
  int registers;      // 32-bit registers per SM (also the most one block may use)
  int smem_bytes;     // shared memory per SM usable by blocks, reservations included
  int reserved_smem;  // the driver's reservation per block, bytes
};

constexpr int kRegisterUnit = 256;  // registers are allocated per warp in multiples of this
constexpr int kSmemUnit = 128;      // shared memory is allocated per block in multiples of this
constexpr int kSubPartitions = 4;   // the register file is split into this many equal parts

constexpr Sm kA100{2048, 32, 65536, 164 * 1024, 1024};
constexpr Sm kH100{2048, 32, 65536, 228 * 1024, 1024};

struct Block {
  int threads;               // threads per block (a multiple of 32)
  int registers_per_thread;  // from the compiler (ptxas -v, or cudaFuncGetAttributes)
  int smem_bytes;            // shared memory the block asks for (static + dynamic)
  int carveout = -1;         // the kernel's carveout preference, 0..100 (% of the SM's
                             // smem_bytes); -1: none
};

// Given: the capacities (bytes, smallest first) an SM's shared memory can be set to, for the
// SM sizes of the tests (the CUDA C++ Programming Guide, "Shared Memory" of each compute
// capability); an SM of another size has one capacity, its smem_bytes.
inline std::vector<int> smem_capacities(Sm sm) {
  std::vector<int> kb;
  if (sm.smem_bytes == 64 * 1024) kb = {32, 64};                            // Turing (7.5)
  else if (sm.smem_bytes == 100 * 1024) kb = {0, 8, 16, 32, 64, 100};       // 8.6, 8.9, 12.x
  else if (sm.smem_bytes == 164 * 1024) kb = {0, 8, 16, 32, 64, 100, 132, 164};   // A100
  else if (sm.smem_bytes == 228 * 1024) kb = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};  // H100
  else return {sm.smem_bytes};
  for (int& size : kb) size *= 1024;
  return kb;
}

// Which limit binds. When several bind at once, name the first of this list that does.
enum class Limit { DoesNotFit, Threads, Registers, SharedMemory, Blocks };

// The shared memory the driver sets aside for one block: the request plus the reservation,
// rounded up to a multiple of kSmemUnit.
inline int smem_allocated(Block block, Sm sm) {
  return exercise::todo<int>("03b_occupancy: smem_allocated", block, sm);
}

// The blocks the register file alone allows (0 when one block's warps need more registers
// than the SM has).
inline int blocks_by_registers(Block block, Sm sm) {
  return exercise::todo<int>("03b_occupancy: blocks_by_registers", block, sm);
}

// The shared memory the SM gives this kernel's blocks, in bytes: smem_bytes without a
// carveout; with one, carveout% of smem_bytes (rounded down to whole bytes, as
// carveout * smem_bytes / 100 in integers) rounded up to the next of smem_capacities(sm),
// unless one block's allocation (smem_allocated) does not fit in that: then the smallest
// capacity that holds one block (smem_bytes if none does).
inline int smem_per_sm(Block block, Sm sm) {
  return exercise::todo<int>("03b_occupancy: smem_per_sm", block, sm);
}

// Resident blocks per SM: the smallest of the four limits (0 when one block does not fit).
inline int blocks_per_sm(Block block, Sm sm) {
  return exercise::todo<int>("03b_occupancy: blocks_per_sm", block, sm);
}

// Resident warps over the SM's maximum warps, 0..1.
inline double occupancy(Block block, Sm sm) {
  return exercise::todo<double>("03b_occupancy: occupancy", block, sm);
}

inline Limit limiter(Block block, Sm sm) {
  return exercise::todo<Limit>("03b_occupancy: limiter", block, sm);
}

// The most shared memory a block may ask for while `blocks` of them still fit in the SM's
// shared memory (the other limits aside, no carveout: all of smem_bytes), in bytes; -1 when not even `blocks` blocks that ask
// for none fit (their reservations alone are too much).
inline int largest_smem_for_blocks(int blocks, Sm sm) {
  return exercise::todo<int>("03b_occupancy: largest_smem_for_blocks", blocks, sm);
}

// The other way round (what a kernel's __launch_bounds__(threads, blocks) asks the compiler
// for): the most registers per thread, up to 255, at which the register file alone still holds
// `blocks` blocks of `threads` threads; 0 when not even 1 register per thread does.
inline int most_registers(int blocks, int threads, Sm sm) {
  return exercise::todo<int>("03b_occupancy: most_registers", blocks, threads, sm);
}

}  // namespace ex03b
