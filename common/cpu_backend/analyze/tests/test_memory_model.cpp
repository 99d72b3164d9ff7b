// The memory model on patterns whose counts can be derived by hand. Every expected number
// below comes from the derivation in the comment above it, not from a run of the model.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "common/catch_compat.hpp"
#include "common/cpu_backend/analyze/tests/test_kernels.hpp"

namespace t = memory_model_test;

// Chapter 01 at M = N = K = 64: blocks of 32×32 threads, a 2×2 grid, so 4 blocks × 32 warps.
// Each thread runs 64 iterations with one load of A and one of B, then one store of C.
// Buffers are 64·64·4 = 16 KB; the model places each at a multiple of 256 bytes, as cudaMalloc.
TEST_CASE("memory model: naive GEMM, coalesced mapping: 2.5 sectors per load", "[analyze]") {
  const t::MemoryStats s = t::naive_gemm(64);
  // A warp is one row (threadIdx.y) and 32 consecutive columns (threadIdx.x).
  // Load requests: 4 blocks × 32 warps × 64 iterations × 2 loads = 16384.
  CHECK(s.global_ld.requests == 16384);
  // A[row*K + k]: one address for the whole warp, 1 sector. B[k*N + col]: 32 consecutive
  // floats starting at a multiple of 32 floats (128 bytes), 4 sectors. Per iteration and
  // warp 1 + 4 = 5 sectors: 4 × 32 × 64 × 5 = 40960, i.e. 2.5 per request.
  CHECK(s.global_ld.sectors == 40960);
  // Bytes asked for per iteration and warp: 4 (A, one float) + 128 (B): 4 × 32 × 64 × 132.
  CHECK(s.global_ld.bytes_requested == 4u * 32 * 64 * 132);
  // C[row*N + col]: one store per thread, 32 consecutive floats per warp: 128 requests, 4 sectors each.
  CHECK(s.global_st.requests == 128);
  CHECK(s.global_st.sectors == 512);
  CHECK(s.shared_ld.requests == 0);
  CHECK(s.shared_st.requests == 0);
}

TEST_CASE("memory model: naive GEMM, swapped mapping: 16.5 sectors per load", "[analyze]") {
  const t::MemoryStats s = t::naive_gemm_swapped(64);
  // Now a warp is one column and 32 consecutive rows. Same number of requests.
  CHECK(s.global_ld.requests == 16384);
  // A[row*K + k]: 32 addresses K = 64 floats (256 bytes) apart, 32 sectors. B[k*N + col]:
  // one address, 1 sector. 4 × 32 × 64 × 33 = 270336, i.e. 16.5 per request.
  CHECK(s.global_ld.sectors == 270336);
  // C[row*N + col]: 32 floats N = 64 floats apart: 32 sectors for each of the 128 stores.
  CHECK(s.global_st.requests == 128);
  CHECK(s.global_st.sectors == 4096);
}

// Chapter 06 at 64×64: tiles of 32×32, blocks of 32×8 threads (8 warps, each one threadIdx.y
// and 32 consecutive threadIdx.x), a 2×2 grid. Each thread moves TILE / BLOCK_ROWS = 4
// elements: 4 global loads, 4 shared stores, 4 shared loads, 4 global stores. So each kind
// has 4 blocks × 8 warps × 4 = 128 requests.
TEST_CASE("memory model: tiled transpose, float tile[32][32]: 32 wavefronts per shared load",
          "[analyze]") {
  const t::MemoryStats s = t::transpose_tiled(64);
  // Global sides: a warp reads (writes) 32 consecutive floats of an input (output) row,
  // starting at a multiple of 32 floats: 4 sectors per request.
  CHECK(s.global_ld.requests == 128);
  CHECK(s.global_ld.sectors == 512);
  CHECK(s.global_st.requests == 128);
  CHECK(s.global_st.sectors == 512);
  // tile[threadIdx.y + j][threadIdx.x] = ...: 32 consecutive words, 32 banks, 1 wavefront.
  CHECK(s.shared_st.requests == 128);
  CHECK(s.shared_st.wavefronts == 128);
  CHECK(s.shared_st.bank_conflicts() == 0);
  // ... = tile[threadIdx.x][threadIdx.y + j]: lane x reads word 32·x + c, bank c for every
  // lane: 32 different words in one bank, 32 wavefronts, 31 of them conflicts.
  CHECK(s.shared_ld.requests == 128);
  CHECK(s.shared_ld.wavefronts == 128 * 32);
  CHECK(s.shared_ld.bank_conflicts() == 128 * 31);
}

