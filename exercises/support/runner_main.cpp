// The runner: main() of the program built from a student's file (exercises/support/entry.hpp).
//
//   <exercise>_runner <request.txt | -> <results folder>
//
// The grader gives the request on standard input ("-"), through a pipe of mode 0: a pipe cannot
// be read again from its start or at an offset, nor opened again (to write lines back), so once
// a line is read, no code in this process can find its seed there again, and code that reads
// the lines ahead takes them from this loop (the calls after it then get no request and fail).
//
// It makes each call of the request (protocol.hpp) on inputs computed from the call's seed
// and writes what came out, nothing more: it judges nothing. This file is instructor code,
// but it runs in the same process as the student's code, so the grader trusts none of what
// the process writes except as data for the checker, which recomputes every answer itself.
//
// Three builds (EXERCISE_RUNNER_GPU, _CPU, _HOST): the GPU, the CPU backend
// (common/cpu_backend/: the same kernels on the CPU), and host-only exercises (no CUDA). The
// CPU build with EXERCISE_RUNNER_MODEL as well is the memory model's runner: the student's
// file compiled by clang with a hook on every load and store (common/cpu_backend/analyze/),
// which alone answers the model_* calls.
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#if defined(__linux__) && defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#define EXERCISE_RUNNER_FILTER 1
#endif
#if defined(EXERCISE_RUNNER_MODEL)
#include <dlfcn.h>
#endif

#include "exercises/support/entry.hpp"
#include "exercises/support/exercise.hpp"
#include "exercises/support/inputs.hpp"
#include "exercises/support/protocol.hpp"

#if !defined(EXERCISE_RUNNER_HOST)
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/launch_record.hpp"
#endif
#if defined(EXERCISE_RUNNER_GPU)
#include "exercises/support/timing_loop.hpp"
#endif
#if defined(EXERCISE_RUNNER_CPU)
#include "common/cpu_backend/guarded_memory.hpp"
#include "common/cpu_backend/scheduler.hpp"
#endif
#if defined(EXERCISE_RUNNER_MODEL)
#include "common/cpu_backend/analyze/memory_model.hpp"
#endif

// ---------------------------------------------------------------------------------------
// The runner's own syscall filter, installed before any code of the student's runs (from
// .preinit_array: after the libraries are loaded, before every constructor of the program,
// the student's included; the runner library is linked first, runner.cmake). It stacks on
// the grader's (exercises/tools/gradelib/seccomp.py) and adds what only the runner can say:
//   * no execve once the runner has started (no exercise starts another program: not the
//     checker, not gpg, not a shell);
//   * on the CPU backend, no tee, splice or vmsplice: tee copies what waits in a pipe without
//     taking it, which would read the request's lines ahead (main() below) and leave them for
//     this loop (on a GPU, code that could call tee could call cudaMemcpy: INSTRUCTORS.md);
//   * on the CPU backend (the CPU and memory-model runners), memory is opened only by the
//     backend: mprotect that makes pages readable, writable or executable must carry the
//     token the backend was given here (guarded_memory.hpp), no pkey_mprotect, no executable
//     mapping, no mapping at a fixed address (over device memory), no mremap to one, no
//     remap_file_pages or shmat. A host function that reached mprotect by any route (inline
//     assembly however spelled, an address computed from an allowed function) gets EPERM.
// Every refusal is an error the program sees (EPERM), never a kill.
// ---------------------------------------------------------------------------------------
#if defined(EXERCISE_RUNNER_FILTER)
namespace {

sock_filter statement(uint16_t code, uint32_t k) { return sock_filter{code, 0, 0, k}; }
sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) {
  return sock_filter{code, jt, jf, k};
}

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kDeny = SECCOMP_RET_ERRNO | 1;  // EPERM
constexpr uint32_t kArg = offsetof(seccomp_data, args);

