// Chapter 01 tests: the README's arithmetic on the host, the coalescing calculator included;
// both kernels against the CPU reference (small sizes) and cuBLAS (large sizes) on the GPU; the
// coalescing demo's and the memory system's kernels compute what they say.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "01_naive/access_patterns.cuh"
#include "01_naive/kernel_list.cuh"
#include "01_naive/memory_system_demo.cuh"
#include "common/catch_compat.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/gemm.hpp"
#include "common/gemm_test.hpp"
#include "common/host_matrix.hpp"
#include "common/memory_access.hpp"

using namespace tutorial;

namespace {

// 1x1x1, a single row/column, primes, one past a block edge, non-square.
const std::vector<TestShape> kSmallShapes = {
    {1, 1, 1},    {1, 4097, 3},    {127, 33, 1025}, {4097, 1, 2},  {31, 37, 41},
    {97, 89, 101}, {32, 32, 32},   {33, 33, 33},    {64, 96, 128}, {257, 255, 129},
    {5, 3, 2},    {1025, 7, 1}};

// Large enough that check_gemm compares with cuBLAS.
const std::vector<TestShape> kLargeShapes = {
    {1024, 1024, 1024}, {2048, 1024, 512}, {1000, 1537, 999}};

}  // namespace

// ---------------------------------------------------------------------------------------
// Host: every number the README derives
// ---------------------------------------------------------------------------------------

TEST_CASE("naive GEMM: 2 FLOP per 8 bytes loaded is 0.25 FLOP/B", "[model]") {
  CHECK(ch01::naive_intensity(4096, 4096, 4096) == 0.25);
  CHECK(ch01::naive_intensity(1, 4097, 3) == 0.25);  // independent of the shape
  for (const GemmKernel& k : ch01::chapter_kernels()) CHECK(k.intensity(7, 7, 7) == 0.25);
}

TEST_CASE("A100 roofline: 1555 GB/s x 0.25 FLOP/B = 389 GFLOP/s, 2% of 19.5 TFLOP/s",
          "[model]") {
  const double bound = roofline_gflops(ch01::naive_intensity(1, 1, 1), 1555, 19500);
  CHECK(bound == Approx(388.75));
  CHECK(100 * bound / 19500 == Approx(1.99).epsilon(0.01));
  // 19500 / 1555 = 12.5 FLOP/B is where the A100 stops being memory bound.
  CHECK(19500.0 / 1555 == Approx(12.54).epsilon(0.001));
}

TEST_CASE("H100 SXM and H200 rooflines at 0.25 FLOP/B", "[model]") {
  const double h100_peak = fp32_peak_gflops(132, 128, 1980000);  // 66.9 TFLOP/s
  CHECK(h100_peak == Approx(66908).epsilon(1e-3));
  const double h100 = roofline_gflops(0.25, 3350, h100_peak);
  CHECK(h100 == Approx(837.5));
  CHECK(100 * h100 / h100_peak == Approx(1.25).epsilon(0.01));
  CHECK(roofline_gflops(0.25, 4800, h100_peak) == Approx(1200));  // H200: same SM, 4.8 TB/s
}

TEST_CASE("bytes moved per warp and k step: coalesced 160 B, swapped 1056 B", "[model]") {
  const int sector = 32, line = 128, warp = 32;
  const int coalesced = sector /* A: one broadcast */ + line /* B: 32 consecutive floats */;
  const int swapped = warp * sector /* A: 32 rows, one sector each */ + sector /* B: broadcast */;
  CHECK(coalesced == 160);
  CHECK(swapped == 1056);
  CHECK(double(swapped) / coalesced == Approx(6.6));
}

TEST_CASE("chapter 01 ships the coalesced and the swapped kernel", "[list]") {
  const std::vector<GemmKernel> kernels = ch01::chapter_kernels();
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "naive_gemm");
  CHECK(kernels[1].name == "naive_gemm_swapped");
  CHECK(ch01::best_kernel().launch == &ch01::launch_naive_gemm);
  CHECK(ch01::best_kernel().name == "ch01::naive_gemm");
}

TEST_CASE("launchers refuse empty and int-overflowing shapes before touching the GPU",
          "[refusal]") {
  for (const GemmKernel& k : ch01::chapter_kernels()) {
    INFO(k.name);
    try {
      k.launch(nullptr, nullptr, nullptr, 0, 8, 8);
      FAIL("M=0 accepted");
    } catch (const UnsupportedShape& e) {
      CHECK(std::string(e.what()).find("must all be >= 1, got M=0 N=8 K=8") != std::string::npos);
    }
    CHECK_THROWS_AS(k.launch(nullptr, nullptr, nullptr, 8, 8, -1), UnsupportedShape);
    try {
      k.launch(nullptr, nullptr, nullptr, 65536, 1, 32768);  // A has 2^31 elements
      FAIL("2^31-element A accepted");
    } catch (const UnsupportedShape& e) {
      CHECK(std::string(e.what()).find("A (M x K)") != std::string::npos);
      CHECK(std::string(e.what()).find("32-bit int") != std::string::npos);
    }
  }
}

