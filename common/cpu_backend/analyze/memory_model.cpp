// The memory model's recorder: the sanitizer-coverage hooks, the grouping of accesses into
// warp requests, and their cost by the rules of common/memory_access.hpp. Compiled by the
// host compiler without the hooks (only the kernels' translation unit has them).
#include "common/cpu_backend/analyze/memory_model.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/cpu_backend/guarded_memory.hpp"
#include "common/cpu_backend/scheduler.hpp"
#include "common/memory_access.hpp"

// Every static __shared__ array of the analysis build lives in this section (cuda_shim.hpp);
// the linker defines its bounds. Weak: a program without shared arrays has no such section.
extern "C" {
extern char __start_tutorial_shared[] __attribute__((weak));
extern char __stop_tutorial_shared[] __attribute__((weak));
// Every __global__ function of the analysis build (cuda_shim.hpp).
extern char __start_tutorial_kernels[] __attribute__((weak));
extern char __stop_tutorial_kernels[] __attribute__((weak));
}

namespace tutorial::analyze {

OpStats& OpStats::operator+=(const OpStats& o) {
  requests += o.requests;
  sectors += o.sectors;
  bytes_requested += o.bytes_requested;
  lane_bytes += o.lane_bytes;
  // The worse of the two worst requests: the higher cost per lane byte.
  if (o.worst_lane_bytes &&
      (!worst_lane_bytes || o.worst_cost * worst_lane_bytes > worst_cost * o.worst_lane_bytes)) {
    worst_cost = o.worst_cost;
    worst_lane_bytes = o.worst_lane_bytes;
  }
  wavefronts += o.wavefronts;
  ideal_wavefronts += o.ideal_wavefronts;
  return *this;
}

MemoryStats& MemoryStats::operator+=(const MemoryStats& o) {
  global_ld += o.global_ld;
  global_st += o.global_st;
  shared_ld += o.shared_ld;
  shared_st += o.shared_st;
  return *this;
}

namespace {

constexpr int kWarp = 32;
constexpr unsigned kMaxThreads = 1024;

// One lane's access to GPU memory.
struct Access {
  uint32_t warp;        // threads 0-31 of the block are warp 0, 32-63 warp 1, ...
  uint32_t execution;   // this lane's n-th execution of `site`
  uintptr_t site;       // the instruction: the hook's return address
  bool shared;          // shared memory (else global)
  bool store;
  uint8_t bytes;        // 1, 2, 4, 8 or 16
  uint8_t lane;         // 0..31
  uintptr_t address;

