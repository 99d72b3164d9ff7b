// Exercise 05f: the order of an outer product's FMAs and the register banks (chapter 05,
// warp_tiles.md, "the last tenth"). Host only: no GPU needed.
//
// The model behind the chapter's bank_count.py (Jia et al., 2018, measured banks and the reuse
// cache on Volta; NVIDIA documents neither for later GPUs, so it is a model, not a law):
//   * the register file has `banks` banks, register r in bank r % banks; an FFMA reads its
//     source registers from their banks, one register per bank per cycle. The chapter says
//     two reads from one bank cost a cycle; this exercise extends it: k reads from one bank
//     wait k - 1 extra cycles (the busiest bank decides; a register named twice is read once);
//   * the operand reuse cache: the register the PREVIOUS FFMA named in the SAME slot (whether
//     the file or the cache gave it to that FFMA) is not read again; ptxas marks it `.reuse`
//     on the previous FFMA's operand. Only the previous instruction counts.
// So an FFMA (i, j) after one in the same row, (i, j'), reuses a(i) and reads b(j) and c(i,j);
// after one in the same column it reuses b(j); after any other (or first) it reads all three.
//
//   The chapter's 8 x 8 tile, a in R0..R7, b in R8..R15, c in R16..R79 by rows, 2 banks:
//   rows: each of the 56 steps along a row reads b(j) and c(i,j), both of j's parity: 1 cycle
//         each; each row's first FFMA reads a(i), b(0), c(i,0): all even for even i (2 cycles),
//         one odd for odd i (1): 56 + 4 * 2 + 4 * 1 = 68 cycles.
//   serpentine columns: a step along a column reads a(i) = Ri and c(i,j) = R(16 + 8i + j), one
//         bank when i and j have the same parity: 3 of each column's 7 steps (24); the 7 turns
//         to the next column step along a row (1 each); the first FFMA reads R0, R8, R16 (2):
//         24 + 7 + 2 = 33 cycles, about half of rows' 68.
// The tile.hpp header defines Tile (the registers) and the four named orders.
//
// Your task: paid_cycles() of any order, and fma_order(): an order of the TM x TN FFMAs that
// pays no more cycles than the cheapest of the four named orders (rows, columns, and their
// serpentines) for the tile's registers. The chapter's choice is not always that one: count.
// Test with `make check` in this folder.
#pragma once

#include <vector>

#include "exercises/05f_fma_order/tile.hpp"
#include "exercises/support/exercise.hpp"

namespace ex05f {

// The extra cycles the FFMAs of `cells` (an order of the tile's cells, i * tn + j each) wait
// for their register banks, summed.
inline int paid_cycles(const Tile& t, const std::vector<int>& cells) {
  return exercise::todo<int>("05f_fma_order: paid_cycles", t.tm, cells.size());
}

// An order of all TM * TN cells, each once, paying no more than the cheapest named order.
inline std::vector<int> fma_order(const Tile& t) {
  return exercise::todo<std::vector<int>>("05f_fma_order: fma_order", t.tm, t.tn);
}

}  // namespace ex05f
