// The memory-system measurements of chapter 01 (bin/01_memory_system, memory_system.cu):
// latency per level, bandwidth by working-set size, Little's law, a random gather and
// `__restrict__`, each printed beside its prediction. The kernels are in memory_system.cuh.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <numeric>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "01_naive/memory_system.cuh"
#include "common/cli.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/host_matrix.hpp"
#include "common/memory_access.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"

namespace ch01 {

namespace memsys {

constexpr size_t kMB = size_t(1) << 20;

inline std::string fixed(double value, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value;
  return s.str();
}

inline std::string size_text(size_t bytes) {
  return bytes >= 1024 * kMB ? std::to_string(bytes / (1024 * kMB)) + " GB"
         : bytes >= kMB      ? std::to_string(bytes / kMB) + " MB"
                             : std::to_string(bytes / 1024) + " KB";
}

// A cycle through `bytes` / 128 nodes, one per 128-byte line, in random order: node k's
// successor is stored at index 32·k (unsigned) and is the index of another line's first word.
inline std::vector<unsigned> make_chain(size_t bytes, uint64_t seed) {
  const size_t words = bytes / sizeof(unsigned), nodes = words / 32;
  std::vector<unsigned> order(nodes);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(seed));  // node 0 starts
  std::vector<unsigned> next(words, 0);
  for (size_t k = 0; k < nodes; ++k) next[size_t(order[k]) * 32] = order[(k + 1) % nodes] * 32;
  return next;
}

// Nanoseconds per dependent load of a chain through `bytes`. Every run walks the same first
// `steps` nodes, so a chain meant to measure DRAM needs the L2 flushed before each run
// (`flush`); the others keep what the warm-up run left in the cache they measure.
inline double chase_ns(size_t bytes, int steps, uint64_t seed, bool flush) {
  tutorial::DeviceBuffer<unsigned> next(make_chain(bytes, seed)), last(1);
  const tutorial::TimingStats t = tutorial::time_gpu(
      [&] { launch_pointer_chase(next.data(), steps, last.data()); }, {1, 3, flush});
  return t.median_ms * 1e6 / steps;
}

// GB/s of read_in_flight<LOADS> over `n4` float4, `passes` times, blocks × threads threads.
template <int LOADS>
double read_gbs(const tutorial::DeviceBuffer<float4>& in, size_t n4, int passes, int blocks,
                int threads, int iters) {
  tutorial::DeviceBuffer<float> sink(size_t(blocks) * threads);
  const tutorial::TimingStats t = tutorial::time_gpu(
      [&] { launch_read_in_flight<LOADS>(in.data(), n4, passes, sink.data(), blocks, threads); },
      {1, iters, false});
  return double(passes) * double(n4) * sizeof(float4) / (t.median_ms * 1e-3) / 1e9;
}

inline double read_gbs(int loads, const tutorial::DeviceBuffer<float4>& in, size_t n4, int passes,
                       int blocks, int threads, int iters) {
  switch (loads) {
    case 1: return read_gbs<1>(in, n4, passes, blocks, threads, iters);
    case 2: return read_gbs<2>(in, n4, passes, blocks, threads, iters);
    case 4: return read_gbs<4>(in, n4, passes, blocks, threads, iters);
    default: return read_gbs<8>(in, n4, passes, blocks, threads, iters);
  }
}

struct Printer {
  std::ostream& out;
  void section(const std::string& title, const std::string& text) {
    out << "\n" << title << "\n" << text;
  }
  void table(const std::vector<std::string>& titles,
             const std::vector<std::vector<std::string>>& cells) {
    tutorial::print_aligned(out, titles, cells, {0});
  }
};

}  // namespace memsys

