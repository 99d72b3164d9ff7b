// Chapter 06 tests. Host: the bank calculator and every number the lesson derives with it.
// GPU: every transpose equals the CPU transpose exactly, for odd and non-square shapes, on
// random data with a poisoned output; the copy kernel does what it says. (The coalescing
// arithmetic and the demo and memory-system kernels are chapter 01's: 01_naive/tests.cu.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "06_transpose/kernel_list.cuh"
#include "common/catch_compat.hpp"
#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"
#include "common/launch_record.hpp"
#include "common/memory_access.hpp"
#include "common/transpose.hpp"
#ifdef TUTORIAL_CPU_BACKEND
#include "common/cpu_backend/size_cap.hpp"
#endif

using namespace tutorial;

// ---- The shared-memory calculator ----------------------------------------------------

namespace {
// Word index of tile[r][c] in a tile whose rows are `pitch` words long.
std::vector<uint32_t> column_of_tile(int pitch, int c, int lanes = 32) {
  std::vector<uint32_t> words;
  for (int r = 0; r < lanes; ++r) words.push_back(uint32_t(r * pitch + c));
  return words;
}
std::vector<uint32_t> row_of_tile(int pitch, int r) {
  std::vector<uint32_t> words;
  for (int c = 0; c < 32; ++c) words.push_back(uint32_t(r * pitch + c));
  return words;
}
}  // namespace

TEST_CASE("a column of a 32x32 tile is a 32-way conflict, of a 32x33 tile none",
          "[banks]") {
  // transpose_tiled's write phase reads tile[threadIdx.x][threadIdx.y + j]: lane = tile row.
  CHECK(bank_conflict_degree(column_of_tile(32, 0)) == 32);
  CHECK(bank_conflict_degree(column_of_tile(32, 7)) == 32);
  CHECK(bank_conflict_degree(column_of_tile(33, 0)) == 1);
  CHECK(bank_conflict_degree(column_of_tile(33, 7)) == 1);
  // The read phase writes tile[threadIdx.y + j][threadIdx.x]: a row, conflict-free either way.
  CHECK(bank_conflict_degree(row_of_tile(32, 3)) == 1);
  CHECK(bank_conflict_degree(row_of_tile(33, 3)) == 1);
}

TEST_CASE("the 64-wide tile: 64x64 columns conflict 32-way, 64x65 not at all",
          "[banks]") {
  CHECK(bank_conflict_degree(column_of_tile(64, 5)) == 32);
  CHECK(bank_conflict_degree(column_of_tile(65, 5)) == 1);
  // Padding by 2 would not do: even pitches pair rows up in the same bank.
  CHECK(bank_conflict_degree(column_of_tile(66, 5)) == 2);
}

TEST_CASE("the 16x16 trap: a 16x16 tile conflicts too and +1 is not always enough",
          "[banks]") {
  // A 16x16 block reads tile[threadIdx.x][threadIdx.y]: one warp is lanes 0-15 down column 0
  // and lanes 16-31 down column 1.
  auto warp_reading_two_columns = [](int pitch) {
    std::vector<uint32_t> words;
    for (int lane = 0; lane < 32; ++lane)
      words.push_back(uint32_t((lane % 16) * pitch + lane / 16));
    return words;
  };
  CHECK(bank_conflict_degree(warp_reading_two_columns(16)) == 8);
  // +1: rows 0 and 15 of the two columns still meet in bank 0.
  CHECK(bank_conflict_degree(warp_reading_two_columns(17)) == 2);
  // +2 puts column 0 on the even banks and column 1 on the odd ones.
  CHECK(bank_conflict_degree(warp_reading_two_columns(18)) == 1);
}

TEST_CASE("broadcast is free, strides conflict by their common factor with 32", "[banks]") {
  CHECK(bank_conflict_degree(std::vector<uint32_t>(32, 9)) == 1);
  std::vector<uint32_t> stride2, stride3;
  for (uint32_t t = 0; t < 32; ++t) {
    stride2.push_back(2 * t);
    stride3.push_back(3 * t);
  }
  CHECK(bank_conflict_degree(stride2) == 2);
  CHECK(bank_conflict_degree(stride3) == 1);
}