void install_runner_filter() {
  std::vector<sock_filter> f;
  auto deny_if = [&](uint32_t nr) {  // A holds the system call number
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
    f.push_back(statement(BPF_RET | BPF_K, kDeny));
  };
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  f.push_back(statement(BPF_RET | BPF_K, kAllow));  // the grader's filter refuses those
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  deny_if(SYS_execve);
  deny_if(SYS_execveat);
#if defined(EXERCISE_RUNNER_CPU)
  deny_if(SYS_tee);
  deny_if(SYS_splice);
  deny_if(SYS_vmsplice);
  uint64_t token = 0;
  while (token == 0)
    if (getrandom(&token, sizeof token, 0) != sizeof token) token = 0;
  tutorial::cpu::set_protect_token(token);
  deny_if(SYS_pkey_mprotect);
  deny_if(SYS_remap_file_pages);
  deny_if(SYS_shmat);
  // mprotect: PROT_NONE always; anything else with the token as its fourth argument.
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 8));
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, kArg + 2 * 8));
  f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, PROT_READ | PROT_WRITE | PROT_EXEC, 0, 4));
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, kArg + 3 * 8));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(token), 0, 3));
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, kArg + 3 * 8 + 4));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(token >> 32), 0, 1));
  f.push_back(statement(BPF_RET | BPF_K, kAllow));  // (also PROT_NONE, from the JSET)
  f.push_back(statement(BPF_RET | BPF_K, kDeny));
  // mmap: nothing executable, nothing at a fixed address.
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 5));
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, kArg + 2 * 8));
  f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 2, 0));
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, kArg + 3 * 8));
  f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, MAP_FIXED | MAP_FIXED_NOREPLACE, 0, 1));
  f.push_back(statement(BPF_RET | BPF_K, kDeny));
  // mremap: not to a fixed address.
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_mremap, 0, 3));
  f.push_back(statement(BPF_LD | BPF_W | BPF_ABS, kArg + 3 * 8));
  f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, 2 | 4, 0, 1));  // MREMAP_FIXED, _DONTUNMAP
  f.push_back(statement(BPF_RET | BPF_K, kDeny));
#endif
  f.push_back(statement(BPF_RET | BPF_K, kAllow));
  const sock_fprog program{static_cast<unsigned short>(f.size()), f.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
#if defined(EXERCISE_RUNNER_CPU)
    tutorial::cpu::set_protect_token(0);  // no filter: plain mprotect again
#endif
    std::fprintf(stderr, "note: the runner could not install its syscall filter\n");
  }
}

// Run from .preinit_array (ELF): before any constructor of the program.
__attribute__((section(".preinit_array"), used)) void (*const runner_preinit)(int, char**,
                                                                              char**) =
    [](int, char**, char**) { install_runner_filter(); };

}  // namespace
#endif

namespace {

using exercise::Entry;
using exercise::protocol::Call;

struct Failure {
  std::string kind;  // refused, not_implemented, cuda_error, error
  std::string message;
};

const Entry* find_entry(const std::string& name) {
  for (const Entry& e : exercise::entries())
    if (e.name == name) return &e;
  return nullptr;
}

[[maybe_unused]] void write_file(const std::string& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), std::streamsize(bytes));
}

void write_text(const std::string& path, const std::string& line) {
  std::ofstream out(path);
  out << exercise::protocol::one_line(line) << "\n";
}

// ---------------------------------------------------------------------------------------
// What the student's code could learn from this process's memory. A call's seed gives its
// inputs, and the inputs the answer, which host code could then smuggle into a kernel (an
// argument by value, a host address in disguise). So no seed is in memory when the student's
// code runs: the request is read a line at a time (no buffer holds later calls), the seed is
// taken out of the line's text before it is parsed, the inputs' host copies are wiped once
// uploaded, and the stack below the call is wiped before it.
// ---------------------------------------------------------------------------------------

// Bytes zeroed so that the compiler cannot drop the stores as dead.
void wipe(void* data, size_t bytes) {
  volatile unsigned char* p = static_cast<volatile unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) p[i] = 0;
}

// The stack below the caller's frame, where the inputs were computed, zeroed.
__attribute__((noinline)) void wipe_stack_below() {
  unsigned char below[64 * 1024];
  wipe(below, sizeof below);
  asm volatile("" : : "r"(below) : "memory");
}