// ---------------------------------------------------------------------------------------
// GPU: correctness of every kernel
// ---------------------------------------------------------------------------------------

TEST_CASE("naive kernels match the CPU reference on odd, prime and non-square sizes",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const GemmKernel& k : ch01::chapter_kernels()) check_kernel_at(k, kSmallShapes);
}

TEST_CASE("naive kernels match cuBLAS at 1024^3 and on large non-square sizes",
          "[gpu][correctness]") {
  REQUIRE_GPU();
  for (const GemmKernel& k : ch01::chapter_kernels()) check_kernel_at(k, kLargeShapes);
}

// ---- The global-memory calculator ----------------------------------------------------

TEST_CASE("a coalesced warp of floats: 128 bytes, 4 sectors, 1 line, nothing wasted", "[access]") {
  const GlobalAccessCost c = global_access_cost(warp_addresses(0, 4), 4);
  CHECK(c.sectors == 4);
  CHECK(c.lines == 1);
  CHECK(c.requested_bytes == 128);
  CHECK(c.efficiency() == Approx(1.0));
}

TEST_CASE("a 128-byte stride touches 32 lines (3.125% of lines, 12.5% of sectors)",
          "[access]") {
  const GlobalAccessCost c = global_access_cost(warp_addresses(0, 128), 4);
  CHECK(c.lines == 32);
  CHECK(c.sectors == 32);
  // Counted in whole 128-byte transactions, as older texts do: 128 / 4096 bytes.
  CHECK(c.line_efficiency() == Approx(0.03125));
  // From compute capability 6.0 on, a warp's accesses are served in 32-byte sectors: 128 / 1024.
  CHECK(c.efficiency() == Approx(0.125));
}

TEST_CASE("strided floats: sectors double with the stride until every lane has its own",
          "[access]") {
  const int strides[] = {1, 2, 4, 8, 16, 32};
  const int sectors[] = {4, 8, 16, 32, 32, 32};
  const int lines[] = {1, 2, 4, 8, 16, 32};
  for (int i = 0; i < 6; ++i) {
    CAPTURE(strides[i]);
    const GlobalAccessCost c = global_access_cost(warp_addresses(0, 4 * strides[i]), 4);
    CHECK(c.sectors == sectors[i]);
    CHECK(c.lines == lines[i]);
    CHECK(c.efficiency() == Approx(4.0 / sectors[i]));
  }
}

TEST_CASE("a warp shifted by one float straddles two lines and five sectors", "[access]") {
  const GlobalAccessCost c = global_access_cost(warp_addresses(4, 4), 4);
  CHECK(c.sectors == 5);
  CHECK(c.lines == 2);
  CHECK(c.efficiency() == Approx(0.8));
}

TEST_CASE("AoS vs SoA: one field of a 16-byte struct uses a quarter of each sector", "[access]") {
  const GlobalAccessCost aos = global_access_cost(warp_addresses(0, 16), 4);
  CHECK(aos.sectors == 16);
  CHECK(aos.lines == 4);
  CHECK(aos.efficiency() == Approx(0.25));
  // The demo's predicted copy rate: 2 / (1/0.25 + 1) = 40% of the coalesced copy.
  CHECK(2.0 / (1.0 / aos.efficiency() + 1.0) == Approx(0.4));
  const GlobalAccessCost soa = global_access_cost(warp_addresses(0, 4), 4);
  CHECK(soa.efficiency() == Approx(1.0));
}

TEST_CASE("float4 per lane: 512 contiguous bytes, 16 sectors, 4 lines, fully used", "[access]") {
  const GlobalAccessCost c = global_access_cost(warp_addresses(0, 16), 16);
  CHECK(c.sectors == 16);
  CHECK(c.lines == 4);
  CHECK(c.efficiency() == Approx(1.0));
}

TEST_CASE("threads reading the same address share it", "[access]") {
  const GlobalAccessCost c = global_access_cost(std::vector<uint64_t>(32, 64), 4);
  CHECK(c.sectors == 1);
  CHECK(c.requested_bytes == 4);
  CHECK_THROWS_AS(global_access_cost(std::vector<uint64_t>(33, 0), 4), std::invalid_argument);
}

// ---- The coalescing demo and the memory system (make memory-system) -----------------