TEST_CASE("16-byte accesses go in quarter-warp phases", "[banks]") {
  // 32 lanes reading consecutive float4s: 4 phases of 8 lanes, each covering 32 banks once.
  std::vector<uint32_t> words;
  for (uint32_t t = 0; t < 32; ++t) words.push_back(4 * t);
  SharedAccessCost c = shared_access_cost(words, 4);
  CHECK(c.degree == 1);
  CHECK(c.wavefronts == 4);
  // Every lane on the same 4 banks (a float4 column of a 32-float-wide tile): 8-way per phase.
  words.clear();
  for (uint32_t t = 0; t < 32; ++t) words.push_back(32 * t);
  c = shared_access_cost(words, 4);
  CHECK(c.degree == 8);
  CHECK(c.wavefronts == 32);
  CHECK_THROWS_AS(shared_access_cost({1}, 4), std::invalid_argument);
}

namespace {
// Word addresses of transpose_vec4's shared-memory accesses for one warp, with or without
// the swizzle. A tile row is TILE/4 float4 chunks = TILE words.
template <int TILE>
std::vector<uint32_t> vec4_store_words(int warp, int k, bool swizzle) {
  constexpr int CHUNKS = TILE / 4;
  std::vector<uint32_t> words;
  for (int lane = 0; lane < 32; ++lane) {
    const int b = warp * 32 + lane, i = b / CHUNKS, j = b % CHUNKS;
    const int row = 4 * j + k, chunk = swizzle ? ch06::swizzled_chunk(row, i) : i;
    words.push_back(uint32_t(row * TILE + 4 * chunk));
  }
  return words;
}
template <int TILE>
std::vector<uint32_t> vec4_load_words(int warp, bool swizzle) {
  constexpr int CHUNKS = TILE / 4;
  std::vector<uint32_t> words;
  for (int lane = 0; lane < 32; ++lane) {
    const int b = warp * 32 + lane, r = b / CHUNKS, c = b % CHUNKS;
    words.push_back(uint32_t(r * TILE + 4 * (swizzle ? ch06::swizzled_chunk(r, c) : c)));
  }
  return words;
}
}  // namespace

TEST_CASE("transpose_vec4's swizzle makes its 16-byte shared stores conflict-free", "[banks]") {
  for (int warp = 0; warp < 8; ++warp) {
    for (int k = 0; k < 4; ++k) {
      CAPTURE(warp, k);
      CHECK(shared_access_cost(vec4_store_words<64>(warp, k, true), 4).wavefronts == 4);
      if (warp < 2)  // the 32-wide tile has 64 4x4 blocks: two warps
        CHECK(shared_access_cost(vec4_store_words<32>(warp, k, true), 4).wavefronts == 4);
      // Unswizzled, the 8 lanes of a phase store into one 4-bank group of 8 rows.
      CHECK(shared_access_cost(vec4_store_words<64>(warp, k, false), 4).degree == 8);
    }
    CHECK(shared_access_cost(vec4_load_words<64>(warp, true), 4).wavefronts == 4);
    CHECK(shared_access_cost(vec4_load_words<32>(warp, true), 4).wavefronts == 4);
    CHECK(shared_access_cost(vec4_load_words<64>(warp, false), 4).wavefronts == 4);
  }
}

// ---- The transposes' global accesses, as the README counts them ----------------------

TEST_CASE("naive: the load is one line, the store 32 sectors in 32 rows", "[access]") {
  const int rows = 8192, cols = 8192;
  // Warp 0 of block (0, 0), j = 0: lanes have col = lane, row = 0.
  std::vector<uint64_t> loads, stores;
  for (uint64_t lane = 0; lane < 32; ++lane) {
    loads.push_back(4 * (0 * cols + lane));
    stores.push_back(4 * (lane * rows + 0));
  }
  CHECK(global_access_cost(loads, 4).sectors == 4);
  const GlobalAccessCost s = global_access_cost(stores, 4);
  CHECK(s.sectors == 32);
  CHECK(s.efficiency() == Approx(0.125));
}

