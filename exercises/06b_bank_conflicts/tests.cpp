// Tests of exercise 06b (bank conflicts). Host only.
// Points per test: exercises/manifest.json.
#include <vector>

#include "common/catch_compat.hpp"
#include "common/memory_access.hpp"
#include "exercises/06b_bank_conflicts/bank_conflicts.hpp"

using namespace ex06b;

TEST_CASE("06b words map to banks modulo 32") {
  CHECK(bank_of(0) == 0);
  CHECK(bank_of(31) == 31);
  CHECK(bank_of(32) == 0);
  CHECK(bank_of(33 * 5 + 2) == 7);
}

TEST_CASE("06b strides: 1 is conflict-free and 2 is 2-way and 0 is a broadcast") {
  CHECK(strided_degree(1) == 1);
  CHECK(strided_degree(2) == 2);
  CHECK(strided_degree(0) == 1);
  CHECK(strided_degree(3) == 1);
  CHECK(strided_degree(32) == 32);
}

TEST_CASE("06b seed exercise 3.2: a 32x32 tile column is 32-way and 32x33 is conflict-free") {
  CHECK(column_read_degree(32) == 32);
  CHECK(column_read_degree(33) == 1);
  CHECK(column_read_degree(64) == 32);
  CHECK(column_read_degree(16) == 16);
}

TEST_CASE("06b the 16x16 trap: transposed reads of a 16x16 tile are 8-way") {
  CHECK(transposed_read_degree(16, 16) == 8);
  CHECK(transposed_read_degree(16, 17) == 2);  // + 1 is not enough for 16 x 16 ...
  CHECK(transposed_read_degree(16, 18) == 1);  // ... + 2 is
  CHECK(transposed_read_degree(32, 32) == 32);
  CHECK(transposed_read_degree(32, 33) == 1);
}

TEST_CASE("06b the smallest padding that removes the conflicts") {
  CHECK(padded_row_words(32) == 33);
  CHECK(padded_row_words(16) == 18);
  CHECK(padded_row_words(8) == 12);  // 8x8 blocks: a warp reads 4 rows of the tile at once
  for (int dim : {8, 16, 32}) {
    INFO("block_dim " << dim);
    const int padded = padded_row_words(dim);
    CHECK(transposed_read_degree(dim, padded) == 1);
    for (int w = dim; w < padded; ++w) CHECK(transposed_read_degree(dim, w) > 1);
  }
}

TEST_CASE("06b agrees with the bank simulator for strides and tiles up to 130 words") {
  for (int stride = 0; stride <= 130; ++stride) {
    std::vector<uint32_t> words;
    for (int t = 0; t < 32; ++t) words.push_back(uint32_t(t * stride));
    INFO("stride " << stride);
    REQUIRE(strided_degree(stride) == tutorial::bank_conflict_degree(words));
    if (stride >= 1) REQUIRE(column_read_degree(stride) == tutorial::bank_conflict_degree(words));
  }
  for (int dim : {8, 16, 32}) {
    for (int row_words = dim; row_words <= 130; ++row_words) {
      std::vector<uint32_t> words;
      for (int t = 0; t < 32; ++t) words.push_back(uint32_t((t % dim) * row_words + t / dim));
      INFO("block_dim " << dim << ", row_words " << row_words);
      REQUIRE(transposed_read_degree(dim, row_words) == tutorial::bank_conflict_degree(words));
    }
  }
}
