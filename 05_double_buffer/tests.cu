// Chapter 05 tests: every shipped configuration at odd, prime, non-square and tile-multiple
// sizes (random inputs, poisoned output, CPU or cuBLAS reference), K shorter than the
// pipeline, the 4-byte fallback, refusals, the grouped block order, and the README's
// shared-memory and occupancy arithmetic.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "04_register_block/kernel_list.cuh"  // ch04::best_kernel, the starting point
#include "05_double_buffer/kernel_list.cuh"
#include "05_double_buffer/lab/knobs.cuh"
#include "common/chooser.hpp"
#include "common/catch_compat.hpp"
#include "common/device_buffer.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"
#include "common/launch_record.hpp"
#include "common/occupancy.hpp"
#include "common/reference.hpp"

using namespace tutorial;

// ---------------------------------------------------------------------------------------
// GPU: correctness
// ---------------------------------------------------------------------------------------

namespace {

// 256x512x512 is a multiple of every shipped block tile (up to 128 x 256) and of every BK;
// 1024^3 and a non-square 1536x512x2048 are checked against cuBLAS.
const std::vector<TestShape> kTileMultiples = {
    {256, 512, 512}, {1024, 1024, 1024}, {1536, 512, 2048}};

}  // namespace

TUTORIAL_GEMM_SHAPE_TEST_CASES(ch05::chapter_kernels(), kTileMultiples)

TEST_CASE("launchers fall back to 4-byte accesses for unaligned pointers", "[gpu]") {
  REQUIRE_GPU();
  check_unaligned_pointers(ch05::chapter_kernels());
}

namespace {

// Launchers that choose each operand's width on its own: whole tiles, slices (with C alone off:
// the partials stay float4) and stream-K with whole and split tiles.
const std::vector<GemmKernel> kPerOperandKernels = {
    {"sliced 128x128 S=1", ch05::launch_sliced_gemm<128, 128, 16, 32, 64, 8, 8, 1>},
    {"sliced 64x64 S=3", ch05::launch_sliced_gemm<64, 64, 16, 32, 32, 8, 4, 3>},
    {"sliced 32x128 S=1", ch05::launch_sliced_gemm<32, 128, 16, 32, 32, 8, 4, 1>},
    {"sliced 128x32 S=2", ch05::launch_sliced_gemm<128, 32, 16, 32, 32, 8, 4, 2>},
    {"sliced 64x128 S=1", ch05::launch_sliced_gemm<64, 128, 16, 32, 64, 8, 8, 1>},
    {"sliced 128x64 S=2", ch05::launch_sliced_gemm<128, 64, 16, 32, 64, 8, 8, 2>},
    {"stream-K 128x128 3 blocks", ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 3>},
    {"planned", ch05::launch_planned_gemm}};

// kPerOperandKernels with one pointer `floats` floats off 16 bytes at a time (A, then B, then C),
// N and K multiples of 4.
void check_each_operand_off(int floats) {
  for (const int which : {0, 1, 2}) {
    INFO("operand " << floats * 4 << " bytes off 16: " << "ABC"[which]);
    check_unaligned_pointers(kPerOperandKernels, which == 0 ? floats : 0,
                             which == 1 ? floats : 0, which == 2 ? floats : 0, 260, 136, 48);
  }
}

}  // namespace

TEST_CASE("each operand falls back to 4-byte accesses on its own", "[gpu]") {
  REQUIRE_GPU();
  // A alone off: A 4 bytes wide; B or C alone: B and C.
  check_each_operand_off(1);
}

TEST_CASE("rows that start on 8 bytes but not 16 are read in pairs", "[gpu]") {
  REQUIRE_GPU();
  // N and K of 2 more than a multiple of 4 (every row of A and B on 8 bytes, none on 16: both
  // operands in pairs in the 8 x 4-lane tiles, 4 bytes wide elsewhere); then one pointer 8 bytes
  // off 16 at a time (that operand in pairs; with C's, a tile that stores straight to C reads B in
  // pairs and stores C by rows, one with slices writes an aligned workspace and reads B 16 bytes
  // wide).
  check_unaligned_pointers(ch05::chapter_kernels(), 0, 0, 0, 262, 138, 94);
  check_each_operand_off(2);
}

// Split-K (6_any_shape.cuh): fixed slice counts on both tiles, at shapes that make the slices
// uneven (K = 100 in 3 slices: 48 + 48 + 4), ask for more slices than K has (K = 7), put
// one row or column in C, and a long K with a tiny C; plus the dispatcher at long K; and
// stream-K (7_stream_k.cuh) at the same shapes, plus several tiles in each direction.
namespace {

const std::vector<TestShape> kSliceShapes = {
    {1, 1, 1},   {3, 5, 7},    {5, 7, 100},  {1, 37, 1000}, {33, 1, 517},
    {8, 8, 2051}, {130, 68, 300}, {65, 129, 160}, {300, 260, 97}, {257, 385, 1000},
    {100, 100, 80},
    // One operand 4 bytes wide, the other 16 (N % 4 != 0 with K % 4 == 0, and the reverse),
    // several tiles each way: C's rows stored through shared memory (store_lane_tile_by_rows).
    {200, 262, 96}, {131, 196, 67}, {257, 130, 2048},
    // Both 4 bytes wide on several blocks each way (3 x 3 of the 128 x 32 tile); both in 8-byte
    // pairs (N and K 2 more than a multiple of 4); A in pairs with B 4 bytes wide, and the reverse.
    {259, 70, 43}, {262, 138, 94}, {131, 197, 94}, {131, 198, 67},
    {1, 257, 2048}, {5, 300, 2051}};  // three tiles: stream-K on the CPU backend (two slots)

const std::vector<GemmKernel> kSlicedKernels = {
    {"sliced 128x128 S=3", ch05::launch_sliced_gemm<128, 128, 16, 32, 64, 8, 8, 3>},
    {"sliced 64x64 S=7", ch05::launch_sliced_gemm<64, 64, 16, 32, 32, 8, 4, 7>},
    {"sliced 64x64 S=64", ch05::launch_sliced_gemm<64, 64, 16, 32, 32, 8, 4, 64>},
    {"sliced 32x128 S=5", ch05::launch_sliced_gemm<32, 128, 16, 32, 32, 8, 4, 5>},
    {"sliced 32x128 S=1 (straight to C)", ch05::launch_sliced_gemm<32, 128, 16, 32, 32, 8, 4, 1>},
    // Step 9's 128 x 32 tile (step 6's kernel, another instance).
    {"sliced 128x32 S=4", ch05::launch_sliced_gemm<128, 32, 16, 32, 32, 8, 4, 4>},
    {"sliced 128x32 S=1 (straight to C)", ch05::launch_sliced_gemm<128, 32, 16, 32, 32, 8, 4, 1>},
    // Step 9's half tiles, 64 x 128 and 128 x 64 (8 x 8 lanes, 4 warps, always half-deep).
    {"sliced 64x128 S=3", ch05::launch_sliced_gemm<64, 128, 16, 32, 64, 8, 8, 3>},
    {"sliced 64x128 S=1 (straight to C)", ch05::launch_sliced_gemm<64, 128, 16, 32, 64, 8, 8, 1>},
    {"sliced 128x64 S=5", ch05::launch_sliced_gemm<128, 64, 16, 32, 64, 8, 8, 5>},
    {"sliced 128x64 S=1 (straight to C)", ch05::launch_sliced_gemm<128, 64, 16, 32, 64, 8, 8, 1>},
    {"any_shape", ch05::launch_any_shape_gemm},
    // Stream-K (7_stream_k.cuh) on small grids: with 3, 5 or 7 blocks the k-iterations of the
    // tiles are cut at the start, the middle and the end of tiles, one block may hold two
    // partial segments, and whole tiles go straight to C.
    {"stream-K 128x128 3 blocks", ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 3>},
    {"stream-K 128x128 5 blocks", ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 5>},
    // More blocks than iterations: some blocks get none (5 iterations of one tile, 7 blocks).
    {"stream-K 128x128 7 blocks", ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 7>},
    // The lab's comparisons (lab/knobs.cuh): the last two waves by iterations, and no tile by
    // iterations.
    {"stream-K 128x128 5 blocks, last two waves",
     ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 5,
                                 ch05lab::StreamKShare::LastTwoWaves>},
    {"stream-K 128x128 5 blocks, whole tiles",
     ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 5, ch05lab::StreamKShare::None>},
    {"stream-K final", ch05::launch_stream_k_gemm}};

}  // namespace

