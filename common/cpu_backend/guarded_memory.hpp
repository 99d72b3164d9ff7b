// Device memory of the CPU backend: every allocation sits between two PROT_NONE guard pages,
// ending where the second one begins, so that a kernel reading or writing past the end of a
// buffer faults at that very access and the fault handler can name the thread that made it.
// Outside a launch (and the backend's own copies) the data pages are PROT_NONE too: host code
// cannot compute an answer from device memory, or write one into it (DeviceAccess).
//
//   [guard page][unused][data ... data|slack][guard page]
//
// The data starts 16-byte aligned (float4 loads need it; cudaMalloc even gives 256). When the
// size is a multiple of 16 the data ends exactly at the guard; otherwise up to 15 bytes of
// slack remain, filled with a canary that is checked after every launch, so a write there is
// still reported (without the thread: it is noticed after the kernel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tutorial::cpu {

// nullptr when the memory cannot be mapped (the caller reports cudaErrorMemoryAllocation).
void* guarded_alloc(size_t bytes);
// false when ptr is not the start of a live allocation.
bool guarded_free(void* ptr);
// Whether [ptr, ptr + bytes) lies inside one live allocation.
bool is_device_range(const void* ptr, size_t bytes);
size_t device_bytes_in_use();
// The start of the live allocation that holds [ptr, ptr + bytes), or 0 when none does (the
// memory model measures sectors from it: cudaMalloc's allocations start 256-byte aligned).
uintptr_t device_allocation_start(const void* ptr, size_t bytes);

// Checks the canaries of every allocation; returns a description of the first damaged one
// ("" when none), and repairs them so the same damage is reported once. Needs DeviceAccess.
std::string check_slack_canaries();

// Device memory is the device's: its pages are PROT_NONE except while a DeviceAccess exists,
// which the backend holds for the length of a launch and of its own copies (cudaMemcpy,
// cudaMemset, cuBLAS). Host code that reads or writes a device buffer at any other time
// faults, as it would on a GPU (where such a pointer does not even point at host memory),
// and the fault handler says so (describe_host_access). Nested holders share one opening.
class DeviceAccess {
 public:
  DeviceAccess();
  ~DeviceAccess();
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
};
// Whether device memory is open now (a launch or one of the backend's copies is running).
bool device_memory_open();

// The backend's own copy and fill of device memory (cudaMemcpy, cudaMemset, the poison):
// plain loops of its own, never the C library's memmove or memset, so that nothing a program
// defines under those names runs while device memory is open.
void copy_bytes(void* dst, const void* src, size_t bytes);
void fill_bytes(void* dst, unsigned char value, size_t bytes);

// The exercise runner's syscall filter (exercises/support/runner_main.cpp) lets mprotect open
// memory only when the call carries this token: the backend's own calls (device memory,
// dynamic shared memory) do, a program's call by any other route does not. 0: no filter,
// plain mprotect. Set once, before the filter is installed.
void set_protect_token(uint64_t token);
int protect_pages(void* address, size_t bytes, int prot);

// The launch's dynamic shared memory: `bytes` (rounded up to 16) ending at a guard page,
// filled with 0xFF bytes (NaN as floats). The pointer stays valid until the next call.
void* dynamic_smem_region(size_t bytes);
void poison_dynamic_smem();
// Whether [ptr, ptr + bytes) lies inside the current launch's dynamic shared memory.
bool is_dynamic_smem_range(const void* ptr, size_t bytes);
// The current launch's dynamic shared memory: its start (null when none) and its size.
const char* dynamic_smem_start(size_t* bytes);

// A PROT_NONE page below each fiber stack catches stack overflow.
struct StackRange {
  char* guard;   // the guard page
  char* bottom;  // lowest usable byte
  char* top;     // one past the highest
};
// `count` stacks of `bytes` each (rounded up to pages), each above its own guard page.
char* map_stacks(size_t count, size_t bytes, size_t* stride);
// Whether an address lies in a fiber stack (a CUDA thread's locals).
bool is_fiber_stack(uintptr_t address);

// Text built inside a signal handler: no allocation, no locale, no locks.
struct SignalText {
  char buffer[1024];
  size_t length = 0;
  SignalText& operator<<(const char* s);
  SignalText& operator<<(uint64_t value);  // decimal
  SignalText& hex(uint64_t value);         // 0x...
  void write_to_stderr() const;
};

// For the fault handler (async-signal-safe): where `address` lies relative to the device
// allocations, the dynamic shared memory and the fiber stacks.
void describe_address(uintptr_t address, SignalText& out);
// For the fault handler (async-signal-safe): if `address` is inside a device allocation while
// device memory is closed, describes it (host code touched device memory) and returns true.
bool describe_host_access(uintptr_t address, SignalText& out);

}  // namespace tutorial::cpu
