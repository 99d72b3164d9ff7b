// Chapter 06 tests. Host: the bank calculator and every number the lesson derives with it.
// GPU: every transpose equals the CPU transpose exactly, for odd and non-square shapes, on
// random data with a poisoned output; the copy kernel does what it says. (The coalescing
// arithmetic and the demo and memory-system kernels are chapter 01's: 01_naive/tests.cu.)
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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
#include "common/catch_compat.hpp"
#include "common/device_buffer.hpp"
#include "common/host_matrix.hpp"
#include "common/launch_record.hpp"
#include "common/memory_access.hpp"
#include "common/transpose.hpp"
#ifndef TUTORIAL_CPU_BACKEND
#include "06_transpose/lab/warp_regs.cuh"  // warp-synchronous: GPU only
#include "06_transpose/lab/warps.cuh"
#endif
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

TEST_CASE("tile_of_block visits every tile once, in groups of rows of tiles", "[order]") {
  for (int down : {1, 2, 5, 16, 33})
    for (int across : {1, 3, 16, 40})
      for (int group : {1, 2, 4, 7, 16, 64}) {
        CAPTURE(down, across, group);
        std::vector<int> seen(size_t(down) * across, 0);
        for (long long b = 0; b < (long long)down * across; ++b) {
          int r = -1, c = -1;
          ch06lab::tile_of_block(b, down, across, std::min(group, down), r, c);
          REQUIRE((r >= 0 && r < down && c >= 0 && c < across));
          ++seen[size_t(r) * across + c];
          // within a group, consecutive blocks walk down the group's rows first
          if (b % std::min(group, down) != 0 && down % std::min(group, down) == 0) {
            int r0 = -1, c0 = -1;
            ch06lab::tile_of_block(b - 1, down, across, std::min(group, down), r0, c0);
            CHECK(r == r0 + 1);
            CHECK(c == c0);
          }
        }
        CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
      }
}

TEST_CASE("the lab's candidates equal the CPU transpose for every shape", "[gpu]") {
  REQUIRE_GPU();
  const std::vector<TransposeKernel> lab = {
      {"vec4 g1", ch06lab::launch_vec4_grouped<1>},     {"vec4 g3", ch06lab::launch_vec4_grouped<3>},
      {"vec4 gAll", ch06lab::launch_vec4_grouped<0>},   {"vec4 s2g1", ch06lab::launch_vec4_staged<2, 1>},
      {"vec4 s2g3", ch06lab::launch_vec4_staged<2, 3>}, {"vec4 s3gAll", ch06lab::launch_vec4_staged<3, 0>},
      {"sector t2g1", ch06lab::launch_sector_staged<2, 1>},
      {"sector t2g3", ch06lab::launch_sector_staged<2, 3>},
      {"sector t3gAll", ch06lab::launch_sector_staged<3, 0>},
      {"shifted 128x32", ch06lab::launch_shifted<128, 32, 256>},
      {"shifted 64x32 output rows",
       ch06lab::launch_shifted<64, 32, 256, ch06::BlockOrder::OutputRows>},
      {"vec4 hint 256", ch06lab::launch_vec4_hint<256>},
      {"vec4 hint 128 input rows", ch06lab::launch_vec4_hint<128, ch06::BlockOrder::InputRows>},
      {"sector hint 256", ch06lab::launch_sector_hint<256>},
      {"sector hint 64 input rows", ch06lab::launch_sector_hint<64, ch06::BlockOrder::InputRows>},
      {"sector, L1 no_allocate",
       ch06lab::launch_sector_hint<128, ch06::BlockOrder::OutputRows,
                                   ch06lab::L1Policy::NoAllocate>},
      {"sector, L2 only",
       ch06lab::launch_sector_hint<128, ch06::BlockOrder::InputRows, ch06lab::L1Policy::L2Only>}};
  for (const TransposeKernel& kernel : lab)
    for (const Shape& s : kShapes) {
      CAPTURE(kernel.name, s.rows, s.cols);
      check_row(kernel, s.rows, s.cols, 11);
    }
}

namespace {
// `launch` on rows x cols with `in` and `out` the given numbers of floats past a 256-byte
// boundary: the result must be the CPU transpose.
void check_at_offsets(TransposeLauncher launch, int rows, int cols, int inOffset, int outOffset) {
  CAPTURE(rows, cols, inOffset, outOffset);
  const HostMatrix in = random_matrix(rows, cols, 23);
  HostMatrix want(cols, rows);
  cpu_transpose(in.data(), want.data(), rows, cols);
  const size_t count = size_t(rows) * cols;
  std::vector<float> shifted(count + 8, 0.0f);
  std::copy(in.values.begin(), in.values.end(), shifted.begin() + inOffset);
  DeviceBuffer<float> d_in(shifted), d_out(count + 8);
  d_out.poison();
  launch(d_in.data() + inOffset, d_out.data() + outOffset, rows, cols);
  const std::vector<float> got = d_out.download();
  const CompareResult r = compare(got.data() + outOffset, want.data(), cols, rows, Tolerance::exact());
  INFO(r.summary());
  CHECK(r.ok());
  // Nothing written outside the matrix: the floats before and after it keep the poison.
  size_t touched = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &got[i], sizeof bits);
    const bool inside = i >= size_t(outOffset) && i < size_t(outOffset) + count;
    touched += !inside && bits != 0xFFFFFFFFu;
  }
  CHECK(touched == 0);
}
}  // namespace