TEST_CASE("split-K is correct with uneven slices, more slices than K, one row or column", "[gpu][small]") {
  REQUIRE_GPU();
  check_kernels_at(kSlicedKernels, kSliceShapes);
}

TEST_CASE("any_shape is correct at long K with a small C (split-K chosen)", "[gpu]") {
  REQUIRE_GPU();
  check_kernel_at({"any_shape", ch05::launch_any_shape_gemm},
                  {{4, 4, 4096}, {16, 64, 4099}, {64, 64, 16384}});
}

namespace {

// How many elements of C differ bit for bit between two runs of the kernel on the same data.
int differ_between_runs(const GemmKernel& kernel, const TestShape& s, uint64_t seed) {
  GemmProblem p(s.M, s.N, s.K, seed);
  std::vector<float> runs[2];
  for (std::vector<float>& c : runs) {
    p.dC.poison();
    kernel.launch(p.dA.data(), p.dB.data(), p.dC.data(), s.M, s.N, s.K);
    c = p.dC.download();
  }
  int differ = 0;
  for (size_t i = 0; i < runs[0].size(); ++i)
    differ += std::memcmp(&runs[0][i], &runs[1][i], sizeof(float)) != 0;
  return differ;
}

}  // namespace

TEST_CASE("split-K results are the same bit for bit run after run", "[gpu][small]") {
  REQUIRE_GPU();
  for (const GemmKernel& kernel : kSlicedKernels) {
    const std::string name = kernel.name;
    CAPTURE(name);
    CHECK(differ_between_runs(kernel, {37, 20, 3001}, 5) == 0);
  }
}

TEST_CASE("the final launcher runs stream-K where this GPU's last wave is partial", "[gpu]") {
  REQUIRE_GPU();
  // Three tile columns and about a third of a wave left over on this GPU: whole tiles, the last
  // wave shared out by iterations, and the fixup, as the launcher runs them (K >= 1536). Odd N
  // and K take the 4-byte path, multiples of 4 the float4 one.
  const int sms = ch05::sm_count(), slots = sms * ch05::BigTile::MIN_BLOCKS;
  int rows = 4 * slots / 9 + 1;
  while (3 * rows <= slots || 3 * rows % slots == 0) ++rows;
  const std::vector<TestShape> shapes = {{128 * rows - 5, 381, 2051}, {128 * rows, 384, 2048}};
  for (const TestShape& s : shapes) {
#ifndef TUTORIAL_CPU_BACKEND  // (which checks these shapes shrunk, below stream-K's K)
    CHECK(ch05::stream_k_pays(s.M, s.N, s.K, sms));
#endif
    check_kernel_at({"stream-K final", ch05::launch_stream_k_gemm}, {s});
  }
  // The same bits on every run, split tiles included.
  CHECK(differ_between_runs({"stream-K final", ch05::launch_stream_k_gemm}, shapes[1], 9) == 0);
}

// thin_gemm (8_thin.cuh) at the shapes it is for and at every edge: one row or column, K of 1,
// sides one past a tile, slices of K that do not divide it; and the planned launcher
// (9_planned.cuh) at shapes drawn at random, against cuBLAS (the CPU reference on the CPU
// backend), whichever path its plan takes there.
namespace {

// thin_gemm at fixed slice counts: each tile whole (S = 1) and with K cut into uneven slices
// (S = 3, and 12: sum_many_slices).
std::vector<GemmKernel> thin_kernels() {
  using ch05::ThinShape;
  using ch05lab::launch_thin_gemm;
  return {
      {"thin short-K 64x128", launch_thin_gemm<ThinShape::ShortK, 1>},
      {"thin short-K 64x128 S=3", launch_thin_gemm<ThinShape::ShortK, 3>},
      {"thin small-M 4x512", launch_thin_gemm<ThinShape::SmallM4, 1>},
      {"thin small-M 4x512 S=12", launch_thin_gemm<ThinShape::SmallM4, 12>},
      {"thin small-M 16x512", launch_thin_gemm<ThinShape::SmallM16, 1>},
      {"thin small-M 16x512 S=3", launch_thin_gemm<ThinShape::SmallM16, 3>},
      {"thin small-N 512x4", launch_thin_gemm<ThinShape::SmallN4, 1>},
      {"thin small-N 512x4 S=12", launch_thin_gemm<ThinShape::SmallN4, 12>},
      {"thin small-N 512x16", launch_thin_gemm<ThinShape::SmallN16, 1>},
      {"thin small-N 512x16 S=3", launch_thin_gemm<ThinShape::SmallN16, 3>},
  };
}

// The final launcher with each way of choosing forced (common/chooser.hpp).
void estimated_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const tutorial::ChooseByScope by(tutorial::ChooseBy::Estimate);
  ch05::launch_planned_gemm(A, B, C, M, N, K);
}
void measured_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const tutorial::ChooseByScope by(tutorial::ChooseBy::Measure);
  ch05::launch_planned_gemm(A, B, C, M, N, K);
}

