// Chapter 06, lab: every candidate transpose beside the chapter's launcher and both ceilings
// (cudaMemcpy D2D and the float4 copy kernel), timed side by side in one process:
//     06_transpose_explore --rows 8192 --cols 8192 --csv
// explore.py runs it over a list of shapes. Not built by default
// (`cmake --build build --target 06_transpose_explore`).
#include <vector>

#include <cublas_v2.h>

#include "06_transpose/kernel_list.cuh"
#include "06_transpose/lab/blocks256.cuh"
#include "06_transpose/lab/cut_rows.cuh"
#include "06_transpose/lab/fill.cuh"
#include "06_transpose/lab/l2_hint.cuh"
#include "06_transpose/lab/line_aligned.cuh"
#include "06_transpose/lab/long_reads.cuh"
#include "06_transpose/lab/pattern_copy.cuh"
#include "06_transpose/lab/scatter_copy.cuh"
#include "06_transpose/lab/shifted.cuh"
#include "06_transpose/lab/staged.cuh"
#include "06_transpose/lab/thin_bulk.cuh"
#include "06_transpose/lab/thin_deep.cuh"
#include "06_transpose/lab/thin_sector.cuh"
#include "06_transpose/lab/thin_rows.cuh"
#include "06_transpose/lab/thin_sided.cuh"
#include "06_transpose/lab/thin_stream.cuh"
#include "06_transpose/lab/warp_regs.cuh"
#include "06_transpose/lab/warps.cuh"
#include "common/chapter_main.hpp"
#include "common/cuda_check.hpp"

