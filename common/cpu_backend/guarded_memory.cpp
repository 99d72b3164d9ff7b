#include "common/cpu_backend/guarded_memory.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <sstream>

namespace tutorial::cpu {

namespace {

constexpr unsigned char kCanary = 0xCD;
constexpr unsigned char kPoison = 0xFF;  // 0xFFFFFFFF is a NaN as a float

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}
size_t round_up(size_t value, size_t unit) { return (value + unit - 1) / unit * unit; }

struct Allocation {
  char* mapping;         // first guard page
  size_t mapping_bytes;  // guard + data pages + guard
  size_t bytes;          // as asked
  size_t padded;         // rounded up to 16: bytes + slack
};

// Keyed by the start of the data. Changed by cudaMalloc/cudaFree only, never while a kernel
// runs, so the fault handler may read it.
std::map<uintptr_t, Allocation>& allocations() {
  static auto* map = new std::map<uintptr_t, Allocation>;  // never destroyed: used at exit
  return *map;
}

uint64_t g_protect_token = 0;  // set_protect_token

char* map_with_guards(size_t data_bytes, bool shared) {  // data_bytes: whole pages
  const size_t page = page_size();
  if (data_bytes > (size_t(1) << 60)) return nullptr;
  // Device memory is MAP_SHARED: an isolated launch's process (scheduler.hpp,
  // isolate_launches) writes the same pages.
  void* base = mmap(nullptr, data_bytes + 2 * page, PROT_NONE,
                    (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  char* mapping = static_cast<char*>(base);
  if (data_bytes > 0 && protect_pages(mapping + page, data_bytes, PROT_READ | PROT_WRITE) != 0) {
    munmap(base, data_bytes + 2 * page);
    return nullptr;
  }
  return mapping;
}

int g_open = 0;  // DeviceAccess holders: device memory is readable and writable while > 0

void protect(const Allocation& a, bool open) {
  const size_t page = page_size();
  const size_t data_pages = a.mapping_bytes - 2 * page;
  if (data_pages &&
      protect_pages(a.mapping + page, data_pages, open ? PROT_READ | PROT_WRITE : PROT_NONE) != 0) {
    std::perror("CPU backend: mprotect of device memory");
    std::abort();
  }
}

// The dynamic shared memory region: one mapping, grown when a launch needs more.
struct SmemRegion {
  char* mapping = nullptr;
  size_t data_bytes = 0;  // whole pages between the guards
  char* start = nullptr;  // this launch's shared memory
  size_t bytes = 0;       // as the launch asked
  size_t padded = 0;
};
SmemRegion g_smem;

// Fiber stacks, for telling a stack overflow from other faults.
struct StackRegion {
  char* base = nullptr;
  size_t stride = 0;
  size_t count = 0;
};
constexpr int kMaxStackRegions = 8;
StackRegion g_stacks[kMaxStackRegions];
int g_stack_regions = 0;

}  // namespace

// GCC and clang turn a byte loop into a call of memcpy or memset unless told not to: these
// must stay loops of the backend's own (guarded_memory.hpp).
#if defined(__clang__)
#define TUTORIAL_NO_LIBRARY_CALLS __attribute__((no_builtin("memcpy", "memmove", "memset")))
#elif defined(__GNUC__)
#define TUTORIAL_NO_LIBRARY_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define TUTORIAL_NO_LIBRARY_CALLS
#endif

TUTORIAL_NO_LIBRARY_CALLS void copy_bytes(void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d == s || bytes == 0) return;
  if (d < s || d >= s + bytes) {  // forwards (memmove's rule for overlapping ranges)
    size_t i = 0;
    if ((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) % 8 == 0)
      for (; i + 8 <= bytes; i += 8) __builtin_memcpy(d + i, s + i, 8);  // one 8-byte move
    for (; i < bytes; ++i) d[i] = s[i];
  } else {
    for (size_t i = bytes; i-- > 0;) d[i] = s[i];
  }
}

TUTORIAL_NO_LIBRARY_CALLS void fill_bytes(void* dst, unsigned char value, size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  for (size_t i = 0; i < bytes; ++i) d[i] = value;
}

void set_protect_token(uint64_t token) { g_protect_token = token; }

int protect_pages(void* address, size_t bytes, int prot) {
  if (g_protect_token == 0 || prot == PROT_NONE) return mprotect(address, bytes, prot);
  return int(syscall(SYS_mprotect, address, bytes, prot, g_protect_token));
}

void* guarded_alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  const size_t padded = round_up(bytes, 16);
  if (padded < bytes) return nullptr;  // wrapped around
  const size_t data_pages = round_up(padded, page_size());
  char* mapping = map_with_guards(data_pages, true);
  if (!mapping) return nullptr;
  char* data = mapping + page_size() + data_pages - padded;
  // Fresh device memory is undefined on a GPU; here it reads as NaN, so that a kernel that
  // uses memory nobody wrote produces NaN instead of a plausible zero.
  fill_bytes(data, kPoison, bytes);
  fill_bytes(data + bytes, kCanary, padded - bytes);
  const Allocation a{mapping, data_pages + 2 * page_size(), bytes, padded};
  allocations()[reinterpret_cast<uintptr_t>(data)] = a;
  if (!g_open) protect(a, false);
  return data;
}

