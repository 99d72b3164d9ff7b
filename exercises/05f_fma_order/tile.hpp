// Exercise 05f's definitions, shared by the student's file, the grader's entries and the
// checker: one thread's outer product and its registers, and the orders the tests name.
// Not the student's to edit.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ex05f {

// A thread's outer product of TM values of A and TN values of B into TM x TN accumulators:
// TM * TN instructions  FFMA c(i,j), a(i), b(j), c(i,j)  (c(i,j) += a(i) * b(j)), whose source
// operands sit in slots 0 (a), 1 (b) and 2 (c). Register numbers, as ptxas might pick them:
struct Tile {
  int tm, tn;          // the fragments' lengths
  int a0, b0, c0;      // the first register of a, of b, of the accumulators
  bool c_by_columns;   // accumulators stored column after column instead of row after row
  int banks;           // register banks: register r lies in bank r % banks

  int a(int i) const { return a0 + i; }
  int b(int j) const { return b0 + j; }
  int c(int i, int j) const { return c0 + (c_by_columns ? j * tm + i : i * tn + j); }
};

// An order is a list of the TM * TN cells, cell i * tn + j standing for FFMA (i, j).
// The four the chapter names (warp_tile.cuh's outer_product is rows; 5_pipelined.cuh's
// outer_product_by_columns is serpentine columns):
enum Order { kRows = 0, kColumns = 1, kSerpentineRows = 2, kSerpentineColumns = 3 };

inline std::vector<int> named_order(int tm, int tn, int order) {
  if (order < kRows || order > kSerpentineColumns)
    throw std::invalid_argument("named_order: order 0..3");
  std::vector<int> cells;
  const bool byRows = order == kRows || order == kSerpentineRows;
  const bool serpentine = order == kSerpentineRows || order == kSerpentineColumns;
  const int outer = byRows ? tm : tn, inner = byRows ? tn : tm;
  for (int p = 0; p < outer; ++p)
    for (int q = 0; q < inner; ++q) {
      const int qq = serpentine && p % 2 == 1 ? inner - 1 - q : q;
      cells.push_back(byRows ? p * tn + qq : qq * tn + p);
    }
  return cells;
}

// A shuffled order for the tests, the same on every machine (a fixed linear congruential
// generator, Fisher-Yates).
inline std::vector<int> shuffled_order(int tm, int tn, std::uint32_t seed) {
  std::vector<int> cells;
  for (int k = 0; k < tm * tn; ++k) cells.push_back(k);
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (int k = tm * tn - 1; k > 0; --k) {
    x = x * 1664525u + 1013904223u;
    const int pick = int((x >> 8) % std::uint32_t(k + 1));
    const int keep = cells[size_t(k)];
    cells[size_t(k)] = cells[size_t(pick)];
    cells[size_t(pick)] = keep;
  }
  return cells;
}

}  // namespace ex05f
