#include "common/cpu_backend/scheduler.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <sstream>
#include <vector>

#include "common/cpu_backend/guarded_memory.hpp"
#include "common/cpu_backend/runtime_internal.hpp"

namespace ctx = boost::context;

// Every static __shared__ array lives in this section (cuda_shim.hpp); the linker defines its
// bounds. Weak: a program without shared arrays has no such section.
extern "C" {
extern char __start_tutorial_shared[] __attribute__((weak));
extern char __stop_tutorial_shared[] __attribute__((weak));
// Defined by the memory model's recorder: whether a function may be launched (a __global__
// one). Weak: other programs launch whatever tutorial::launch is given.
bool tutorial_analyze_is_kernel(const void* function) __attribute__((weak));
}

namespace tutorial::cpu {

BuiltinVariables builtins{{0, 0, 0}, {0, 0, 0}, dim3(1, 1, 1), dim3(1, 1, 1)};

namespace {

constexpr size_t kMaxThreadsPerBlock = 1024;
constexpr size_t kDefaultSmemLimit = 48 * 1024;  // without cudaFuncSetAttribute's opt-in

// ---------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------

SchedulerOptions options_from_environment() {
  SchedulerOptions o;
  if (const char* order = std::getenv("TUTORIAL_CPU_ORDER")) {
    if (std::strcmp(order, "reverse") == 0) o.order = ThreadOrder::Reverse;
    else if (std::strcmp(order, "forward") == 0) o.order = ThreadOrder::Forward;
    else if (std::strcmp(order, "shuffle") != 0)
      std::fprintf(stderr, "CPU backend: TUTORIAL_CPU_ORDER=%s is not shuffle, reverse or "
                           "forward; using shuffle\n", order);
  }
  if (const char* seed = std::getenv("TUTORIAL_CPU_SEED")) o.seed = std::strtoull(seed, nullptr, 0);
  if (const char* kb = std::getenv("TUTORIAL_CPU_STACK_KB")) {
    const unsigned long long v = std::strtoull(kb, nullptr, 0);
    if (v >= 16) o.stack_bytes = size_t(v) * 1024;
  }
  return o;
}

SchedulerOptions& options() {
  static SchedulerOptions o = options_from_environment();
  return o;
}

// splitmix64: a tiny, good-enough generator for the thread orders.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// ---------------------------------------------------------------------------------------
// Fiber stacks: one mapping, a guard page below each stack, reused last-in first-out so that
// a kernel without barriers keeps running on the same (cached) stack.
// ---------------------------------------------------------------------------------------

struct StackPool {
  char* base = nullptr;
  size_t stride = 0;
  size_t usable = 0;
  std::vector<int> free_slots;
  int slots_touched = 0;  // slots 0 .. slots_touched-1 have been used at least once

  void create() {
    base = map_stacks(kMaxThreadsPerBlock, options().stack_bytes, &stride);
    if (!base) {
      std::fprintf(stderr, "CPU backend: cannot map %zu fiber stacks of %zu KB\n",
                   kMaxThreadsPerBlock, options().stack_bytes / 1024);
      std::abort();
    }
    usable = stride - size_t(sysconf(_SC_PAGESIZE));  // the guard page is not usable
    for (int i = int(kMaxThreadsPerBlock) - 1; i >= 0; --i) free_slots.push_back(i);
  }
};
StackPool g_stacks;

struct PooledStack {
  ctx::stack_context allocate() {
    const int slot = g_stacks.free_slots.back();
    g_stacks.free_slots.pop_back();
    g_stacks.slots_touched = std::max(g_stacks.slots_touched, slot + 1);
    char* bottom = g_stacks.base + size_t(slot) * g_stacks.stride + (g_stacks.stride - g_stacks.usable);
    // Stagger the tops so that the stacks do not all compete for the same cache sets.
    const size_t stagger = size_t(slot % 16) * 256;
    ctx::stack_context sc;
    sc.sp = bottom + g_stacks.usable - stagger;
    sc.size = g_stacks.usable - stagger;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    const size_t offset = size_t(static_cast<char*>(sc.sp) - 1 - g_stacks.base);
    g_stacks.free_slots.push_back(int(offset / g_stacks.stride));
  }
};

// ---------------------------------------------------------------------------------------
// CUDA threads
// ---------------------------------------------------------------------------------------

struct AsyncCopy {
  void* dst;
  const void* src;
  size_t size;
  size_t zfill;
  size_t batch;
};

struct Thread {
  ctx::fiber fiber;
  ctx::fiber* scheduler = nullptr;  // the continuation a barrier switches back to
  uint3 index{0, 0, 0};
  bool started = false;
  bool finished = false;
  std::exception_ptr error;
  std::vector<AsyncCopy> copies;  // issued, not yet performed, in issue order
  size_t committed = 0;           // batches closed by __pipeline_commit()
  const char* barrier_file = "";  // the __syncthreads() it waits at (while it waits)
  int barrier_line = 0;

