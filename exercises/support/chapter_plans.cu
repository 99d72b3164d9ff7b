// The chapters' host functions the checker compares host exercises with (chapter_plans.hpp).
// A CUDA file because the chapter's header holds its kernels too; only its host arithmetic
// runs here, so the checker needs no GPU.
#include "exercises/support/chapter_plans.hpp"

#include "05_double_buffer/6_any_shape.cuh"

namespace exercise {

std::vector<double> chapter05_slice_k(int K, int wanted) {
  int slices = 1, sliceK = K;
  ch05::slice_k(K, wanted, slices, sliceK);
  return {double(slices), double(sliceK)};
}

std::vector<double> chapter05_plan(int M, int N, int K, int sms) {
  const ch05::AnyShapePlan p = ch05::plan_any_shape(M, N, K, sms, ch05::kAnyShapeTiles);
  return {double(p.tile), double(p.slices), double(p.sliceK), double(p.blocks), p.waves};
}

}  // namespace exercise