namespace {

// cuBLAS's out-of-place transpose, cublasSgeam: C = 1 * A^T + 0 * C. Row-major in (rows x cols)
// is column-major cols x rows (ld cols); row-major out (cols x rows) is column-major rows x cols
// (ld rows). B is C itself (op N, ldb = ldc), the in-place form cuBLAS documents, so no third
// buffer; with beta = 0 its values do not matter. One handle, on the default stream the timer
// records on.
void launch_cublas_geam(const float* in, float* out, int rows, int cols) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    CUBLAS_CHECK(cublasCreate(&h));
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero,
                           out, rows, out, rows));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ch06lab;
  tutorial::CliOptions defaults;
  defaults.problem = tutorial::Problem::Transpose;
  defaults.m = defaults.n = defaults.k = 8192;
  const std::vector<tutorial::TransposeKernel> copies = {ch06::copy_kernel()};
  const std::vector<tutorial::TransposeKernel> kernels = {
      {"dispatch", ch06::dispatch_transpose},
      {"cublasGeam", launch_cublas_geam},
      // Diagnostics, not transposes (reported WRONG; only their times count): pattern_copy.cuh.
      {"patRead", launch_pattern_copy<128, 32, 256, PatternSide::Read>},
      {"patWrite", launch_pattern_copy<128, 32, 256, PatternSide::Write>},
      {"patBoth", launch_pattern_copy<128, 32, 256, PatternSide::Both>},
      {"patRead512", launch_pattern_copy<32, 128, 256, PatternSide::Read>},
      {"patRead1k", launch_pattern_copy<16, 256, 256, PatternSide::Read>},
      {"patWrite128", launch_pattern_copy<32, 128, 256, PatternSide::Write>},
      {"patReadIn", launch_pattern_copy<128, 32, 256, PatternSide::Read, 1>},
      {"patBothIn", launch_pattern_copy<128, 32, 256, PatternSide::Both, 1>},
      {"patBothG4", launch_pattern_copy<128, 32, 256, PatternSide::Both, 4>},
      {"patBothG16", launch_pattern_copy<128, 32, 256, PatternSide::Both, 16>},
      {"patBothG64", launch_pattern_copy<128, 32, 256, PatternSide::Both, 64>},
      {"patBoth256In", launch_pattern_copy<256, 32, 256, PatternSide::Both, 1>},
      {"patWide32", launch_pattern_copy<32, 256, 256, PatternSide::Read, 1>},
      {"patWide48", launch_pattern_copy<48, 256, 256, PatternSide::Read, 1>},
      {"patWide64", launch_pattern_copy<64, 128, 256, PatternSide::Read, 1>},
      {"patWide96", launch_pattern_copy<96, 128, 256, PatternSide::Read, 1>},
      {"patWide128", launch_pattern_copy<128, 64, 256, PatternSide::Read, 1>},
      {"patTall47", launch_pattern_copy<256, 47, 256, PatternSide::Write, 1>},
      {"deep256K2", launch_thin_bulk_deep<256, 6144, 8, 4, 2>},
      {"deep256K4", launch_thin_bulk_deep<256, 6144, 8, 4, 4>},
      {"deep256x4K4", launch_thin_bulk_deep<256, 6144, 4, 4, 4>},
      {"deep512K2", launch_thin_bulk_deep<512, 12288, 4, 4, 2>},
      {"deep512K4", launch_thin_bulk_deep<512, 12288, 4, 4, 4>},
      {"patSup128", launch_pattern_super<128, 16, 256, 8, false>},
      {"patSup128In", launch_pattern_super<128, 16, 256, 8, true>},
      {"patSup256", launch_pattern_super<256, 32, 256, 16, false>},
      {"patSup256In", launch_pattern_super<256, 32, 256, 16, true>},
      {"patSup512", launch_pattern_super<512, 64, 256, 16, false>},
      {"patSup512In", launch_pattern_super<512, 64, 256, 16, true>},
      {"patN2048x8In", launch_pattern_copy<2048, 8, 256, PatternSide::Both, 1>},
      {"patN1024x8In", launch_pattern_copy<1024, 8, 256, PatternSide::Both, 1>},
      {"patN512x16In", launch_pattern_copy<512, 16, 256, PatternSide::Both, 1>},
      // Scattered pieces of a copy (scatter_copy.cuh): R, W, B = read, write, both sides.
      {"scR128", launch_scatter_copy<8, PatternSide::Read>},
      {"scW128", launch_scatter_copy<8, PatternSide::Write>},
      {"scB128", launch_scatter_copy<8, PatternSide::Both>},
      {"scR512", launch_scatter_copy<32, PatternSide::Read>},
      {"scW512", launch_scatter_copy<32, PatternSide::Write>},
      {"scB512", launch_scatter_copy<32, PatternSide::Both>},
      {"scR2k", launch_scatter_copy<128, PatternSide::Read>},
      {"scW2k", launch_scatter_copy<128, PatternSide::Write>},
      {"scB2k", launch_scatter_copy<128, PatternSide::Both>},
      {"scR8k", launch_scatter_copy<512, PatternSide::Read>},
      {"scW8k", launch_scatter_copy<512, PatternSide::Write>},
      {"scB8k", launch_scatter_copy<512, PatternSide::Both>},
      {"scR32k", launch_scatter_copy<2048, PatternSide::Read>},
      {"scW32k", launch_scatter_copy<2048, PatternSide::Write>},
      {"scB32k", launch_scatter_copy<2048, PatternSide::Both>},
      {"scR128k", launch_scatter_copy<8192, PatternSide::Read>},
      {"scW128k", launch_scatter_copy<8192, PatternSide::Write>},
      {"scB128k", launch_scatter_copy<8192, PatternSide::Both>},
      {"scI512", launch_scatter_copy<32, PatternSide::Both, false>},  // in order: the control
      {"scI128k", launch_scatter_copy<8192, PatternSide::Both, false>},
      {"padded64", ch06::launch_padded<64, 4>},
      {"sector", ch06::launch_sector_aligned<128, 32, 8>},
      {"sectorOut", ch06::launch_sector_aligned<128, 32, 8, ch06::BlockOrder::OutputRows>},
      {"thin", ch06::launch_thin},
      {"thinregs", ch06::launch_thin_regs},
      {"thin256x8k", ch06::launch_thin_sized<256, 8192>},
      {"thin512x12k", ch06::launch_thin_sized<512, 12288>},
      {"thin1024x24k", ch06::launch_thin_sized<1024, 24576>},
      {"thin256x8kB7", ch06::launch_thin_sized<256, 8192, 7>},
      {"thin256x6kB8", ch06::launch_thin_sized<256, 6144, 8>},
      {"thin512x12kB4", ch06::launch_thin_sized<512, 12288, 4>},
      {"thin512x8kB4", ch06::launch_thin_sized<512, 8192, 4>},
      {"thin256x2kB8", ch06::launch_thin_sized<256, 2048, 8>},
      {"thin256x4kB8", ch06::launch_thin_sized<256, 4096, 8>},
      {"thin128x2kB16", ch06::launch_thin_sized<128, 2048, 16>},
      {"thin512x6kB4", ch06::launch_thin_sized<512, 6144, 4>},
      {"regs32", launch_thin_regs_wide<32>},
      {"regs64", launch_thin_regs_wide<64>},
      {"wregs32w4", launch_thin_warp_regs<32, 4>},
      {"wregs32w8", launch_thin_warp_regs<32, 8>},
      {"wregs64w4", launch_thin_warp_regs<64, 4>},
      {"wregs64w8", launch_thin_warp_regs<64, 8>},
      {"warps4j1u8", launch_thin_warps<4, 1, 8>},
      {"warps4j4u8", launch_thin_warps<4, 4, 8>},
      {"stream256x4kG4", launch_thin_stream<256, 4096, 4>},
      {"stream256x4kG16", launch_thin_stream<256, 4096, 16>},
      {"stream256x8kG4", launch_thin_stream<256, 8192, 4>},
      {"stream256x8kG16", launch_thin_stream<256, 8192, 16>},
      {"stream512x8kG8", launch_thin_stream<512, 8192, 8>},
      {"stream256x2kG32", launch_thin_stream<256, 2048, 32>},
      {"g1", launch_vec4_grouped<1>},
      {"g4", launch_vec4_grouped<4>},
      {"g16", launch_vec4_grouped<16>},
      {"gAll", launch_vec4_grouped<0>},
      {"s2g1", launch_vec4_staged<2, 1>},
      {"s2g4", launch_vec4_staged<2, 4>},
      {"s2g16", launch_vec4_staged<2, 16>},
      {"s2gAll", launch_vec4_staged<2, 0>},
      {"s3g4", launch_vec4_staged<3, 4>},
      {"s3gAll", launch_vec4_staged<3, 0>},
      {"t2g1", launch_sector_staged<2, 1>},
      {"t2g4", launch_sector_staged<2, 4>},
      {"t2g16", launch_sector_staged<2, 16>},
      {"t2gAll", launch_sector_staged<2, 0>},
      {"t3g4", launch_sector_staged<3, 4>},
      {"sh128x32", launch_shifted<128, 32, 256, ch06::BlockOrder::InputRows, 6>},
      {"sh128x32Out", launch_shifted<128, 32, 256, ch06::BlockOrder::OutputRows, 6>},
      {"sh64x32", launch_shifted<64, 32, 256, ch06::BlockOrder::InputRows, 8>},
      {"sh64x32Out", launch_shifted<64, 32, 256, ch06::BlockOrder::OutputRows, 8>},
      {"sh256x32", launch_shifted<256, 32, 256, ch06::BlockOrder::InputRows, 4>},
      {"sh256x32Out", launch_shifted<256, 32, 256, ch06::BlockOrder::OutputRows, 4>},
      {"line32", launch_line_aligned<128, 32, 8, 32, ch06::BlockOrder::InputRows>},
      {"line32Out", launch_line_aligned<128, 32, 8, 32, ch06::BlockOrder::OutputRows>},
      {"line16", launch_line_aligned<128, 32, 8, 16, ch06::BlockOrder::InputRows>},
      {"line16Out", launch_line_aligned<128, 32, 8, 16, ch06::BlockOrder::OutputRows>},
      {"sh128x64", launch_shifted<128, 64, 256, ch06::BlockOrder::InputRows, 4>},
      {"sh128x64Out", launch_shifted<128, 64, 256, ch06::BlockOrder::OutputRows, 4>},
      {"sh32x128Out", launch_shifted<32, 128, 256, ch06::BlockOrder::OutputRows, 6>},
      {"sh32x128In", launch_shifted<32, 128, 256, ch06::BlockOrder::InputRows, 6>},
      {"sh64x128Out", launch_shifted<64, 128, 256, ch06::BlockOrder::OutputRows, 4>},
      {"sh64x64Out", launch_shifted<64, 64, 256, ch06::BlockOrder::OutputRows, 6>},
      {"sh32x256Out", launch_shifted<32, 256, 256, ch06::BlockOrder::OutputRows, 4>},
      {"secW64", ch06::launch_sector_aligned<128, 64, 8>},
      {"secW64Out", ch06::launch_sector_aligned<128, 64, 8, ch06::BlockOrder::OutputRows>},
      {"secW64t4", ch06::launch_sector_aligned<128, 64, 4>},
      {"secW64t4Out", ch06::launch_sector_aligned<128, 64, 4, ch06::BlockOrder::OutputRows>},
      {"sec64sq", ch06::launch_sector_aligned<64, 64, 8>},
      {"sec64sqOut", ch06::launch_sector_aligned<64, 64, 8, ch06::BlockOrder::OutputRows>},
      {"sec64x32", ch06::launch_sector_aligned<64, 32, 8>},
      {"sec64x32Out", ch06::launch_sector_aligned<64, 32, 8, ch06::BlockOrder::OutputRows>},
      {"sec32x32", ch06::launch_sector_aligned<32, 32, 8>},
      {"sec32x32Out", ch06::launch_sector_aligned<32, 32, 8, ch06::BlockOrder::OutputRows>},
      {"sec256", ch06::launch_sector_aligned<256, 32, 8>},
      {"sec256Out", ch06::launch_sector_aligned<256, 32, 8, ch06::BlockOrder::OutputRows>},
      {"sh128x32t128", launch_shifted<128, 32, 128, ch06::BlockOrder::InputRows, 8>},
      {"sh128x32t128Out", launch_shifted<128, 32, 128, ch06::BlockOrder::OutputRows, 8>},
      {"vec4In", ch06::launch_vec4<64, 256, ch06::BlockOrder::InputRows>},
      {"vec4Out", ch06::launch_vec4<64, 256, ch06::BlockOrder::OutputRows>},
      {"b256Out", launch_blocks256<true, true, ch06::BlockOrder::OutputRows>},
      {"b256In", launch_blocks256<true, true, ch06::BlockOrder::InputRows>},
      {"b256nOut", launch_blocks256<false, true, ch06::BlockOrder::OutputRows>},
      {"b256nIn", launch_blocks256<false, true, ch06::BlockOrder::InputRows>},
      {"b256sOut", launch_blocks256<true, false, ch06::BlockOrder::OutputRows>},
      {"h0vec4Out", launch_vec4_hint<0>},
      {"h64vec4Out", launch_vec4_hint<64>},
      {"h128vec4Out", launch_vec4_hint<128>},
      {"h256vec4Out", launch_vec4_hint<256>},
      {"h256vec4In", launch_vec4_hint<256, ch06::BlockOrder::InputRows>},
      {"h0secOut", launch_sector_hint<0>},
      {"h64secOut", launch_sector_hint<64>},
      {"h128secOut", launch_sector_hint<128>},
      {"h256secOut", launch_sector_hint<256>},
      {"h256secIn", launch_sector_hint<256, ch06::BlockOrder::InputRows>},
      {"naSecOut", launch_sector_hint<128, ch06::BlockOrder::OutputRows, L1Policy::NoAllocate>},
      {"cgSecOut", launch_sector_hint<128, ch06::BlockOrder::OutputRows, L1Policy::L2Only>},
      {"naSecIn", launch_sector_hint<128, ch06::BlockOrder::InputRows, L1Policy::NoAllocate>},
      {"tsec9s256", launch_thin_sector<9, 256>},
      {"tsec12s256", launch_thin_sector<12, 256>},
      {"tsec17s256", launch_thin_sector<17, 256>},
      {"tsec24s256", launch_thin_sector<24, 256>},
      {"tsec32s256", launch_thin_sector<32, 256>},
      {"tsec33s128", launch_thin_sector<33, 128>},
      {"tsec33s256", launch_thin_sector<33, 256>},
      {"tsec40s256", launch_thin_sector<40, 256>},
      {"tsec47s128", launch_thin_sector<47, 128>},
      {"tsec63s128", launch_thin_sector<63, 128>},
      {"rows256x6kB8", launch_thin_rows<256, 6144, 8>},
      {"rows512x12kB4", launch_thin_rows<512, 12288, 4>},
      {"rows256x6kU8", launch_thin_rows<256, 6144, 1, 8>},
      {"side512x12kB4", launch_thin_sided<512, 12288, 4>},
      {"side256x6kB8", launch_thin_sided<256, 6144, 8>},
      {"cut512x12kB4", ch06::launch_thin_cut<512, 12288, 4>},
      {"cut256x6kB8", ch06::launch_thin_cut<256, 6144, 8>},
      {"cut256x8k", ch06::launch_thin_cut<256, 8192>},
      {"bulkT512x12kB4", launch_thin_bulk_tall<512, 12288, 4>},
      {"bulkT512x12kB4u2", launch_thin_bulk_tall<512, 12288, 4, 2>},
      {"bulkT256x6kB8", launch_thin_bulk_tall<256, 6144, 8>},
      {"bulkS256x6kB8", launch_thin_bulk_segs<256, 6144, 8>},
      {"bulkS256x4kB8", launch_thin_bulk_segs<256, 4096, 8>},
      {"bulkS512x8kB4", launch_thin_bulk_segs<512, 8192, 4>},
      {"bulkS512x12kB4", launch_thin_bulk_segs<512, 12288, 4>},
      {"cutR512x12kB4", launch_thin_cut_rows<512, 12288, 4>},
      {"cutR512x12kB4u2", launch_thin_cut_rows<512, 12288, 4, 2>},
      {"cutR512x12kB4np", launch_thin_cut_rows<512, 12288, 4, 4, false>},
      {"cutR256x6kB8", launch_thin_cut_rows<256, 6144, 8>},
      {"cutR256x6kB8np", launch_thin_cut_rows<256, 6144, 8, 4, false>},
      {"cutR256x6kB8u2", launch_thin_cut_rows<256, 6144, 8, 2>},
      {"cutR256x6kB8u1", launch_thin_cut_rows<256, 6144, 8, 1>},
      {"cutR512x12kB4u1", launch_thin_cut_rows<512, 12288, 4, 1>},
      {"cutRpad512x12kB4", launch_thin_cut_rows<512, 12288, 4, 4, true>},  // a unique prefix
      {"cutRpad256x6kB8", launch_thin_cut_rows<256, 6144, 8, 4, true>},
      {"cutS512x12kB4", launch_thin_cut_swz<512, 12288, 4>},
      {"cutS256x6kB8", launch_thin_cut_swz<256, 6144, 8>},
      {"bulkO512x12kB4", launch_thin_bulk_out<512, 12288, 4>},
      {"bulkO256x6kB8", launch_thin_bulk_out<256, 6144, 8>},
      {"bulkO512x8kB4", launch_thin_bulk_out<512, 8192, 4>},
      {"bulkW256x6kB8", ch06::launch_thin_bulk<256, 6144, 8>},
      {"bulkW256x6kB8u2", ch06::launch_thin_bulk<256, 6144, 8, 2>},
      {"bulkW512x12kB4", ch06::launch_thin_bulk<512, 12288, 4>},
      {"bulkW512x12kB4u2", ch06::launch_thin_bulk<512, 12288, 4, 2>},
      {"bulkU256x6kB8u3", launch_thin_bulk_fixed<256, 6144, 8, 3>},
      {"bulkU256x6kB8u4", launch_thin_bulk_fixed<256, 6144, 8, 4>},
      {"bulkU512x12kB4u3", launch_thin_bulk_fixed<512, 12288, 4, 3>},
      {"bulkU512x12kB4u4", launch_thin_bulk_fixed<512, 12288, 4, 4>},
      {"fillThin256x6kB8", launch_thin_fill<256, 6144, 8>},
      {"fillThin512x12kB4", launch_thin_fill<512, 12288, 4>},
      // (The lab's filled bulk launchers became step 6's FILL ones: the same launch.)
      {"fillBulk256x6kB8", ch06::launch_thin_bulk<256, 6144, 8, 4, true>},
      {"fillBulk512x12kB4", ch06::launch_thin_bulk<512, 12288, 4, 4, true>},
      {"fillCut256x6kB8", launch_thin_cut_fill<256, 6144, 8>},
      {"fillCut512x12kB4", launch_thin_cut_fill<512, 12288, 4>},
      {"fillCutF128x512x12kB4", launch_thin_cut_fill<512, 12288, 4, 128>},
      {"long128Out", launch_long_reads<128, 256>},
      {"long128In", launch_long_reads<128, 256, ch06::BlockOrder::InputRows>},
      {"long64Out", launch_long_reads<64, 256>},
      {"long64In", launch_long_reads<64, 256, ch06::BlockOrder::InputRows>},
      {"long256Out", launch_long_reads<256, 256>},
      {"long256In", launch_long_reads<256, 256, ch06::BlockOrder::InputRows>},
      {"stepFillCut256", ch06::launch_thin_cut<256, 6144, 8, true>},
      {"stepFillCut512", ch06::launch_thin_cut<512, 12288, 4, true>},
      {"stepFillBulk256", ch06::launch_thin_bulk<256, 6144, 8, 4, true>},
      {"stepFillBulk512", ch06::launch_thin_bulk<512, 12288, 4, 4, true>},
      {"regsx1", ch06::launch_thin_regs_items<1>},
      {"regsx8", ch06::launch_thin_regs_items<8>},
      {"vec4t32Out", ch06::launch_vec4<32, 64, ch06::BlockOrder::OutputRows>},
      {"vec4t32In", ch06::launch_vec4<32, 64, ch06::BlockOrder::InputRows>},
  };
  std::vector<std::string> names = tutorial::names_of(copies);
  for (const std::string& name : tutorial::names_of(kernels)) names.push_back(name);
  return tutorial::guarded_main(argc, argv, defaults, names,
                                [&](const tutorial::CliOptions& o, const tutorial::DeviceInfo& d) {
    tutorial::check_transpose_size("06_transpose", o.m, o.n);
    return tutorial::run_transpose_chapter("06_transpose", copies, kernels, o, d);
  });
}