  auto request_key() const { return std::tie(warp, site, execution, shared, store); }
};

struct Recorder {
  bool on = false;
  bool have_block = false;
  uint3 block{0, 0, 0};
  std::vector<Access> accesses;  // the current block's, flushed when the block changes
  // Per thread of the block: how often it has executed each site (few sites: a flat list).
  std::vector<std::vector<std::pair<uintptr_t, uint32_t>>> executions =
      std::vector<std::vector<std::pair<uintptr_t, uint32_t>>>(kMaxThreads);
  MemoryStats totals;
  std::map<uintptr_t, MemoryStats> per_site;
  // The bytes of each device allocation (by its start) that a load, or a store, touched.
  std::map<uintptr_t, std::vector<bool>> loaded, stored;
};
Recorder g;

bool is_shared(uintptr_t address, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(__start_tutorial_shared);
  const uintptr_t end = reinterpret_cast<uintptr_t>(__stop_tutorial_shared);
  if (begin && address >= begin && address + bytes <= end) return true;
  return cpu::is_dynamic_smem_range(reinterpret_cast<const void*>(address), bytes);
}

// ---- Races in shared memory ------------------------------------------------------------
// Per byte of shared memory, its last write and its reads since, each with the barrier epoch
// it was made in (scheduler.hpp: the epoch changes at every barrier and block). A thread that
// reads a byte another thread wrote in the same epoch, or writes a byte another thread read
// in it, does so with no __syncthreads() between: on a GPU the result depends on which warp
// runs first (racecheck's read-after-write and write-after-read hazards). On the CPU backend
// the threads of a phase run one after another in a shuffled order, so such a kernel gives
// wrong numbers in some orders; this names the accesses. Writes by two threads (one value
// written twice, say) are not checked.
struct ShadowByte {
  uint32_t write_epoch = 0, read_epoch = 0;
  uint16_t writer = 0, reader = 0;  // thread index in the block; reader: kManyReaders
  uintptr_t write_site = 0, read_site = 0;
};
constexpr uint16_t kManyReaders = 0xFFFF;
std::vector<ShadowByte> g_static_shadow, g_dynamic_shadow;

// The shadow of [address, address + bytes) when it is shared memory, else null.
ShadowByte* shadow_of(uintptr_t address, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(__start_tutorial_shared);
  const uintptr_t end = reinterpret_cast<uintptr_t>(__stop_tutorial_shared);
  if (begin && address >= begin && address + bytes <= end) {
    if (g_static_shadow.size() < end - begin) g_static_shadow.resize(end - begin);
    return &g_static_shadow[address - begin];
  }
  size_t dynamic_bytes = 0;
  const char* start = cpu::dynamic_smem_start(&dynamic_bytes);
  const uintptr_t s = reinterpret_cast<uintptr_t>(start);
  if (!start || address < s || address + bytes > s + dynamic_bytes) return nullptr;
  if (g_dynamic_shadow.size() < dynamic_bytes) g_dynamic_shadow.resize(dynamic_bytes);
  return &g_dynamic_shadow[address - s];
}

// "05_double_buffer/kernels.cuh:88" for an access site (the last two parts of its path).
std::string site_line(uintptr_t site) {
  const std::vector<std::vector<std::string>> lines = source_lines({site});
  if (lines.empty() || lines[0].empty()) return "an unknown line";
  std::string line = lines[0][0];
  const size_t last = line.rfind('/');
  if (last != std::string::npos && last > 0) {
    const size_t before = line.rfind('/', last - 1);
    if (before != std::string::npos) line.erase(0, before + 1);
  }
  return line;
}

std::string thread_text(unsigned thread, dim3 block_dim) {
  std::ostringstream text;
  text << "(" << thread % block_dim.x;
  if (block_dim.y > 1 || block_dim.z > 1) text << ", " << thread / block_dim.x % block_dim.y;
  if (block_dim.z > 1) text << ", " << thread / (block_dim.x * block_dim.y);
  return text.str() + ")";
}

void report_race(bool read_after_write, unsigned thread, unsigned other, uintptr_t site,
                 uintptr_t other_site, uint3 block, dim3 block_dim) {
  if (cpu::launch_problems() > 0) {  // worded once per launch, counted always
    cpu::report_launch_problem("");
    return;
  }
  std::ostringstream what;
  what << "threads of block (" << block.x << ", " << block.y << ") ";
  if (read_after_write)
    what << "read shared memory written by another thread with no barrier between: threadIdx "
         << thread_text(thread, block_dim) << " read at " << site_line(site)
         << " what threadIdx " << thread_text(other, block_dim) << " wrote at "
         << site_line(other_site);
  else
    what << "overwrote shared memory another thread read with no barrier between: threadIdx "
         << thread_text(thread, block_dim) << " wrote at " << site_line(site) << " what "
         << (other == kManyReaders ? std::string("other threads")
                                   : "threadIdx " + thread_text(other, block_dim))
         << " read at " << site_line(other_site);
  what << " (a __syncthreads() between the write and the read is missing)";
  cpu::report_launch_problem(what.str());
}

void check_race(uintptr_t address, uint8_t bytes, bool store, unsigned thread, uintptr_t site,
                uint3 block, dim3 block_dim) {
  ShadowByte* shadow = shadow_of(address, bytes);
  if (!shadow) return;
  const uint32_t epoch = uint32_t(cpu::barrier_epoch());
  const uint16_t me = uint16_t(thread);
  bool raced = false;
  for (uint8_t i = 0; i < bytes; ++i) {
    ShadowByte& b = shadow[i];
    if (store) {
      if (!raced && b.read_epoch == epoch && b.reader != me) {
        raced = true;
        report_race(false, thread, b.reader, site, b.read_site, block, block_dim);
      }
      b.write_epoch = epoch;
      b.writer = me;
      b.write_site = site;
    } else {
      if (!raced && b.write_epoch == epoch && b.writer != me) {
        raced = true;
        report_race(true, thread, b.writer, site, b.write_site, block, block_dim);
      }
      if (b.read_epoch != epoch) {
        b.read_epoch = epoch;
        b.reader = me;
        b.read_site = site;
      } else if (b.reader != me) {
        b.reader = kManyReaders;
      }
    }
  }
}

// The cost of one request: the accesses of one warp, one site, one execution.
OpStats request_cost(const Access* first, const Access* last);

// The same, as its own worst request too (sectors or wavefronts against its lane bytes).
OpStats cost_of(const Access* first, const Access* last) {
  OpStats cost = request_cost(first, last);
  cost.worst_cost = first->shared ? cost.wavefronts : cost.sectors;
  return cost;
}

OpStats request_cost(const Access* first, const Access* last) {
  OpStats cost;
  cost.requests = 1;
  const int bytes = first->bytes;
  cost.lane_bytes = uint64_t(last - first) * uint64_t(bytes);
  cost.worst_lane_bytes = cost.lane_bytes;
  if (!first->shared) {
    std::vector<uint64_t> addresses;
    for (const Access* a = first; a != last; ++a) addresses.push_back(a->address);
    const GlobalAccessCost c = global_access_cost(addresses, bytes);
    cost.sectors = uint64_t(c.sectors);
    cost.bytes_requested = c.requested_bytes;
    return cost;
  }
  // Shared memory: a 4-byte (or narrower) access is served for the whole warp at once; an
  // 8- or 16-byte one in phases of 16 or 8 consecutive lanes (memory_access.hpp). Each phase
  // with an active lane needs at least one wavefront; conflicts add more. For 16-byte
  // accesses the two quarters of a half warp share one wavefront when together they ask for
  // at most four distinct 16-byte chunks (a chunk counted once per quarter that asks for it)
  // and their words meet in no bank: an empirical rule, fitted to Nsight Compute's wavefronts
  // per LDS.128/STS.128 instruction (its source view) on an H100 for chapters 04 and 05
  // (common/INSPECT.md): 1 + 1 chunks or 2 + 2 chunks share, 4 + 4 and 8 + 8 do not, even
  // when both quarters read the same chunks.
  const int words = bytes >= kBankWordBytes ? bytes / kBankWordBytes : 1;
  const int phase_lanes = kWarp / words;
  std::vector<std::vector<uint32_t>> phases(size_t(kWarp / phase_lanes));
  for (const Access* a = first; a != last; ++a)
    phases[size_t(a->lane / phase_lanes)].push_back(uint32_t(a->address / kBankWordBytes));
  auto chunks = [](const std::vector<uint32_t>& phase) {  // distinct 16-byte chunks asked for
    return std::set<uint32_t>(phase.begin(), phase.end()).size();
  };
  for (size_t p = 0; p < phases.size(); ++p) {
    const std::vector<uint32_t>& phase = phases[p];
    if (words == 4 && p % 2 == 0 && p + 1 < phases.size() && !phase.empty() &&
        !phases[p + 1].empty() && chunks(phase) + chunks(phases[p + 1]) <= 4) {
      std::vector<uint32_t> both(phase);
      both.insert(both.end(), phases[p + 1].begin(), phases[p + 1].end());
      // One pass if no bank holds two different words of the pair.
      std::vector<uint32_t> all_words;
      for (uint32_t w : both)
        for (int i = 0; i < words; ++i) all_words.push_back(w + uint32_t(i));
      std::set<uint32_t> distinct(all_words.begin(), all_words.end());
      std::set<uint32_t> banks;
      for (uint32_t w : distinct) banks.insert(w % 32);
      if (banks.size() == distinct.size()) {
        cost.wavefronts += 1;
        cost.ideal_wavefronts += 1;
        ++p;  // the partner quarter is served by the same wavefront
        continue;
      }
    }
    if (phase.empty()) continue;
    cost.wavefronts += uint64_t(shared_access_cost(phase, words).wavefronts);
    cost.ideal_wavefronts += 1;
  }
  return cost;
}

OpStats& slot(MemoryStats& s, const Access& a) {
  if (a.shared) return a.store ? s.shared_st : s.shared_ld;
  return a.store ? s.global_st : s.global_ld;
}

// Turns the recorded accesses of one block into requests and adds up their costs.
void flush_block() {
  std::vector<Access>& acc = g.accesses;
  std::sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) {
    return std::tie(a.warp, a.site, a.execution, a.shared, a.store, a.lane) <
           std::tie(b.warp, b.site, b.execution, b.shared, b.store, b.lane);
  });
  for (size_t begin = 0; begin < acc.size();) {
    size_t end = begin + 1;
    while (end < acc.size() && acc[end].request_key() == acc[begin].request_key()) ++end;
    const OpStats cost = cost_of(&acc[begin], &acc[end - 1] + 1);
    slot(g.totals, acc[begin]) += cost;
    slot(g.per_site[acc[begin].site], acc[begin]) += cost;
    begin = end;
  }
  acc.clear();
  for (auto& e : g.executions) e.clear();
}

