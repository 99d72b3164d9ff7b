// What the grader calls in exercise 01a (exercises/support/entry.hpp).
#include "exercises/01a_coalesce/coalesce.cuh"
#include "exercises/support/entry.hpp"

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {gemm_entry("naive_gemm", ex01a::launch_naive_gemm)};
  return list;
}
