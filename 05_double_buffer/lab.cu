// Chapter 05's comparisons behind the plan of step 9 (lab/LOG.md, "Shapes nobody listed"): each
// path forced, at the slice count the plan would give it and at 3x and 1/3 of that, beside
// the final launchers, so that one process times them all against cuBLAS:
//     05_double_buffer_lab --m 3622 --n 4500 --k 11 --kernel planned --kernel thin
// Not built by default (`cmake --build build --target 05_double_buffer_lab`).
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "05_double_buffer/kernel_list.cuh"
#include "common/chapter_main.hpp"

namespace {

using ch05::GemmPath;
using ch05::GemmPlan;

std::string describe(const GemmPlan& p) {
  const char* paths[] = {"tiles", "stream-K", "thin"};
  return std::string(paths[int(p.path)]) + " tile " + std::to_string(p.tile) + " thin " +
         std::to_string(int(p.thin)) + " S " + std::to_string(p.slices) + " clocks " +
         std::to_string(long(p.clocks));
}

// PATH forced (and its tile WHICH), slices scaled by NUM / DEN from the plan's best for it.
template <GemmPath PATH, int WHICH, int NUM, int DEN>
void forced(const float* A, const float* B, float* C, int M, int N, int K) {
  auto allowed = [](const GemmPlan& p) {
    if (p.path != PATH) return false;
    if (PATH == GemmPath::Tiles) return p.tile == WHICH;
    if (PATH == GemmPath::Thin) return int(p.thin) == WHICH;
    return true;
  };
  const tutorial::VecOperands vec = tutorial::vec_operands(A, B, C, N, K);
  GemmPlan p = ch05::cheapest_plan(M, N, K, ch05::current_gpu_model(), vec, allowed);
  if (p.clocks < 0) throw tutorial::UnsupportedShape("lab: the plan does not consider this path here");
  p.slices = std::max(1, std::min(ch05::kMaxPlanSlices, p.slices * NUM / DEN));
  static bool told = false;
  if (!told) {
    std::fprintf(stderr, "lab-plan %d %d %d forced %d/%d x%d/%d: %s\n", M, N, K, int(PATH), WHICH,
                 NUM, DEN, describe(p).c_str());
    told = true;
  }
  ch05::run_gemm_plan(p, A, B, C, M, N, K);
}

// The final launcher (on a GPU: the shortlist timed on the first call), then the plan it took.
void planned(const float* A, const float* B, float* C, int M, int N, int K) {
  ch05::launch_planned_gemm(A, B, C, M, N, K);
  static bool told = false;
  if (!told) {
    const tutorial::VecOperands vec = tutorial::vec_operands(A, B, C, N, K);
    const ch05::GemmPlan p = ch05::cached_plan(M, N, K, vec, ch05::kDefaultPlanChoice, A, B, C);
    const int listed = ch05::shortlist(M, N, K, ch05::current_gpu_model(), vec).count;
    std::fprintf(stderr, "lab-plan %d %d %d planned: %s (shortlist of %d)\n", M, N, K,
                 describe(p).c_str(), listed);
    told = true;
  }
}

// The plan by the estimate alone (step 9 before the shortlist was timed).
void estimated(const float* A, const float* B, float* C, int M, int N, int K) {
  static bool told = false;
  if (!told) {
    std::fprintf(stderr, "lab-plan %d %d %d estimated: %s\n", M, N, K,
                 describe(ch05::plan_gemm(M, N, K, ch05::current_gpu_model(),
                                          tutorial::vec_operands(A, B, C, N, K)))
                     .c_str());
    told = true;
  }
  ch05::launch_estimated_gemm(A, B, C, M, N, K);
}

template <GemmPath PATH, int WHICH>
void add_three(std::vector<tutorial::GemmKernel>& kernels, const std::string& name) {
  kernels.push_back({name + " x1", forced<PATH, WHICH, 1, 1>});
  kernels.push_back({name + " x3", forced<PATH, WHICH, 3, 1>});
  kernels.push_back({name + " /3", forced<PATH, WHICH, 1, 3>});
}

// thin_gemm's 512 x 16 tile at each slice count S, named "thinN16 S02", "thinN16 S03", ...
template <int... S>
void add_thin_slices(std::vector<tutorial::GemmKernel>& kernels, std::integer_sequence<int, S...>) {
  (kernels.push_back({std::string("thinN16 S") + (S < 10 ? "0" : "") + std::to_string(S),
                      ch05::launch_thin_gemm<ch05::ThinShape::SmallN16, S>}),
   ...);
}

std::vector<tutorial::GemmKernel> lab_kernels() {
  std::vector<tutorial::GemmKernel> k = {
      {"final7 stream-K + any_shape", ch05::launch_stream_k_gemm},
      {"planned", planned},
      {"estimated", estimated},
      {"any_shape", ch05::launch_any_shape_gemm},
      {"tiles128 S1", ch05::launch_sliced_gemm<128, 128, 16, 32, 64, 8, 8, 1>},
      {"streamK forced", forced<GemmPath::StreamK, 0, 1, 1>},
  };
  add_three<GemmPath::Tiles, 0>(k, "T128");
  add_three<GemmPath::Tiles, 1>(k, "T64");
  add_three<GemmPath::Tiles, 2>(k, "T32x128");
  add_three<GemmPath::Tiles, ch05::kTallTile>(k, "T128x32");
  add_three<GemmPath::Tiles, ch05::kHalfRowsTile>(k, "T64x128");
  add_three<GemmPath::Tiles, ch05::kHalfColumnsTile>(k, "T128x64");
  add_three<GemmPath::Thin, int(ch05::ThinShape::ShortK)>(k, "thinK");
  add_three<GemmPath::Thin, int(ch05::ThinShape::SmallM4)>(k, "thinM4");
  add_three<GemmPath::Thin, int(ch05::ThinShape::SmallM16)>(k, "thinM16");
  add_three<GemmPath::Thin, int(ch05::ThinShape::SmallN4)>(k, "thinN4");
  add_three<GemmPath::Thin, int(ch05::ThinShape::SmallN16)>(k, "thinN16");
  // The 512 x 16 thin tile at fixed slice counts ("thinN16 S" selects them all).
  add_thin_slices(k, std::integer_sequence<int, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48>{});
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "05_double_buffer", lab_kernels());
}
