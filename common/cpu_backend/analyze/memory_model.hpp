// The CPU backend's memory model: the memory requests a kernel's warps would issue, and what
// each costs, counted while the kernel runs on the CPU (common/cpu_backend/README.md, "The
// memory model").
//
// The kernel's translation unit is compiled by clang with
// -fsanitize-coverage=func,trace-loads,trace-stores: every load and store of the kernel calls
// a hook with its address and width (memory_model.cpp). The hook keeps the accesses that hit a
// device allocation (global memory) or shared memory; everything else (the kernel's locals on
// its fiber stack, threadIdx, the host's own data) is not GPU memory and is dropped.
//
// A request is one warp-wide memory instruction. Accesses form one request when they come
// from the same warp, the same instruction (the hook's call site) and the same execution of
// it: lane l's n-th execution of a site joins the other lanes' n-th executions. That is exact
// when the warp runs the site together; a lane that skips it (an `if`, or a shorter loop) is
// an inactive lane of the request, as on the GPU. The README says where this differs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tutorial::analyze {

// One kind of instruction (global load, global store, shared load, shared store), summed.
struct OpStats {
  uint64_t requests = 0;         // warp-wide instructions
  uint64_t sectors = 0;          // global: distinct 32-byte sectors, summed over requests
  uint64_t bytes_requested = 0;  // global: distinct bytes the active lanes asked for
  uint64_t lane_bytes = 0;       // the bytes the active lanes asked for, a lane that asks
                                 // for a word another asked for too counted again
  uint64_t wavefronts = 0;       // shared: passes through the 32 banks
  uint64_t ideal_wavefronts = 0; // shared: the passes the same request needs without conflicts

  // The single request that cost the most for what its lanes asked: sectors (global) or
  // wavefronts (shared) against its lane_bytes (the exercises' grader judges this one, so that
  // cheap requests beside it cannot average it away).
  uint64_t worst_cost = 0, worst_lane_bytes = 0;

  uint64_t bank_conflicts() const { return wavefronts - ideal_wavefronts; }
  OpStats& operator+=(const OpStats& o);
};

struct MemoryStats {
  OpStats global_ld, global_st, shared_ld, shared_st;
  MemoryStats& operator+=(const MemoryStats& o);
};

// Where a kernel's requests come from: one instruction (the hook's caller) and its totals.
struct SiteStats {
  uintptr_t site = 0;  // return address of the hook: an address in the kernel's code
  MemoryStats stats;
};

// Counts every request of the kernels launched between begin() and end(). The launches run
// on this thread, one at a time (the CPU backend's rule anyway).
void begin();
MemoryStats end();
// The per-instruction totals of the last begin()...end(), most sectors + wavefronts first.
std::vector<SiteStats> sites();
// Whether the loads (or stores) of the last begin()...end() that reached GPU memory touched
// every byte of [p, p + bytes): the grader's proof that a kernel's accesses were all seen by
// the model (an access hidden from the hooks leaves its bytes untouched here).
bool covered(const void* p, size_t bytes, bool store);

// The source lines of each site, from the executable's debug line table (LLVM's addr2line,
// else binutils'): "file:line" of the access, then of each function it was inlined into (LLVM's
// only). Empty where that is not known.
std::vector<std::vector<std::string>> source_lines(const std::vector<uintptr_t>& sites);

}  // namespace tutorial::analyze