const std::vector<TestShape> kThinShapes = {
    {1, 1, 1},     {1, 513, 37},  {2, 1000, 19}, {5, 517, 300},  {17, 33, 1},
    {4, 1025, 64}, {16, 9, 700},  {1000, 1, 45}, {513, 2, 333},  {700, 5, 31},
    {515, 17, 90}, {130, 129, 11}, {65, 300, 33}, {129, 385, 8},  {3, 3, 2049}};

}  // namespace

TEST_CASE("thin_gemm is correct at thin, odd and edge shapes", "[gpu][small]") {
  REQUIRE_GPU();
  check_kernels_at(thin_kernels(), kThinShapes);
  check_kernels_at(thin_kernels(), kOddAndEdgeShapes);
}

namespace {
template <int S>
void vector_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  ch05::run_vector_gemm(A, B, C, M, N, K, S);
}
}  // namespace

TEST_CASE("the vector kernels: C of one row or one column, whole K or in slices", "[gpu][small]") {
  REQUIRE_GPU();
  // float4 where the rows allow it (N % 4 == 0 for one row, K % 4 == 0 for one column), one
  // float at a time elsewhere; K shorter and longer than a group of loads; one element; one row
  // with N around a block's 128 (float4) or 32 columns, and K shorter than its 8 warps' rows.
  const std::vector<TestShape> shapes = {{1, 1, 1},     {1, 513, 37},  {1, 4096, 100}, {1, 7, 3},
                                         {1, 1027, 2049}, {1, 2, 5000}, {1000, 1, 45},  {7, 1, 3},
                                         {3001, 1, 4097}, {9, 1, 4096}, {33, 1, 2},
                                         {1, 128, 5},   {1, 132, 130}, {1, 33, 257}, {1, 31, 9}};
  check_kernels_at({{"vector S=1", vector_gemm<1>},
                    {"vector S=3", vector_gemm<3>},
                    {"vector S=12", vector_gemm<12>},
                    {"vector S=41", vector_gemm<41>},
                    {"planned", ch05::launch_planned_gemm}},
                   shapes);
  // One row in slices is one launch whose last block of a strip adds the slices: the same bits
  // every run, whichever block comes last, and its arrival counters ready for the next launch.
  CHECK(differ_between_runs({"vector S=12", vector_gemm<12>}, {1, 1000, 3001}, 3) == 0);
  CHECK(differ_between_runs({"vector S=41", vector_gemm<41>}, {1, 4100, 3001}, 3) == 0);
  CHECK(differ_between_runs({"vector S=41", vector_gemm<41>}, {1, 1027, 2049}, 4) == 0);  // 4 B
  // Neither side 1: refused with the reason.
  CHECK_THROWS_AS(ch05::run_vector_gemm(nullptr, nullptr, nullptr, 2, 2, 2, 1), UnsupportedShape);
}

TEST_CASE("thin_gemm reads and writes at any alignment", "[gpu]") {
  REQUIRE_GPU();
  check_unaligned_pointers(thin_kernels());
}

TEST_CASE("thin_gemm's slices are summed the same way on every run", "[gpu][small]") {
  REQUIRE_GPU();
  for (const GemmKernel& kernel : thin_kernels()) {
    const std::string name = kernel.name;
    CAPTURE(name);
    CHECK(differ_between_runs(kernel, {37, 20, 3001}, 5) == 0);
  }
}

// Small shapes of steps 8 and 9 only, so that compute-sanitizer (memcheck, racecheck) finishes
// quickly: every thin tile whole and sliced (sum_slices and sum_many_slices), the tiles with
// more than 64 slices, the planned launcher, one operand 4 bytes wide.
//   compute-sanitizer --tool racecheck build/bin/05_double_buffer_tests "[sanitize]"
TEST_CASE("small shapes of the thin and planned paths for the sanitizers", "[gpu][sanitize]") {
  REQUIRE_GPU();
  const std::vector<TestShape> shapes = {{3, 5, 7}, {17, 33, 70}, {65, 130, 9}, {4, 515, 33}};
  check_kernels_at(thin_kernels(), shapes);
  check_kernels_at({{"vector S=3", vector_gemm<3>}, {"vector S=12", vector_gemm<12>}},
                   {{1, 515, 33}, {70, 1, 2000}, {1, 1, 700}});
  check_kernels_at({{"sliced 64x64 S=100", ch05::launch_sliced_gemm<64, 64, 16, 32, 32, 8, 4, 100>},
                    {"planned", ch05::launch_planned_gemm},
                    {"measured", measured_gemm}},
                   {{3, 5, 1700}, {70, 33, 2000}, {130, 9, 300}});
  // Each operand its own width (N or K alone off a multiple of 4, and both at 259 x 70 x 43; C by
  // rows through shared memory; B in 8-byte pairs where N is even, both at 66 x 70 x 42), whole
  // tiles, slices and stream-K.
  check_kernels_at({{"sliced 128x128 S=2", ch05::launch_sliced_gemm<128, 128, 16, 32, 64, 8, 8, 2>},
                    {"sliced 32x128 S=1", ch05::launch_sliced_gemm<32, 128, 16, 32, 32, 8, 4, 1>},
                    {"sliced 128x32 S=3", ch05::launch_sliced_gemm<128, 32, 16, 32, 32, 8, 4, 3>},
                    {"sliced 64x128 S=2", ch05::launch_sliced_gemm<64, 128, 16, 32, 64, 8, 8, 2>},
                    {"sliced 128x64 S=1", ch05::launch_sliced_gemm<128, 64, 16, 32, 64, 8, 8, 1>},
                    {"stream-K 128x128 3 blocks",
                     ch05lab::launch_stream_k_slots<128, 128, 16, 32, 64, 8, 8, 3>}},
                   {{37, 66, 40}, {70, 36, 33}, {130, 258, 300}, {259, 70, 43}, {66, 70, 42}});
}