TEST_CASE("memory model: padded transpose, float tile[32][33]: 1 wavefront per shared load",
          "[analyze]") {
  const t::MemoryStats s = t::transpose_padded(64);
  // Lane x now reads word 33·x + c, bank (x + c) % 32: 32 different banks.
  CHECK(s.shared_ld.requests == 128);
  CHECK(s.shared_ld.wavefronts == 128);
  CHECK(s.shared_ld.bank_conflicts() == 0);
  // The stores: word 33·(y + j) + x, 32 consecutive words, still 1 wavefront.
  CHECK(s.shared_st.requests == 128);
  CHECK(s.shared_st.wavefronts == 128);
  CHECK(s.global_ld.sectors == 512);
  CHECK(s.global_st.sectors == 512);
}

TEST_CASE("memory model: a float4 access stays one 16-byte request", "[analyze]") {
  const t::MemoryStats s = t::float4_copy();
  // 32 lanes × 16 consecutive bytes = 512 bytes from the buffer's start: 16 sectors, one
  // request (four 4-byte loads would be 4 requests of 4 sectors).
  CHECK(s.global_ld.requests == 1);
  CHECK(s.global_ld.sectors == 16);
  CHECK(s.global_ld.bytes_requested == 512);
  CHECK(s.global_st.requests == 1);
  CHECK(s.global_st.sectors == 16);
}

TEST_CASE("memory model: a partial warp is one request of its active lanes", "[analyze]") {
  const t::MemoryStats s = t::partial_warp_copy();
  // 48 threads: warp 0 reads floats 0-31 (bytes 0-127, 4 sectors), warp 1 is threads 32-47
  // alone, floats 32-47 (bytes 128-191, 2 sectors). The same for the stores.
  CHECK(s.global_ld.requests == 2);
  CHECK(s.global_ld.sectors == 6);
  CHECK(s.global_st.requests == 2);
  CHECK(s.global_st.sectors == 6);
}

TEST_CASE("memory model: lanes that skip a load are inactive lanes of its request",
          "[analyze]") {
  const t::MemoryStats s = t::even_lanes_copy();
  // Lanes 0, 2, ..., 30 read floats 0, 2, ..., 30: one request of 16 lanes over bytes
  // 0-123, 4 sectors, 64 of their 128 bytes used.
  CHECK(s.global_ld.requests == 1);
  CHECK(s.global_ld.sectors == 4);
  CHECK(s.global_ld.bytes_requested == 64);
  CHECK(s.global_st.requests == 1);
  CHECK(s.global_st.sectors == 4);
}

TEST_CASE("memory model: 16-byte shared accesses are served a quarter warp at a time",
          "[analyze]") {
  // s[lane]: each quarter warp (8 lanes) touches 8 consecutive float4 = 32 consecutive words,
  // all 32 banks once: 1 wavefront per quarter, 4 per request, none of them a conflict.
  const t::MemoryStats consecutive = t::shared_float4_copy(1);
  CHECK(consecutive.shared_st.requests == 1);
  CHECK(consecutive.shared_st.wavefronts == 4);
  CHECK(consecutive.shared_ld.requests == 1);
  CHECK(consecutive.shared_ld.wavefronts == 4);
  CHECK(consecutive.shared_ld.bank_conflicts() == 0);
  // s[2·lane]: the lanes of a quarter are 8 words apart, so lanes l and l + 4 need
  // different words of the same 4 banks: 2-way in every quarter, 8 wavefronts, 4 conflicts.
  const t::MemoryStats strided = t::shared_float4_copy(2);
  CHECK(strided.shared_st.requests == 1);
  CHECK(strided.shared_st.wavefronts == 8);
  CHECK(strided.shared_ld.requests == 1);
  CHECK(strided.shared_ld.wavefronts == 8);
  CHECK(strided.shared_ld.bank_conflicts() == 4);
}

