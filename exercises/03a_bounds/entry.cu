// What the grader calls in exercise 03a (exercises/support/entry.hpp).
#include "exercises/03a_bounds/bounds.cuh"
#include "exercises/support/entry.hpp"

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {
      gemm_entry("tiled_gemm<8>", ex03a::launch_tiled_gemm<8>),
      gemm_entry("tiled_gemm<16>", ex03a::launch_tiled_gemm<16>),
      gemm_entry("tiled_gemm<32>", ex03a::launch_tiled_gemm<32>),
  };
  return list;
}