namespace {

// Shapes log-uniform in [1, most] per side with M * N * K <= volume, from a fixed seed.
std::vector<TestShape> random_shapes(int count, uint64_t seed, int most, double volume) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> side(0.0, std::log(double(most)));
  std::vector<TestShape> shapes;
  while (int(shapes.size()) < count) {
    const TestShape s{int(std::lround(std::exp(side(rng)))), int(std::lround(std::exp(side(rng)))),
                      int(std::lround(std::exp(side(rng))))};
    if (double(s.M) * s.N * s.K <= volume) shapes.push_back(s);
  }
  return shapes;
}

}  // namespace

TEST_CASE("the planned launcher is correct at random shapes, whatever path it takes", "[gpu]") {
  REQUIRE_GPU();
#ifdef TUTORIAL_CPU_BACKEND
  const std::vector<TestShape> shapes = random_shapes(24, 29, 600, 3e6);
#else
  const std::vector<TestShape> shapes = random_shapes(60, 29, 8192, 4e9);
#endif
  check_kernel_at({"planned", ch05::launch_planned_gemm}, shapes);
  CHECK(differ_between_runs({"planned", ch05::launch_planned_gemm}, {4, 4, 30001}, 3) == 0);
  // Each way of choosing on its own: the estimate alone at every shape; the timed shortlist (the
  // default on a GPU, where the lines above ran it) at a few on the CPU backend, where it is slow.
  check_kernel_at({"estimated", estimated_gemm}, shapes);
  const std::vector<TestShape> fewer(shapes.begin(), shapes.begin() + 6);
  check_kernel_at({"measured", measured_gemm}, fewer);
}

TEST_CASE("the measured plan: one of the shortlist, timed once, the harness sees its launch",
          "[gpu]") {
  REQUIRE_GPU();
  for (const TestShape& s : random_shapes(4, 31, 600, 3e6)) {
    INFO(s.M << "x" << s.N << "x" << s.K);
    tutorial::DeviceBuffer<float> A(size_t(s.M) * s.K), B(size_t(s.K) * s.N);
    tutorial::DeviceBuffer<float> C(size_t(s.M) * s.N);
    A.upload(std::vector<float>(A.size(), 1.0f));
    B.upload(std::vector<float>(B.size(), 1.0f));
    const float *a = A.data(), *b = B.data();
    float* c = C.data();
    const tutorial::ChooseByScope by(tutorial::ChooseBy::Measure);
    const auto list = tutorial::shortlist(ch05::plan_shortlist_input(ch05::plan_gpu(), s.M, s.N, s.K),
                                          ch05::kWindow, ch05::kShortlist);
    // The first call times the shortlist; the harness still sees one launch of the chosen plan.
    const long before = tutorial::launch_count();
    ch05::launch_planned_gemm(a, b, c, s.M, s.N, s.K);
    const long firstLaunches = tutorial::launch_count() - before;
    const tutorial::LaunchRecord first = tutorial::first_launch_since(before);
    const ch05::GemmPlan plan = ch05::chosen_plan(a, b, c, s.M, s.N, s.K);
    bool listed = false;
    for (const auto& candidate : list) listed = listed || candidate.plan == plan;
    CHECK(listed);
    const long beforePlan = tutorial::launch_count();
    ch05::run_gemm_plan(plan, a, b, c, s.M, s.N, s.K);
    const long planLaunches = tutorial::launch_count() - beforePlan;
    const tutorial::LaunchRecord own = tutorial::first_launch_since(beforePlan);
    CHECK(first.kernel == own.kernel);
    CHECK(first.grid.x == own.grid.x);
    CHECK(first.grid.z == own.grid.z);
    // Later calls do not time again: the plan's own launches, and the same plan.
    const long beforeAgain = tutorial::launch_count();
    ch05::launch_planned_gemm(a, b, c, s.M, s.N, s.K);
    CHECK(tutorial::launch_count() - beforeAgain == planLaunches);
    // The first call timed the shortlist (launch_count counts the trial runs too).
    if (list.size() > 1) CHECK(firstLaunches > planLaunches);
    CHECK(ch05::chosen_plan(a, b, c, s.M, s.N, s.K) == plan);
  }
}

