// A copy of the repository's own code for exercise 03b (selftest/copies.py): the harness's
// occupancy calculator (common/occupancy.cpp, the CUDA runtime's model, and the inverse the
// checker used for largest_smem_for_blocks in exercises/support/host_references.cpp) re-typed
// under the exercise's names; most_registers, which no public function computes, as the stub
// has it. It must score no more than the stub.
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
  const int bytes = block.smem_bytes + sm.reserved_smem;
  return (bytes + kSmemUnit - 1) / kSmemUnit * kSmemUnit;
}

// The blocks the register file alone allows (0 when one block's warps need more registers
// than the SM has).
inline int blocks_by_registers(Block block, Sm sm) {
  const int warps = block.threads / 32;
  const int per_warp =
      (block.registers_per_thread * 32 + kRegisterUnit - 1) / kRegisterUnit * kRegisterUnit;
  const int warps_per_part = sm.registers / kSubPartitions / per_warp;
  return warps_per_part * kSubPartitions / warps;
}

// The shared memory the SM gives this kernel's blocks, in bytes: smem_bytes without a
// carveout; with one, carveout% of smem_bytes (rounded down to whole bytes, as
// carveout * smem_bytes / 100 in integers) rounded up to the next of smem_capacities(sm),
// unless one block's allocation (smem_allocated) does not fit in that: then the smallest
// capacity that holds one block (smem_bytes if none does).
inline int smem_per_sm(Block block, Sm sm) {
  if (block.carveout < 0) return sm.smem_bytes;
  const std::vector<int> capacities = smem_capacities(sm);
  const auto capacity_for = [&](int bytes) {
    for (int size : capacities)
      if (size >= bytes) return size;
    return sm.smem_bytes;
  };
  const int preferred = capacity_for(block.carveout * sm.smem_bytes / 100);
  const int allocated = smem_allocated(block, sm);
  return preferred >= allocated ? preferred : capacity_for(allocated);
}

// Resident blocks per SM: the smallest of the four limits (0 when one block does not fit).
inline int blocks_per_sm(Block block, Sm sm) {
  int blocks = sm.max_blocks;
  const int by_threads = sm.max_threads / block.threads;
  const int by_registers = blocks_by_registers(block, sm);
  const int allocated = smem_allocated(block, sm);
  const int by_smem = allocated > 0 ? smem_per_sm(block, sm) / allocated : sm.max_blocks;
  if (by_threads < blocks) blocks = by_threads;
  if (by_registers < blocks) blocks = by_registers;
  if (by_smem < blocks) blocks = by_smem;
  return blocks;
}

// Resident warps over the SM's maximum warps, 0..1.
inline double occupancy(Block block, Sm sm) {
  return double(blocks_per_sm(block, sm) * (block.threads / 32)) / (sm.max_threads / 32);
}

inline Limit limiter(Block block, Sm sm) {
  const int blocks = blocks_per_sm(block, sm);
  if (blocks == 0) return Limit::DoesNotFit;
  if (blocks == sm.max_threads / block.threads) return Limit::Threads;
  if (blocks == blocks_by_registers(block, sm)) return Limit::Registers;
  const int allocated = smem_allocated(block, sm);
  if (allocated > 0 && blocks == smem_per_sm(block, sm) / allocated) return Limit::SharedMemory;
  return Limit::Blocks;
}

// The most shared memory a block may ask for while `blocks` of them still fit in the SM's
// shared memory (the other limits aside, no carveout: all of smem_bytes), in bytes; -1 when not even `blocks` blocks that ask
// for none fit (their reservations alone are too much).
inline int largest_smem_for_blocks(int blocks, Sm sm) {
  const int per_block = sm.smem_bytes / blocks / kSmemUnit * kSmemUnit;
  return per_block >= sm.reserved_smem ? per_block - sm.reserved_smem : -1;
}

// The other way round (what a kernel's __launch_bounds__(threads, blocks) asks the compiler
// for): the most registers per thread, up to 255, at which the register file alone still holds
// `blocks` blocks of `threads` threads; 0 when not even 1 register per thread does.
inline int most_registers(int blocks, int threads, Sm sm) {
  return exercise::todo<int>("03b_occupancy: most_registers", blocks, threads, sm);
}

}  // namespace ex03b
