// bin/<chapter>_analyze: every kernel of a chapter, once, at a small shape, on the CPU
// backend with the memory model on; prints a digest in the columns of `make profile`.
//
// Included by a generated file per chapter (analyze/CMakeLists.txt) that first includes the
// chapter's kernel_list.cuh (and for chapter 01 access_patterns.cuh, the coalescing demo's
// kernels, defining TUTORIAL_ANALYZE_DEMO; for the transpose chapter, whose kernel_list.cuh has
// the copy kernel, TUTORIAL_ANALYZE_COPY) and defines TUTORIAL_ANALYZE_CHAPTER ("06_transpose"),
// TUTORIAL_ANALYZE_NAMESPACE (ch06) and TUTORIAL_ANALYZE_SIZE (the default shape). This
// translation unit is the one compiled by clang with the load/store hooks: the kernels are
// instantiated here.
//
// usage: <chapter>_analyze [--size N] [--lines | --csv] [--csv-to FILE]
//   --size N       GEMM: M = N = K = N; transpose: N×N (default TUTORIAL_ANALYZE_SIZE)
//   --lines        also list each kernel's source lines with their requests
//   --csv          the raw counts instead, one line per launch (common/scripts/model_vs_ncu.py
//                  compares them with Nsight Compute's counters on a GPU)
//   --csv-to FILE  the digest, and the raw counts into FILE, from the same launches
#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cpu_backend/analyze/memory_model.hpp"
#include "common/cpu_backend/scheduler.hpp"
#include "common/device_buffer.hpp"
#include "common/gemm.hpp"
#include "common/launch_record.hpp"
#include "common/transpose.hpp"

namespace {

namespace an = tutorial::analyze;

// The kernel's name as ncu's digest shows it: 'void ch06::transpose_vec4<64, 256,
// (ch06::BlockOrder)0>(float const*, ...)' -> 'transpose_vec4<64, 256, 0>', 'true' -> '1'.
std::string kernel_name(const void* kernel) {
  const std::string symbol = tutorial::cpu::function_symbol(kernel);
  if (symbol.empty()) return "(unnamed kernel)";
  int status = 0;
  char* demangled = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : symbol;
  std::free(demangled);
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  int depth = 0;  // cut the parameter list: the last top-level '(' ... ')'
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      name.erase(i);
      break;
    }
  }
  // Template arguments as ncu prints them: an enum or a bool as its number.
  name = std::regex_replace(name, std::regex(R"(\([A-Za-z_:0-9]+\)(-?[0-9]+))"), "$1");
  name = std::regex_replace(name, std::regex(R"(\btrue\b)"), "1");
  name = std::regex_replace(name, std::regex(R"(\bfalse\b)"), "0");
  name = std::regex_replace(name, std::regex(R"(\bch[0-9][0-9]::)"), "");
  return name;
}

// 12345678 -> "12.3 M", as ncu_digest.py writes numbers; small ones stay exact.
std::string compact(double value, const std::string& unit = "") {
  char text[64];
  const struct { double scale; const char* suffix; } scales[] = {{1e9, " G"}, {1e6, " M"}, {1e3, " k"}};
  for (const auto& s : scales)
    if (value >= s.scale) {
      std::snprintf(text, sizeof text, "%.1f%s%s", value / s.scale, s.suffix, unit.c_str());
      return text;
    }
  std::snprintf(text, sizeof text, "%.0f%s%s", value, unit.empty() ? "" : " ", unit.c_str());
  return text;
}

std::string ratio(uint64_t a, uint64_t b, const char* none = "-") {
  if (b == 0) return none;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", double(a) / double(b));
  return text;
}

