// What the grader calls in exercise 06b (exercises/support/entry.hpp): column_wavefronts(bytes,
// pitch, rows_apart), smallest_pitch(bytes, rows_apart), and swizzle_rows(chunks, rows_apart,
// r0): swizzled_position of every chunk of rows r0, r0 + rows_apart, ..., r0 + 7 rows_apart,
// row after row (what the checker verifies).
#include "exercises/06b_bank_conflicts/bank_conflicts.hpp"
#include "exercises/support/entry.hpp"

namespace {
using Args = std::vector<double>;
int i(const Args& a, size_t k) { return int(a.at(k)); }

Args swizzle_rows(const Args& a) {
  const int chunks = i(a, 0), apart = i(a, 1), r0 = i(a, 2);
  Args out;
  for (int j = 0; j < 8; ++j)
    for (int c = 0; c < chunks; ++c)
      out.push_back(ex06b::swizzled_position(r0 + j * apart, c, chunks, apart));
  return out;
}
}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {
      host_entry("column_wavefronts", [](const Args& a) {
        return Args{double(ex06b::column_wavefronts(i(a, 0), i(a, 1), i(a, 2)))};
      }),
      host_entry("smallest_pitch",
                 [](const Args& a) { return Args{double(ex06b::smallest_pitch(i(a, 0), i(a, 1)))}; }),
      host_entry("swizzle_rows", swizzle_rows),
  };
  return list;
}