TEST_CASE("the thin kernel with its segments cut at sectors: every shape and pointer offset",
          "[gpu]") {
  REQUIRE_GPU();
  // Odd and even thin sides, rows within 7 of one and two spans (the last s_c outputs are the
  // grid's extra block's) and far past them, every output offset within a sector.
  auto cut_rows = [](int chunk, int cols) {
    const int span = ch06::thin_span(chunk, cols);
    return std::vector<int>{span - 7, span - 1, span, span + 1, 2 * span - 3, 2 * span + 5, 4099};
  };
  // Even sides padded (16, 32, 40, 64) and not (2, 14, 18, 90: 2-way conflicts; 12, 20: 4-way).
  for (const int cols : {1, 2, 9, 12, 14, 16, 18, 20, 32, 33, 40, 63, 64, 90})
    for (int inOffset = 0; inOffset < 2; ++inOffset)
      for (int outOffset = 0; outOffset < 8; ++outOffset) {
        for (const int rows : cut_rows(12288, cols))
          if (rows > cols)
            check_at_offsets(ch06::launch_thin_cut<512, 12288, 4>, rows, cols, inOffset,
                             outOffset);
        for (const int rows : cut_rows(6144, cols))
          if (rows > cols)
            check_at_offsets(ch06::launch_thin_cut<256, 6144, 8>, rows, cols, inOffset,
                             outOffset);
      }
  // Fewer than 8 rows (every block stages from row 0), and thin sides whose span is at its floor
  // of 32 (192 to 383 columns at 12,288 floats).
  for (int rows = 2; rows <= 8; ++rows)
    for (int cols = 1; cols < rows; ++cols)
      for (int inOffset = 0; inOffset < 2; ++inOffset)
        for (int outOffset = 0; outOffset < 8; ++outOffset)
          check_at_offsets(ch06::launch_thin_cut<512, 12288, 4>, rows, cols, inOffset, outOffset);
  for (const int cols : {192, 255, 383})
    for (const int rows : {cols + 1, 517, 1000})
      for (const int outOffset : {0, 3, 7})
        check_at_offsets(ch06::launch_thin_cut<512, 12288, 4>, rows, cols, 0, outOffset);
  // Filled (the span shortened where the grid is under a wave; on the CPU backend's one SM at
  // the smaller row counts), odd and even sides, both sizes.
  for (const int cols : {2, 9, 12, 19, 20, 40})
    for (const int rows : {cols + 1, 1000, 5957, 70001})
      for (const int outOffset : {0, 5}) {
        check_at_offsets(ch06::launch_thin_cut<256, 6144, 8, true>, rows, cols, outOffset % 2,
                         outOffset);
        check_at_offsets(ch06::launch_thin_cut<512, 12288, 4, true>, rows, cols, 1 - outOffset % 2,
                         7 - outOffset);
      }
  CHECK_THROWS_AS((ch06::launch_thin_cut<256, 8192>(nullptr, nullptr, 9, 9)), UnsupportedShape);
  CHECK_THROWS_AS((ch06::launch_thin_cut<256, 6144, 8, true>(nullptr, nullptr, 9, 9)),
                  UnsupportedShape);
}

TEST_CASE("the bulk kernel's U pieces a warp fit its span", "[bulk]") {
  // U = span / 32, at most U_MAX: no warp has a load turned off for want of columns.
  using ch06::thin_bulk_kernel, ch06::transpose_thin_bulk;
  CHECK(thin_bulk_kernel<256, 8, 4>(32) == transpose_thin_bulk<256, 8, 1>);
  CHECK(thin_bulk_kernel<256, 8, 4>(64) == transpose_thin_bulk<256, 8, 2>);
  CHECK(thin_bulk_kernel<256, 8, 4>(96) == transpose_thin_bulk<256, 8, 3>);
  CHECK(thin_bulk_kernel<256, 8, 4>(128) == transpose_thin_bulk<256, 8, 4>);
  CHECK(thin_bulk_kernel<512, 4, 4>(6144) == transpose_thin_bulk<512, 4, 4>);
  CHECK(thin_bulk_kernel<512, 4, 2>(96) == transpose_thin_bulk<512, 4, 2>);
  CHECK(thin_bulk_kernel<512, 4, 2>(32) == transpose_thin_bulk<512, 4, 1>);
}

TEST_CASE("the thin kernel whose chunk the copy engine writes: every shape and pointer offset",
          "[gpu]") {
  REQUIRE_GPU();
  // Odd and even row counts; columns within a few of one and two spans (a last chunk whose
  // range is not whole 16 bytes), and far past them; both output alignments (the engine's path
  // and the threads'), inputs off 16 bytes. The engine's path runs only on sm_90 and later: on
  // an older GPU, and on the CPU backend, this tests the threads' path alone. The even rows take
  // every U the span fits (thin_bulk_kernel): at 6,144 floats 48 rows U = 3, 76 U = 2, 100 to
  // 180 U = 1; at 12,288 40 to 76 U = 4, 100 U = 3, 130 and 180 U = 2; U_MAX = 2 caps the rest.
  auto bulk_cols = [](int chunk, int rows) {  // the first whole spans past `rows` columns
    const int span = ch06::thin_span(chunk, rows);
    const int base = span * std::max(1, (rows + 4 + span - 1) / span);
    return std::vector<int>{base - 3, base, base + 1, base + span + 3, 4099};
  };
  for (const int rows : {1, 2, 3, 8, 9, 16, 33, 40, 48, 63, 76, 100, 130, 180, 191})
    for (int inOffset = 0; inOffset < 2; ++inOffset)
      for (int outOffset = 0; outOffset < 4; ++outOffset) {
        for (const int cols : bulk_cols(6144, rows))
          if (cols > rows)
            check_at_offsets(ch06::launch_thin_bulk<256, 6144, 8>, rows, cols, inOffset,
                             outOffset);
        for (const int cols : bulk_cols(12288, rows))
          if (cols > rows) {
            check_at_offsets(ch06::launch_thin_bulk<512, 12288, 4>, rows, cols, inOffset,
                             outOffset);
            check_at_offsets(ch06::launch_thin_bulk<512, 12288, 4, 2>, rows, cols, 1 - inOffset,
                             3 - outOffset);
          }
        // The lab's U fixed whatever the span (lab/thin_bulk.cuh), every instance explore times.
        const int cols = bulk_cols(6144, rows)[0];
        if (rows % 2 == 0 && cols > rows) {
          check_at_offsets(ch06lab::launch_thin_bulk_fixed<256, 6144, 8, 3>, rows, cols, inOffset,
                           outOffset);
          check_at_offsets(ch06lab::launch_thin_bulk_fixed<256, 6144, 8, 4>, rows, cols + 5,
                           inOffset, 3 - outOffset);
          check_at_offsets(ch06lab::launch_thin_bulk_fixed<512, 12288, 4, 3>, rows, cols + 1,
                           1 - inOffset, outOffset);
          check_at_offsets(ch06lab::launch_thin_bulk_fixed<512, 12288, 4, 4>, rows, cols + 2,
                           1 - inOffset, 3 - outOffset);
        }
      }
  // The launcher runs the kernel whose U fits the span (76 rows: 64 columns at 6,144 floats).
  check_at_offsets(ch06::launch_thin_bulk<256, 6144, 8>, 76, 4099, 0, 0);
  CHECK(last_launch().kernel == reinterpret_cast<const void*>(ch06::transpose_thin_bulk<256, 8, 2>));
  // Filled (the span shortened where the grid is under a wave), both sizes.
  for (const int rows : {1, 6, 19, 40, 64})
    for (const int cols : {rows + 1, 1000, 5957, 70001})
      for (const int outOffset : {0, 1}) {
        check_at_offsets(ch06::launch_thin_bulk<512, 12288, 4, 4, true>, rows, cols, 1 - outOffset,
                         outOffset);
        check_at_offsets(ch06::launch_thin_bulk<256, 6144, 8, 4, true>, rows, cols, outOffset,
                         3 * outOffset);
      }
  CHECK_THROWS_AS((ch06::launch_thin_bulk<256, 6144>(nullptr, nullptr, 100, 9)), UnsupportedShape);
  CHECK_THROWS_AS((ch06::launch_thin_bulk<256, 6144, 8, 4, true>(nullptr, nullptr, 100, 9)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06::launch_thin_bulk<256, 6144>(nullptr, nullptr, 192, 10000)),
                  UnsupportedShape);
}