TEST_CASE("split-K and stream-K use a workspace on whichever GPU is current", "[gpu][multi]") {
  REQUIRE_REAL_GPU();  // the CPU backend is one device
  int devices = 0;
  REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
  if (devices < 2) {
    ::tutorial::test::note_skipped();
    TUTORIAL_SKIP_("SKIPPED: needs two GPUs (this process sees " << devices << ")");
  }
  // GPU 0 first, so that its cached workspace exists, then the same launches on GPU 1, whose
  // kernels cannot read GPU 0's memory; GPU 0 is current again afterwards, whatever happens.
  const std::vector<TestShape> shapes = {{37, 20, 3001}, {257, 385, 1000}};
  check_kernels_at(kSlicedKernels, shapes);
  struct OnDevice {
    explicit OnDevice(int device) { cudaSetDevice(device); }
    ~OnDevice() { cudaSetDevice(0); }
  } onOne(1);
  check_kernels_at(kSlicedKernels, shapes);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

// ---------------------------------------------------------------------------------------
// GPU: resources of the compiled kernels
// ---------------------------------------------------------------------------------------

TEST_CASE("the occupancy model agrees with the runtime for every shipped kernel", "[gpu]") {
  REQUIRE_REAL_GPU();
  KernelsThatDoNotFit unfit;  // 128 KB of shared memory does not fit every GPU
  check_occupancy_rules(ch05::chapter_kernels(), unfit);
  unfit.skip_if_any();
}

TEST_CASE("doubling the buffers costs blocks only where shared memory binds", "[gpu]") {
  REQUIRE_REAL_GPU();
  KernelsThatDoNotFit unfit;
  const std::vector<GemmResources> rows = check_occupancy_rules(
      {ch04::best_kernel(),
       {"double_buffer 128x128x8", ch05::launch_double_buffer_gemm<128, 128, 8, 8, 8, 2>},
       {"single_buffer 128x128x64", ch05::launch_double_buffer_gemm<128, 128, 64, 8, 8, 1>},
       {"double_buffer 128x128x64", ch05::launch_double_buffer_gemm<128, 128, 64, 8, 8, 2>}},
      unfit);
  // The row of a kernel that ran here; nullptr where this GPU cannot run it.
  auto row = [&](const std::string& name) -> const GemmResources* {
    for (const GemmResources& r : rows)
      if (r.name == name) return &r;
    return nullptr;
  };
  // 8 KB -> 16 KB: registers bind either way (at 2 blocks on every GPU of the published
  // table: see the host test below), so the second buffer is free.
  const GemmResources* o4 = row(ch04::best_kernel().name);
  const GemmResources* o8 = row("double_buffer 128x128x8");
  REQUIRE(o4 != nullptr);
  REQUIRE(o8 != nullptr);
  CHECK(o8->occupancy.blocks_per_sm == o4->occupancy.blocks_per_sm);
  CHECK(o8->occupancy.limiter == Limiter::Registers);
  // 64 KB -> 128 KB: where 128 KB fits at all (not on sm_75, sm_86, sm_89, sm_120), shared
  // memory binds, at one block, fewer than the single buffer's.
  const GemmResources* s64 = row("single_buffer 128x128x64");
  const GemmResources* d64 = row("double_buffer 128x128x64");
  if (d64 != nullptr) {
    REQUIRE(s64 != nullptr);
    CHECK(d64->occupancy.blocks_per_sm == 1);
    CHECK(d64->occupancy.limiter == Limiter::SharedMemory);
    CHECK(d64->occupancy.blocks_per_sm < s64->occupancy.blocks_per_sm);
  }
  unfit.skip_if_any();
}

// ---------------------------------------------------------------------------------------
// Host: refusals, block order, and the README's arithmetic
// ---------------------------------------------------------------------------------------

TEST_CASE("launchers refuse only empty and int-overflowing shapes", "[refusal]") {
  check_refuses_bad_shapes(ch05::chapter_kernels());
}

TEST_CASE("the grouped block order visits every tile exactly once", "[swizzle]") {
  const int shapes[][2] = {{1, 1}, {128, 128}, {4096, 4096}, {1000, 3000}, {129, 257}, {2048, 64}};
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1];
    const int tilesM = ceil_div(M, 128), tilesN = ceil_div(N, 128);
    std::vector<int> seen(size_t(tilesM) * tilesN, 0);
    for (int b = 0; b < tilesM * tilesN; ++b) {
      int blockRow = -1, blockCol = -1;
      ch05::grouped_tile<128, 128, 8>(b, M, N, blockRow, blockCol);
      REQUIRE(blockRow >= 0);
      REQUIRE(blockRow < M);
      REQUIRE(blockCol >= 0);
      REQUIRE(blockCol < N);
      ++seen[size_t(blockRow / 128) * tilesN + blockCol / 128];
    }
    for (int v : seen) CHECK(v == 1);
  }
  // Group order on a 32 x 32 tile grid: the first 8 blocks walk down one column of 8 tiles.
  int r = 0, c = 0;
  ch05::grouped_tile<128, 128, 8>(7, 4096, 4096, r, c);
  CHECK(r == 7 * 128);
  CHECK(c == 0);
  ch05::grouped_tile<128, 128, 8>(8, 4096, 4096, r, c);
  CHECK(r == 0);
  CHECK(c == 128);
  ch05::grouped_tile<128, 128, 1>(33, 4096, 4096, r, c);  // GROUP_M = 1: row-major order
  CHECK(r == 128);
  CHECK(c == 128);
}

TEST_CASE("slices of K: multiples of 16, none empty, at most the count asked", "[model]") {
  const struct {
    int K, wanted, slices, sliceK;
  } cases[] = {{65536, 64, 64, 1024}, {100, 3, 3, 48}, {100, 8, 7, 16}, {7, 8, 1, 7},
               {16, 2, 1, 16},        {17, 2, 2, 16}, {4097, 16, 16, 272}, {1000, 1, 1, 1000}};
  for (const auto& c : cases) {
    INFO("K=" << c.K << " wanted=" << c.wanted);
    int slices = 0, sliceK = 0;
    ch05::slice_k(c.K, c.wanted, slices, sliceK);
    CHECK(slices == c.slices);
    CHECK(sliceK == c.sliceK);
    CHECK((slices - 1) * sliceK < c.K);  // the last slice is not empty
    CHECK(slices * sliceK >= c.K);       // and the slices cover K
  }
}

