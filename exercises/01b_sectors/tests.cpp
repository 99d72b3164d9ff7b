// Tests of exercise 01b (sectors of a strided warp access). Host only.
// Points per test: exercises/manifest.json.
#include "common/catch_compat.hpp"
#include "common/memory_access.hpp"
#include "exercises/01b_sectors/sectors.hpp"

using namespace ex01b;

TEST_CASE("01b a coalesced warp touches 4 sectors in 1 line") {
  CHECK(sectors_touched(1, 0) == 4);
  CHECK(lines_touched(1, 0) == 1);
  CHECK(sector_efficiency(1, 0) == Approx(1.0));
  CHECK(line_efficiency(1, 0) == Approx(1.0));
}

TEST_CASE("01b one float off alignment costs a fifth sector and a second line") {
  CHECK(sectors_touched(1, 1) == 5);
  CHECK(lines_touched(1, 1) == 2);
  CHECK(sector_efficiency(1, 1) == Approx(0.8));
  CHECK(line_efficiency(1, 1) == Approx(0.5));
}

TEST_CASE("01b stride 2 moves twice the bytes it uses") {
  CHECK(sectors_touched(2, 0) == 8);
  CHECK(lines_touched(2, 0) == 2);
  CHECK(sector_efficiency(2, 0) == Approx(0.5));
}

TEST_CASE("01b seed exercise 3.1: a 128-byte stride needs 32 lines at 3.125 percent") {
  // Lane t reads byte address 128 t: addresses 0, 128, ..., 3968.
  CHECK(lines_touched(32, 0) == 32);
  CHECK(line_efficiency(32, 0) == Approx(0.03125));
  CHECK(sectors_touched(32, 0) == 32);
  CHECK(sector_efficiency(32, 0) == Approx(0.125));  // sectors soften it to 12.5%
}

TEST_CASE("01b the x field of 16-byte structs is a stride of 4 floats") {
  CHECK(sectors_touched(4, 0) == 16);
  CHECK(sector_efficiency(4, 0) == Approx(0.25));
  CHECK(lines_touched(4, 0) == 4);
}

TEST_CASE("01b agrees with the warp simulator for strides 1 to 64 and offsets 0 to 40") {
  for (int stride = 1; stride <= 64; ++stride) {
    for (int offset = 0; offset <= 40; ++offset) {
      const auto cost = tutorial::global_access_cost(
          tutorial::warp_addresses(uint64_t(offset) * 4, int64_t(stride) * 4), 4);
      INFO("stride " << stride << " floats, offset " << offset << " floats");
      REQUIRE(sectors_touched(stride, offset) == cost.sectors);
      REQUIRE(lines_touched(stride, offset) == cost.lines);
      REQUIRE(sector_efficiency(stride, offset) == Approx(cost.efficiency()));
      REQUIRE(line_efficiency(stride, offset) == Approx(cost.line_efficiency()));
    }
  }
}