TEST_CASE("the lab's thin kernels at every shape and pointer offset", "[gpu]") {
  REQUIRE_GPU();
  // Rows within 7 of a multiple of SPAN too: the grid's last block writes the last s_c outputs.
  for (const int rows : {10, 33, 121, 127, 128, 249, 250, 255, 256, 300, 505, 512, 1025, 4099})
    for (int inOffset = 0; inOffset < 2; ++inOffset)
      for (int outOffset = 0; outOffset < 8; ++outOffset) {
        if (rows > 9)
          check_at_offsets(ch06lab::launch_thin_sector<9, 256>, rows, 9, inOffset, outOffset);
        if (rows > 12)
          check_at_offsets(ch06lab::launch_thin_sector<12, 256>, rows, 12, inOffset, outOffset);
        if (rows > 33)
          check_at_offsets(ch06lab::launch_thin_sector<33, 128>, rows, 33, inOffset, outOffset);
        if (rows > 40)
          check_at_offsets(ch06lab::launch_thin_sector<40, 256>, rows, 40, inOffset, outOffset);
        if (rows > 47)
          check_at_offsets(ch06lab::launch_thin_sector<47, 128>, rows, 47, inOffset, outOffset);
      }
  // transpose_thin compiled for one side: tall and wide, odd and even thin sides, a last chunk
  // partly empty, pointers off 16 bytes.
  for (const int thin : {1, 2, 9, 16, 33, 40, 63})
    for (const int along : {thin + 1, 353, 2049})
      for (int offset = 0; offset < 4; ++offset) {
        check_at_offsets(ch06lab::launch_thin_sided<512, 12288, 4>, along, thin, offset, offset);
        check_at_offsets(ch06lab::launch_thin_sided<512, 12288, 4>, thin, along, offset, 0);
        check_at_offsets(ch06lab::launch_thin_sided<256, 6144, 8>, thin, along, offset, 3 - offset);
        check_at_offsets(ch06lab::launch_thin_sided<256, 6144, 8>, along, thin, 0, offset);
      }
  // The wide chunk kernel with unrolled segment loads: odd and even thin sides, spans ending
  // inside a group of pieces, pointers off 16 bytes.
  for (const int thin : {1, 2, 9, 16, 33, 40, 63})
    for (const int along : {thin + 1, 353, 2049, 5000})
      for (int offset = 0; offset < 4; ++offset) {
        check_at_offsets(ch06lab::launch_thin_rows<256, 6144, 8>, thin, along, offset, 3 - offset);
        check_at_offsets(ch06lab::launch_thin_rows<512, 12288, 4>, thin, along, offset, offset);
        // U = 8 without the register cap (under it ptxas spills on sm_90).
        check_at_offsets(ch06lab::launch_thin_rows<512, 12288, 1, 8>, thin, along, offset, 0);
        // K rows' pieces a warp in flight (thin_deep.cuh), K * WARPS not dividing the items.
        check_at_offsets(ch06lab::launch_thin_bulk_deep<256, 6144, 8, 4, 4>, thin, along, offset,
                         3 - offset);
        check_at_offsets(ch06lab::launch_thin_bulk_deep<512, 12288, 4, 4, 2>, thin, along, 0,
                         offset);
      }
  // The deep kernels at the even thin sides run 93 timed (every instance), spans ending inside a
  // group of pieces.
  for (const int thin : {32, 64, 96, 128})
    for (const int along : {thin + 1, 2049, 5000})
      for (int offset = 0; offset < 4; offset += 3) {
        check_at_offsets(ch06lab::launch_thin_bulk_deep<256, 6144, 8, 4, 2>, thin, along, offset,
                         3 - offset);
        check_at_offsets(ch06lab::launch_thin_bulk_deep<256, 6144, 8, 4, 4>, thin, along, 0,
                         offset);
        check_at_offsets(ch06lab::launch_thin_bulk_deep<256, 6144, 4, 4, 4>, thin, along, offset,
                         0);
        check_at_offsets(ch06lab::launch_thin_bulk_deep<512, 12288, 4, 4, 2>, thin, along,
                         offset, offset);
        check_at_offsets(ch06lab::launch_thin_bulk_deep<512, 12288, 4, 4, 4>, thin, along, 3,
                         offset);
      }
  // The chunk's contiguous side by the copy engine: tall (cut at sectors) and wide, odd and even
  // thin sides, ranges not in whole 16 bytes, pointers off 16 bytes (the threads' path).
  for (const int thin : {1, 2, 3, 9, 16, 33, 40, 63})
    for (const int along : {thin + 1, 37, 353, 2049, 5000})
      for (int offset = 0; offset < 4; ++offset) {
        if (along <= thin) continue;
        check_at_offsets(ch06lab::launch_thin_bulk_tall<512, 12288, 4>, along, thin, offset,
                         2 * offset);
        check_at_offsets(ch06lab::launch_thin_bulk_tall<256, 6144, 8, 2>, along, thin, 0,
                         7 - offset);
        check_at_offsets(ch06lab::launch_thin_bulk_segs<512, 12288, 4>, along, thin, offset,
                         offset + 3);
        check_at_offsets(ch06lab::launch_thin_bulk_segs<256, 4096, 8, 2>, along, thin, 0, offset);
        check_at_offsets(ch06lab::launch_thin_bulk_out<512, 12288, 4>, along, thin, offset,
                         5 - offset);
        check_at_offsets(ch06lab::launch_thin_bulk_out<256, 6144, 8>, along, thin, 3 - offset,
                         offset + 4);
        check_at_offsets(ch06lab::launch_thin_cut_rows<512, 12288, 4>, along, thin, offset,
                         6 - offset);
        check_at_offsets(ch06lab::launch_thin_cut_rows<256, 6144, 8, 2, false>, along, thin,
                         3 - offset, 2 * offset + 1);
      }
  // Interior blocks (the engine's stores) at the thinnest sides, whose spans are the longest.
  for (const int thin : {1, 2, 3, 9})
    for (const int offset : {0, 5}) {
      check_at_offsets(ch06lab::launch_thin_bulk_segs<512, 12288, 4>, 40009, thin, offset % 4,
                       offset);
      check_at_offsets(ch06lab::launch_thin_bulk_out<512, 12288, 4>, 40009, thin, offset % 4,
                       offset);
      check_at_offsets(ch06lab::launch_thin_cut_rows<512, 12288, 4, 4, false>, 40009, thin,
                       offset % 4, offset);
      check_at_offsets(ch06::launch_thin_bulk<512, 12288, 4>, thin, 40009, offset % 4,
                       offset % 4);
    }
  CHECK_THROWS_AS((ch06lab::launch_thin_bulk_tall<256, 6144>(nullptr, nullptr, 8, 100)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06lab::launch_thin_bulk_segs<256, 6144>(nullptr, nullptr, 8, 100)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06lab::launch_thin_bulk_out<256, 6144>(nullptr, nullptr, 8, 100)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06lab::launch_thin_cut_rows<256, 6144>(nullptr, nullptr, 8, 100)),
                  UnsupportedShape);
  // The swizzled chunk (thin sides that are multiples of 8: g = 8, 16, 32), every output offset.
  for (const int cols : {8, 16, 24, 32, 40, 48, 64, 96, 376})
    for (const int rows : {cols + 1, 353, 2049, 5000, cols <= 16 ? 40009 : 7001,
                           2 * ch06::thin_span(6144, cols) + 3,
                           3 * ch06::thin_span(12288, cols) - 1})
      for (int offset = 0; offset < 8 && rows > cols; offset += 3) {
        check_at_offsets(ch06lab::launch_thin_cut_swz<512, 12288, 4>, rows, cols, offset % 4,
                         offset);
        if (32 * (cols | 1) <= 6144)
          check_at_offsets(ch06lab::launch_thin_cut_swz<256, 6144, 8>, rows, cols, 0, 7 - offset);
      }
  CHECK_THROWS_AS((ch06lab::launch_thin_cut_swz<256, 6144>(nullptr, nullptr, 100, 12)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06lab::launch_thin_rows<256, 6144, 8>(nullptr, nullptr, 100, 8)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06lab::launch_thin_sector<9, 256>(nullptr, nullptr, 100, 8)), UnsupportedShape);
  CHECK_THROWS_AS((ch06lab::launch_thin_sector<9, 256>(nullptr, nullptr, 9, 9)), UnsupportedShape);
  // A block that streams G chunks through two buffers (step 6's turned chunk at odd thin sides),
  // and on the GPU a warp a chunk: tall and wide, odd and even sides, a block's last chunks short
  // or absent, pointers off 16 bytes.
  for (const int thin : {1, 2, 9, 16, 33, 40, 79, 137})
    for (const int along : {thin + 1, 353, 5003})
      for (int offset = 0; offset < 4; offset += 3) {
        if (thin <= 127) {
          check_at_offsets(ch06lab::launch_thin_stream<256, 4096, 4>, along, thin, offset,
                           3 - offset);
          check_at_offsets(ch06lab::launch_thin_stream<256, 4096, 4>, thin, along, 3 - offset,
                           offset);
        }
        check_at_offsets(ch06lab::launch_thin_stream<512, 8192, 8>, thin, along, offset, offset);
        check_at_offsets(ch06lab::launch_thin_stream<256, 8192, 16>, along, thin, offset, 0);
#ifndef TUTORIAL_CPU_BACKEND
        check_at_offsets(ch06lab::launch_thin_warps<4, 1, 8>, along, thin, offset, 3 - offset);
        if (thin <= 79)  // 4 warps x 128 elements x (thin | 1) words fit the SM's shared memory
          check_at_offsets(ch06lab::launch_thin_warps<4, 4, 8>, thin, along, 3 - offset, offset);
#endif
      }
  CHECK_THROWS_AS((ch06lab::launch_thin_stream<256, 4096, 4>(nullptr, nullptr, 1000, 129)),
                  UnsupportedShape);
#ifndef TUTORIAL_CPU_BACKEND
  CHECK_THROWS_AS((ch06lab::launch_thin_warps<4, 1, 8>(nullptr, nullptr, 1000, 256)),
                  UnsupportedShape);
  // Every load of a row or column in flight (warp_regs.cuh): step 6's register kernel at 32 and
  // 64, and a warp that turns its piece in shared memory of its own; tall and wide, a last warp
  // partly empty, pointers off 16 bytes.
  for (const int thin : {1, 2, 17, 32, 33, 63, 64})
    for (const int along : {thin + 1, 353, 5003})
      for (int offset = 0; offset < 4; offset += 3) {
        if (thin <= 32) {
          check_at_offsets(ch06lab::launch_thin_regs_wide<32>, along, thin, offset, 3 - offset);
          check_at_offsets(ch06lab::launch_thin_warp_regs<32, 4>, thin, along, offset, offset);
        }
        check_at_offsets(ch06lab::launch_thin_regs_wide<64>, thin, along, 3 - offset, offset);
        check_at_offsets(ch06lab::launch_thin_warp_regs<64, 8>, along, thin, offset, 0);
      }
  CHECK_THROWS_AS((ch06lab::launch_thin_warp_regs<32, 4>(nullptr, nullptr, 1000, 33)),
                  UnsupportedShape);
#endif
}