TEST_CASE("any_shape's plan on a 132-SM GPU (H100): waves", "[model]") {
  auto plan = [](int M, int N, int K) {
    return ch05::plan_any_shape(M, N, K, 132, ch05::kAnyShapeTiles);
  };
  // Full waves of 128 x 128 tiles: pipelined_gemm as it is (tile 0, one slice).
  for (const TestShape s : {TestShape{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
                            {2048, 11008, 4096}, {16384, 1024, 1024}, {4096, 4096, 128}}) {
    INFO(s.M << "x" << s.N << "x" << s.K);
    const ch05::AnyShapePlan p = plan(s.M, s.N, s.K);
    CHECK(p.tile == 0);
    CHECK(p.slices == 1);
  }
  // 4 tiles of 128 x 128 and a long K: sliced until about one wave.
  const ch05::AnyShapePlan longK = plan(256, 256, 65536);
  CHECK(longK.slices >= 32);
  CHECK(longK.waves <= 1.0);
  CHECK(longK.waves >= 0.5);
  // Too short a K to slice: one slice.
  CHECK(plan(64, 64, 16).slices == 1);
  // At most 32 rows: the 32 x 128 tile, which computes no empty rows.
  CHECK(plan(32, 4096, 4096).tile == 2);
  CHECK(plan(17, 8192, 2048).tile == 2);
}

TEST_CASE("stream-K wherever the last wave is partial and K is long (132 SMs, as an H100)",
          "[model]") {
  // 264 slots of 128 x 128 tiles (lab/LOG.md#stream-k).
  CHECK(ch05::stream_k_pays(3072, 3072, 3072, 132));        // 576 tiles: 2.18 waves
  CHECK(ch05::stream_k_pays(3000, 3000, 3000, 132));        // the same 576
  CHECK(ch05::stream_k_pays(2048, 11008, 4096, 132));       // 1376 tiles: 5.21 waves
  CHECK(ch05::stream_k_pays(4096, 4096, 4096, 132));        // 3.88 waves
  CHECK(ch05::stream_k_pays(8192, 8192, 8192, 132));        // 15.5 waves
  CHECK_FALSE(ch05::stream_k_pays(2048, 2048, 2048, 132));  // 0.97: not one full wave
  CHECK_FALSE(ch05::stream_k_pays(4093, 4099, 4097, 132));  // 1056 tiles: 4 waves exactly
  CHECK_FALSE(ch05::stream_k_pays(16384, 1024, 1024, 132)); // K too short
  // 3072^3: the last partial wave's 48 tiles by iterations, the first 528 whole.
  const ch05::StreamKPlan p = ch05::plan_stream_k(3072, 3072, 3072, 128, 128, 16, 264);
  CHECK(p.skTiles == 48);
  CHECK(p.dpTiles == 528);
  CHECK(p.kIters == 192);
  CHECK(p.begin(0) == 0);
  CHECK(p.begin(264) == 48LL * 192);
  CHECK(p.begin(1) == 48LL * 192 / 264);  // 34 iterations: 0.18 of a tile per block
  // Whole waves: nothing by iterations.
  CHECK(ch05::plan_stream_k(4093, 4099, 4097, 128, 128, 16, 264).skTiles == 0);
  // The comparisons: the last two waves (48 + 264 tiles), or none.
  using ch05lab::StreamKShare;
  auto share = [](StreamKShare h) {
    return ch05lab::plan_stream_k_share(3072, 3072, 3072, 128, 128, 16, 264, h);
  };
  CHECK(share(StreamKShare::LastTwoWaves).skTiles == 312);
  CHECK(share(StreamKShare::None).skTiles == 0);
  CHECK(share(StreamKShare::None).dpTiles == 576);
}

namespace {
// An H100 SXM as plan_gpu() reads it: 132 SMs of 128 FP32 lanes at 1,980 MHz, HBM3 at 2,619 MHz
// on a 5,120-bit bus (3.35 TB/s: 1,693 bytes per SM clock), each tile's kernel resident at its
// __launch_bounds__ minimum, thin_gemm 2 blocks per SM.
ch05::PlanGpu h100_plan_gpu() {
  ch05::PlanGpu g;
  g.sms = 132;
  g.fmaPerClock = 128.0;
  g.dramBytesPerClock = 2.0 * 2619e6 * 5120 / 8 / 1980e6;
  g.clockGHz = 1.98;
  for (int t = 0; t < ch05::kPlanTileCount; ++t) g.tileBlocksPerSm[t] = ch05::kPlanTiles[t].minBlocks;
  g.thinBlocksPerSm = 2;
  g.rowBlocksPerSm = 4;     // row_times_matrix: 512 threads
  g.columnBlocksPerSm = 8;  // matrix_times_column: 256 threads
  return g;
}
const ch05::Candidate* find_plan(const std::vector<ch05::Candidate>& all, const ch05::GemmPlan& p) {
  for (const ch05::Candidate& c : all)
    if (c.plan == p) return &c;
  return nullptr;
}
}  // namespace

TEST_CASE("step 9's estimate, by hand: waves, the FMA and DRAM roofs, round trips", "[model]") {
  const ch05::PlanGpu g = h100_plan_gpu();
  CHECK(g.dramBytesPerClock == Approx(1693.0).epsilon(0.001));
  // 4096^3 in whole 128 x 128 tiles: 1,024 blocks, 264 at once, 4 waves; each SM's 2 blocks of a
  // wave share its 128 lanes: 4 x 2 x 128 x 128 x 4096 / 128 FMAs' clocks. DRAM: 3 x 64 MB.
  const double fma = 4.0 * 2 * 128 * 128 * 4096 / 128.0;
  const double dram = 3.0 * 4096 * 4096 * 4 / g.dramBytesPerClock;
  const double trips = 4 * ch05::kRoundTripNs * g.clockGHz;
  const auto all = ch05::plan_candidates(g, 4096, 4096, 4096);
  const ch05::Candidate* whole = find_plan(all, {ch05::GemmPath::Tiles, 0, ch05::ThinShape::ShortK, 1});
  REQUIRE(whole != nullptr);
  CHECK(whole->estimate == Approx(std::max(fma, dram) + trips));
  // Two slices: 2,048 blocks, 8 waves of half as long each, the partials written and read back,
  // and the sum's launch.
  const ch05::Candidate* two = find_plan(all, {ch05::GemmPath::Tiles, 0, ch05::ThinShape::ShortK, 2});
  REQUIRE(two != nullptr);
  const double dram2 = (3.0 * 4096 * 4096 * 4 + 2.0 * 2 * 4 * 4096.0 * 4096) / g.dramBytesPerClock;
  CHECK(two->estimate ==
        Approx(std::max(8.0 * 2 * 128 * 128 * 2048 / 128.0, dram2) +
               (8 * ch05::kRoundTripNs + ch05::kLaunchNs) * g.clockGHz));
}

TEST_CASE("step 9's candidates: every path where it can run, no cut past the workspace",
          "[model]") {
  const ch05::PlanGpu g = h100_plan_gpu();
  using ch05::GemmPath;
  for (const TestShape& s : random_shapes(200, 41, 16384, 6.9e10)) {
    INFO(s.M << "x" << s.N << "x" << s.K);
    const auto all = ch05::plan_candidates(g, s.M, s.N, s.K);
    bool tiles[ch05::kPlanTileCount] = {}, streamK = false;
    for (const ch05::Candidate& c : all) {
      CHECK(c.estimate > 0);
      CHECK(c.plan.slices >= 1);
      CHECK(c.plan.slices <= ch05::kMaxPlanSlices);
      CHECK((c.plan.slices == 1 || 4.0 * c.plan.slices * double(s.M) * s.N <= ch05::kMaxWorkspaceBytes));
      if (c.plan.path == GemmPath::Tiles && c.plan.slices == 1) tiles[c.plan.tile] = true;
      if (c.plan.path == GemmPath::StreamK) streamK = true;
      if (c.plan.path == GemmPath::Thin) CHECK(ch05::thin_fits(c.plan.thin, s.M, s.N, s.K));
    }
    for (bool t : tiles) CHECK(t);  // every tile, uncut
    const long long bigTiles = (long long)ceil_div(s.M, 128) * ceil_div(s.N, 128);
    CHECK(streamK == (bigTiles > 264 && bigTiles % 264 != 0));
    // What the chooser sees: per path its cheapest cut, its uncut plan and its first cut of at
    // least twice the cheapest's slices, nothing else.
    const auto input = ch05::plan_shortlist_input(g, s.M, s.N, s.K);
    for (const ch05::Candidate& c : input) {
      auto samePath = [&](const ch05::Candidate& o) {
        return o.plan.path == c.plan.path && o.plan.tile == c.plan.tile && o.plan.thin == c.plan.thin;
      };
      const ch05::Candidate* cheapest = &c;
      for (const ch05::Candidate& o : all)
        if (samePath(o) && o.estimate < cheapest->estimate) cheapest = &o;
      int twice = 0;
      for (const ch05::Candidate& o : all)
        if (samePath(o) && o.plan.slices >= 2 * cheapest->plan.slices &&
            (twice == 0 || o.plan.slices < twice))
          twice = o.plan.slices;
      CHECK((c.estimate == cheapest->estimate || c.plan.slices == 1 || c.plan.slices == twice));
    }
    // The shortlist: the cheapest estimate first, then those within the window, at most kShortlist.
    const auto list = tutorial::shortlist(input, ch05::kWindow, ch05::kShortlist);
    REQUIRE(!list.empty());
    CHECK(int(list.size()) <= ch05::kShortlist);
    for (const ch05::Candidate& c : all) CHECK(list[0].estimate <= c.estimate);
    for (const ch05::Candidate& c : list) CHECK(c.estimate <= ch05::kWindow * list[0].estimate);
  }
}

TEST_CASE("step 9's candidates fit the grid: no tiles past 65,535 rows of blocks", "[model]") {
  const ch05::PlanGpu g = h100_plan_gpu();
  for (const TestShape& s : {TestShape{8400000, 17, 16}, TestShape{4194304 * 2 + 64, 3, 1}}) {
    INFO(s.M << "x" << s.N << "x" << s.K);
    const auto all = ch05::plan_candidates(g, s.M, s.N, s.K);
    REQUIRE_FALSE(all.empty());
    for (const ch05::Candidate& c : all)
      if (c.plan.path == ch05::GemmPath::Tiles)
        CHECK(ceil_div(s.M, ch05::kPlanTiles[c.plan.tile].bm) <= tutorial::kMaxGridY);
  }
}

TEST_CASE("step 9's estimate on a 132-SM GPU: the path each family needs", "[model]") {
  const ch05::PlanGpu g = h100_plan_gpu();
  using ch05::GemmPath;
  auto best = [&](int M, int N, int K) {
    return tutorial::shortlist(ch05::plan_shortlist_input(g, M, N, K), ch05::kWindow, 1)[0].plan;
  };
  // A matrix times a vector, a vector times a matrix: their time is reading the matrix once
  // (the estimates of every plan that streams it at the full rate tie), and a 128 x 128 tile
  // would compute 127 rows (or columns) of nothing for every one of C: the vector kernel is
  // timed, the 128 x 128 tile is not first.
  for (const TestShape& s : {TestShape{4096, 1, 4096}, TestShape{1, 4096, 4096}}) {
    INFO(s.M << "x" << s.N << "x" << s.K);
    const auto top = tutorial::shortlist(ch05::plan_shortlist_input(g, s.M, s.N, s.K),
                                         ch05::kWindow, ch05::kShortlist);
    CHECK_FALSE((top[0].plan.path == GemmPath::Tiles && top[0].plan.tile == 0));
    bool vector = false;
    for (const ch05::Candidate& c : top) vector = vector || c.plan.path == GemmPath::Vector;
    CHECK(vector);
  }
  // A tiny C and an enormous K: more slices than step 6's 64, to fill the SMs.
  CHECK(best(64, 64, 1048576).slices > 64);
  // A large square: whole 128 x 128 tiles or stream-K, never cut along K.
  const ch05::GemmPlan square = best(8192, 8192, 8192);
  CHECK((square.path == GemmPath::StreamK || (square.tile == 0 && square.slices == 1)));
  // A GPU with twice the SMs cuts 4 tiles and a long K into more blocks.
  ch05::PlanGpu twice = g;
  twice.sms = 264;
  auto blocks = [](const ch05::GemmPlan& p) {
    const ch05::ThinExtent e = p.path == GemmPath::Thin
                                   ? ch05::thin_extent(p.thin)
                                   : ch05::ThinExtent{ch05::kPlanTiles[p.tile].bm,
                                                      ch05::kPlanTiles[p.tile].bn, 0};
    return ceil_div(256, e.bm) * ceil_div(256, e.bn) * p.slices;
  };
  CHECK(blocks(tutorial::shortlist(ch05::plan_shortlist_input(twice, 256, 256, 65536), ch05::kWindow,
                                   1)[0].plan) > blocks(best(256, 256, 65536)));
}

TEST_CASE("shared memory of the shipped configurations", "[model]") {
  CHECK(ch05::double_buffer_smem_bytes<128, 128, 8, 1>() == 8 * 1024);
  CHECK(ch05::double_buffer_smem_bytes<128, 128, 8, 2>() == 16 * 1024);
  CHECK(ch05::double_buffer_smem_bytes<128, 128, 64, 1>() == 64 * 1024);
  CHECK(ch05::double_buffer_smem_bytes<128, 128, 64, 2>() == 128 * 1024);
  // lean_gemm and pipelined_gemm (the best kernel): 2 buffers x (16 x 132 + 16 x 128) floats.
  CHECK(ch05::warp_tiles_smem_bytes<128, 128, 16, 2>() == 33280);
  // async_gemm as shipped: 3 stages x (BK x 132 + BK x 256) floats, BK = 8 and 16.
  CHECK(ch05::warp_tiles_smem_bytes<128, 256, 8, 3>() == 3 * (8 * 132 + 8 * 256) * 4);
  CHECK(ch05::warp_tiles_smem_bytes<128, 256, 16, 3>() == 74496);  // 72.75 KB: needs the opt-in
}

TEST_CASE("does doubling shared memory halve the resident blocks? (H100/H200 arithmetic)",
          "[occupancy]") {
  const SmLimits h100 = SmLimits::h100();
  SECTION("32 x 32 tiles, one warp per block, few registers: yes, 25 -> 13") {
    const Occupancy one = compute_occupancy({32, 64, 8 * 1024}, h100);
    const Occupancy two = compute_occupancy({32, 64, 16 * 1024}, h100);
    CHECK(one.blocks_per_sm == 25);  // 233472 / (8192 + 1024)
    CHECK(two.blocks_per_sm == 13);  // 233472 / (16384 + 1024)
    CHECK(two.limiter == Limiter::SharedMemory);
  }
  SECTION("chapter 04's 128 x 128 x 8 kernel, 128 registers: no, registers bind at 2") {
    const Occupancy one = compute_occupancy({256, 128, 8 * 1024}, h100);
    const Occupancy two = compute_occupancy({256, 128, 16 * 1024}, h100);
    CHECK(one.blocks_per_sm == 2);
    CHECK(two.blocks_per_sm == 2);
    CHECK(two.limiter == Limiter::Registers);
    CHECK(two.limit_smem == 13);  // shared memory alone would allow 13
  }
  SECTION("128 x 128 x 64: 64 KB fit 3 (registers: 2), 128 KB fit 1") {
    const Occupancy one = compute_occupancy({256, 128, 64 * 1024}, h100);
    const Occupancy two = compute_occupancy({256, 128, 128 * 1024}, h100);
    CHECK(one.limit_smem == 3);
    CHECK(one.blocks_per_sm == 2);
    CHECK(two.blocks_per_sm == 1);
    CHECK(two.limiter == Limiter::SharedMemory);
  }
  SECTION("the final kernel: 33280 B per block, 125 registers: registers bind at 2 (25%)") {
    const Occupancy o = compute_occupancy({256, 125, 33280}, h100);
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.occupancy == Approx(0.25));
    CHECK(o.limit_smem == 6);
  }
}