  void reset(uint3 thread_index) {  // for the next block (keeps the copies' capacity)
    fiber = ctx::fiber{};
    scheduler = nullptr;
    index = thread_index;
    started = finished = false;
    error = nullptr;
    copies.clear();
    committed = 0;
    barrier_file = "";
    barrier_line = 0;
  }
};

// The state of the launch in progress; the fault handler reads it.
struct Launch {
  const void* kernel = nullptr;
  ThreadBody body{};
  dim3 grid, block;
  size_t dynamic_smem = 0;
  void* smem = nullptr;
  uint64_t number = 0;  // launches so far in this process
};
Launch g_launch;
uint3 g_block{0, 0, 0};  // the block that runs (the builtins may have been overwritten)
char g_kernel_name_buffer[512];  // the running kernel's name, for messages
std::vector<Thread> g_threads;
Thread* g_current = nullptr;          // the thread whose fiber runs; null in scheduler code
volatile sig_atomic_t g_in_kernel = 0;  // for the fault handler
uint64_t g_launches = 0;
uint64_t g_epoch = 0;  // changes at every barrier and block: barrier_epoch()
// The first problem of the launch in progress that is a bug of the kernel though a GPU would
// not report it (report_launch_problem), and how many were reported in all.
std::string g_problem;
uint64_t g_problems = 0;
std::string g_last_problem;  // the last launch's, as it failed with it
bool g_isolated = std::getenv("TUTORIAL_CPU_ISOLATE") != nullptr;  // isolate_launches

void perform(const AsyncCopy& c) {
  std::memcpy(c.dst, c.src, c.size - c.zfill);
  if (c.zfill) std::memset(static_cast<char*>(c.dst) + (c.size - c.zfill), 0, c.zfill);
}

void thread_main(Thread& t) {
  try {
    g_launch.body.run(g_launch.body.context);
    for (const AsyncCopy& c : t.copies) perform(c);  // the GPU would land them eventually
    t.copies.clear();
  } catch (const ctx::detail::forced_unwind&) {
    throw;  // Boost.Context unwinding an abandoned fiber
  } catch (...) {
    t.error = std::current_exception();
  }
  t.finished = true;
}

bool same(uint3 a, uint3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

[[noreturn]] void builtin_written(const Thread& t) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "CPU backend: kernel %s wrote a built-in variable (threadIdx, blockIdx, blockDim or "
               "gridDim), in blockIdx (%u, %u, %u) threadIdx (%u, %u, %u): they are read-only "
               "(a GPU ignores such a write)\n",
               g_kernel_name_buffer, g_block.x, g_block.y, g_block.z, t.index.x, t.index.y,
               t.index.z);
  std::abort();
}

void resume(Thread& t) {
  g_current = &t;
  builtins.thread_index = t.index;
  if (!t.started) {
    t.started = true;
    t.fiber = ctx::fiber(std::allocator_arg, PooledStack{}, [&t](ctx::fiber&& scheduler) {
      t.scheduler = &scheduler;
      thread_main(t);
      return std::move(scheduler);
    });
  }
  g_in_kernel = 1;
  t.fiber = std::move(t.fiber).resume();
  g_in_kernel = 0;
  g_current = nullptr;
  if (!same(builtins.thread_index, t.index) || !same(builtins.block_index, g_block) ||
      !same(builtins.block_dim, g_launch.block) || !same(builtins.grid_dim, g_launch.grid))
    builtin_written(t);
}

// Reorders the threads waiting at a barrier for the next phase.
void order_phase(std::vector<int>& waiting, Random& random) {
  switch (options().order) {
    case ThreadOrder::Forward:
      std::sort(waiting.begin(), waiting.end());
      break;
    case ThreadOrder::Reverse:
      std::sort(waiting.begin(), waiting.end(), [](int a, int b) { return a > b; });
      break;
    case ThreadOrder::Shuffle:
      for (size_t i = waiting.size(); i > 1; --i) std::swap(waiting[i - 1], waiting[random.next() % i]);
      break;
  }
}

// "the barrier at 03a_bounds/bounds.cuh:45": the last two parts of the path are enough to
// find it (the build may have compiled a copy elsewhere, under the same folder's name).
std::string barrier_site(const Thread& t) {
  std::string file = t.barrier_file ? t.barrier_file : "";
  const size_t last = file.rfind('/');
  if (last != std::string::npos && last > 0) {
    const size_t before = file.rfind('/', last - 1);
    if (before != std::string::npos) file.erase(0, before + 1);
  }
  return file + ":" + std::to_string(t.barrier_line);
}

std::string block_text(uint3 b) {
  std::ostringstream text;
  text << "(" << b.x << ", " << b.y;
  if (g_launch.grid.z > 1) text << ", " << b.z;
  text << ")";
  return text.str();
}

std::string thread_text(uint3 t) {
  std::ostringstream text;
  text << "(" << t.x;
  if (g_launch.block.y > 1 || g_launch.block.z > 1) text << ", " << t.y;
  if (g_launch.block.z > 1) text << ", " << t.z;
  text << ")";
  return text.str();
}

void report_exit_before_barrier(size_t exited, const std::vector<int>& waiting) {
  const Thread& first_waiting = g_threads[size_t(*std::min_element(waiting.begin(), waiting.end()))];
  size_t first_exited = 0;
  while (!g_threads[first_exited].finished) ++first_exited;
  std::ostringstream what;
  what << exited << " thread" << (exited == 1 ? "" : "s") << " of block " << block_text(g_block)
       << " exited before the barrier at " << barrier_site(first_waiting) << " that its other "
       << waiting.size() << " reached (threadIdx " << thread_text(g_threads[first_exited].index)
       << " is one that exited): every thread of a block must reach each __syncthreads(), and "
       << "what those threads were to do before it (their share of the tiles) is not done";
  report_launch_problem(what.str());
}

void run_block(uint3 block_index, Random& random) {
  ++g_epoch;
  g_block = block_index;
  builtins.block_index = block_index;
  const unsigned bx = g_launch.block.x, by = g_launch.block.y;
  const size_t count = size_t(bx) * by * g_launch.block.z;
  std::vector<int> waiting(count);
  for (size_t i = 0; i < count; ++i) {
    g_threads[i].reset(uint3{unsigned(i % bx), unsigned(i / bx % by), unsigned(i / (size_t(bx) * by))});
    waiting[i] = int(i);
  }
  poison_dynamic_smem();  // shared memory is undefined when a block starts

  std::exception_ptr error;
  bool diagnosed = false;  // one diagnosis per block
  while (!waiting.empty() && !error) {
    ++g_epoch;
    order_phase(waiting, random);
    for (int i : waiting) {
      resume(g_threads[size_t(i)]);
      if (g_threads[size_t(i)].error) {
        error = g_threads[size_t(i)].error;
        break;
      }
    }
    waiting.erase(std::remove_if(waiting.begin(), waiting.end(),
                                 [](int i) { return g_threads[size_t(i)].finished; }),
                  waiting.end());
    // Every thread of a block must reach each __syncthreads() (CUDA C++ Programming Guide).
    // Threads that returned while others now wait at a barrier skipped it, and whatever they
    // were to do before it (their share of a tile) is missing: the kernel's bug, though a GPU
    // since Volta lets the others pass and reports nothing. A block whose threads all return,
    // or some return and no barrier follows, is fine.
    if (!waiting.empty() && waiting.size() < count && !error && !diagnosed) {
      diagnosed = true;
      report_exit_before_barrier(count - waiting.size(), waiting);
    }
  }
  if (error) {
    for (size_t i = 0; i < count; ++i) g_threads[i].fiber = ctx::fiber{};  // unwinds them
    std::rethrow_exception(error);
  }
}

std::string kernel_name(const void* kernel) {
  static std::map<const void*, std::string> names;
  auto it = names.find(kernel);
  if (it != names.end()) return it->second;
  std::ostringstream name;
  const std::string symbol = function_symbol(kernel);
  if (!symbol.empty()) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
    name << (status == 0 && demangled ? demangled : symbol.c_str());
    std::free(demangled);
  } else {
    name << "at " << kernel << " (its name is not exported: an internal-linkage kernel)";
  }
  return names[kernel] = name.str();
}