TEST_CASE("the lab's chunk kernels at short spans (a grid that fills the GPU)", "[gpu]") {
  REQUIRE_GPU();
  // Every span a multiple of 32: the kernels at 32 to 160, thin sides odd and even, the last
  // chunk short, pointers off 16 bytes and off sectors.
  for (const int thin : {1, 2, 3, 8, 9, 14, 33, 40})
    for (const int along : {thin + 1, 97, 353, 2049})
      for (int offset = 0; offset < 8; offset += 3) {
        if (along <= thin) continue;
        for (const TransposeLauncher launch :
             {ch06lab::thin_span_test<32>, ch06lab::thin_span_test<96>,
              ch06lab::thin_span_test<160>}) {
          check_at_offsets(launch, along, thin, offset % 4, 7 - offset);
          check_at_offsets(launch, thin, along, 3 - offset % 4, offset);
        }
        for (const TransposeLauncher launch :
             {ch06lab::thin_bulk_span_test<32>, ch06lab::thin_bulk_span_test<64>,
              ch06lab::thin_bulk_span_test<160>})
          check_at_offsets(launch, thin, along, offset % 4, offset);
        for (const TransposeLauncher launch :
             {ch06lab::thin_cut_span_test<32>, ch06lab::thin_cut_span_test<64>,
              ch06lab::thin_cut_span_test<128>, ch06lab::thin_cut_span_test<160>})
          check_at_offsets(launch, along, thin, offset % 4, offset);
      }
  // The fill launchers themselves, at shapes small enough that they shorten the span.
  for (const auto& [rows, cols] : std::initializer_list<std::pair<int, int>>{
           {19, 5957}, {5957, 19}, {6, 44953}, {44953, 6}, {40, 3001}, {3001, 40}}) {
    check_at_offsets(ch06lab::launch_thin_fill<256, 6144, 8>, rows, cols, 1, 3);
    if (rows < cols)
      check_at_offsets(ch06::launch_thin_bulk<256, 6144, 8, 4, true>, rows, cols, 0, 0);
    if (rows > cols)
      check_at_offsets(ch06lab::launch_thin_cut_fill<512, 12288, 4>, rows, cols, 2, 5);
  }
}