std::string percent(uint64_t a, uint64_t b) {
  if (b == 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %%", 100.0 * double(a) / double(b));
  return text;
}

struct Row {
  std::string kernel;  // as ncu names it
  std::string label;   // as the chapter's table names it
  uint64_t blocks = 0, threads_per_block = 0;  // the launch's grid and block
  an::MemoryStats stats;
  std::vector<an::SiteStats> sites;
  std::string refused;  // the launcher's UnsupportedShape message, if any
};

// Runs one launcher with the model on.
template <typename Launch>
Row measure(const std::string& label, Launch&& launch) {
  Row row;
  row.label = label;
  const long before = tutorial::launch_count();
  an::begin();
  try {
    launch();
  } catch (const tutorial::UnsupportedShape& e) {
    row.refused = e.what();
  }
  row.stats = an::end();
  row.sites = an::sites();
  // Named after the launcher's main kernel (its first launch; a split-K sum comes after it).
  const tutorial::LaunchRecord& l = tutorial::first_launch_since(before);
  row.kernel = row.refused.empty() ? kernel_name(l.kernel) : label;
  if (row.refused.empty()) {
    row.blocks = uint64_t(l.grid.x) * l.grid.y * l.grid.z;
    row.threads_per_block = uint64_t(l.threads_per_block());
  }
  return row;
}

const char* kTitles[] = {"kernel", "sectors / request (global loads)",
                         "smem bank conflicts (ld / st)", "global loads asked of L1",
                         "shared-memory load wavefronts", "global load / store requests",
                         "sectors / request (global stores)", "bytes used / moved (loads)",
                         "smem wavefronts / request (ld / st)"};

std::string cells(const Row& r, const std::string& name) {
  const an::MemoryStats& s = r.stats;
  std::ostringstream out;
  out << "| " << name << " | ";
  if (!r.refused.empty()) {
    out << "refused: " << r.refused << " |";
    return out.str();
  }
  out << ratio(s.global_ld.sectors, s.global_ld.requests, "no loads") << " | "
      << compact(double(s.shared_ld.bank_conflicts())) << " / "
      << compact(double(s.shared_st.bank_conflicts())) << " | "
      << compact(32.0 * double(s.global_ld.sectors), "B") << " | "
      << compact(double(s.shared_ld.wavefronts)) << " | " << compact(double(s.global_ld.requests))
      << " / " << compact(double(s.global_st.requests)) << " | "
      << ratio(s.global_st.sectors, s.global_st.requests) << " | "
      << percent(s.global_ld.bytes_requested, 32 * s.global_ld.sectors) << " | "
      << ratio(s.shared_ld.wavefronts, s.shared_ld.requests) << " / "
      << ratio(s.shared_st.wavefronts, s.shared_st.requests) << " |";
  return out.str();
}

// "06_transpose/kernels.cuh:116 <- 161": the access's line, then the lines of this chapter it
// was inlined into (a helper such as load4, then the kernel's own line).
std::string where_in_chapter(const std::vector<std::string>& chain) {
  std::string text, file;
  for (const std::string& frame : chain) {
    const size_t at = frame.find(TUTORIAL_ANALYZE_CHAPTER "/");
    if (at == std::string::npos) continue;
    const std::string here = frame.substr(at);
    const size_t colon = here.rfind(':');
    if (text.empty()) {
      text = here;
      file = here.substr(0, colon);
    } else {
      text += " <- " + (here.substr(0, colon) == file ? here.substr(colon + 1) : here);
    }
  }
  if (text.empty() && !chain.empty()) text = chain.front();  // not in the chapter: as it is
  return text.empty() ? "?" : text;
}

void print_lines(const Row& r) {
  if (r.sites.empty()) return;
  std::vector<uintptr_t> addresses;
  for (const an::SiteStats& s : r.sites) addresses.push_back(s.site);
  const std::vector<std::vector<std::string>> chains = an::source_lines(addresses);
  // One row per source line and kind: the copies of an unrolled loop are one line.
  std::vector<std::pair<std::string, an::MemoryStats>> by_line;
  for (size_t i = 0; i < r.sites.size(); ++i) {
    const std::string line = where_in_chapter(chains[i]);
    auto it = std::find_if(by_line.begin(), by_line.end(), [&](const auto& l) { return l.first == line; });
    if (it == by_line.end()) by_line.emplace_back(line, r.sites[i].stats);
    else it->second += r.sites[i].stats;
  }
  std::cout << "\n`" << r.kernel << "` by source line:\n\n"
               "| line | op | requests | sectors / request | wavefronts / request |\n"
               "| --- | --- | ---: | ---: | ---: |\n";
  for (const auto& [line, s] : by_line) {
    auto one = [&, &line = line](const char* op, const an::OpStats& o, bool shared) {
      if (!o.requests) return;
      std::cout << "| " << line << " | " << op << " | " << compact(double(o.requests)) << " | "
                << (shared ? "-" : ratio(o.sectors, o.requests)) << " | "
                << (shared ? ratio(o.wavefronts, o.requests) : "-") << " |\n";
    };
    one("global ld", s.global_ld, false);
    one("global st", s.global_st, false);
    one("shared ld", s.shared_ld, true);
    one("shared st", s.shared_st, true);
  }
}

void print(const std::vector<Row>& rows, const std::string& command, const std::string& shape,
           bool lines) {
  std::cout << "### CPU-backend memory model: " << TUTORIAL_ANALYZE_CHAPTER << "\n\n`" << command
            << "`: " << shape
            << "; every warp request of one launch per kernel, counted on the CPU (no GPU, no "
               "caches: L1/shared-memory request level only)\n\n|";
  for (const char* t : kTitles) std::cout << " " << t << " |";
  std::cout << "\n| --- |";
  for (size_t i = 1; i < std::size(kTitles); ++i) std::cout << " ---: |";
  std::cout << "\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    int same = 0, nth = 0;  // the same kernel on other arguments: #1, #2 ... like the profile
    for (size_t j = 0; j < rows.size(); ++j)
      if (rows[j].kernel == rows[i].kernel) {
        ++same;
        if (j <= i) ++nth;
      }
    std::string name = "`" + rows[i].kernel + "`";
    if (same > 1) name += " #" + std::to_string(nth);
    std::cout << cells(rows[i], name) << "\n";
  }
  std::cout << "\nWhat the columns mean, and what the model leaves out: common/INSPECT.md "
               "(`make analyze`).\n";
  if (lines)
    for (const Row& r : rows) print_lines(r);
}