// ---------------------------------------------------------------------------------------
// Faults inside a kernel
// ---------------------------------------------------------------------------------------

struct sigaction g_previous[NSIG];

void on_fault(int sig, siginfo_t* info, void*) {
  if (!g_in_kernel && sig == SIGSEGV) {  // host code on a closed device buffer?
    SignalText text;
    text << "\nCPU backend: invalid memory access by host code at ";
    if (describe_host_access(reinterpret_cast<uintptr_t>(info->si_addr), text)) {
      text << "\n";
      text.write_to_stderr();
    }
  }
  if (g_in_kernel) {
    const uint3 thread = g_current ? g_current->index : builtins.thread_index;
    SignalText text;
    text << "\nCPU backend: "
         << (sig == SIGSEGV ? "invalid memory access"
             : sig == SIGBUS ? "bus error (misaligned or invalid access)"
                             : "arithmetic fault (an integer division by zero?)")
         << " in kernel " << g_kernel_name_buffer << "\n  by blockIdx ("
         << uint64_t(g_block.x) << ", " << uint64_t(g_block.y) << ", " << uint64_t(g_block.z)
         << ") threadIdx (" << uint64_t(thread.x) << ", " << uint64_t(thread.y) << ", "
         << uint64_t(thread.z) << ") of a grid of (" << uint64_t(g_launch.grid.x) << ", "
         << uint64_t(g_launch.grid.y) << ", " << uint64_t(g_launch.grid.z) << ") blocks of ("
         << uint64_t(g_launch.block.x) << ", " << uint64_t(g_launch.block.y) << ", "
         << uint64_t(g_launch.block.z) << ") threads\n  at ";
    describe_address(reinterpret_cast<uintptr_t>(info->si_addr), text);
    text << "\n";
    text.write_to_stderr();
    g_in_kernel = 0;
  }
  // Hand the signal to whoever handled it before (Catch2 names the test case, then the process
  // dies of the signal): returning re-runs the faulting instruction under that handler.
  struct sigaction previous = g_previous[sig];
  if (!(previous.sa_flags & SA_SIGINFO) &&
      (previous.sa_handler == SIG_IGN || previous.sa_handler == SIG_DFL)) {
    previous = {};
    previous.sa_handler = SIG_DFL;
  }
  sigaction(sig, &previous, nullptr);
}