namespace {
// 1, 2, 3, ...: every float distinct and exact (below 2^24), so a sorted output shows which
// floats landed, whatever addresses the kernel wrote them to.
std::vector<float> distinct_floats(int rows, int cols) {
  std::vector<float> in(size_t(rows) * cols);
  std::iota(in.begin(), in.end(), 1.0f);
  return in;
}
// The launcher run on `in` into a poisoned output (NaN where nothing was written).
std::vector<float> run_poisoned(TransposeLauncher launch, const std::vector<float>& in, int rows,
                                int cols) {
  DeviceBuffer<float> dIn(in), dOut(in.size());
  dOut.poison();
  launch(dIn.data(), dOut.data(), rows, cols);
  device_synchronize();
  return dOut.download();
}
}  // namespace

TEST_CASE("the lab's pattern copies move each float of the whole tiles once", "[gpu]") {
  REQUIRE_GPU();
  using ch06lab::PatternSide;
  // Not transposes (lab/pattern_copy.cuh): every float the kernel reads (the whole 128 x 32 or
  // 32 x 128 tiles, or as many floats from the start on the stream side) lands once somewhere
  // in the output, nothing else is written, in every block order.
  const std::initializer_list<std::pair<const char*, TransposeLauncher>> launchers = {
      {"read", ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Read>},
      {"write", ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Write>},
      {"both", ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Both>},
      {"read, input order", ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Read, 1>},
      {"both, groups of 2", ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Both, 2>},
      {"both, groups of 3", ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Both, 3>},
      {"read 32 x 128", ch06lab::launch_pattern_copy<32, 128, 256, PatternSide::Read>}};
  for (const auto& [rows, cols] : std::initializer_list<std::pair<int, int>>{
           {128, 128}, {130, 1000}, {700, 65}, {1023, 257}, {641, 4099}})
    for (const auto& [name, launch] : launchers) {
      const bool wide = std::string(name) == "read 32 x 128";
      const int tr = wide ? 32 : 128, tc = wide ? 128 : 32;
      INFO(name << " at " << rows << "x" << cols);
      if (rows < tr || cols < tc) {  // no whole tile: refused
        CHECK_THROWS_AS(launch(nullptr, nullptr, rows, cols), UnsupportedShape);
        continue;
      }
      const std::vector<float> in = distinct_floats(rows, cols);
      const std::vector<float> out = run_poisoned(launch, in, rows, cols);
      // The tile's side reads the whole tiles; the stream side (write) reads the first floats.
      std::vector<float> want;
      const bool streamRead = std::string(name) == "write";
      const size_t moved = size_t(rows / tr * tr) * (cols / tc * tc);
      if (streamRead)
        want.assign(in.begin(), in.begin() + moved);
      else
        for (int r = 0; r < rows / tr * tr; ++r)
          for (int c = 0; c < cols / tc * tc; ++c) want.push_back(in[size_t(r) * cols + c]);
      std::vector<float> got;
      for (float v : out)
        if (!std::isnan(v)) got.push_back(v);
      std::sort(got.begin(), got.end());
      CHECK(got.size() == want.size());
      const auto miss = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
      const bool same = miss.first == got.end() && miss.second == want.end();
      INFO("first difference at sorted position " << (miss.first - got.begin()));  // not all
      CHECK(same);
    }
  CHECK_THROWS_AS((ch06lab::launch_pattern_copy<128, 32, 256, PatternSide::Read>(nullptr, nullptr,
                                                                                 127, 1000)),
                  UnsupportedShape);
}

TEST_CASE("the lab's scattered copies move each float once, and the both-sides one copies",
          "[gpu]") {
  REQUIRE_GPU();
  using ch06lab::PatternSide;
  // Not transposes (lab/scatter_copy.cuh): read- or write-scattered, each float lands once in
  // the output; scattered on both sides, the output is the input. Shapes not whole blocks and
  // pieces are refused.
  const std::initializer_list<std::pair<const char*, TransposeLauncher>> launchers = {
      {"read 128 B", ch06lab::launch_scatter_copy<8, PatternSide::Read>},
      {"write 512 B", ch06lab::launch_scatter_copy<32, PatternSide::Write>},
      {"both 2 KB", ch06lab::launch_scatter_copy<128, PatternSide::Both>},
      {"both 32 KB", ch06lab::launch_scatter_copy<2048, PatternSide::Both>},
      {"both 512 B, in order", ch06lab::launch_scatter_copy<32, PatternSide::Both, false>},
      {"in order: read 2 KB", ch06lab::launch_scatter_copy<128, PatternSide::Read, false>}};
  for (const auto& [rows, cols] : std::initializer_list<std::pair<int, int>>{
           {64, 1024}, {96, 4096}, {384, 2048}})
    for (const auto& [name, launch] : launchers) {
      INFO(name << " at " << rows << "x" << cols);
      const std::vector<float> in = distinct_floats(rows, cols);
      const std::vector<float> out = run_poisoned(launch, in, rows, cols);
      // Both sides scattered alike, or either side in order (the control): the input again.
      if (std::string(name).rfind("both", 0) == 0 || std::string(name).rfind("in order", 0) == 0) {
        CHECK(out == in);
        continue;
      }
      std::vector<float> got = out, want = in;
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      CHECK(got == want);
      CHECK(out != in);
    }
  // Not whole blocks (2,000 float4, whole 128-byte pieces); not whole pieces (9,216 float4, whole
  // blocks, 4.5 pieces of 32 KB); 3 pieces (whole blocks and pieces).
  CHECK_THROWS_AS((ch06lab::launch_scatter_copy<8, PatternSide::Both>(nullptr, nullptr, 8, 1000)),
                  UnsupportedShape);
  CHECK_THROWS_AS(
      (ch06lab::launch_scatter_copy<2048, PatternSide::Read>(nullptr, nullptr, 36, 1024)),
      UnsupportedShape);
  CHECK_THROWS_AS(
      (ch06lab::launch_scatter_copy<2048, PatternSide::Write>(nullptr, nullptr, 24, 1024)),
      UnsupportedShape);
}