// The counts behind the digest, one line per launch, in the order the chapter runs them.
// sms: the SM count the launchers planned for (TUTORIAL_CPU_SM_COUNT, 1 by default).
void print_csv(std::ostream& out, const std::vector<Row>& rows, int size) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  out << "chapter,size,kernel,label,blocks,threads_per_block,gld_requests,gld_sectors,"
               "gst_requests,gst_sectors,sld_requests,sld_wavefronts,sld_ideal_wavefronts,"
               "sst_requests,sst_wavefronts,sst_ideal_wavefronts,sms\n";
  for (const Row& r : rows) {
    if (!r.refused.empty()) continue;
    const an::MemoryStats& s = r.stats;
    out << TUTORIAL_ANALYZE_CHAPTER << "," << size << ",\"" << r.kernel << "\",\"" << r.label
              << "\"," << r.blocks << "," << r.threads_per_block << "," << s.global_ld.requests
              << "," << s.global_ld.sectors << "," << s.global_st.requests << ","
              << s.global_st.sectors << "," << s.shared_ld.requests << "," << s.shared_ld.wavefronts
              << "," << s.shared_ld.ideal_wavefronts << "," << s.shared_st.requests << ","
              << s.shared_st.wavefronts << "," << s.shared_st.ideal_wavefronts << "," << sms
              << "\n";
  }
}

// ---- Chapter 01's coalescing demo: one read pattern per launch, n floats each ----------