void record(void* pointer, uint8_t bytes, bool store, void* return_address) {
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  const uintptr_t builtins = reinterpret_cast<uintptr_t>(&cpu::builtins);
  if (store && address < builtins + sizeof cpu::builtins && address + bytes > builtins)
    cpu::device_error("the kernel wrote a built-in variable (threadIdx, blockIdx, blockDim or "
                      "gridDim): they are read-only (a GPU ignores such a write)");
  // The lanes are the scheduler's threads, not the built-in variables the kernel reads.
  uint3 thread_index, block_index;
  dim3 block_dim;
  if (!cpu::current_thread(&thread_index, &block_index, &block_dim)) return;  // host code
  const bool shared = is_shared(address, bytes);
  // A kernel writes device memory, shared memory and its own locals, nothing else: on the CPU
  // backend host memory is in its reach, on a GPU it is not (and a host computation could be
  // handed its inputs that way).
  if (store && !shared && !cpu::device_allocation_start(pointer, bytes) &&
      !cpu::is_fiber_stack(address))
    cpu::device_error("the kernel wrote memory that is neither a device buffer, nor shared "
                      "memory, nor its own locals (host memory, or a __device__ variable, "
                      "which the CPU backend cannot tell from host memory)");
  const unsigned thread =
      thread_index.x + block_dim.x * (thread_index.y + block_dim.y * thread_index.z);
  const uintptr_t site = reinterpret_cast<uintptr_t>(return_address);
  if (shared) check_race(address, bytes, store, thread, site, block_index, block_dim);
  if (!g.on) return;
  if (!shared) {
    // Only GPU memory counts: a kernel's locals live on its fiber's stack (registers or local
    // memory on a GPU), threadIdx and the like in the backend's globals.
    const uintptr_t start = cpu::device_allocation_start(pointer, bytes);
    if (!start) return;
    std::vector<bool>& touched = (store ? g.stored : g.loaded)[start];
    const size_t offset = size_t(address - start);
    if (touched.size() < offset + bytes) touched.resize(offset + bytes);
    std::fill(touched.begin() + long(offset), touched.begin() + long(offset + bytes), true);
    // The backend's allocations start 16-byte aligned, cudaMalloc's 256-byte aligned: place
    // the buffer at a multiple of 256 (distinct for each buffer), so that sectors and lines
    // fall where they would on the GPU.
    address = (start << 8) + (address - start);
  }
  if (!g.have_block || block_index.x != g.block.x || block_index.y != g.block.y ||
      block_index.z != g.block.z) {
    if (g.have_block) flush_block();  // blocks run one after the other
    g.block = block_index;
    g.have_block = true;
  }
  uint32_t execution = 0;
  auto& counts = g.executions[thread];
  auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == site; });
  if (it == counts.end()) counts.emplace_back(site, 1);
  else execution = it->second++;
  g.accesses.push_back(Access{thread / kWarp, execution, site, shared, store, bytes,
                              uint8_t(thread % kWarp), address});
}

}  // namespace