TEST_CASE("the lab's supertile pattern writes each output float of the whole supertiles once",
          "[gpu]") {
  REQUIRE_GPU();
  // Not a transpose (lab/pattern_copy.cuh): the S x S supertiles' floats, read a band of H rows
  // a block, land once each in the output's whole supertiles; nothing else is written.
  const std::initializer_list<std::tuple<const char*, TransposeLauncher, int>> launchers = {
      {"128, output order", ch06lab::launch_pattern_super<128, 16, 256, 8, false>, 128},
      {"128, input order", ch06lab::launch_pattern_super<128, 16, 256, 8, true>, 128},
      {"256, input order", ch06lab::launch_pattern_super<256, 32, 256, 16, true>, 256},
      {"256, output order", ch06lab::launch_pattern_super<256, 32, 256, 16, false>, 256},
      {"512, output order", ch06lab::launch_pattern_super<512, 64, 256, 16, false>, 512},
      {"512, input order", ch06lab::launch_pattern_super<512, 64, 256, 16, true>, 512}};
  for (const auto& [rows, cols] : std::initializer_list<std::pair<int, int>>{
           {128, 128}, {300, 520}, {513, 129}, {700, 900}, {1030, 1540}})
    for (const auto& [name, launch, s] : launchers) {
      INFO(name << " at " << rows << "x" << cols);
      if (rows < s || cols < s) {  // no whole supertile: refused
        CHECK_THROWS_AS(launch(nullptr, nullptr, rows, cols), UnsupportedShape);
        continue;
      }
      const std::vector<float> in = distinct_floats(rows, cols);
      const std::vector<float> out = run_poisoned(launch, in, rows, cols);  // cols x rows
      const int down = rows / s * s, across = cols / s * s;
      std::vector<float> want, got;
      for (int r = 0; r < down; ++r)
        for (int c = 0; c < across; ++c) want.push_back(in[size_t(r) * cols + c]);
      size_t outside = 0;
      for (int r = 0; r < cols; ++r)
        for (int c = 0; c < rows; ++c) {
          const float v = out[size_t(r) * rows + c];
          if (r < across && c < down)
            got.push_back(v);
          else if (!std::isnan(v))
            ++outside;
        }
      CHECK(outside == 0);
      std::sort(got.begin(), got.end());
      CHECK(got == want);
    }
}

TEST_CASE("the lab's tiles at every shape and pointer offset", "[gpu]") {
  REQUIRE_GPU();
  for (const TransposeLauncher launch :
       {ch06lab::launch_shifted<128, 32, 256>,
        ch06lab::launch_shifted<64, 32, 256, ch06::BlockOrder::OutputRows>,
        ch06lab::launch_shifted<128, 32, 256, ch06::BlockOrder::OutputRows, 6>,
        ch06lab::launch_shifted<128, 64, 256, ch06::BlockOrder::InputRows, 4>,
        ch06lab::launch_shifted<32, 128, 256, ch06::BlockOrder::OutputRows, 6>,
        ch06lab::launch_shifted<64, 64, 256, ch06::BlockOrder::InputRows, 6>,
        ch06lab::launch_shifted<32, 256, 256, ch06::BlockOrder::OutputRows, 4>,
        ch06lab::launch_line_aligned<128, 32, 8, 32, ch06::BlockOrder::InputRows>,
        ch06lab::launch_line_aligned<128, 32, 8, 32, ch06::BlockOrder::OutputRows>,
        ch06lab::launch_blocks256<true, true, ch06::BlockOrder::OutputRows>,
        ch06lab::launch_blocks256<true, true, ch06::BlockOrder::InputRows>,
        ch06lab::launch_blocks256<false, true, ch06::BlockOrder::OutputRows>,
        ch06lab::launch_blocks256<true, false, ch06::BlockOrder::OutputRows>,
        ch06lab::launch_sector_hint<256>,
        ch06lab::launch_sector_hint<128, ch06::BlockOrder::InputRows>,
        ch06lab::launch_sector_hint<128, ch06::BlockOrder::OutputRows,
                                    ch06lab::L1Policy::NoAllocate>,
        ch06lab::launch_sector_hint<128, ch06::BlockOrder::InputRows, ch06lab::L1Policy::L2Only>,
        ch06::launch_sector_aligned<64, 32, 8>,
        ch06::launch_sector_aligned<32, 32, 8, ch06::BlockOrder::OutputRows>,
        ch06lab::launch_long_reads<128, 256>,
        ch06lab::launch_long_reads<128, 256, ch06::BlockOrder::InputRows>,
        ch06lab::launch_long_reads<64, 256>,
        ch06lab::launch_long_reads<256, 256, ch06::BlockOrder::InputRows>})
    for (const Shape& s : std::vector<Shape>{{1, 1}, {2, 3}, {5, 7}, {131, 33}, {130, 97}, {257, 65},
                                             {1, 301}, {301, 1}, {4, 129}, {133, 4}})
      for (int inOffset = 0; inOffset < 4; ++inOffset)
        for (int outOffset = 0; outOffset < 4; ++outOffset)
          check_at_offsets(launch, s.rows, s.cols, inOffset, outOffset);
  // The float4 copies take float4 shapes at 16-byte offsets only (4 floats), and refuse a grid
  // past 65,535 tiles along y before launching anything.
  for (const TransposeLauncher launch :
       {ch06lab::launch_vec4_hint<256>, ch06lab::launch_vec4_hint<64, ch06::BlockOrder::InputRows>})
    for (const Shape& s : std::vector<Shape>{{4, 4}, {64, 64}, {132, 68}, {4, 260}, {260, 4}})
      for (int inOffset : {0, 4})
        for (int outOffset : {0, 4}) check_at_offsets(launch, s.rows, s.cols, inOffset, outOffset);
  CHECK_THROWS_AS(ch06lab::launch_vec4_hint<256>(nullptr, nullptr, 4, 64 * 65536),
                  UnsupportedShape);
  CHECK_THROWS_AS(ch06lab::launch_sector_hint<256>(nullptr, nullptr, 4, 32 * 65536),
                  UnsupportedShape);
}

