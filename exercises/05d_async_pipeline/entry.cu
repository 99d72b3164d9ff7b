// What the grader calls in exercise 05d (exercises/support/entry.hpp): <STAGES>.
#include "exercises/05d_async_pipeline/pipeline.cuh"
#include "exercises/support/entry.hpp"

const std::vector<exercise::Entry>& exercise::entries() {
  static const std::vector<Entry> list = {
      gemm_entry("pipelined_gemm<2>", ex05d::launch_pipelined_gemm<2>),
      gemm_entry("pipelined_gemm<3>", ex05d::launch_pipelined_gemm<3>),
      gemm_entry("pipelined_gemm<4>", ex05d::launch_pipelined_gemm<4>),
  };
  return list;
}