void install_fault_handler() {
  // An alternate signal stack, so that a fiber's stack overflow can still be reported.
  stack_t current{};
  sigaltstack(nullptr, &current);
  if (current.ss_flags & SS_DISABLE) {
    static std::vector<char> alternate(64 * 1024);
    stack_t ss{};
    ss.ss_sp = alternate.data();
    ss.ss_size = alternate.size();
    sigaltstack(&ss, nullptr);
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE}) {
    struct sigaction now {};
    sigaction(sig, nullptr, &now);
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_fault) continue;
    g_previous[sig] = now;
    struct sigaction ours {};
    ours.sa_sigaction = on_fault;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    sigaction(sig, &ours, nullptr);
  }
}

// What a launch found besides the kernel's results: the damage the canaries found, and the
// first problem report_launch_problem was told of ("" for none).
struct Findings {
  std::string damage, problem;
};

std::string problem_text() {
  if (g_problems <= 1) return g_problem;
  return g_problem + " (and " + std::to_string(g_problems - 1) + " more such report" +
         (g_problems == 2 ? "" : "s") + " in this launch)";
}

// The grid, in this process.
Findings run_grid_here() {
  const DeviceAccess open;  // device memory is the kernel's for the launch
  Random random{options().seed * 0x2545F4914F6CDD1Dull + g_launch.number};
  for (unsigned z = 0; z < g_launch.grid.z; ++z)
    for (unsigned y = 0; y < g_launch.grid.y; ++y)
      for (unsigned x = 0; x < g_launch.grid.x; ++x) run_block(uint3{x, y, z}, random);
  return Findings{check_slack_canaries(), problem_text()};
}

