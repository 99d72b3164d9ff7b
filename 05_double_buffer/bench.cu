// Chapter 05 benchmarks: this chapter's kernels, chapter 04's best and cuBLAS (registered
// automatically) at each size, and the stream-K comparisons of the lab (lab/knobs.cuh).
#include "04_register_block/kernel_list.cuh"
#include "05_double_buffer/kernel_list.cuh"
#include "05_double_buffer/lab/knobs.cuh"
#include "common/bench_gemm.hpp"

int main(int argc, char** argv) {
  std::vector<tutorial::GemmKernel> kernels = ch05::chapter_kernels();
  kernels.insert(kernels.begin(), ch04::best_kernel());
  // stream_k_gemm with other shares of iterations (0 slots: one block per resident slot).
  using ch05lab::StreamKShare;
  kernels.push_back({"stream-K 128x128, last partial wave by iterations (at every size)",
                     ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 0>});
  constexpr StreamKShare TWO = StreamKShare::LastTwoWaves, NONE = StreamKShare::None;
  kernels.push_back({"stream-K 128x128, last two waves by iterations",
                     ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 0, TWO>});
  kernels.push_back({"stream-K 128x128, whole tiles only",
                     ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 0, NONE>});
  tutorial::register_gemm_benchmarks("05_double_buffer", kernels, {1024, 2048, 4096, 8192});
  return tutorial::benchmark_main(argc, argv);
}
