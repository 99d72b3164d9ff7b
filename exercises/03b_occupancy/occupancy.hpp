// Exercise 03b: occupancy as the GPU computes it (chapter 03). Host only: no GPU needed.
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
//                   blocks' allocations must fit in smem_bytes (164 KB on an A100, 228 KB on
//                   an H100).
// Occupancy is the resident warps over the SM's maximum warps (max_threads / 32).
//
// The textbook example, a block of 256 threads with 32 KB of shared memory on an A100, gives
// 164 KB / 32 KB = 5 blocks = 62.5% when the reservation is forgotten; the GPU runs 4 blocks,
// 50%. The chapter's calculator (common/occupancy.hpp) is this model; chapter 03's GPU tests
// check it against the CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor.
//
// threads is a multiple of 32 from 32 to 1024; registers_per_thread from 1 to 255. An SM may
// have no reservation (compute capability 7.x: reserved_smem = 0): then a block that asks for
// no shared memory is not limited by it.
//
// Your task: the functions below. Test with `make check` in this folder.
#pragma once

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
};

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
// shared memory (the other limits aside), in bytes; -1 when not even `blocks` blocks that ask
// for none fit (their reservations alone are too much).
inline int largest_smem_for_blocks(int blocks, Sm sm) {
  return exercise::todo<int>("03b_occupancy: largest_smem_for_blocks", blocks, sm);
}

}  // namespace ex03b