// One line of the request (without its newline) into `line`, whose capacity is reserved so
// that no reallocation leaves a copy behind; false at the end. A byte a read: no buffer of
// this process holds the lines after it.
bool read_line(int fd, std::string& line) {
  line.clear();
  char c;
  ssize_t got;
  while (((got = read(fd, &c, 1)) == 1 && c != '\n') || (got < 0 && errno == EINTR))
    if (got == 1) line.push_back(c);
  return got == 1 || !line.empty();
}

// The value of the line's "seed=" option, its digits in the text then overwritten with '0'
// (the parsed call sees seed 0). 1 where the line has none, as Call::seed() says.
uint64_t take_seed(std::string& line) {
  uint64_t seed = 1;
  for (size_t at = line.find("seed="); at != std::string::npos; at = line.find("seed=", at + 1)) {
    if (at > 0 && line[at - 1] != ' ') continue;  // another option's name ending in "seed"
    seed = 0;
    for (size_t i = at + 5; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) {
      seed = seed * 10 + uint64_t(line[i] - '0');
      line[i] = '0';
    }
  }
  return seed;
}

#if defined(EXERCISE_RUNNER_MODEL)
namespace analyze = tutorial::analyze;

// The model's figures of one call, as protocol.hpp spells them: per kind of instruction the
// totals and the single worst request (the most sectors or wavefronts for what its lanes asked),
// with the source line of its instruction.
std::string model_figures(const analyze::MemoryStats& total, const std::vector<bool>& covered) {
  const std::vector<analyze::SiteStats> sites = analyze::sites();
  // The instruction of a request, as its offset in the runner's file ("@0x1a2b"): the grader
  // turns it into the source line (addr2line on its own copy of the runner), since this
  // process may start no program (the filter above).
  auto where = [&](size_t i) {
    Dl_info info{};
    if (i >= sites.size() || !dladdr(reinterpret_cast<void*>(sites[i].site), &info))
      return std::string("?");
    // A return address is the instruction after the hook's call: one byte back is inside it.
    char text[32];
    std::snprintf(text, sizeof text, "@0x%llx",
                  static_cast<unsigned long long>(sites[i].site - 1 -
                                                  reinterpret_cast<uintptr_t>(info.dli_fbase)));
    return std::string(text);
  };
  struct Kind {
    const char* name;
    analyze::OpStats analyze::MemoryStats::*op;
    bool global;
  };
  const Kind kinds[] = {{"gld", &analyze::MemoryStats::global_ld, true},
                        {"gst", &analyze::MemoryStats::global_st, true},
                        {"sld", &analyze::MemoryStats::shared_ld, false},
                        {"sst", &analyze::MemoryStats::shared_st, false}};
  std::string text;
  for (const Kind& k : kinds) {
    const analyze::OpStats& t = total.*k.op;
    text += std::string(" ") + k.name + "=" + std::to_string(t.requests) + "," +
            std::to_string(k.global ? t.sectors : t.wavefronts) + "," +
            std::to_string(t.lane_bytes);
    size_t worst = sites.size();  // the site of the worst request
    for (size_t i = 0; i < sites.size(); ++i) {
      const analyze::OpStats& o = sites[i].stats.*k.op;
      if (o.worst_lane_bytes == 0) continue;
      const analyze::OpStats* w = worst < sites.size() ? &(sites[worst].stats.*k.op) : nullptr;
      if (!w || o.worst_cost * w->worst_lane_bytes > w->worst_cost * o.worst_lane_bytes)
        worst = i;
    }
    if (worst == sites.size()) continue;
    const analyze::OpStats& w = sites[worst].stats.*k.op;
    text += std::string(" worst_") + k.name + "=" + std::to_string(w.worst_cost) + "," +
            std::to_string(w.worst_lane_bytes) + "," + where(worst);
  }
  text += " covered=";
  for (size_t i = 0; i < covered.size(); ++i) text += (i ? "," : "") + std::to_string(int(covered[i]));
  return text;
}
#endif

#if !defined(EXERCISE_RUNNER_HOST)

// Inputs from the seed, the output (inside its guard band) poisoned, one call, the whole
// buffer back. Returns the kernel launches the call made. A model call (the model's runner
// only) counts the call's memory requests and writes their figures into *model.
// An operand's values on the device; their host copy wiped.
__attribute__((noinline)) tutorial::DeviceBuffer<float> upload_operand(const uint64_t& seed,
                                                                        int operand, size_t n) {
  std::vector<float> host = exercise::inputs::operand_values(seed, operand, n);
  tutorial::DeviceBuffer<float> device(host);
  wipe(host.data(), host.size() * sizeof(float));
  return device;
}