void add_demo_rows([[maybe_unused]] std::vector<Row>& rows, [[maybe_unused]] int n) {
#ifdef TUTORIAL_ANALYZE_DEMO
  constexpr int max_stride = 32;  // as coalescing_demo.cuh
  tutorial::DeviceBuffer<float> in(size_t(n) * max_stride + 1), dst(n);
  tutorial::DeviceBuffer<TUTORIAL_ANALYZE_NAMESPACE::Point> points(n);
  tutorial::device_memset(in.data(), 0, in.bytes());
  tutorial::device_memset(points.data(), 0, points.bytes());
  for (int stride = 1; stride <= max_stride; stride *= 2)
    rows.push_back(measure("stride " + std::to_string(stride), [&] {
      TUTORIAL_ANALYZE_NAMESPACE::launch_gather_copy(in.data(), dst.data(), n, stride, 0);
    }));
  rows.push_back(measure("stride 1, offset +1 float", [&] {
    TUTORIAL_ANALYZE_NAMESPACE::launch_gather_copy(in.data(), dst.data(), n, 1, 1);
  }));
  rows.push_back(measure("AoS", [&] {
    TUTORIAL_ANALYZE_NAMESPACE::launch_x_of_points_aos(points.data(), dst.data(), n);
  }));
  rows.push_back(measure("SoA", [&] {
    TUTORIAL_ANALYZE_NAMESPACE::launch_x_of_points_soa(in.data(), dst.data(), n);
  }));
#endif
}

// ---- GEMM chapters -------------------------------------------------------------------

[[maybe_unused]] std::vector<Row> run(const std::vector<tutorial::GemmKernel>& kernels, int size) {
  std::vector<Row> rows;
  add_demo_rows(rows, size * size);  // chapter 01 only; its executable runs the demo first too
  tutorial::GemmProblem p(size, size, size, 1);
  for (const tutorial::GemmKernel& k : kernels)
    rows.push_back(measure(k.name, [&] { k.launch(p.dA.data(), p.dB.data(), p.dC.data(), size, size, size); }));
  return rows;
}

// ---- The transpose chapter: the copy, the transposes -----------------------------------

[[maybe_unused]] std::vector<Row> run(const std::vector<tutorial::TransposeKernel>& kernels, int size) {
  std::vector<Row> rows;
  const int n = size * size;
#ifdef TUTORIAL_ANALYZE_COPY
  std::vector<tutorial::TransposeKernel> all{TUTORIAL_ANALYZE_NAMESPACE::copy_kernel()};
  all.insert(all.end(), kernels.begin(), kernels.end());
#else
  const std::vector<tutorial::TransposeKernel>& all = kernels;
#endif
  tutorial::DeviceBuffer<float> in{static_cast<size_t>(n)}, out{static_cast<size_t>(n)};
  tutorial::device_memset(in.data(), 0, in.bytes());
  for (const tutorial::TransposeKernel& k : all)
    rows.push_back(measure(k.name, [&] { k.launch(in.data(), out.data(), size, size); }));
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  const auto kernels = TUTORIAL_ANALYZE_NAMESPACE::chapter_kernels();
  constexpr bool transpose =
      std::is_same_v<std::decay_t<decltype(kernels)>, std::vector<tutorial::TransposeKernel>>;
  int size = TUTORIAL_ANALYZE_SIZE;
  bool lines = false, csv = false;
  const char* csv_to = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      size = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--lines") == 0) {
      lines = true;
    } else if (std::strcmp(argv[i], "--csv") == 0) {
      csv = true;
    } else if (std::strcmp(argv[i], "--csv-to") == 0 && i + 1 < argc) {
      csv_to = argv[++i];
    } else {
      std::cerr << "usage: " << argv[0] << " [--size N] [--lines | --csv] [--csv-to FILE]\n";
      return 2;
    }
  }
  if (size < 1 || size > 4096) {
    std::cerr << argv[0] << ": --size must be between 1 and 4096 (the model runs on the CPU)\n";
    return 2;
  }
  std::ostringstream command, shape;
  command << "bin/" << TUTORIAL_ANALYZE_CHAPTER << "_analyze --size " << size << (lines ? " --lines" : "");
  if (transpose) shape << size << "x" << size << " floats";
  else shape << "M = N = K = " << size;
  try {
    const std::vector<Row> rows = run(kernels, size);
    if (csv) {
      print_csv(std::cout, rows, size);
    } else {
      print(rows, command.str(), shape.str(), lines);
    }
    if (csv_to) {
      std::ofstream file(csv_to);
      print_csv(file, rows, size);
      if (!file) {
        std::cerr << argv[0] << ": cannot write " << csv_to << "\n";
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