TEST_CASE("vec4: a warp loads 2 input rows x 256 B and stores 2 output rows x 256 B",
          "[access]") {
  const uint64_t rows = 8192, cols = 8192;
  constexpr int CHUNKS = 64 / 4;
  std::vector<uint64_t> loads, stores;
  for (int lane = 0; lane < 32; ++lane) {
    // Load phase, k = 0: 4x4 block (lane / CHUNKS, lane % CHUNKS) of tile (0, 0).
    loads.push_back(4 * (4 * uint64_t(lane / CHUNKS) * cols + 4 * (lane % CHUNKS)));
    // Store phase: output row lane / CHUNKS, chunk lane % CHUNKS.
    stores.push_back(4 * (uint64_t(lane / CHUNKS) * rows + 4 * (lane % CHUNKS)));
  }
  for (const auto& addresses : {loads, stores}) {
    const GlobalAccessCost c = global_access_cost(addresses, 16);
    CHECK(c.sectors == 16);
    CHECK(c.lines == 4);
    CHECK(c.efficiency() == Approx(1.0));
  }
}

TEST_CASE("a transpose moves exactly the bytes of a copy", "[access]") {
  CHECK(transpose_bytes(8192, 8192) == Approx(2.0 * 8192 * 8192 * 4));
  CHECK(transpose_bytes(3, 5) == Approx(120));
}

TEST_CASE("the CPU reference transposes", "[reference]") {
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};  // 2x3
  std::vector<float> out(6, 0);
  cpu_transpose(in.data(), out.data(), 2, 3);
  CHECK(out == std::vector<float>{1, 4, 2, 5, 3, 6});
  HostMatrix big = random_matrix(130, 67, 3), t(67, 130), back(130, 67);
  cpu_transpose(big.data(), t.data(), 130, 67);
  cpu_transpose(t.data(), back.data(), 67, 130);
  CHECK(back.values == big.values);
}

// ---- GPU: every kernel, every shape ----------------------------------------------------

namespace {
struct Shape {
  int rows, cols;
};
// Degenerate, prime, non-square, not multiples of the tiles (32, 64) or of 4, and aligned.
const std::vector<Shape> kShapes = {
    {1, 1},     {1, 1000},  {1000, 1},  {1, 4},     {4, 1},       {33, 65},    {65, 33},
    {4097, 3},  {3, 4097},  {4, 4},     {8, 12},    {100, 36},    {36, 100},   {64, 64},
    {96, 160},  {128, 4},   {4, 128},   {127, 129}, {1000, 1000}, {2048, 1024}, {1024, 2048},
    {1028, 516}};
// A row of the table at one shape: the CPU transpose, exactly; or, for the float4 kernel
// alone (launch_vec4: its rows are named "vec4 ..."), a refusal that says float4 cannot take
// the shape. Every other launcher, the dispatcher first, must take every shape.
void check_row(const TransposeKernel& kernel, int rows, int cols, uint64_t seed) {
  try {
    const CompareResult r = check_transpose(kernel.launch, rows, cols, seed);
    INFO(r.summary());
    CHECK(r.ok());
  } catch (const UnsupportedShape& e) {
    const std::string why = e.what();
    CAPTURE(why);
    CHECK(kernel.name.rfind("vec4 ", 0) == 0);
    CHECK(why.rfind("transpose_vec4: float4 needs", 0) == 0);
  }
}
}  // namespace

TEST_CASE("every transpose equals the CPU transpose for every shape", "[gpu]") {
  REQUIRE_GPU();
  for (const TransposeKernel& kernel : ch06::chapter_kernels()) {
    for (const Shape& s : kShapes) {
      CAPTURE(kernel.name, s.rows, s.cols);
      check_row(kernel, s.rows, s.cols, 7);
    }
  }
}