TEST_CASE("the thin kernel in registers: 1 to 16 rows or columns, any alignment", "[gpu]") {
  REQUIRE_GPU();
  // The launcher's own choice of rows per thread, then each of them (a block of 8 x 256 rows
  // ends inside 4097 and past 1000; 2049 leaves one row for the last block's first item).
  for (const tutorial::TransposeLauncher launch :
       {ch06::launch_thin_regs, ch06::launch_thin_regs_items<1>, ch06::launch_thin_regs_items<2>,
        ch06::launch_thin_regs_items<4>, ch06::launch_thin_regs_items<8>})
    for (int thin : {1, 2, 3, 4, 5, 6, 8, 9, 12, 15, 16})
      for (int along : {17, 1000, 2049, 4097})
        for (int offset : {0, 1, 2, 4}) {
          check_at_offsets(launch, along, thin, offset, offset);      // tall
          check_at_offsets(launch, thin, along, offset, 2 * offset);  // wide
        }
  CHECK_THROWS_AS(check_at_offsets(ch06::launch_thin_regs, 17, 100, 0, 0), UnsupportedShape);
}

TEST_CASE("rows a thread of transpose_thin_regs holds: enough bytes in flight for Little's law") {
  // 4.8 TB/s x 1 us over 132 SMs x 2048 threads: 17.8 bytes a thread.
  const long long threads = 132LL * 2048;
  CHECK(ch06::thin_regs_items(2, 4.8e12, 1e-6, threads) == 4);   // 8 bytes a row: 4 rows
  CHECK(ch06::thin_regs_items(4, 4.8e12, 1e-6, threads) == 2);   // 16 bytes: 2
  CHECK(ch06::thin_regs_items(5, 4.8e12, 1e-6, threads) == 1);   // 20 bytes: 1
  CHECK(ch06::thin_regs_items(1, 4.8e12, 1e-6, threads) == 8);   // 4 bytes: capped at 8
  CHECK(ch06::thin_regs_items(16, 1e15, 1e-6, threads) == 8);    // the cap
  CHECK(ch06::thin_regs_items(2, 4.8e12, 1e-6, 0) == 8);         // no threads: no division by 0
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
  // A last chunk of every length from 1 to 12 floats a segment, at every head (the pointer 0 to
  // 3 floats off a 16-byte boundary): the floats before the first float4 and after the last
  // (33 columns: tall spans of 352, wide of 160).
  for (int r = 1; r <= 12; ++r)
    for (int off = 0; off < 4; ++off) {
      check_at_offsets(ch06::launch_thin, 352 + r, 33, off, off);
      check_at_offsets(ch06::launch_thin, 33, 160 + r, off, off);
      check_at_offsets(ch06::launch_thin, 33, 160 + r, off, 3 - off);
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
// The kernels of a shortlist, as last_launch() names them, by running each candidate once.
std::vector<const void*> kernels_of(const std::vector<ch06::TransposeCandidate>& list,
                                    const float* in, float* out, int rows, int cols) {
  std::vector<const void*> kernels;
  for (const ch06::TransposeCandidate& c : list) {
    const long before = launch_count();
    c.plan.launch(in, out, rows, cols);
    kernels.push_back(first_launch_since(before).kernel);
  }
  return kernels;
}
bool has(const std::vector<ch06::TransposeCandidate>& list, const std::string& name) {
  for (const ch06::TransposeCandidate& c : list)
    if (c.name == name) return true;
  return false;
}
}  // namespace

TEST_CASE("filled_span: a multiple of 32 between the floor and the chunk's span, at most a "
          "block a slot") {
  // The lesson's arithmetic (small_matrices.md), on a GPU of 132 SMs: 1,056 slots of 256 threads,
  // 528 of 512.
  CHECK(ch06::filled_span(59566, 1056, 320, 32) == 64);    // 19 x 59566, bulk 256
  CHECK(ch06::filled_span(70008, 528, 512, 32) == 160);    // 70001 x 23, cut 512 (odd: floor 32)
  CHECK(ch06::filled_span(196192, 1056, 320, 128) == 192);  // 196185 x 18, cut 256
  CHECK(ch06::filled_span(28423, 1056, 64, 128) == 64);    // 28416 x 76: the chunk's own span
  CHECK(ch06::filled_span(120007, 1056, 128, 32) == 128);  // 40 x 120007: per 114 rounds up to 128
  CHECK(ch06::cut_fill_floor(18) == 128);
  CHECK(ch06::cut_fill_floor(19) == 32);
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const long long along = 1 + rng() % 50000000;
    const long long slots = 1 + rng() % 5000;
    const int span_max = 32 * int(1 + rng() % 400);
    const int floor = (rng() % 2) ? 32 : 128;
    CAPTURE(along, slots, span_max, floor);
    const int span = ch06::filled_span(along, slots, span_max, floor);
    CHECK(span % 32 == 0);
    CHECK(span <= span_max);
    CHECK(span >= std::min(floor, span_max));
    // No more blocks than slots wherever the chunk's own span allows it.
    if ((along + slots - 1) / slots <= span_max) CHECK((along + span - 1) / span <= slots);
  }
}