DeviceAccess::DeviceAccess() {
  if (g_open++ == 0)
    for (const auto& [start, a] : allocations()) protect(a, true);
}

DeviceAccess::~DeviceAccess() {
  if (--g_open == 0)
    for (const auto& [start, a] : allocations()) protect(a, false);
}

bool device_memory_open() { return g_open > 0; }

bool guarded_free(void* ptr) {
  auto it = allocations().find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations().end()) return false;
  munmap(it->second.mapping, it->second.mapping_bytes);
  allocations().erase(it);
  return true;
}

uintptr_t device_allocation_start(const void* ptr, size_t bytes) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = allocations().upper_bound(p);
  if (it == allocations().begin()) return 0;
  --it;
  const bool inside = p - it->first <= it->second.bytes && bytes <= it->second.bytes - (p - it->first);
  return inside ? it->first : 0;
}

bool is_device_range(const void* ptr, size_t bytes) { return device_allocation_start(ptr, bytes) != 0; }

size_t device_bytes_in_use() {
  size_t total = 0;
  for (const auto& [start, a] : allocations()) total += a.bytes;
  return total;
}

std::string check_slack_canaries() {
  for (auto& [start, a] : allocations()) {
    unsigned char* slack = reinterpret_cast<unsigned char*>(start) + a.bytes;
    const size_t n = a.padded - a.bytes;
    for (size_t i = 0; i < n; ++i) {
      if (slack[i] == kCanary) continue;
      std::ostringstream msg;
      msg << "a kernel wrote byte " << a.bytes + i << " of a device allocation of " << a.bytes
          << " bytes at " << reinterpret_cast<void*>(start)
          << ", past its end (noticed after the launch: the allocation is rounded up to 16 "
             "bytes and the write fell short of the guard page, so the thread is not known)";
      fill_bytes(slack, kCanary, n);
      return msg.str();
    }
  }
  return "";
}

void* dynamic_smem_region(size_t bytes) {
  const size_t padded = round_up(bytes, 16);
  const size_t data_pages = round_up(padded, page_size());
  if (data_pages > g_smem.data_bytes) {
    if (g_smem.mapping) munmap(g_smem.mapping, g_smem.data_bytes + 2 * page_size());
    g_smem = SmemRegion{};
    g_smem.mapping = map_with_guards(data_pages, false);
    if (!g_smem.mapping) return nullptr;
    g_smem.data_bytes = data_pages;
  }
  // Against the upper guard; with no dynamic shared memory at all, the pointer IS the guard.
  g_smem.start = g_smem.mapping + page_size() + g_smem.data_bytes - padded;
  g_smem.bytes = bytes;
  g_smem.padded = padded;
  return g_smem.start;
}

void poison_dynamic_smem() {
  if (g_smem.padded) fill_bytes(g_smem.start, kPoison, g_smem.padded);
}

bool is_dynamic_smem_range(const void* ptr, size_t bytes) {
  const char* p = static_cast<const char*>(ptr);
  return g_smem.start && p >= g_smem.start && size_t(p - g_smem.start) + bytes <= g_smem.bytes;
}

const char* dynamic_smem_start(size_t* bytes) {
  *bytes = g_smem.bytes;
  return g_smem.start;
}