TEST_CASE("the thin kernel: fewer than 64 rows or columns, chunks longer than its span",
          "[gpu]") {
  REQUIRE_GPU();
  const TransposeKernel thin{"thin", ch06::launch_thin};
  // Thin sides odd (float4 segments) and even (one float per lane), 2 and 3 (a float4 of the
  // contiguous side spans two rows), tall and wide; lengths of one short chunk (fewer than 8
  // floats per segment: no float4 fits every head), of several with the last one partly empty,
  // and of a last chunk of 2 floats per segment (354 tall: 352 + 2 at 33 columns; 226 wide:
  // 224 + 2 at 33 rows).
  for (int side : {1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 34, 47, 48, 62, 63}) {
    for (int along : {1, 2, 3, 5, 226, 354, 3001, 20011}) {
      for (const Shape& s : {Shape{along, side}, Shape{side, along}}) {
        CAPTURE(s.rows, s.cols);
        const CompareResult r = check_transpose(thin.launch, s.rows, s.cols, 11);
        INFO(r.summary());
        CHECK(r.ok());
      }
    }
  }
  // Square ones: the thin side is the rows.
  for (int side : {1, 7, 32, 63}) {
    CAPTURE(side);
    const CompareResult r = check_transpose(thin.launch, side, side, 11);
    INFO(r.summary());
    CHECK(r.ok());
  }
  // Pointers off a 16-byte boundary by 1, 2 or 3 floats: the contiguous side falls back to one
  // float at a time, and each segment's head moves. Nothing before the output is written.
  for (const Shape& s : {Shape{3001, 33}, Shape{33, 3001}, Shape{2049, 2}, Shape{4, 2049}}) {
    const HostMatrix in = random_matrix(s.rows, s.cols, 7);
    HostMatrix want(s.cols, s.rows);
    cpu_transpose(in.data(), want.data(), s.rows, s.cols);
    for (int inOff : {0, 1, 2, 3}) {
      for (int outOff : {0, 1, 3}) {
        CAPTURE(s.rows, s.cols, inOff, outOff);
        std::vector<float> shifted(size_t(inOff), 0.0f);
        shifted.insert(shifted.end(), in.values.begin(), in.values.end());
        DeviceBuffer<float> d_in(shifted), d_out(size_t(s.rows) * s.cols + outOff);
        d_out.poison();
        ch06::launch_thin(d_in.data() + inOff, d_out.data() + outOff, s.rows, s.cols);
        const std::vector<float> got = d_out.download();
        const CompareResult r =
            compare(got.data() + outOff, want.data(), s.cols, s.rows, Tolerance::exact());
        INFO(r.summary());
        CHECK(r.ok());
        for (int i = 0; i < outOff; ++i) CHECK(std::isnan(got[size_t(i)]));  // still poison
      }
    }
  }
  // Not thin enough for a chunk (8,192 floats wide: 32 columns of at most 255 rows): refused
  // with the reason.
  std::string message;
  try {
    ch06::launch_thin(nullptr, nullptr, 400, 400);
  } catch (const UnsupportedShape& e) {
    message = e.what();
  }
  CHECK(message.find("takes fewer than 256 rows or columns") != std::string::npos);
}

TEST_CASE("the thin kernel's larger chunks: thin sides of 64 to 767", "[gpu]") {
  REQUIRE_GPU();
  // Each chunk size at the thin sides it takes (32 columns of fewer than CHUNK / 32 rows), odd
  // (float4 segments) and even (one float per lane), wide and tall, with a last chunk partly
  // empty.
  const TransposeKernel kernels[] = {{"thin 256/8192", ch06::launch_thin_sized<256, 8192>},
                                     {"thin 512/16384", ch06::launch_thin_sized<512, 16384>},
                                     {"thin 1024/24576", ch06::launch_thin_sized<1024, 24576>}};
  const int most[] = {255, 511, 767};
  for (int i = 0; i < 3; ++i) {
    for (int side : {64, 100, 179, 255, 256, 383, 511, 512, 767}) {
      if (side > most[i]) continue;
      for (const Shape& s : {Shape{side, 1001}, Shape{1001, side}}) {
        CAPTURE(kernels[i].name, s.rows, s.cols);
        const CompareResult r = check_transpose(kernels[i].launch, s.rows, s.cols, 23);
        INFO(r.summary());
        CHECK(r.ok());
      }
    }
  }
}