// What the launch's process reports to the host's.
struct ChildReport {
  int exception = 0;  // 1: the kernel threw (text: what())
  char text[2048] = {};
  char problem[2048] = {};
};

bool write_all(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes) {
    const ssize_t n = write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}

size_t read_all(int fd, void* data, size_t bytes) {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = read(fd, p + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  return done;
}

// The host process dies as the launch's did (its message is already on stderr): through the
// handler that was there before ours (a test framework's report), else by default.
[[noreturn]] void die_like_child(int sig) {
  std::fflush(stdout);
  if (sig > 0 && sig < NSIG) {
    sigaction(sig, &g_previous[sig], nullptr);
    raise(sig);
    signal(sig, SIG_DFL);
    raise(sig);
  }
  std::abort();
}

// The grid in a child process (isolate_launches): the kernel writes device memory, which is
// shared with this process, and nothing else of it: whatever a kernel writes to host memory
// (a host pointer it was given in disguise, a static it shares with host code on the CPU
// backend) stays in the child, as it would stay on a GPU. Device memory is never opened in
// this process.
Findings run_grid_in_child() {
  std::fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("CPU backend: pipe() for an isolated launch failed");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("CPU backend: fork() for an isolated launch failed");
  }
  if (pid == 0) {
    close(fds[0]);
    ChildReport report;
    Findings found;
    try {
      found = run_grid_here();
    } catch (const std::exception& e) {
      report.exception = 1;
      found.damage = e.what();
    } catch (...) {
      report.exception = 1;
      found.damage = "an exception that is not a std::exception";
    }
    std::snprintf(report.text, sizeof report.text, "%s", found.damage.c_str());
    std::snprintf(report.problem, sizeof report.problem, "%s", found.problem.c_str());
    std::fflush(nullptr);
    _exit(write_all(fds[1], &report, sizeof report) ? 0 : 3);
  }
  close(fds[1]);
  ChildReport report;
  const size_t got = read_all(fds[0], &report, sizeof report);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) die_like_child(WTERMSIG(status));
  if (got != sizeof report || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("CPU backend: the launch's process ended without a report");
  report.text[sizeof report.text - 1] = 0;
  report.problem[sizeof report.problem - 1] = 0;
  if (report.exception) throw std::runtime_error(report.text);
  return Findings{report.text, report.problem};
}

void poison_static_shared() {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(__start_tutorial_shared);
  const uintptr_t end = reinterpret_cast<uintptr_t>(__stop_tutorial_shared);
  if (begin && end > begin) std::memset(__start_tutorial_shared, 0xFF, end - begin);
}

void end_launch() {
  g_launch.kernel = nullptr;
  poison_static_shared();
  poison_dynamic_smem();
  // Under the memory model the kernels run in this process: what they left on their stacks
  // (a local's values) is not the host's to read, as on a GPU, so the stacks are zeroed.
  if (tutorial_analyze_is_kernel)
    for (int slot = 0; slot < g_stacks.slots_touched; ++slot)
      fill_bytes(g_stacks.base + size_t(slot) * g_stacks.stride +
                     (g_stacks.stride - g_stacks.usable), 0, g_stacks.usable);
  builtins.thread_index = uint3{0, 0, 0};
  builtins.block_index = uint3{0, 0, 0};
  g_block = uint3{0, 0, 0};
}

std::map<const void*, size_t>& smem_limits() {
  static std::map<const void*, size_t> limits;
  return limits;
}