char* map_stacks(size_t count, size_t bytes, size_t* stride) {
  const size_t page = page_size();
  *stride = round_up(bytes, page) + page;
  void* base = mmap(nullptr, count * *stride, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  char* b = static_cast<char*>(base);
  for (size_t i = 0; i < count; ++i) mprotect(b + i * *stride, page, PROT_NONE);
  if (g_stack_regions < kMaxStackRegions) g_stacks[g_stack_regions++] = {b, *stride, count};
  return b;
}

bool is_fiber_stack(uintptr_t address) {
  for (int r = 0; r < g_stack_regions; ++r) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(g_stacks[r].base);
    if (address >= base && address < base + g_stacks[r].count * g_stacks[r].stride) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// Fault descriptions
// ---------------------------------------------------------------------------------------

SignalText& SignalText::operator<<(const char* s) {
  while (*s && length + 1 < sizeof(buffer)) buffer[length++] = *s++;
  buffer[length] = 0;
  return *this;
}

SignalText& SignalText::operator<<(uint64_t value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = char('0' + value % 10);
    value /= 10;
  } while (value);
  char text[24];
  for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
  text[n] = 0;
  return *this << text;
}

SignalText& SignalText::hex(uint64_t value) {
  char text[24] = "0x";
  int n = 2;
  bool started = false;
  for (int shift = 60; shift >= 0; shift -= 4) {
    const int digit = int(value >> shift) & 15;
    if (digit || started || shift == 0) {
      text[n++] = "0123456789abcdef"[digit];
      started = true;
    }
  }
  text[n] = 0;
  return *this << text;
}

void SignalText::write_to_stderr() const {
  size_t done = 0;
  while (done < length) {
    const ssize_t n = write(2, buffer + done, length - done);
    if (n <= 0) break;
    done += size_t(n);
  }
}

bool describe_host_access(uintptr_t address, SignalText& out) {
  if (g_open) return false;
  auto it = allocations().upper_bound(address);
  if (it == allocations().begin()) return false;
  --it;
  if (address - it->first >= it->second.padded) return false;
  out << "byte " << uint64_t(address - it->first) << " of a device allocation of "
      << uint64_t(it->second.bytes) << " bytes at ";
  out.hex(it->first) << ", outside a kernel launch: host code may not read or write device "
                        "memory (on a GPU it is not the host's memory; cudaMemcpy copies it)";
  return true;
}

void describe_address(uintptr_t address, SignalText& out) {
  const uintptr_t page = page_size();
  // Guard pages of device allocations.
  for (const auto& [start, a] : allocations()) {
    const uintptr_t mapping = reinterpret_cast<uintptr_t>(a.mapping);
    if (address >= mapping && address < mapping + page) {
      out << "byte -" << uint64_t(start - address) << " of a device allocation of "
          << uint64_t(a.bytes) << " bytes at ";
      out.hex(start) << ": before its start";
      return;
    }
    if (address >= mapping + a.mapping_bytes - page && address < mapping + a.mapping_bytes) {
      out << "byte " << uint64_t(address - start) << " of a device allocation of "
          << uint64_t(a.bytes) << " bytes at ";
      out.hex(start) << ": past its end";
      return;
    }
  }
  // The dynamic shared memory's guards.
  if (g_smem.mapping) {
    const uintptr_t mapping = reinterpret_cast<uintptr_t>(g_smem.mapping);
    const uintptr_t end = mapping + page + g_smem.data_bytes;
    if (address >= end && address < end + page) {
      out << "byte " << uint64_t(address - reinterpret_cast<uintptr_t>(g_smem.start))
          << " of the launch's " << uint64_t(g_smem.bytes)
          << " bytes of dynamic shared memory (extern __shared__): past its end";
      return;
    }
    if (address >= mapping && address < mapping + page) {
      out << "before the start of the launch's dynamic shared memory (extern __shared__)";
      return;
    }
  }
  // Fiber stack guards.
  for (int r = 0; r < g_stack_regions; ++r) {
    const StackRegion& s = g_stacks[r];
    const uintptr_t base = reinterpret_cast<uintptr_t>(s.base);
    if (address >= base && address < base + s.count * s.stride &&
        (address - base) % s.stride < page) {
      out << "the guard page below this CUDA thread's fiber stack: a stack overflow (each "
             "thread has "
          << uint64_t((s.stride - page) / 1024)
          << " KB; large local arrays need more: TUTORIAL_CPU_STACK_KB)";
      return;
    }
  }
  if (address < page) {
    out << "a null pointer (address ";
    out.hex(address) << ")";
    return;
  }
  // Far past the end of something? Name the nearest allocation below.
  auto it = allocations().upper_bound(address);
  if (it != allocations().begin()) {
    --it;
    const uintptr_t end = it->first + it->second.bytes;
    if (address >= end && address - end < (uintptr_t(1) << 30)) {
      out << "address ";
      out.hex(address) << ", not device memory: byte " << uint64_t(address - it->first)
                       << " of the nearest device allocation below it ("
                       << uint64_t(it->second.bytes) << " bytes at ";
      out.hex(it->first) << "), far past its end";
      return;
    }
  }
  out << "address ";
  out.hex(address) << ", which is not device memory (a host pointer, a freed buffer, or far "
                      "outside every buffer)";
}

}  // namespace tutorial::cpu