void begin() {
  g.accesses.clear();
  for (auto& e : g.executions) e.clear();
  g.have_block = false;
  g.totals = MemoryStats{};
  g.per_site.clear();
  g.loaded.clear();
  g.stored.clear();
  g.on = true;
}

MemoryStats end() {
  if (g.have_block) flush_block();
  g.have_block = false;
  g.on = false;
  return g.totals;
}

std::vector<SiteStats> sites() {
  std::vector<SiteStats> result;
  for (const auto& [site, stats] : g.per_site) result.push_back(SiteStats{site, stats});
  auto weight = [](const SiteStats& s) {
    return s.stats.global_ld.sectors + s.stats.global_st.sectors + s.stats.shared_ld.wavefronts +
           s.stats.shared_st.wavefronts;
  };
  std::stable_sort(result.begin(), result.end(),
                   [&](const SiteStats& a, const SiteStats& b) { return weight(a) > weight(b); });
  return result;
}

bool covered(const void* p, size_t bytes, bool store) {
  if (bytes == 0) return true;
  const uintptr_t start = cpu::device_allocation_start(p, bytes);
  if (!start) return false;
  const auto& touched = store ? g.stored : g.loaded;
  const auto it = touched.find(start);
  if (it == touched.end()) return false;
  const size_t offset = size_t(reinterpret_cast<uintptr_t>(p) - start);
  if (it->second.size() < offset + bytes) return false;
  return std::all_of(it->second.begin() + long(offset), it->second.begin() + long(offset + bytes),
                     [](bool b) { return b; });
}