TEST_CASE("memory model: two quarters of a half warp share a wavefront when they ask for at "
          "most four 16-byte chunks", "[analyze]") {
  // Nsight Compute on an H100, per LDS.128 instruction (source view): chapter 04's one-warp
  // kernel reads its A fragment (one float4 per quarter, four different ones) in 2 wavefronts
  // and its B fragment (the same 8 float4 in every quarter) in 4. Here: lanes 0-15 read s[0]
  // and s[2] (1 + 1 chunks, no bank twice: 1 wavefront), lanes 16-31 the same 8 float4 in
  // both quarters (8 + 8 chunks: 2 wavefronts, although the words are the same): 3.
  const t::MemoryStats s = t::shared_float4_halves();
  CHECK(s.shared_ld.requests == 1);
  CHECK(s.shared_ld.wavefronts == 3);
  CHECK(s.shared_ld.bank_conflicts() == 0);
}

namespace {
// Runs `work` in a child process; returns whether it was stopped by a signal, and its stderr.
template <typename Work>
bool stopped(Work work, std::string* output) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    std::signal(SIGABRT, SIG_DFL);
    work();
    _exit(0);
  }
  close(fds[1]);
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) output->append(buffer, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status);
}
}  // namespace

// What the grader relies on: a kernel cannot move its lanes, writes only GPU memory, and only
// kernels run.
TEST_CASE("memory model: a kernel that writes threadIdx is stopped", "[analyze]") {
  std::string output;
  CHECK(stopped([] { t::write_thread_index(); }, &output));
  INFO(output);
  CHECK(output.find("wrote a built-in variable") != std::string::npos);
}

TEST_CASE("memory model: a kernel that writes host memory is stopped", "[analyze]") {
  std::string output;
  CHECK(stopped([] { t::write_device_variable(); }, &output));
  INFO(output);
  CHECK(output.find("neither a device buffer, nor shared memory") != std::string::npos);
}

TEST_CASE("memory model: an asynchronous copy into device memory is stopped", "[analyze]") {
  std::string output;
  CHECK(stopped([] { t::async_copy_to_global(); }, &output));
  INFO(output);
  CHECK(output.find("the destination is not shared memory") != std::string::npos);
}

TEST_CASE("memory model: only a __global__ function is launched", "[analyze]") {
  CHECK(!t::launches_a_plain_function());
}

// Shared-memory races (memory_model.cpp, check_race): an access of shared memory that another
// thread of the block wrote (or read) since the last barrier fails the launch, naming both.
TEST_CASE("memory model: a transpose without its barrier fails, naming the read and the write",
          "[analyze][race]") {
  const std::string problem = t::transpose_without_barrier(64);
  INFO(problem);
  // Either order of the block's threads shows it: a read of what another thread wrote in the
  // same phase, or a write over what another thread read in it.
  CHECK((problem.find("read shared memory written by another thread with no barrier between") !=
             std::string::npos ||
         problem.find("overwrote shared memory another thread read with no barrier between") !=
             std::string::npos));
  CHECK(problem.find("tests/test_kernels.cpp:") != std::string::npos);  // the lines
  CHECK(problem.find("a __syncthreads() between the write and the read is missing") !=
        std::string::npos);
}

TEST_CASE("memory model: chapter 06's padded transpose, barrier in place, has no race",
          "[analyze][race]") {
  CHECK(t::transpose_with_barrier(64).empty());
}

TEST_CASE("memory model: a tile overwritten before every thread has read it fails", "[analyze][race]") {
  const std::string problem = t::overwrite_without_barrier();
  INFO(problem);
  CHECK((problem.find("overwrote shared memory another thread read with no barrier between") !=
             std::string::npos ||
         problem.find("read shared memory written by another thread with no barrier between") !=
             std::string::npos));
}
