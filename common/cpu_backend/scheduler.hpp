// The CPU backend's grid executor: blocks one after another, the threads of a block as fibers.
//
//   * Every CUDA thread runs on its own fiber (Boost.Context), with its own stack, so that it
//     can stop in the middle of the kernel at __syncthreads() and be resumed later.
//   * A block runs in phases. In each phase every live thread runs until it reaches a barrier
//     or returns; when all have, the next phase starts. Threads that returned count as arrived
//     (as on GPUs since Volta).
//   * Within a phase the threads run one after the other in an order that changes every phase
//     (shuffled from a seed by default, see ThreadOrder), never in the comfortable 0, 1, 2...
//     A kernel that lacks a barrier reads data another thread has not written yet, or has
//     already overwritten, and fails here as it would on a GPU; a correct kernel gives the same
//     result in every order.
//   * A memory fault inside a kernel (an access past the end of a device allocation lands on
//     a guard page) is reported with the blockIdx and threadIdx of the thread that made it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cpu_backend/cuda_shim.hpp"

namespace tutorial::cpu {

// One CUDA thread's work: call the kernel with the launch's arguments.
struct ThreadBody {
  void* context;
  void (*run)(void* context);
};

// Runs the whole grid and returns when it is done. A launch error (e.g. dynamic shared memory
// above the kernel's limit) becomes the runtime's last error, as a failed <<<>>> would; the
// caller checks cudaGetLastError().
void run_grid(const void* kernel, dim3 grid, dim3 block, size_t dynamic_smem,
              const ThreadBody& body);

// How the threads of a block are ordered in each phase. Environment variables:
//   TUTORIAL_CPU_ORDER  shuffle (default): a new random order every phase, from the seed;
//                       reverse: last thread first, every phase;
//                       forward: 0, 1, 2 ... (hides missing barriers; for comparison only).
//   TUTORIAL_CPU_SEED   the shuffle's seed (default 1): the same seed gives the same orders,
//                       so a failure reproduces exactly.
enum class ThreadOrder { Shuffle, Reverse, Forward };
struct SchedulerOptions {
  ThreadOrder order = ThreadOrder::Shuffle;
  uint64_t seed = 1;
  size_t stack_bytes = 64 * 1024;  // per CUDA thread; TUTORIAL_CPU_STACK_KB
};
SchedulerOptions scheduler_options();                 // as read from the environment at start
void set_scheduler_options(const SchedulerOptions&);  // for tests

// The largest number of bytes any fiber stack has used so far (measured by scanning the
// stacks, which start zeroed); TUTORIAL_CPU_STACK_REPORT=1 prints it at exit.
size_t deepest_stack_use();

// Runs every later launch in a child process of its own (fork) that shares device memory with
// this one and nothing else: what a kernel writes to host memory never reaches host code, as
// on a GPU. The exercise grader's CPU runners turn it on (exercises/support/runner_main.cpp);
// a fault or an abort in the kernel ends this process the same way.
void isolate_launches(bool on);

// How many launches have failed, and runtime calls returned an error, since the program
// started: a kernel that threw, faulted or broke a rule, a launch refused. The grader's runner
// fails a call during which it rose, whatever the launcher did with the error: a failed
// launch's message or its mere failure must not carry data from a kernel to host code.
uint64_t failures();

// The fault handler that names the kernel, thread and buffer of an invalid access (run_grid
// installs it; cudaMalloc too, for host code that touches device memory before any launch).
void ensure_fault_handler();

// The CUDA thread that runs now, as the scheduler knows it (the memory model groups lanes by
// it, not by the built-in variables, which a kernel could overwrite); false outside a kernel.
bool current_thread(uint3* thread, uint3* block, dim3* block_dim);

// tutorial::launch's check of a pointer argument (its index from 0): null or inside a device
// allocation. Otherwise the launch is refused (the runtime's last error says why).
bool kernel_pointer_argument(size_t index, const volatile void* pointer);

// A bug of the kernel that the backend sees though a GPU would not report it: threads that
// left before a barrier the rest of their block waits at (the scheduler), a shared-memory read
// of another thread's write with no barrier between (the memory model). The launch runs to
// its end, then fails with the first such report (cudaErrorLaunchFailure; stderr names the
// kernel and says what), and how many more there were.
void report_launch_problem(const std::string& what);
// How many were reported in the launch in progress (the memory model words only the first).
uint64_t launch_problems();
// The last launch's problem as it failed with it ("" for none): for tests.
std::string last_launch_problem();

// Changes whenever a block starts and at every barrier: two accesses of one block made under
// the same value have no __syncthreads() between them (the memory model's race check).
uint64_t barrier_epoch();

// The mangled name of the exported function that starts at `function` (a kernel: the test
// binaries and the analyzers are linked with -rdynamic), or "" when there is none.
std::string function_symbol(const void* function);

// Dynamic shared memory above 48 KB needs the kernel's opt-in (cudaFuncSetAttribute), as on
// the GPU: the runtime records it here.
void set_max_dynamic_smem(const void* kernel, size_t bytes);
size_t max_dynamic_smem(const void* kernel);

}  // namespace tutorial::cpu