// Measures and prints everything; `rows` receives one ReportRow per measurement (for --json
// and --csv). Returns non-zero if a kernel computed a wrong result.
inline int run_memory_system(std::ostream& out, const tutorial::CliOptions& o,
                             const tutorial::DeviceInfo& d, std::vector<tutorial::ReportRow>& rows) {
  using namespace memsys;
  const int iters = std::max(3, o.iters);
  auto record = [&](const std::string& what, double ms, double rate, const std::string& unit) {
    tutorial::ReportRow r;
    r.chapter = "01_memory_system";
    r.kernel = what;
    r.median_ms = r.min_ms = r.max_ms = ms;
    r.rate = rate;
    r.rate_unit = unit;
    rows.push_back(r);
  };
  Printer p{out};
  int failures = 0;

  // ---- The formula and the copy ----------------------------------------------------------
  const double theoretical = d.theoretical_bandwidth_gbs();
  const double copy = tutorial::measure_copy_bandwidth_gbs();
  record("theoretical DRAM bandwidth (2 x memory clock x bus width / 8)", 0, theoretical, "GB/s");
  record("cudaMemcpy device-to-device, 1 GB (read + write)", 0, copy, "GB/s");
  p.section("DRAM bandwidth, on paper and measured",
            "theoretical = 2 transfers per clock x " + fixed(d.memory_clock_khz / 1e3, 0) +
                " MHz x " + std::to_string(d.memory_bus_bits) + " bit / 8 = " +
                fixed(theoretical, 0) + " GB/s\n" + "cudaMemcpy device-to-device (1 GB): " +
                fixed(copy, 0) + " GB/s = " + fixed(100 * copy / theoretical, 1) +
                "% of it\n");

  // ---- Latency: one dependent load at a time ---------------------------------------------
  const int steps = 1 << 15;
  struct Level {
    std::string name;
    size_t bytes;
  };
  const std::vector<Level> levels = {{"L1", 16 * 1024},
                                     {"L2", std::min<size_t>(size_t(steps) * 128, d.l2_bytes / 4)},
                                     {"DRAM", 1024 * kMB}};
  std::vector<std::vector<std::string>> cells;
  double dram_ns = 0;
  for (const Level& level : levels) {
    const double ns = chase_ns(level.bytes, steps, o.seed, level.name == "DRAM");
    if (level.name == "DRAM") dram_ns = ns;
    record("latency, chain through " + size_text(level.bytes) + " (" + level.name + ")",
           ns * steps * 1e-6, ns, "ns/load");
    cells.push_back({level.name, size_text(level.bytes), fixed(ns, 0),
                     fixed(ns * d.sm_clock_khz * 1e-6, 0)});
  }
  p.section("Latency: one thread, each load's address the value of the previous load",
            "(a random cycle of 128-byte lines; " + std::to_string(steps) + " steps)\n");
  p.table({"level", "chain", "ns per load", "SM cycles"}, cells);

  // ---- Bandwidth by working set ----------------------------------------------------------
  const int threads = 256;
  const int full_blocks = d.sm_count * std::max(1, d.sm.max_threads_per_sm / threads);
  const size_t dram_bytes = 1024 * kMB;
  tutorial::DeviceBuffer<float4> big(dram_bytes / sizeof(float4));
  tutorial::device_memset(big.data(), 0, big.bytes());
  cells.clear();
  double l2_best = 0, dram_read = 0;
  // 16 MB is about one round of 4 float4 loads for every thread of a full GPU (an H100:
  // 270,336 threads x 64 B = 17.3 MB); smaller buffers leave more threads idle and measure
  // latency more than bandwidth.
  for (size_t bytes : {16 * kMB, 24 * kMB, 32 * kMB, 40 * kMB, 48 * kMB, 64 * kMB, 256 * kMB,
                       dram_bytes}) {
    const int passes = int(dram_bytes / bytes);
    const double gbs = read_gbs(4, big, bytes / sizeof(float4), passes, full_blocks, threads, iters);
    if (2 * bytes <= d.l2_bytes) l2_best = std::max(l2_best, gbs);
    if (bytes == dram_bytes) dram_read = gbs;
    record("read " + size_text(bytes) + " x " + std::to_string(passes), 0, gbs, "GB/s");
    cells.push_back({size_text(bytes), std::to_string(passes), fixed(gbs, 0),
                     fixed(100 * gbs / theoretical, 0) + "%"});
  }
  record("L2 read bandwidth (best working set <= half the L2)", 0, l2_best, "GB/s");
  p.section("Bandwidth by working set: every SM full of threads, 4 float4 loads in flight each",
            "(the same buffer read again and again, nothing flushed between passes: what fits "
            "in the " + size_text(d.l2_bytes) + " L2 is read from it)\n");
  p.table({"working set", "passes", "GB/s", "% of theoretical DRAM"}, cells);

  // ---- Little's law ----------------------------------------------------------------------
  // bandwidth = bytes in flight / latency: with B bytes in flight per SM and latency L,
  // the GPU reads at most sm_count × B / L.
  cells.clear();
  const int small = 128;
  const int max_blocks = std::min(d.sm.max_threads_per_sm / small, d.sm.max_blocks_per_sm);
  for (auto [blocks_per_sm, loads] : std::vector<std::pair<int, int>>{
           {1, 1}, {2, 1}, {4, 1}, {8, 1}, {16, 1}, {16, 2}, {16, 4}, {16, 8}}) {
    if (blocks_per_sm > max_blocks) continue;
    const double in_flight = double(blocks_per_sm) * small * loads * sizeof(float4);
    const double predicted = std::min(dram_read, d.sm_count * in_flight / dram_ns);  // B/ns = GB/s
    const double gbs = read_gbs(loads, big, big.size(), 1, d.sm_count * blocks_per_sm, small, iters);
    record("read 1 GB, " + fixed(in_flight / 1024, 0) + " KB in flight per SM", 0, gbs, "GB/s");
    cells.push_back({fixed(in_flight / 1024, 0) + " KB", std::to_string(blocks_per_sm * small),
                     std::to_string(loads), fixed(predicted, 0), fixed(gbs, 0),
                     fixed(d.sm_count * in_flight / gbs, 0)});
  }
  p.section("Little's law: bytes in flight per SM -> DRAM bandwidth (1 GB read once)",
            "predicted = min(" + fixed(dram_read, 0) + " GB/s, " + std::to_string(d.sm_count) +
                " SMs x bytes in flight / " + fixed(dram_ns, 0) +
                " ns idle latency); 'latency seen' = SMs x bytes in flight / measured\n");
  p.table({"in flight per SM", "threads per SM", "float4 loads each", "predicted GB/s",
           "measured GB/s", "latency seen (ns)"},
          cells);

  // ---- A gather: which sectors, not which order ------------------------------------------
  const int n = 1 << 26;  // 256 MB per array: five times a 50 MB L2
  std::vector<float> host_in(n);
  for (int i = 0; i < n; ++i) host_in[i] = float(i % 1000003);
  tutorial::DeviceBuffer<float> g_in(host_in), g_out(n);
  std::mt19937_64 rng(o.seed);
  struct Order {
    std::string name;
    std::vector<int> index;
  };
  std::vector<Order> orders(3);
  orders[0].name = "in order (index[i] = i)";
  orders[1].name = "lanes shuffled within each warp's 32";
  orders[2].name = "random permutation of all n";
  for (Order& order : orders) {
    order.index.resize(n);
    std::iota(order.index.begin(), order.index.end(), 0);
  }
  for (int w = 0; w < n; w += 32)
    std::shuffle(orders[1].index.begin() + w, orders[1].index.begin() + w + 32, rng);
  std::shuffle(orders[2].index.begin(), orders[2].index.end(), rng);
  cells.clear();
  double first_ms = 0;
  for (const Order& order : orders) {
    tutorial::DeviceBuffer<int> index(order.index);
    std::vector<uint64_t> warp0;  // the data addresses of the first warp's first load
    for (int lane = 0; lane < 32; ++lane) warp0.push_back(4 * uint64_t(order.index[lane]));
    const tutorial::GlobalAccessCost cost = tutorial::global_access_cost(warp0, 4);
    g_out.poison();
    const double ms = tutorial::time_gpu(
        [&] { launch_gather(g_in.data(), index.data(), g_out.data(), n); }, {1, iters, true})
                          .median_ms;
    if (o.check) {
      const std::vector<float> got = g_out.download();
      for (int i = 0; i < n; ++i)
        if (got[i] != host_in[order.index[i]]) {
          out << "WRONG: gather (" << order.name << ") out[" << i << "] = " << got[i] << "\n";
          ++failures;
          break;
        }
    }
    if (first_ms == 0) first_ms = ms;
    // Bytes per element: the index (4), the data sectors per lane, the store (4).
    const double moved = 4 + 32.0 * cost.sectors / 32 + 4;
    const double gbs = 12.0 * n / (ms * 1e-3) / 1e9;  // useful bytes: index, value, store
    record("gather, " + order.name, ms, gbs, "GB/s");
    cells.push_back({order.name, std::to_string(cost.sectors), fixed(moved, 0),
                     fixed(100 * 12.0 / moved, 0) + "%", fixed(gbs, 0),
                     fixed(100 * first_ms / ms, 0) + "%"});
  }
  p.section("A gather, out[i] = in[index[i]] (" + std::to_string(n) + " floats, L2 flushed)",
            "predicted = 12 useful bytes per element / bytes moved (index 4 + 32 per data "
            "sector + store 4), relative to the in-order row\n");
  p.table({"index", "sectors per warp load", "bytes moved per element", "predicted",
           "useful GB/s", "measured"},
          cells);

  // ---- __restrict__ ----------------------------------------------------------------------
  const int m = 1 << 24;
  std::vector<float> host_x(m + kTaps - 1), host_w(kTaps);
  tutorial::fill_random(host_x, o.seed);
  tutorial::fill_random(host_w, o.seed + 1);
  tutorial::DeviceBuffer<float> x(host_x), w(host_w), y_alias(m), y_restrict(m);
  cells.clear();
  double alias_ms = 0;
  for (bool restricted : {false, true}) {
    tutorial::DeviceBuffer<float>& y = restricted ? y_restrict : y_alias;
    y.poison();
    const double ms = tutorial::time_gpu(
        [&] { launch_weighted_sum(restricted, x.data(), w.data(), y.data(), m); }, {1, iters, true})
                          .median_ms;
    if (!restricted) alias_ms = ms;
    const double gbs = 8.0 * m / (ms * 1e-3) / 1e9;  // read x once, write y once
    const std::string name = restricted ? "weighted_sum_restrict" : "weighted_sum_may_alias";
    record(name, ms, gbs, "GB/s");
    cells.push_back({name, restricted ? "1" : std::to_string(kTaps + 1), fixed(ms * 1e3, 1),
                     fixed(gbs, 0), fixed(alias_ms / ms, 2) + "x"});
  }
  if (o.check) {
    const std::vector<float> a = y_alias.download(), b = y_restrict.download();
    for (int i = 0; i < m; ++i) {
      float want = 0;
      for (int t = 0; t < kTaps; ++t) want += host_w[t] * host_x[i + t];
      if (!(std::fabs(a[i] - want) <= 1e-5f + 1e-5f * std::fabs(want)) || a[i] != b[i]) {
        out << "WRONG: weighted_sum element " << i << ": " << a[i] << " / " << b[i] << " vs "
            << want << "\n";
        ++failures;
        break;
      }
    }
  }
  p.section("__restrict__: out[i] = sum over 8 taps of w[t] * in[i + t], accumulated in out[i]",
            "(" + std::to_string(m) + " elements; stores per element read from the source: "
            "make sass shows them as STG)\n");
  p.table({"kernel", "stores per element", "time (us)", "useful GB/s", "speed-up"}, cells);
  return failures ? 1 : 0;
}

}  // namespace ch01