namespace {
// Whether check_transpose runs rows x cols as asked: the CPU backend checks large shapes at a
// smaller size (common/cpu_backend/size_cap.hpp), where the dispatcher may pick another kernel.
bool runs_as_asked(int rows, int cols) {
#ifdef TUTORIAL_CPU_BACKEND
  return double(rows) * cols <= tutorial::cpu::kMaxTransposeElements;
#else
  (void)rows;
  (void)cols;
  return true;
#endif
}

// A shape and the kernel the chapter's best must launch for it.
struct Pick {
  int rows, cols;
  const void* kernel;
};

// The chapter's best at each pick: a correct transpose, by the pick's kernel wherever the shape
// runs as asked.
void check_picks(std::initializer_list<Pick> picks, uint64_t seed) {
  for (const Pick& pick : picks) {
    CAPTURE(pick.rows, pick.cols);
    const CompareResult r = check_transpose(ch06::best_kernel().launch, pick.rows, pick.cols, seed);
    INFO(r.summary());
    CHECK(r.ok());
    if (runs_as_asked(pick.rows, pick.cols)) CHECK(last_launch().kernel == pick.kernel);
  }
}

// A count of the blocks the current GPU holds at once: a whole number per SM, at least one.
void check_resident(long long resident) {
  int sms = 0;
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  CHECK(resident % sms == 0);
  CHECK(resident >= sms);
}

// transpose_vec4 in one block order, as last_launch() names it.
template <ch06::BlockOrder ORDER>
const void* vec4_kernel() {
  return reinterpret_cast<const void*>(ch06::transpose_vec4<64, 256, ORDER>);
}

// Floats from `p` (16-byte aligned) to the next 32-byte boundary, plus `offset`.
size_t shift_to(const float* p, int offset) {
  return (reinterpret_cast<uintptr_t>(p) % 32 == 0 ? 0 : 4) + size_t(offset);
}

// The chapter's best with `in` and `out` the given number of floats past a 32-byte boundary
// (multiples of 4, so float4 still fits): the result exact, and `kernel` the one it launched.
void check_offset_pick(int rows, int cols, int inOffset, int outOffset, const void* kernel,
                       uint64_t seed) {
  CAPTURE(rows, cols, inOffset, outOffset);
  const HostMatrix in = random_matrix(rows, cols, seed);
  HostMatrix want(cols, rows);
  cpu_transpose(in.data(), want.data(), rows, cols);
  const size_t count = size_t(rows) * cols;
  DeviceBuffer<float> d_in(count + 8), d_out(count + 8);
  const size_t inShift = shift_to(d_in.data(), inOffset);
  const size_t outShift = shift_to(d_out.data(), outOffset);
  REQUIRE(reinterpret_cast<uintptr_t>(d_in.data() + inShift) % 32 == size_t(inOffset) * 4);
  REQUIRE(reinterpret_cast<uintptr_t>(d_out.data() + outShift) % 32 == size_t(outOffset) * 4);
  std::vector<float> shifted(count + 8, 0.0f);
  std::copy(in.values.begin(), in.values.end(), shifted.begin() + inShift);
  d_in.upload(shifted);
  d_out.poison();
  ch06::dispatch_transpose(d_in.data() + inShift, d_out.data() + outShift, rows, cols);
  const std::vector<float> got = d_out.download();
  const CompareResult r =
      compare(got.data() + outShift, want.data(), cols, rows, Tolerance::exact());
  INFO(r.summary());
  CHECK(r.ok());
  CHECK(last_launch().kernel == kernel);
}
}  // namespace

TEST_CASE("the chapter's best walks a wide matrix down its bands first", "[gpu]") {
  REQUIRE_GPU();
  const void* byOutputRows = reinterpret_cast<const void*>(
      ch06::transpose_sector_aligned<128, 32, 8, ch06::BlockOrder::OutputRows>);
  const void* byInputRows = reinterpret_cast<const void*>(
      ch06::transpose_sector_aligned<128, 32, 8, ch06::BlockOrder::InputRows>);
  const void* padded = reinterpret_cast<const void*>(ch06::transpose_padded<64, 4>);
  // Odd column counts (no float4), both sides past the thin kernel's limits. Wide: bands first,
  // unless the padded tile fits (rows % 8 == 0) and a band has no more 32-column blocks than the
  // GPU holds at once. Tall: the input's order, or the padded tile.
  const long long resident = ch06::resident_sector_blocks();
  check_resident(resident);
  const int longBand = int(32 * (resident + 1) + 1);  // resident + 2 column blocks
  const int shortBand = longBand - 64;                // resident column blocks
  check_picks({{65, 1001, byOutputRows},     {201, shortBand, byOutputRows},
               {200, longBand, byOutputRows}, {200, shortBand, padded},
               {1001, 1000, byInputRows},     {3001, 201, byInputRows},
               {3000, 201, padded}},
              19);
}