TEST_CASE("the dispatcher's candidates: every kernel that can run the shape, ranked by the "
          "estimate", "[gpu]") {
  REQUIRE_GPU();
  DeviceBuffer<float> in(1 << 20), out(1 << 20);
  auto candidates = [&](int rows, int cols, int offset = 0) {
    return ch06::transpose_candidates(in.data() + offset, out.data() + offset, rows, cols);
  };
  // A single row or column: the copy alone.
  CHECK(candidates(1, 1000).size() == 1);
  CHECK(candidates(1000, 1)[0].name == "copy");
  CHECK(has(candidates(1000, 1, 1), "thin in registers x1"));  // misaligned: not the copy
  // float4 shapes: transpose_vec4 in both orders, and the tiles that take any shape.
  for (const char* name : {"vec4 output rows", "vec4 input rows", "sector-aligned output rows",
                           "sector-aligned input rows", "padded 64"}) {
    CAPTURE(name);
    CHECK(has(candidates(1024, 1024), name));
  }
  CHECK_FALSE(has(candidates(1024, 1024), "thin 256/8192"));
  // No float4 where a row length or a pointer is off 16 bytes.
  CHECK_FALSE(has(candidates(1025, 1023), "vec4 output rows"));
  CHECK_FALSE(has(candidates(1024, 1024, 1), "vec4 output rows"));
  // Rows within 2 tiles of INT_MAX: step 5's bands would start past it (a column, misaligned).
  CHECK_FALSE(has(candidates(INT_MAX - 100, 1, 1), "sector-aligned input rows"));
  CHECK_THROWS_AS((ch06::launch_sector_aligned<128, 32, 8>(nullptr, nullptr, INT_MAX - 100, 1)),
                  UnsupportedShape);
  CHECK_THROWS_AS((ch06::launch_sector_aligned<64, 32, 8>(nullptr, nullptr, INT_MAX - 100, 1)),
                  UnsupportedShape);
  // Small matrices (fewer tiles or chunks than the GPU holds blocks at once) add the smaller
  // tiles and the filled chunks; large ones do not. Under a wave on any GPU, even one SM:
  for (const char* name : {"vec4 32 output rows", "vec4 32 input rows"})
    CHECK(has(candidates(64, 64), name));
  for (const char* name : {"sector-aligned 64 output rows", "sector-aligned 64 input rows"})
    CHECK(has(candidates(100, 36), name));
  for (const char* name : {"thin bulk 256/6144 x8 filled", "thin bulk 512/12288 x4 filled"})
    CHECK(has(candidates(3, 4097), name));
  for (const char* name : {"thin cut 256/6144 x8 filled", "thin cut 512/12288 x4 filled"})
    CHECK(has(candidates(4097, 3), name));
  // No filled candidate where it would launch no more blocks: the chunk's own span at or under
  // the floor (76 columns, 100 rows), or a single block either way (100 x 36).
  CHECK_FALSE(has(candidates(300, 76), "thin cut 256/6144 x8 filled"));
  CHECK_FALSE(has(candidates(100, 200), "thin bulk 256/6144 x8 filled"));
  CHECK_FALSE(has(candidates(100, 36), "thin cut 256/6144 x8 filled"));
  CHECK_FALSE(has(candidates(100, 36), "thin cut 512/12288 x4 filled"));
  // The cap times every candidate a shape can have (16 x 4096 has the most kinds: 20 on an H200).
  CHECK(candidates(16, 4096).size() <= size_t(ch06::kShortlist));
  // And where the device decides:
  const long long slots = tutorial::resident_blocks(
      ch06::transpose_vec4<64, 256, ch06::BlockOrder::OutputRows>, 256, 0, 8);
  CHECK(has(candidates(256, 256), "vec4 32 output rows") == (16 < slots));
  CHECK(has(candidates(257, 255), "sector-aligned 64 input rows") == (3 * 8 < slots));
  CHECK(has(candidates(19, 5957), "thin bulk 256/6144 x8 filled") == (19 < slots));
  CHECK(has(candidates(5957, 19), "thin cut 512/12288 x4 filled") == (10 < slots / 2));
  for (const char* name : {"vec4 32 input rows", "sector-aligned 64 output rows"})
    CHECK_FALSE(has(candidates(8192, 8192), name));
  CHECK_FALSE(has(candidates(8000000, 19), "thin cut 256/6144 x8 filled"));
  // Every candidate runs its shape correctly, at the pointers it was listed for (the dispatcher
  // may pick any of them): aligned, and one or two floats off.
  for (const Shape& s : std::vector<Shape>{{33, 65}, {1000, 1}, {100, 36}, {64, 64}, {3, 4097},
                                           {300, 260}, {19, 5957}, {5957, 19}, {260, 300}})
    for (int offset : {0, 1, 2})
      for (const ch06::TransposeCandidate& c : candidates(s.rows, s.cols, offset)) {
        CAPTURE(c.name);
        check_at_offsets(c.plan.launch, s.rows, s.cols, offset, offset);
      }
}

TEST_CASE("the dispatcher's estimate drops the tiles at thin matrices", "[gpu]") {
  // The estimate of a real GPU (the CPU backend's bandwidth is nominal, and its estimate only
  // orders the candidates of its own runs).
  REQUIRE_REAL_GPU();
  DeviceBuffer<float> in(1 << 20), out(1 << 20);
  // The window alone, with no cap on the count: only the estimate can drop a tile here (the
  // thin kernels' own candidates fill the places of the real shortlist).
  auto shortlisted = [&](int rows, int cols) {
    return tutorial::shortlist(ch06::transpose_candidates(in.data(), out.data(), rows, cols),
                               ch06::kWindow, 1000);
  };
  // Thin matrices: the thin kernels; the estimate drops the tiles, which would run many waves
  // of mostly empty blocks.
  for (const Shape& s : std::vector<Shape>{{3, 300000}, {300000, 3}, {7, 100003}}) {
    CAPTURE(s.rows, s.cols);
    const auto list = shortlisted(s.rows, s.cols);
    REQUIRE_FALSE(list.empty());
    for (const ch06::TransposeCandidate& c : list) CHECK(c.name.rfind("thin", 0) == 0);
  }
}

TEST_CASE("the dispatcher: one of its shortlist, chosen once per shape and alignment", "[gpu]") {
  REQUIRE_GPU();
  const tutorial::ChooseByScope by(tutorial::ChooseBy::Measure);
  // (Shapes no other test dispatches, so that the first call here is the shape's first; each at
  // aligned pointers and one float off, another key.)
  for (const Shape& s : std::vector<Shape>{{101, 37}, {5, 5003}, {644, 772}})
   for (int offset : {0, 1}) {
    CAPTURE(s.rows, s.cols, offset);
    DeviceBuffer<float> in_(size_t(s.rows) * s.cols + 1), out_(size_t(s.rows) * s.cols + 1);
    in_.upload(random_matrix(s.rows * s.cols + 1, 1, 3).values);
    const float* in = in_.data() + offset;
    float* out = out_.data() + offset;
    const auto list = tutorial::shortlist(ch06::transpose_candidates(in, out, s.rows, s.cols),
                                          ch06::kWindow, ch06::kShortlist);
    const std::vector<const void*> kernels = kernels_of(list, in, out, s.rows, s.cols);
    const long before = launch_count();
    ch06::dispatch_transpose(in, out, s.rows, s.cols);
    const void* chosen = first_launch_since(before).kernel;
    CHECK(std::find(kernels.begin(), kernels.end(), chosen) != kernels.end());
    if (list.size() > 1) CHECK(launch_count() - before > 1);  // it timed the shortlist
    // The next call times nothing: one launch, the same kernel.
    const long again = launch_count();
    ch06::dispatch_transpose(in, out, s.rows, s.cols);
    CHECK(launch_count() - again == 1);
    CHECK(last_launch().kernel == chosen);
  }
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
  for (const TransposeLauncher launch :
       {ch06::launch_thin_regs, ch06::launch_thin_regs_items<1>, ch06::launch_thin_regs_items<2>,
        ch06::launch_thin_regs_items<4>, ch06::launch_thin_regs_items<8>})
    for (const Shape& s : std::vector<Shape>{{3, 1500}, {1500, 5}, {8, 100}, {101, 16}, {5, 5000}})
      check_at_offsets(launch, s.rows, s.cols, 1, 2);
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