void report_stack_use() {
  std::fprintf(stderr, "CPU backend: deepest fiber stack use %zu bytes of %zu\n",
               deepest_stack_use(), g_stacks.usable);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------

std::string function_symbol(const void* function) {
  // dladdr names the exported symbol nearest below the address, which is the function's own
  // only if that symbol is a function starting exactly there: a kernel that is not exported
  // would otherwise take its neighbour's name, or that of a symbol the linker put at the start
  // of its section (__start_tutorial_kernels, which the memory model's builds hide from the
  // dynamic symbol table, -z start-stop-visibility=hidden, for this reason).
  Dl_info info{};
  void* entry = nullptr;
  if (!dladdr1(function, &info, &entry, RTLD_DL_SYMENT)) return "";
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  if (!info.dli_sname || !symbol || info.dli_saddr != function ||
      ELF64_ST_TYPE(symbol->st_info) != STT_FUNC)
    return "";
  return info.dli_sname;
}

void ensure_fault_handler() { install_fault_handler(); }

SchedulerOptions scheduler_options() { return options(); }
void set_scheduler_options(const SchedulerOptions& o) {
  const size_t mapped_stack_bytes = options().stack_bytes;
  options() = o;
  if (g_stacks.base) options().stack_bytes = mapped_stack_bytes;  // stacks are mapped once
}

void set_max_dynamic_smem(const void* kernel, size_t bytes) { smem_limits()[kernel] = bytes; }
size_t max_dynamic_smem(const void* kernel) {
  auto it = smem_limits().find(kernel);
  return it == smem_limits().end() ? kDefaultSmemLimit : std::max(it->second, kDefaultSmemLimit);
}

size_t deepest_stack_use() {
  size_t deepest = 0;
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  for (int slot = 0; slot < g_stacks.slots_touched; ++slot) {
    const char* bottom = g_stacks.base + size_t(slot) * g_stacks.stride + page;
    size_t untouched = 0;
    while (untouched < g_stacks.usable && bottom[untouched] == 0) ++untouched;
    deepest = std::max(deepest, g_stacks.usable - untouched - size_t(slot % 16) * 256);
  }
  return deepest;
}

void run_grid(const void* kernel, dim3 grid, dim3 block, size_t dynamic_smem,
              const ThreadBody& body) {
  if (g_in_kernel || g_launch.kernel) {
    set_last_error(cudaErrorLaunchFailure,
                   "a kernel launch from inside a kernel (dynamic parallelism) or from a second "
                   "host thread: the CPU backend runs one launch at a time");
    return;
  }
  if (tutorial_analyze_is_kernel && !tutorial_analyze_is_kernel(kernel)) {
    set_last_error(cudaErrorInvalidDeviceFunction,
                   "the memory model launches __global__ functions only (" +
                       kernel_name(kernel) + " is not one)");
    return;
  }
  if (dynamic_smem > max_dynamic_smem(kernel)) {
    std::ostringstream why;
    why << "launch with " << dynamic_smem << " bytes of dynamic shared memory, above this "
        << "kernel's limit of " << max_dynamic_smem(kernel)
        << " bytes: above 48 KB a kernel must opt in first (tutorial::allow_dynamic_smem)";
    set_last_error(cudaErrorInvalidValue, why.str());
    return;
  }
  if (!g_stacks.base) {
    g_stacks.create();
    if (std::getenv("TUTORIAL_CPU_STACK_REPORT")) std::atexit(report_stack_use);
  }
  if (g_threads.size() < kMaxThreadsPerBlock) g_threads.resize(kMaxThreadsPerBlock);
  ensure_fault_handler();

  g_launch.kernel = kernel;
  g_launch.body = body;
  g_launch.grid = grid;
  g_launch.block = block;
  g_launch.dynamic_smem = dynamic_smem;
  g_launch.number = g_launches++;
  g_launch.smem = dynamic_smem_region(dynamic_smem);
  g_problem.clear();
  g_problems = 0;
  const std::string name = kernel_name(kernel);
  std::snprintf(g_kernel_name_buffer, sizeof g_kernel_name_buffer, "%s", name.c_str());
  builtins.grid_dim = grid;
  builtins.block_dim = block;

  // Shared memory starts undefined (NaN here) and keeps nothing after the launch: what a
  // kernel left there is not the host's to read either.
  poison_static_shared();
  Findings found;
  try {
    // (Never under the memory model: it counts in this process.)
    found = g_isolated && !tutorial_analyze_is_kernel ? run_grid_in_child() : run_grid_here();
  } catch (...) {  // the kernel threw, in this process or in the launch's child
    end_launch();
    count_failure();
    throw;
  }
  end_launch();
  g_last_problem = found.problem;
  if (!found.damage.empty())
    set_last_error(cudaErrorIllegalAddress, "kernel " + name + ": " + found.damage);
  else if (!found.problem.empty())
    set_last_error(cudaErrorLaunchFailure, "kernel " + name + ": " + found.problem);
}

void report_launch_problem(const std::string& what) {
  if (g_problems++ == 0) g_problem = what;
}

uint64_t barrier_epoch() { return g_epoch; }
uint64_t launch_problems() { return g_problems; }

std::string last_launch_problem() { return g_last_problem; }

void isolate_launches(bool on) { g_isolated = on; }

// ---------------------------------------------------------------------------------------
// Called from kernels (cuda_shim.hpp, cuda_pipeline.h)
// ---------------------------------------------------------------------------------------

void device_error(const char* what) {
  std::fflush(stdout);
  if (!g_current) {
    std::fprintf(stderr, "CPU backend: %s (outside a kernel)\n", what);
  } else {
    std::fprintf(stderr,
                 "CPU backend: %s\n  in kernel %s by blockIdx (%u, %u, %u) threadIdx (%u, %u, "
                 "%u)\n",
                 what, g_kernel_name_buffer, g_block.x, g_block.y, g_block.z, g_current->index.x,
                 g_current->index.y, g_current->index.z);
  }
  std::abort();
}

void syncthreads(const char* file, int line) {
  Thread* t = g_current;
  if (!t) device_error("__syncthreads() called outside a kernel");
  t->barrier_file = file;
  t->barrier_line = line;
  g_in_kernel = 0;
  g_current = nullptr;
  *t->scheduler = std::move(*t->scheduler).resume();
  // Resumed by the scheduler, which has set threadIdx, g_current and g_in_kernel again.
}

bool current_thread(uint3* thread, uint3* block, dim3* block_dim) {
  if (!g_current) return false;
  *thread = g_current->index;
  *block = g_block;
  *block_dim = g_launch.block;
  return true;
}

bool kernel_pointer_argument(size_t index, const volatile void* pointer) {
  const void* p = const_cast<const void*>(pointer);
  if (!p || is_device_range(p, 0)) return true;
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  set_last_error(cudaErrorInvalidValue,
                 "kernel argument " + std::to_string(index + 1) + " is the pointer " + text +
                     ", which is not device memory: a kernel reads and writes device buffers "
                     "(on a GPU a host pointer faults), so the launch did not run");
  return false;
}

void* dynamic_shared_memory() {
  if (!g_current) device_error("extern __shared__ memory used outside a kernel");
  return g_launch.smem;
}

void pipeline_memcpy_async(void* dst, const void* src, size_t size, size_t zfill) {
  Thread* t = g_current;
  if (!t) device_error("__pipeline_memcpy_async outside a kernel");
  if (size != 4 && size != 8 && size != 16)
    device_error("__pipeline_memcpy_async: size_and_align must be 4, 8 or 16 bytes");
  if (zfill > size) device_error("__pipeline_memcpy_async: zfill is larger than the copy");
  if (reinterpret_cast<uintptr_t>(dst) % size || reinterpret_cast<uintptr_t>(src) % size)
    device_error("__pipeline_memcpy_async: source or destination not aligned to the copy size");
  t->copies.push_back(AsyncCopy{dst, src, size, zfill, t->committed});
}

void pipeline_commit() {
  if (!g_current) device_error("__pipeline_commit outside a kernel");
  ++g_current->committed;
}

void pipeline_wait_prior(size_t prior) {
  Thread* t = g_current;
  if (!t) device_error("__pipeline_wait_prior outside a kernel");
  // Every committed batch except the `prior` most recent ones must have landed.
  size_t done = 0;
  while (done < t->copies.size() && t->copies[done].batch + prior < t->committed)
    perform(t->copies[done++]);
  t->copies.erase(t->copies.begin(), t->copies.begin() + long(done));
}

}  // namespace tutorial::cpu
