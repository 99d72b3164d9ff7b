// Chapter 05's comparisons behind step 9: the final launcher (also with other shortlist windows,
// "wide 3.0x16"), its estimate's own choice, and each path forced at the cut the estimate gives
// it (and at 3x and 1/3 of that), beside stream-K with other shares and thin_gemm at fixed cuts,
// so that one process times them all against cuBLAS. Every plan's estimate and time is printed
// with TUTORIAL_CHOOSE_PRINT=1:
//     05_double_buffer_lab --m 3622 --n 4500 --k 11 --kernel planned --kernel "best "
// Not built by default (`cmake --build build --target 05_double_buffer_lab`).
#include <string>
#include <utility>
#include <vector>

#include "05_double_buffer/kernel_list.cuh"
#include "05_double_buffer/lab/fused_tiles.cuh"
#include "05_double_buffer/lab/knobs.cuh"
#include "05_double_buffer/lab/operand_widths.cuh"
#include "05_double_buffer/lab/strips.cuh"
#include "05_double_buffer/lab/vectors.cuh"
#include "common/chapter_main.hpp"

namespace {

using ch05::GemmPath;
using ch05::GemmPlan;

// planned_gemm with a wider shortlist: candidates within WINDOW10 / 10 times the cheapest
// estimate, at most MOST of them, timed (step 9 times at most kShortlist within kWindow).
template <int WINDOW10, int MOST>
void planned_wide(const float* A, const float* B, float* C, int M, int N, int K) {
  tutorial::check_gemm_shape("planned_wide", M, N, K);
  static tutorial::Chooser<GemmPlan> chooser(WINDOW10 / 10.0, MOST);
  const std::string key = "planned_wide " + std::to_string(WINDOW10) + "x" + std::to_string(MOST) +
                          " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                          std::to_string(K);
  const GemmPlan p = chooser.choose(
      key, [&] { return ch05::plan_shortlist_input(ch05::plan_gpu(), M, N, K); },
      [&](const GemmPlan& q) { ch05::run_gemm_plan(q, A, B, C, M, N, K); });
  ch05::run_gemm_plan(p, A, B, C, M, N, K);
}

// The estimate's cheapest plan of path PATH (tile or thin shape WHICH), its slices scaled by
// NUM / DEN; runs the estimate's overall choice where the path has no candidate at this shape.
template <GemmPath PATH, int WHICH, int NUM, int DEN>
void forced(const float* A, const float* B, float* C, int M, int N, int K) {
  const ch05::PlanGpu g = ch05::plan_gpu();
  const auto all = ch05::plan_candidates(g, M, N, K);
  const tutorial::Candidate<GemmPlan>* best = nullptr;
  for (const auto& c : all) {
    const bool which = PATH == GemmPath::Tiles  ? c.plan.tile == WHICH
                       : PATH == GemmPath::Thin ? int(c.plan.thin) == WHICH
                                                : true;
    const bool path = c.plan.path == PATH && which;
    if (path && (!best || c.estimate < best->estimate)) best = &c;
  }
  if (!best) throw tutorial::UnsupportedShape("lab: no such plan at this shape");
  GemmPlan p = best->plan;
  p.slices = std::max(1, p.slices * NUM / DEN);
  ch05::run_gemm_plan(p, A, B, C, M, N, K);
}

// The estimate's choice alone (what TUTORIAL_CHOOSE=estimate runs).
void estimated(const float* A, const float* B, float* C, int M, int N, int K) {
  const auto list = tutorial::shortlist(ch05::plan_shortlist_input(ch05::plan_gpu(), M, N, K),
                                        ch05::kWindow, 1);
  ch05::run_gemm_plan(list[0].plan, A, B, C, M, N, K);
}

// The estimate's choice with a tile plan's split-K in one launch (lab/fused_tiles.cuh).
template <int SCALE>
void estimated_fused(const float* A, const float* B, float* C, int M, int N, int K) {
  const auto list = tutorial::shortlist(ch05::plan_shortlist_input(ch05::plan_gpu(), M, N, K),
                                        ch05::kWindow, 1);
  ch05lab::run_plan_fused<SCALE>(list[0].plan, A, B, C, M, N, K);
}

// The same with the sum launched early (programmatic dependent launch, lab/fused_tiles.cuh).
// ALL: the product launched early too.
template <bool ALL>
void estimated_pdl(const float* A, const float* B, float* C, int M, int N, int K) {
  const auto list = tutorial::shortlist(ch05::plan_shortlist_input(ch05::plan_gpu(), M, N, K),
                                        ch05::kWindow, 1);
  ch05lab::run_plan_pdl<ALL>(list[0].plan, A, B, C, M, N, K);
}

// The estimate's cut of the path, 3x and 1/3 of it, and the path uncut (one slice).
template <GemmPath PATH, int WHICH>
void add_cuts(std::vector<tutorial::GemmKernel>& kernels, const std::string& name) {
  kernels.push_back({"best " + name + " x1", forced<PATH, WHICH, 1, 1>});
  kernels.push_back({"best " + name + " x3", forced<PATH, WHICH, 3, 1>});
  kernels.push_back({"best " + name + " /3", forced<PATH, WHICH, 1, 3>});
  kernels.push_back({"best " + name + " uncut", forced<PATH, WHICH, 1, 1 << 20>});  // S = 1
}

// thin_gemm's 512 x 16 tile at each slice count S, named "thinN16 S02", "thinN16 S03", ...
template <int... S>
void add_thin_slices(std::vector<tutorial::GemmKernel>& kernels, std::integer_sequence<int, S...>) {
  (kernels.push_back({std::string("thinN16 S") + (S < 10 ? "0" : "") + std::to_string(S),
                      ch05lab::launch_thin_gemm<ch05::ThinShape::SmallN16, S>}),
   ...);
}

// M = 1 at fixed slice counts: step 8's two launches ("vtwo S016") and one launch whose last
// block adds the slices ("vone S016"), lab/vectors.cuh.
template <int... S>
void add_vector_slices(std::vector<tutorial::GemmKernel>& kernels,
                       std::integer_sequence<int, S...>) {
  auto name = [](const char* what, int s) {
    return std::string(what) + (s < 100 ? "0" : "") + (s < 10 ? "0" : "") + std::to_string(s);
  };
  (kernels.push_back({name("vtwo S", S), ch05lab::launch_vector_sliced<S>}), ...);
  (kernels.push_back({name("vone S", S), ch05lab::launch_vector_fused<S>}), ...);
}

// M = 1, strips of 32 * C columns, W warps, U loads in flight, S slices: "strip c4 w8 u8 S014"
// (lab/strips.cuh; c4 w8 u8 was step 8's row_times_matrix before its one launch).
template <int C, int W, int U, int... S>
void add_strips(std::vector<tutorial::GemmKernel>& kernels) {
  auto name = [](int s) {
    return "strip c" + std::to_string(C) + " w" + std::to_string(W) + " u" + std::to_string(U) +
           " S" + (s < 100 ? "0" : "") + (s < 10 ? "0" : "") + std::to_string(s);
  };
  (kernels.push_back({name(S), ch05lab::launch_strips<C, W, U, S>}), ...);
}
// The same in one launch, the last block of a strip adding the slices: "fused c4 w8 u8 S014".
template <int C, int W, int U, int... S>
void add_fused(std::vector<tutorial::GemmKernel>& kernels) {
  auto name = [](int s) {
    return "fused c" + std::to_string(C) + " w" + std::to_string(W) + " u" + std::to_string(U) +
           " S" + (s < 100 ? "0" : "") + (s < 10 ? "0" : "") + std::to_string(s);
  };
  (kernels.push_back({name(S), ch05lab::launch_strips_fused<C, W, U, S>}), ...);
}

std::vector<tutorial::GemmKernel> lab_kernels() {
  using ch05lab::StreamKShare;
  std::vector<tutorial::GemmKernel> k = {
      {"stream-K final", ch05::launch_stream_k_gemm},
      {"planned", ch05::launch_planned_gemm},
      {"wide 2.0x10", planned_wide<20, 10>},  // step 9 before lab/LOG.md#window
      {"wide 2.0x16", planned_wide<20, 16>},
      {"wide 3.0x16", planned_wide<30, 16>},
      {"wide 3.0x32", planned_wide<30, 32>},
      {"estimated", estimated},
      {"fused estimated", estimated_fused<1>},
      {"fused estimated x2", estimated_fused<2>},
      {"early sum estimated", estimated_pdl<false>},
      {"early all estimated", estimated_pdl<true>},
      {"any_shape", ch05::launch_any_shape_gemm},
      {"padded planned", ch05lab::padded_planned<true>},
      {"pad copies only", ch05lab::padded_planned<false>},
      {"split B16 C16", ch05lab::launch_width_split<true, true>},
      {"split B16 C4", ch05lab::launch_width_split<true, false>},
      {"split B4 C16", ch05lab::launch_width_split<false, true>},
      {"split B4 C4", ch05lab::launch_width_split<false, false>},
      {"padB T128", ch05lab::padded_b<ch05::BigTile>},
      {"padB T64x128", ch05lab::padded_b<ch05::HalfRowsTile>},
      {"padB T128x64", ch05lab::padded_b<ch05::HalfColumnsTile>},
      {"padB copy only", ch05lab::padded_b<ch05::BigTile, true>},
      {"tiles128 S1", ch05::launch_sliced_gemm<128, 128, 16, 32, 64, 8, 8, 1>},
      {"streamK last wave", ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 0>},
      {"streamK last two waves",
       ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 0, StreamKShare::LastTwoWaves>},
      {"streamK none",
       ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 0, StreamKShare::None>},
  };
  add_cuts<GemmPath::Tiles, 0>(k, "T128");
  add_cuts<GemmPath::Tiles, 1>(k, "T64");
  add_cuts<GemmPath::Tiles, 2>(k, "T32x128");
  add_cuts<GemmPath::Tiles, 3>(k, "T128x32");
  add_cuts<GemmPath::Tiles, 4>(k, "T64x128");
  add_cuts<GemmPath::Tiles, 5>(k, "T128x64");
  add_cuts<GemmPath::Thin, int(ch05::ThinShape::ShortK)>(k, "thinK");
  add_cuts<GemmPath::Thin, int(ch05::ThinShape::SmallM4)>(k, "thinM4");
  add_cuts<GemmPath::Thin, int(ch05::ThinShape::SmallM16)>(k, "thinM16");
  add_cuts<GemmPath::Thin, int(ch05::ThinShape::SmallN4)>(k, "thinN4");
  add_cuts<GemmPath::Thin, int(ch05::ThinShape::SmallN16)>(k, "thinN16");
  add_cuts<GemmPath::Vector, 0>(k, "vector");
  add_thin_slices(k, std::integer_sequence<int, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48>{});
  add_vector_slices(k, std::integer_sequence<int, 64, 128, 256>{});
  add_strips<4, 8, 8, 7, 10, 14, 16, 18, 20, 24, 28, 32, 40, 48, 64>(k);
  add_fused<4, 8, 8, 10, 14, 16, 20, 24, 32>(k);
  add_fused<4, 16, 8, 5, 7, 10, 14, 20>(k);
  add_fused<4, 16, 4, 10, 14, 20, 28>(k);
  add_fused<2, 16, 8, 2, 3, 4, 6, 8>(k);
  add_fused<1, 32, 8, 2, 3, 4>(k);
  add_fused<1, 16, 16, 2, 4, 6>(k);
  add_strips<4, 8, 16, 10, 14, 20, 28>(k);
  add_strips<4, 16, 8, 5, 7, 10, 14>(k);
  add_strips<4, 32, 4, 4, 5, 7>(k);
  add_strips<1, 32, 16, 1, 2, 4>(k);
  add_strips<1, 32, 8, 1, 2, 4>(k);
  add_strips<1, 16, 16, 1, 2, 3, 4>(k);
  add_strips<1, 8, 16, 2, 4, 5, 8>(k);
  add_strips<2, 32, 8, 1, 2, 3>(k);
  add_strips<2, 16, 16, 2, 3, 4>(k);
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  return tutorial::gemm_chapter_main(argc, argv, "05_double_buffer", lab_kernels());
}