std::vector<std::vector<std::string>> source_lines(const std::vector<uintptr_t>& sites) {
  std::vector<std::vector<std::string>> lines(sites.size());
  if (sites.empty()) return lines;
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(sites[0]), &info) || !info.dli_fname) return lines;
  // A return address is the instruction after the call: one byte back is inside the call,
  // whose line is the access's. Addresses relative to the executable's load address (PIE).
  // -i: the chain of inlined functions, innermost first; -a: each chain after its address.
  std::ostringstream command;
#ifndef TUTORIAL_ANALYZE_ADDR2LINE
#define TUTORIAL_ANALYZE_ADDR2LINE "addr2line"
#endif
  command << TUTORIAL_ANALYZE_ADDR2LINE << " -a -i -e '" << info.dli_fname << "'";
  for (uintptr_t s : sites)
    command << " 0x" << std::hex << (s - 1 - reinterpret_cast<uintptr_t>(info.dli_fbase));
  command << " 2>/dev/null";
  FILE* pipe = popen(command.str().c_str(), "r");
  if (!pipe) return lines;
  char buffer[4096];
  long index = -1;
  while (std::fgets(buffer, sizeof buffer, pipe)) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    if (line.rfind("0x", 0) == 0) {  // the next site's address
      ++index;
      continue;
    }
    const size_t discriminator = line.find(" (discriminator");
    if (discriminator != std::string::npos) line.erase(discriminator);
    if (index >= 0 && size_t(index) < lines.size() && line.rfind("??", 0) != 0)
      lines[size_t(index)].push_back(line);
  }
  pclose(pipe);
  return lines;
}

}  // namespace tutorial::analyze

// ---------------------------------------------------------------------------------------
// The hooks clang calls before every load and store of an instrumented translation unit
// (-fsanitize-coverage=trace-loads,trace-stores): the argument is the address, the name
// says the width. Their return address is the instruction that made the access.
// ---------------------------------------------------------------------------------------

#define TUTORIAL_ANALYZE_HOOKS_(bytes, type)                                               \
  extern "C" void __sanitizer_cov_load##bytes(type* p) {                                   \
    tutorial::analyze::record(p, bytes, false, __builtin_return_address(0));               \
  }                                                                                        \
  extern "C" void __sanitizer_cov_store##bytes(type* p) {                                  \
    tutorial::analyze::record(p, bytes, true, __builtin_return_address(0));                \
  }
TUTORIAL_ANALYZE_HOOKS_(1, uint8_t)
TUTORIAL_ANALYZE_HOOKS_(2, uint16_t)
TUTORIAL_ANALYZE_HOOKS_(4, uint32_t)
TUTORIAL_ANALYZE_HOOKS_(8, uint64_t)
TUTORIAL_ANALYZE_HOOKS_(16, __int128)
#undef TUTORIAL_ANALYZE_HOOKS_

// cp.async (__pipeline_memcpy_async, include/cuda_pipeline.h in the analysis build): its read
// of global memory counts as a global load of the copy's size; its write to shared memory is
// not counted (the copy is performed later by the scheduler, outside the kernel's code), so a
// destination anywhere else (a way to store past the hooks) stops the kernel.
extern "C" void tutorial_analyze_async_copy(const void* src, size_t bytes, const void* dst,
                                            size_t dst_bytes) {
  if (!tutorial::analyze::is_shared(reinterpret_cast<uintptr_t>(dst), dst_bytes))
    tutorial::cpu::device_error("__pipeline_memcpy_async: the destination is not shared memory "
                                "(on a GPU cp.async copies into shared memory only)");
  if (bytes == 0) return;  // a pure zero-fill reads nothing
  tutorial::analyze::record(const_cast<void*>(src), uint8_t(bytes), false,
                            __builtin_return_address(0));
}

// The scheduler launches only what this says is a kernel: a function of the section every
// __global__ function of the analysis build is placed in (cuda_shim.hpp), whose code the
// grader has checked access by access. Anything else tutorial::launch is given is refused.
extern "C" bool tutorial_analyze_is_kernel(const void* function) {
  const char* f = static_cast<const char*>(function);
  return __start_tutorial_kernels && f >= __start_tutorial_kernels && f < __stop_tutorial_kernels;
}
