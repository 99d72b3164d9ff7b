// Chapter 06's comparisons behind the dispatcher's thin limits (lab/LOG.md, "Shapes nobody
// listed"): transpose_thin with several block sizes and chunks, at thin sides up to what a
// chunk holds, beside every tile kernel and the dispatcher, against the copy in one process:
//     06_transpose_lab --rows 179 --cols 1306965 --kernel thin --kernel dispatch
// Not built by default (`cmake --build build --target 06_transpose_lab`).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "06_transpose/kernel_list.cuh"
#include "common/chapter_main.hpp"

namespace {

// The dispatcher's rules as they were before wide matrices of 64 to 767 rows went to
// transpose_thin (the "before" column of lab/LOG.md's random sweeps up to round three), over the
// kernels as they are now (round eight unrolled the sector-aligned tile's loads).
void dispatch_before(const float* in, float* out, int rows, int cols) {
  using namespace ch06;
  const bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if ((rows == 1 || cols == 1) && aligned) return launch_copy(in, out, rows, cols);
  if (std::min(rows, cols) < kThinSmall) return launch_thin(in, out, rows, cols);
  if (float4_aligned(in, out, rows, cols))
    return launch_vec4<64, 256, BlockOrder::OutputRows>(in, out, rows, cols);
  constexpr int kThinTallBefore = 48;  // kThinTall then
  if ((rows < kThinMax && rows < cols) || (cols < kThinTallBefore && cols < rows))
    return launch_thin(in, out, rows, cols);
  if (rows % 8 != 0 || reinterpret_cast<uintptr_t>(out) % 32 != 0 ||
      tutorial::ceil_div(rows, 64) > tutorial::kMaxGridY)
    return launch_sector_aligned<128, 32, 8>(in, out, rows, cols);
  launch_padded<64, 4>(in, out, rows, cols);
}

}  // namespace

int main(int argc, char** argv) {
  tutorial::CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 8192;
  std::vector<tutorial::TransposeKernel> kernels;
  for (const tutorial::TransposeKernel& k : ch06::chapter_kernels())
    if (k.name.rfind("naive", 0) != 0 && k.name.rfind("tiled", 0) != 0) kernels.push_back(k);
  kernels.push_back({"before: dispatch", dispatch_before});
  kernels.push_back({"sector output rows",
                     ch06::launch_sector_aligned<128, 32, 8, ch06::BlockOrder::OutputRows>});
  kernels.push_back({"thin 256/8192", ch06::launch_thin_sized<256, 8192>});
  kernels.push_back({"thin 512/12288", ch06::launch_thin_sized<512, 12288>});
  kernels.push_back({"thin 256/12288", ch06::launch_thin_sized<256, 12288>});
  kernels.push_back({"thin 512/16384", ch06::launch_thin_sized<512, 16384>});
  kernels.push_back({"thin 1024/24576", ch06::launch_thin_sized<1024, 24576>});
  const std::vector<tutorial::TransposeKernel> copies = {ch06::copy_kernel()};
  std::vector<std::string> names = tutorial::names_of(copies);
  for (const std::string& name : tutorial::names_of(kernels)) names.push_back(name);
  return tutorial::guarded_main(argc, argv, defaults, names,
                                [&](const tutorial::CliOptions& o, const tutorial::DeviceInfo& d) {
    tutorial::check_transpose_size("06_transpose", o.m, o.n);
    return tutorial::run_transpose_chapter("06_transpose", copies, kernels, o, d);
  });
}