TEST_CASE("an H100 holds 1,056 blocks of the sector-aligned tile at once", "[model]") {
  // 132 SMs of 2,048 threads and 228 KB of shared memory; a block: 256 threads, 17,820 bytes.
  CHECK(ch06::sector_blocks_resident(132, 2048, 228 * 1024) == 1056);
  // Shared memory the limit: 64 KB per SM holds 3 tiles.
  CHECK(ch06::sector_blocks_resident(10, 2048, 64 * 1024) == 30);
  // transpose_vec4<64, 256>: 256 threads, 16,384 bytes; threads the limit on an H100, shared
  // memory where an SM has 64 KB (4 tiles).
  CHECK(ch06::vec4_blocks_resident(132, 2048, 228 * 1024) == 1056);
  CHECK(ch06::vec4_blocks_resident(10, 2048, 64 * 1024) == 40);
}

TEST_CASE("the chapter's best walks a tall float4 matrix along input rows where an output band "
          "is longer than the resident blocks", "[gpu]") {
  REQUIRE_GPU();
  const void* byOutputRows = vec4_kernel<ch06::BlockOrder::OutputRows>();
  const void* byInputRows = vec4_kernel<ch06::BlockOrder::InputRows>();
  const long long resident = ch06::resident_vec4_blocks();
  check_resident(resident);
  // Multiples of 4 (float4): an output band of rows / 64 blocks, one more than resident, or as
  // many; wide matrices with cols % 8 == 0 keep the output's order whatever their length. With
  // rows % 8 == 4 the output rows are off the sectors: the long band then goes to the
  // sector-aligned tile in the input's order, but below kThinTall columns. (The short band has 72
  // columns, on the sectors: with 68 the next test case's rule would take the input's order.)
  const int longBand = int(64 * resident + 8), shortBand = int(64 * resident);
  const int offSectors = longBand - 4;
  const void* sector = reinterpret_cast<const void*>(ch06::transpose_sector_aligned<128, 32, 8>);
  check_picks({{longBand, 68, byInputRows},   {shortBand, 72, byOutputRows},
               {68, longBand, byOutputRows},   {offSectors, 68, sector},
               {offSectors, 36, sector},       {offSectors, 32, byInputRows}},
              23);
  // rows % 8 == 0 but `out` 16 bytes past a sector (float4 still fits): the sector-aligned tile.
  check_offset_pick(longBand, 68, 0, 4, sector, 29);
}

TEST_CASE("the chapter's best walks a float4 matrix with split input sectors along input rows "
          "where the resident blocks cover kInputOrderBands bands", "[gpu]") {
  REQUIRE_GPU();
  const void* byOutputRows = vec4_kernel<ch06::BlockOrder::OutputRows>();
  const void* byInputRows = vec4_kernel<ch06::BlockOrder::InputRows>();
  const long long resident = ch06::resident_vec4_blocks();
  check_resident(resident);
  // cols % 8 == 4, rows % 8 == 0: the input rows split sectors, the output rows start on them.
  // A band of cols / 64 blocks, kInputOrderBands of them fitting the resident blocks or not.
  const long long fits = resident / ch06::kInputOrderBands;  // blocks a band may have
  REQUIRE(fits >= 1);
  const int shortBands = int(64 * fits - 4), longBands = int(64 * fits + 4);
  // Tall, but an output band (rows / 64 blocks) no longer than resident: not the rule above.
  const int tall = int(64 * resident);
  REQUIRE(shortBands % 8 == 4);
  check_picks({{24, shortBands, byInputRows},  {24, longBands, byOutputRows},
               {tall, 60, byInputRows},         {tall, 56, byOutputRows},  // 56: on the sectors
               {tall - 4, 60, byOutputRows}},  // output rows off the sectors too
              31);
  // cols % 8 == 0 but `in` 16 bytes past a sector: the input rows split sectors as well.
  check_offset_pick(64, 64, 4, 0, byInputRows, 37);
}