TEST_CASE("which GPUs can run the shipped configurations (published limits)", "[fit]") {
  // Per block: 256 threads for every kernel of the chapter; shared memory from the launchers'
  // own formulas; registers: 128 where __launch_bounds__(256, 2) caps them, the 125 ptxas
  // gives the final kernel on sm_90, and 0 (not checked) for async_gemm, whose count ptxas
  // decides per architecture.
  const size_t db64 = ch05::double_buffer_smem_bytes<128, 128, 64, 2>();
  const size_t async16 = ch05::warp_tiles_smem_bytes<128, 256, 16, 3>();
  const size_t pipelined = ch05::warp_tiles_smem_bytes<128, 128, 16, 2>();
  REQUIRE(db64 == 131072);
  REQUIRE(async16 == 74496);
  REQUIRE(pipelined == 33280);

  SECTION("double_buffer 128x128x64: 131,072 B fit sm_80 (163 KB), sm_90 and sm_100 (227 KB)") {
    for (const SmLimits& sm : {SmLimits::a100(), SmLimits::h100(), SmLimits::b200()}) {
      INFO(sm.name);
      CHECK(does_not_fit({256, 128, db64}, sm).empty());
      // (131,072 + 1,024) B per block: 167,936 / 132,096 = 1.3 and 233,472 / 132,096 = 1.8,
      // so one block of 8 warps: 12.5%.
      const Occupancy o = compute_occupancy({256, 128, db64}, sm);
      CHECK(o.blocks_per_sm == 1);
      CHECK(o.occupancy == Approx(0.125));
      CHECK(o.limiter == Limiter::SharedMemory);
    }
  }
  SECTION("...and not sm_86, sm_89, sm_120 (99 KB = 101,376 B) or sm_75 (64 KB)") {
    for (const SmLimits& sm : {SmLimits::rtx3090(), SmLimits::l4(), SmLimits::rtx5090()}) {
      INFO(sm.name);
      CHECK(does_not_fit({256, 128, db64}, sm) ==
            "needs 131,072 B of shared memory per block; this GPU allows 101,376 B");
      CHECK(compute_occupancy({256, 128, db64}, sm).limiter == Limiter::DoesNotFit);
    }
    CHECK(does_not_fit({256, 128, db64}, SmLimits::t4()) ==
          "needs 131,072 B of shared memory per block; this GPU allows 65,536 B");
  }
  SECTION("async 128x256x16: 74,496 B fit everywhere but the T4") {
    CHECK(does_not_fit({256, 0, async16}, SmLimits::t4()) ==
          "needs 74,496 B of shared memory per block; this GPU allows 65,536 B");
    // With the 1 KB reservation, 75,520 B per block: 1 block in 100 KB (102,400 B),
    // 2 in 164 KB (167,936 B), 3 in 228 KB (233,472 B).
    const struct {
      SmLimits sm;
      int blocks;
    } expected[] = {{SmLimits::rtx3090(), 1}, {SmLimits::l4(), 1},   {SmLimits::rtx5090(), 1},
                    {SmLimits::a100(), 2},    {SmLimits::h100(), 3}, {SmLimits::b200(), 3}};
    for (const auto& e : expected) {
      INFO(e.sm.name);
      CHECK(does_not_fit({256, 0, async16}, e.sm).empty());
      CHECK(compute_occupancy({256, 0, async16}, e.sm).blocks_per_sm == e.blocks);
    }
  }
  SECTION("the final kernel (33,280 B, 125 registers) fits all seven; registers bind at 2") {
    // 125 x 32 = 4,000 registers per warp, allocated as 4,096: 4 warps per quarter SM, 16 per
    // SM, 2 blocks of 8 warps, on every GPU (64 K registers each). Shared memory allows
    // 34,304 B per block: 2 in 100 KB (a tie, registers named), 4 in 164 KB, 6 in 228 KB.
    // The T4 reserves nothing but allocates in 256 B and has 64 KB: 65,536 / 33,280 = 1.97,
    // so 1 block, and shared memory binds.
    const struct {
      SmLimits sm;
      int blocks;
      double occupancy;
      Limiter limiter;
    } expected[] = {{SmLimits::t4(), 1, 8.0 / 32, Limiter::SharedMemory},
                    {SmLimits::a100(), 2, 16.0 / 64, Limiter::Registers},
                    {SmLimits::rtx3090(), 2, 16.0 / 48, Limiter::Registers},
                    {SmLimits::l4(), 2, 16.0 / 48, Limiter::Registers},
                    {SmLimits::h100(), 2, 16.0 / 64, Limiter::Registers},
                    {SmLimits::b200(), 2, 16.0 / 64, Limiter::Registers},
                    {SmLimits::rtx5090(), 2, 16.0 / 48, Limiter::Registers}};
    for (const auto& e : expected) {
      INFO(e.sm.name);
      CHECK(does_not_fit({256, 125, pipelined}, e.sm).empty());
      const Occupancy o = compute_occupancy({256, 125, pipelined}, e.sm);
      CHECK(o.blocks_per_sm == e.blocks);
      CHECK(o.occupancy == Approx(e.occupancy));
      CHECK(o.limiter == e.limiter);
    }
  }
  SECTION("doubling 8 KB to 16 KB (128 registers) costs no block on any of them") {
    // Registers allow 2 blocks everywhere; 17,408 B per block (16,384 B on the T4) leaves
    // room for at least 4 in shared memory.
    for (const SmLimits& sm : published_sm_limits()) {
      INFO(sm.name);
      const Occupancy one = compute_occupancy({256, 128, 8 * 1024}, sm);
      const Occupancy two = compute_occupancy({256, 128, 16 * 1024}, sm);
      CHECK(one.blocks_per_sm == 2);
      CHECK(two.blocks_per_sm == 2);
      CHECK(two.limiter == Limiter::Registers);
    }
  }
}
