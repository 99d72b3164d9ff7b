// The chooser (common/chooser.hpp) and the device facts (common/device_facts.hpp): the shortlist's
// cut, the pick among timed medians, the estimate path (no timing, the same choice every time),
// the measured path (each candidate timed once, then the cache), and resident blocks.
#include <string>
#include <vector>

#include "common/catch_compat.hpp"
#include "common/chooser.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/launch.cuh"

using namespace tutorial;

namespace {

// Writes `value` into out[0 .. n): `work` rounds of it, so that candidates differ in time.
__global__ void fill_kernel(float* out, int n, float value, int work) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = 0;
  for (int r = 0; r < work; ++r) v += value;
  out[i] = v / float(work);
}

std::vector<Candidate<int>> three() {
  return {{0, 3.0, "slow"}, {1, 1.0, "fast"}, {2, 1.5, "close"}, {3, 9.0, "far"}};
}

}  // namespace

TEST_CASE("the shortlist: ranked by estimate, cut at the window and the count", "[chooser]") {
  const std::vector<Candidate<int>> list = shortlist(three(), 1.6, 6);
  REQUIRE(list.size() == 2);  // 1.0 and 1.5 are within 1.6 x 1.0; 3.0 and 9.0 are not
  CHECK(list[0].plan == 1);
  CHECK(list[1].plan == 2);
  CHECK(shortlist(three(), 10.0, 3).size() == 3);  // the count cuts too
  CHECK(shortlist(three(), 10.0, 1)[0].plan == 1);
  // Ties keep their order.
  const std::vector<Candidate<int>> tied = {{7, 2.0, "a"}, {8, 2.0, "b"}};
  CHECK(shortlist(tied, 1.0, 2)[0].plan == 7);
}

TEST_CASE("the pick: the fastest median, but the estimate's first within the timer's spread",
          "[chooser]") {
  CHECK(pick_fastest({1.0}) == 0);
  CHECK(pick_fastest({1.0, 0.98}) == 0);  // within kMeasuredMargin: the estimate's choice
  CHECK(pick_fastest({1.0, 0.96}) == 1);
  CHECK(pick_fastest({1.0, 0.96, 0.95, 1.3}) == 2);
  CHECK(pick_fastest({1.0, 1.2, 1.01}) == 0);
  CHECK(pick_fastest({1.0, -1.0, 0.5}) == 2);  // (-1: a candidate that could not run)
  CHECK(pick_fastest({-1.0, 2.0}) == 1);
}

TEST_CASE("the way of choosing: the scope sets it and puts it back", "[chooser]") {
  const ChooseBy before = choose_by();
  {
    const ChooseByScope scope(ChooseBy::Estimate);
    CHECK(choose_by() == ChooseBy::Estimate);
    {
      const ChooseByScope inner(ChooseBy::Measure);
      CHECK(choose_by() == ChooseBy::Measure);
    }
    CHECK(choose_by() == ChooseBy::Estimate);
  }
  CHECK(choose_by() == before);
}

TEST_CASE("choosing by estimate: the cheapest, no candidate run, the same every time", "[gpu]") {
  REQUIRE_GPU();
  const ChooseByScope by(ChooseBy::Estimate);
  Chooser<int> chooser(1.6, 6);
  int runs = 0, made = 0;
  auto make = [&] {
    ++made;
    return three();
  };
  auto run = [&](int) { ++runs; };
  CHECK(chooser.choose("k", make, run) == 1);
  CHECK(chooser.choose("k", make, run) == 1);
  CHECK(runs == 0);
  CHECK(made == 1);  // the second call is the cache's
}

TEST_CASE("choosing by measurement: each shortlisted candidate timed once, then the cache",
          "[gpu]") {
  REQUIRE_GPU();
  const ChooseByScope by(ChooseBy::Measure);
  const int n = 1 << 15;
  DeviceBuffer<float> out(n);
  // Candidate p runs work[p] rounds per element: the estimate's first (plan 0) is the slowest.
  const std::vector<int> work = {8192, 16, 64};
  std::vector<int> runs(work.size(), 0);
  auto make = [] {
    return std::vector<Candidate<int>>{{0, 1.0, "slow"}, {1, 1.1, "fast"}, {2, 1.2, "middle"}};
  };
  auto run = [&](int p) {
    ++runs[size_t(p)];
    launch(fill_kernel, dim3(ceil_div(n, 256)), dim3(256), 0, out.data(), n, 2.0f, work[size_t(p)]);
  };
  Chooser<int> chooser(2.0, 6);
  const int chosen = chooser.choose("fill", make, run);
  CHECK(chosen == 1);
  for (int r : runs) CHECK(r >= 2);  // a trial run, then timed rounds
  const std::vector<int> after = runs;
  CHECK(chooser.choose("fill", make, run) == chosen);
  CHECK(runs == after);  // no second timing
  // A candidate that cannot run is dropped; another key is chosen afresh.
  auto make_with_refusal = [] {
    return std::vector<Candidate<int>>{{1, 1.0, "fast"}, {9, 1.1, "refuses"}};
  };
  auto run_with_refusal = [&](int p) {
    if (p == 9) throw UnsupportedShape("candidate 9 refuses");
    run(p);
  };
  CHECK(chooser.choose("refusal", make_with_refusal, run_with_refusal) == 1);
  CHECK(chooser.cached() == 2);
}

TEST_CASE("resident blocks: SMs x blocks per SM, at least one per SM", "[gpu]") {
  REQUIRE_GPU();
  const DeviceInfo& d = current_device_info();
  CHECK(d.sm_count > 0);
  CHECK(&current_device_info() == &d);  // read once
  const long long blocks = resident_blocks(fill_kernel, 256, 0);
  CHECK(blocks >= d.sm_count);
  CHECK(blocks % d.sm_count == 0);
  CHECK(blocks <= (long long)d.sm_count * d.sm.max_threads_per_sm / 256);
  CHECK(resident_blocks(fill_kernel, 256, 0) == blocks);
  CHECK(dram_bytes_per_sm_clock(d) > 0);
}