namespace {
template <int CAP>
void sector_aligned_capped(const float* in, float* out, int rows, int cols) {
  ch06::launch_sector_aligned_capped<128, 32, 8>(in, out, rows, cols, CAP);
}
template <int CAP>
void sector_aligned_by_output_rows_capped(const float* in, float* out, int rows, int cols) {
  ch06::launch_sector_aligned_capped<128, 32, 8, ch06::BlockOrder::OutputRows>(in, out, rows,
                                                                               cols, CAP);
}
}  // namespace

TEST_CASE("the sector-aligned kernel loops over bands when the grid has fewer rows of blocks",
          "[gpu]") {
  REQUIRE_GPU();
  // The hardware allows 65,535 blocks along y; capping it at 1, 2 or 3 here runs the loop
  // that a matrix of more than 8.4 million rows needs, at a size every backend can afford.
  const TransposeLauncher capped[] = {sector_aligned_capped<1>, sector_aligned_capped<2>,
                                      sector_aligned_capped<3>};
  for (int cap = 1; cap <= 3; ++cap) {
    for (const Shape& s : std::vector<Shape>{{1000, 37}, {513, 40}, {129, 9}, {1, 50}}) {
      CAPTURE(cap, s.rows, s.cols);
      const CompareResult r = check_transpose(capped[cap - 1], s.rows, s.cols, 13);
      INFO(r.summary());
      CHECK(r.ok());
    }
  }
  // The bands-first order puts the column blocks along y: past the cap (here 2 or 3 column
  // blocks: more than 64 or 96 columns) it takes the input's order, and its loop over bands where
  // needed.
  const TransposeLauncher byOutputRows[] = {sector_aligned_by_output_rows_capped<2>,
                                            sector_aligned_by_output_rows_capped<3>};
  for (int i = 0; i < 2; ++i) {
    for (const Shape& s : std::vector<Shape>{{300, 37}, {300, 97}, {129, 64}, {7, 200}, {1, 1}}) {
      CAPTURE(i + 2, s.rows, s.cols);
      const CompareResult r = check_transpose(byOutputRows[i], s.rows, s.cols, 13);
      INFO(r.summary());
      CHECK(r.ok());
    }
  }
}

TEST_CASE("the chapter's best transpose takes matrices past the grid's 65,535 rows of blocks",
          "[gpu]") {
  // Hundreds of megabytes: a GPU's job (the loop itself is tested above on every backend).
  REQUIRE_REAL_GPU();
  const TransposeKernel best = ch06::best_kernel();
  // Tall and wide, float4-aligned or not, thin and not: more than 65,535 tiles along the long
  // side for every kernel the chapter's best may pick (4194368 x 68: transpose_vec4 with its grid
  // turned round; 4194372 x 68 and 8388612 x 36: the sector-aligned tile from the float4 branch,
  // the second past 65,535 bands).
  for (const Shape& s : std::vector<Shape>{{8500001, 9}, {9, 8500001}, {8500001, 65},
                                           {4194368, 12}, {12, 4194368}, {4, 5000000},
                                           {5000000, 4}, {4194372, 68}, {68, 4194372},
                                           {4194368, 68}, {8388612, 36}}) {
    CAPTURE(s.rows, s.cols);
    const CompareResult r = check_transpose(best.launch, s.rows, s.cols, 17);
    INFO(r.summary());
    CHECK(r.ok());
  }
}

// Small odd shapes only, so that compute-sanitizer (memcheck, racecheck) finishes quickly:
//   compute-sanitizer --tool racecheck build/bin/06_transpose_tests "[sanitize]"
TEST_CASE("small odd shapes for the sanitizers", "[gpu][sanitize]") {
  REQUIRE_GPU();
  const Shape shapes[] = {{1, 1}, {3, 5}, {33, 65}, {65, 33}, {4, 8}, {100, 36}, {127, 129}, {68, 132},
                          {3, 1500}, {1500, 5}};
  for (const TransposeKernel& kernel : ch06::chapter_kernels()) {
    for (const Shape& s : shapes) {
      CAPTURE(kernel.name, s.rows, s.cols);
      check_row(kernel, s.rows, s.cols, 9);
    }
  }
}