TEST_CASE("the demo kernels read what their names say", "[gpu]") {
  REQUIRE_GPU();
  const int n = 1000, stride = 3, offset = 1;
  std::vector<float> host(size_t(n) * 4 + 1);
  fill_random(host, 13);
  DeviceBuffer<float> d_in(host), d_out(n);
  std::vector<float> want(n);

  d_out.poison();
  ch01::launch_gather_copy(d_in.data(), d_out.data(), n, stride, offset);
  for (int i = 0; i < n; ++i) want[i] = host[offset + size_t(i) * stride];
  CHECK(d_out.download() == want);

  // The same floats seen as n Points: x is every 4th float.
  d_out.poison();
  ch01::launch_x_of_points_aos(reinterpret_cast<const ch01::Point*>(d_in.data()), d_out.data(), n);
  for (int i = 0; i < n; ++i) want[i] = host[4 * size_t(i)];
  CHECK(d_out.download() == want);

  d_out.poison();
  ch01::launch_x_of_points_soa(d_in.data(), d_out.data(), n);
  for (int i = 0; i < n; ++i) want[i] = host[i];
  CHECK(d_out.download() == want);
}

TEST_CASE("the memory-system kernels compute what they say", "[gpu]") {
  REQUIRE_GPU();
  // pointer_chase follows the chain: 32 lines of 128 bytes, 45 steps (more than one lap).
  const std::vector<unsigned> chain = ch01::memsys::make_chain(4096, 5);
  unsigned want_last = 0;
  for (int s = 0; s < 45; ++s) want_last = chain[want_last];
  std::vector<unsigned> visited;
  for (unsigned i = 0, s = 0; s < 32; ++s, i = chain[i]) visited.push_back(i);
  std::sort(visited.begin(), visited.end());
  for (unsigned k = 0; k < 32; ++k) CHECK(visited[k] == 32 * k);  // one cycle through every line
  DeviceBuffer<unsigned> d_chain(chain), d_last(1);
  ch01::launch_pointer_chase(d_chain.data(), 45, d_last.data());
  CHECK(d_last.download()[0] == want_last);

  // read_in_flight reads every float4 once per pass, n4 not a multiple of anything.
  const size_t n4 = 1000;
  std::vector<float> values(4 * n4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i % 7);  // sums stay exact
  const double total = std::accumulate(values.begin(), values.end(), 0.0);
  DeviceBuffer<float> d_values(values);
  for (int loads : {1, 2, 4, 8}) {
    DeviceBuffer<float> sink(3 * 64);
    sink.poison();
    const auto* in4 = reinterpret_cast<const float4*>(d_values.data());
    if (loads == 1) ch01::launch_read_in_flight<1>(in4, n4, 3, sink.data(), 3, 64);
    if (loads == 2) ch01::launch_read_in_flight<2>(in4, n4, 3, sink.data(), 3, 64);
    if (loads == 4) ch01::launch_read_in_flight<4>(in4, n4, 3, sink.data(), 3, 64);
    if (loads == 8) ch01::launch_read_in_flight<8>(in4, n4, 3, sink.data(), 3, 64);
    const std::vector<float> sums = sink.download();
    INFO("LOADS = " << loads);
    CHECK(std::accumulate(sums.begin(), sums.end(), 0.0) == 3 * total);
  }

  // gather: a random permutation, a size that leaves a partial block.
  const int n = 3001;
  std::vector<float> in(n);
  fill_random(in, 17);
  std::vector<int> index(n);
  std::iota(index.begin(), index.end(), 0);
  std::shuffle(index.begin(), index.end(), std::mt19937(3));
  DeviceBuffer<float> d_in(in), d_out(n);
  DeviceBuffer<int> d_index(index);
  d_out.poison();
  ch01::launch_gather(d_in.data(), d_index.data(), d_out.data(), n);
  const std::vector<float> gathered = d_out.download();
  for (int i = 0; i < n; ++i) REQUIRE(gathered[i] == in[index[i]]);

  // Both weighted sums equal the CPU's, and each other bit for bit (same operations, in order).
  std::vector<float> x(n + ch01::kTaps - 1), w(ch01::kTaps);
  fill_random(x, 19);
  fill_random(w, 23);
  DeviceBuffer<float> d_x(x), d_w(w), y_alias(n), y_restrict(n);
  y_alias.poison();
  y_restrict.poison();
  ch01::launch_weighted_sum(false, d_x.data(), d_w.data(), y_alias.data(), n);
  ch01::launch_weighted_sum(true, d_x.data(), d_w.data(), y_restrict.data(), n);
  const std::vector<float> a = y_alias.download(), b = y_restrict.download();
  for (int i = 0; i < n; ++i) {
    float want = 0;
    for (int t = 0; t < ch01::kTaps; ++t) want += w[t] * x[i + t];
    REQUIRE(a[i] == Approx(want).margin(1e-5).epsilon(1e-5));
    REQUIRE(a[i] == b[i]);
  }
}
