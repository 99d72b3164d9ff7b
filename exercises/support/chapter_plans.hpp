// The chapters' own host arithmetic that the checker grades host exercises against, where an
// exercise asks for what a chapter computes (chapter_plans.cu). Never linked into a runner.
#pragma once

#include <vector>

namespace exercise {

// Chapter 05, step 6 (05_double_buffer/6_any_shape.cuh): slice_k's cut of K into about
// `wanted` slices, as (slices, sliceK).
std::vector<double> chapter05_slice_k(int K, int wanted);

// Chapter 05, step 6: plan_any_shape with the chapter's tiles (kAnyShapeTiles) on `sms` SMs,
// as (tile, slices, sliceK, blocks, waves).
std::vector<double> chapter05_plan(int M, int N, int K, int sms);

}  // namespace exercise