TEST_CASE("misaligned pointers: the float4 kernel refuses them, the dispatcher falls back",
          "[gpu]") {
  REQUIRE_GPU();
  const int rows = 64, cols = 128;
  const HostMatrix in = random_matrix(rows, cols, 5);
  HostMatrix want(cols, rows);
  cpu_transpose(in.data(), want.data(), rows, cols);
  // One float past a 256-byte boundary: every row start is 4 bytes off a float4.
  std::vector<float> padded(in.values);
  padded.insert(padded.begin(), 0.0f);
  DeviceBuffer<float> d_in(padded), d_out(size_t(rows) * cols + 1);
  CHECK_FALSE(ch06::float4_aligned(d_in.data() + 1, d_out.data() + 1, rows, cols));
  CHECK_THROWS_AS((ch06::launch_vec4<64, 256, ch06::BlockOrder::InputRows>(
                      d_in.data() + 1, d_out.data() + 1, rows, cols)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06::launch_vec4<64, 256, ch06::BlockOrder::OutputRows>(
                      d_in.data() + 1, d_out.data() + 1, rows, cols)),
                  UnsupportedShape);
  d_out.poison();
  ch06::dispatch_transpose(d_in.data() + 1, d_out.data() + 1, rows, cols);
  const std::vector<float> got = d_out.download();
  const CompareResult r = compare(got.data() + 1, want.data(), cols, rows, Tolerance::exact());
  INFO(r.summary());
  CHECK(r.ok());
  // `out` 4 bytes past a sector boundary: the sector-aligned tile (a wide matrix: bands first).
  CHECK(last_launch().kernel ==
        reinterpret_cast<const void*>(
            ch06::transpose_sector_aligned<128, 32, 8, ch06::BlockOrder::OutputRows>));
}

TEST_CASE("the chapter's best takes tall matrices float4 cannot to the thin kernel below 36 "
          "columns", "[gpu]") {
  REQUIRE_GPU();
  // 3001 rows: not a multiple of 4, so no float4; 35 columns go to transpose_thin, 36 to the
  // sector-aligned tile (3001 rows is not a multiple of 8 either).
  const void* thin = reinterpret_cast<const void*>(ch06::transpose_thin<512>);
  const void* sector = reinterpret_cast<const void*>(ch06::transpose_sector_aligned<128, 32, 8>);
  check_picks({{3001, 35, thin}, {3001, 36, sector}}, 17);
}

TEST_CASE("float4 kernels copy a single row or column: its transpose is the same floats",
          "[gpu]") {
  REQUIRE_GPU();
  for (const Shape& s : {Shape{1, 1}, Shape{1, 5}, Shape{7, 1}, Shape{1, 4096}, Shape{4099, 1}}) {
    const TransposeKernel kernel = ch06::best_kernel();
    CAPTURE(kernel.name, s.rows, s.cols);
    const CompareResult r = check_transpose(kernel.launch, s.rows, s.cols, 13);
    INFO(r.summary());
    CHECK(r.ok());
    CHECK(last_launch().kernel == reinterpret_cast<const void*>(ch06::copy_vec4));
  }
}

TEST_CASE("the copy kernel copies every float, tails included", "[gpu]") {
  REQUIRE_GPU();
  const TransposeKernel kernel = ch06::copy_kernel();
  {
    for (const Shape& s : {Shape{1, 1}, Shape{1, 3}, Shape{5, 1}, Shape{33, 65}, Shape{1000, 1000},
                           Shape{4097, 3}, Shape{2048, 1024}}) {
      CAPTURE(kernel.name, s.rows, s.cols);
      const HostMatrix in = random_matrix(s.rows, s.cols, 11);
      DeviceBuffer<float> d_in(in.values), d_out(in.size());
      d_out.poison();
      kernel.launch(d_in.data(), d_out.data(), s.rows, s.cols);
      const std::vector<float> got = d_out.download();
      const CompareResult r = compare(got.data(), in.data(), s.rows, s.cols, Tolerance::exact());
      INFO(r.summary());
      CHECK(r.ok());
    }
  }
}