long run_matrix(const Call& call, uint64_t& seed, const Entry& entry, std::vector<float>& buffer,
                [[maybe_unused]] std::string* model = nullptr) {
  const bool gemm = call.is_gemm();
  const int d0 = call.dim(0), d1 = call.dim(1), d2 = call.dim(2);
  if (d0 < 1 || d1 < 1 || (gemm && d2 < 1)) throw std::invalid_argument("bad sizes");
  const size_t in0 = gemm ? size_t(d0) * d2 : size_t(d0) * d1;  // A (M x K), or the input
  const size_t in1 = gemm ? size_t(d2) * d1 : 0;                 // B (K x N)
  tutorial::DeviceBuffer<float> first = upload_operand(seed, 0, in0);
  tutorial::DeviceBuffer<float> second = upload_operand(seed, 1, std::max<size_t>(in1, 1));
  wipe(&seed, sizeof seed);
  wipe_stack_below();
  tutorial::DeviceBuffer<float> out(call.buffer_elements());
  out.poison();  // every byte 0xFF: an element nobody writes reads as NaN
  float* at = out.data() + (call.guard() ? exercise::protocol::kGuardBefore : 0);
  tutorial::device_synchronize();
  const long before = tutorial::launch_count();
#if defined(EXERCISE_RUNNER_CPU)
  const uint64_t failures = tutorial::cpu::failures();
#endif
#if defined(EXERCISE_RUNNER_MODEL)
  if (model) analyze::begin();
#endif
  if (gemm) {
    if (!entry.gemm) throw std::invalid_argument(entry.name + " is not a GEMM launcher");
    entry.gemm(first.data(), second.data(), at, d0, d1, d2);
  } else {
    if (!entry.transpose) throw std::invalid_argument(entry.name + " is not a transpose");
    entry.transpose(first.data(), at, d0, d1);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
#if defined(EXERCISE_RUNNER_CPU)
  // A launch that failed fails the call, even where the launcher caught the error and went
  // on: what a kernel throws, or whether it fails, must not reach host code as data.
  if (tutorial::cpu::failures() != failures)
    throw std::runtime_error("a kernel launch failed during the call (the launcher went on)");
#endif
  const long launches = tutorial::launch_count() - before;
#if defined(EXERCISE_RUNNER_MODEL)
  if (model) {
    const analyze::MemoryStats total = analyze::end();
    std::vector<bool> covered = {analyze::covered(first.data(), in0 * sizeof(float), false)};
    if (gemm) covered.push_back(analyze::covered(second.data(), in1 * sizeof(float), false));
    covered.push_back(analyze::covered(at, call.output_elements() * sizeof(float), true));
    *model = model_figures(total, covered);
  }
#endif
  buffer = out.download();
  return launches;
}

#endif

std::string format_numbers(const std::vector<double>& values) {
  std::string text;
  char number[64];
  for (double v : values) {
    std::snprintf(number, sizeof number, " %.17g", v);
    text += number;
  }
  return text;
}

// Runs one call; returns the result line (and writes i.bin / i.sums where there are any).
std::string run_call(const Call& call, [[maybe_unused]] uint64_t& seed,
                     [[maybe_unused]] const std::string& prefix) {
  const Entry* entry = find_entry(call.entry);
  if (!entry) return "error no entry named " + call.entry + " in this exercise";
  if (call.kind == "call") {
    if (!entry->host) return "error " + call.entry + " is not a host function";
    return "value" + format_numbers(entry->host(call.numbers));
  }
#if defined(EXERCISE_RUNNER_HOST)
  return "error " + call.kind + " needs a GPU exercise";
#else
  if (call.kind == "refuse_gemm") {
    if (!entry->gemm) return "error " + call.entry + " is not a GEMM launcher";
    entry->gemm(nullptr, nullptr, nullptr, call.dim(0), call.dim(1), call.dim(2));
    return "ok launches=0 (it did not refuse)";
  }
  if (call.kind == "gemm" || call.kind == "transpose") {
    std::vector<float> buffer;
    const long launches = run_matrix(call, seed, *entry, buffer);
    write_file(prefix + ".bin", buffer.data(), buffer.size() * sizeof(float));
    return "ok launches=" + std::to_string(launches);
  }
#if defined(EXERCISE_RUNNER_MODEL)
  if (call.is_model()) {
    std::vector<float> buffer;
    std::string figures;
    const long launches = run_matrix(call, seed, *entry, buffer, &figures);
    write_file(prefix + ".bin", buffer.data(), buffer.size() * sizeof(float));
    return "ok launches=" + std::to_string(launches) + figures;
  }
#endif
#if defined(EXERCISE_RUNNER_GPU)
  if (call.kind == "time_gemm" || call.kind == "time_transpose") {
    exercise::timing::Timed t;
    if (call.kind == "time_gemm") {
      if (!entry->gemm) return "error " + call.entry + " is not a GEMM launcher";
      t = exercise::timing::time_gemm(entry->gemm, call.dim(0), call.dim(1), call.dim(2),
                                      seed, call.reps());
    } else {
      if (!entry->transpose) return "error " + call.entry + " is not a transpose";
      t = exercise::timing::time_transpose(entry->transpose, call.dim(0), call.dim(1),
                                           seed, call.reps());
    }
    write_file(prefix + ".bin", t.output.data(), t.output.size() * sizeof(float));
    write_file(prefix + ".sums", t.sums.data(), t.sums.size() * sizeof(double));
    return "ok launches=" + std::to_string(t.launches) +
           " median_ms=" + std::to_string(t.median_ms);
  }
#endif
  return "error " + call.kind + " is not supported by this runner";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " <request.txt | -> <results folder>\n";
    return 2;
  }
  const int request =
      std::strcmp(argv[1], "-") == 0 ? STDIN_FILENO : open(argv[1], O_RDONLY | O_CLOEXEC);
  if (request < 0) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
#if defined(EXERCISE_RUNNER_CPU) && !defined(EXERCISE_RUNNER_MODEL)
  // Every launch in a process of its own that shares only device memory with this one: what
  // a kernel writes to host memory cannot hand host code an answer to finish (the CPU
  // backend's address space is one; a GPU's is not). The memory model's runner instead stops
  // a kernel at its first store outside device and shared memory (memory_model.cpp).
  tutorial::cpu::isolate_launches(true);
#endif
  const std::string results = argv[2];
  // One line per call in one file (protocol.hpp): a host test makes thousands of calls, and a
  // file each cost the runner, the grader and the checker three file creations a call.
  std::ofstream lines(results + "/results.txt", std::ios::app);
  std::string line;
  line.reserve(1 << 20);
  int index = 0;
  while (read_line(request, line)) {
    uint64_t seed = take_seed(line);
    wipe_stack_below();  // what take_seed left there
    Call call;
    if (!exercise::protocol::parse_line(line, call)) continue;
    const int number = index++;
    const std::string prefix = results + "/" + std::to_string(number);
    std::string result;
    try {
      result = run_call(call, seed, prefix);
#if !defined(EXERCISE_RUNNER_HOST)
    } catch (const tutorial::UnsupportedShape& e) {
      result = std::string("refused ") + e.what();
    } catch (const tutorial::CudaError& e) {
      result = std::string("cuda_error ") + e.what();
#endif
    } catch (const exercise::NotImplemented& e) {
      result = std::string("not_implemented ") + e.what();
    } catch (const std::exception& e) {
      result = std::string("error ") + e.what();
    } catch (...) {
      result = "error an exception that is not a std::exception";
    }
    // Nothing on stdout: what the program prints is the student's own output (a report shows
    // it), and a host test's thousands of calls would push it out of the part that is kept.
    lines << number << ' ' << exercise::protocol::one_line(result) << '\n' << std::flush;
  }
  write_text(results + "/done", "");
  // Nothing after the last result: no static destructor or atexit handler of the student's
  // code gets to run once the results are written (it could rewrite them).
  std::cout.flush();
  std::_Exit(0);
}
