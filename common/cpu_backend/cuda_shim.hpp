// The CUDA language on the host compiler: what nvcc would give a kernel, for the CPU backend.
//
// The CPU build force-includes this header (g++ -include) in every translation unit, as nvcc
// implicitly includes its own runtime header. It turns the CUDA keywords into C++ (a kernel is
// an ordinary function that the backend calls once per CUDA thread, each thread a fiber), and
// declares the built-in variables, vector types and device functions the tutorial uses. The
// fiber scheduler behind threadIdx and __syncthreads() is common/cpu_backend/scheduler.cpp.
// See common/cpu_backend/README.md for what is supported and what is not.
#pragma once

#ifndef __cplusplus
#error "the CPU backend shim is C++ only"
#endif

#include <math.h>  // fminf, sqrtf, ... in the global namespace, as CUDA has them

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#define TUTORIAL_CPU_BACKEND 1

// ---------------------------------------------------------------------------------------
// Keywords
// ---------------------------------------------------------------------------------------

// Kernels and device functions are plain functions. The memory model's build puts kernels
// in a section of their own: it launches nothing else, and the grader checks every access
// of the code they reach (exercises/tools/gradelib/objects.py).
#ifndef TUTORIAL_CPU_ANALYZE
#define __global__
#else
#define __global__ __attribute__((section("tutorial_kernels")))
#endif
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __constant__
#define __managed__
// __restrict__ is a keyword of g++ and clang++ already.

// One object per block, shared by its threads: every thread of a block is a fiber on the same
// OS thread and blocks run one after another, so a function-local static is exactly that.
// (The build rewrites `__shared__ alignas(16) T x[..]` to `alignas(16) __shared__ T x[..]`,
// since C++ wants the attribute first, and `extern __shared__ T x[];` to a pointer into the
// launch's dynamic shared memory; see rewrite_shared.cmake.)
#ifndef TUTORIAL_CPU_ANALYZE
#define __shared__ static
#else
// The memory model's build (clang) also needs to know which statics are shared memory: one
// section, which the scheduler also poisons around every launch. (g++ ignores a section for
// the statics of templates, and refuses to mix them with others in one section.)
#define __shared__ static __attribute__((section("tutorial_shared")))
#endif

// ---------------------------------------------------------------------------------------
// Built-in types and variables
// ---------------------------------------------------------------------------------------

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Set by the scheduler before it resumes a thread's fiber (one launch runs at a time, on the
// host thread that made it). Kernels see them read-only, as on a GPU: `threadIdx.x = 0` does
// not compile, and a write that gets around it (const_cast) is reported when the thread next
// yields, and at once by the memory model.
namespace tutorial::cpu {
struct BuiltinVariables {
  uint3 thread_index;
  uint3 block_index;
  dim3 block_dim;
  dim3 grid_dim;
};
extern BuiltinVariables builtins;  // scheduler.cpp
}  // namespace tutorial::cpu
inline const uint3& threadIdx = ::tutorial::cpu::builtins.thread_index;
inline const uint3& blockIdx = ::tutorial::cpu::builtins.block_index;
inline const dim3& blockDim = ::tutorial::cpu::builtins.block_dim;
inline const dim3& gridDim = ::tutorial::cpu::builtins.grid_dim;
constexpr int warpSize = 32;

// Vector types with CUDA's sizes and alignments, and their make_ functions.
#define TUTORIAL_CPU_VECTOR_TYPES_(T, name, a2, a4)                                            \
  struct name##1 {                                                                             \
    T x;                                                                                       \
  };                                                                                           \
  struct alignas(a2) name##2 {                                                                 \
    T x, y;                                                                                    \
  };                                                                                           \
  struct name##3 {                                                                             \
    T x, y, z;                                                                                 \
  };                                                                                           \
  struct alignas(a4) name##4 {                                                                 \
    T x, y, z, w;                                                                              \
  };                                                                                           \
  inline constexpr name##1 make_##name##1(T x) { return {x}; }                                 \
  inline constexpr name##2 make_##name##2(T x, T y) { return {x, y}; }                         \
  inline constexpr name##3 make_##name##3(T x, T y, T z) { return {x, y, z}; }                 \
  inline constexpr name##4 make_##name##4(T x, T y, T z, T w) { return {x, y, z, w}; }

TUTORIAL_CPU_VECTOR_TYPES_(signed char, char, 2, 4)
TUTORIAL_CPU_VECTOR_TYPES_(unsigned char, uchar, 2, 4)
TUTORIAL_CPU_VECTOR_TYPES_(short, short, 4, 8)
TUTORIAL_CPU_VECTOR_TYPES_(unsigned short, ushort, 4, 8)
TUTORIAL_CPU_VECTOR_TYPES_(int, int, 8, 16)
TUTORIAL_CPU_VECTOR_TYPES_(long long, longlong, 16, 16)
TUTORIAL_CPU_VECTOR_TYPES_(unsigned long long, ulonglong, 16, 16)
#ifndef TUTORIAL_CPU_ANALYZE
TUTORIAL_CPU_VECTOR_TYPES_(float, float, 8, 16)
#else
// The memory model's build (clang; README.md, "The memory model"): float2 and float4 as clang vector
// types, so that a float4 load stays one 16-byte access instead of four 4-byte ones.
#include "common/cpu_backend/analyze/vector_types.hpp"
#endif
TUTORIAL_CPU_VECTOR_TYPES_(double, double, 16, 16)
#undef TUTORIAL_CPU_VECTOR_TYPES_
// uint3 is the built-in above (it has no alignment requirement); the other unsigned ones:
struct uint1 {
  unsigned int x;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
inline constexpr uint1 make_uint1(unsigned int x) { return {x}; }
inline constexpr uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
inline constexpr uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return {x, y, z}; }
inline constexpr uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
  return {x, y, z, w};
}

// ---------------------------------------------------------------------------------------
// The scheduler's entry points (common/cpu_backend/scheduler.cpp)
// ---------------------------------------------------------------------------------------

namespace tutorial::cpu {
// Suspends the calling CUDA thread until every live thread of its block has reached a barrier
// (threads that returned count as arrived). `file` and `line` name the barrier in the
// scheduler's diagnostics (threads that left before it). Outside a kernel: an error.
void syncthreads(const char* file, int line);
// The launch's dynamic shared memory (what `extern __shared__ T x[];` names).
void* dynamic_shared_memory();
// <cuda_pipeline.h>: copies are queued per thread and performed by __pipeline_wait_prior.
void pipeline_memcpy_async(void* dst, const void* src, size_t size_and_align, size_t zfill);
void pipeline_commit();
void pipeline_wait_prior(size_t prior);
// A device-side error (like a failed assert() in a kernel): prints the message with the
// block and thread, then aborts.
[[noreturn]] void device_error(const char* what);
}  // namespace tutorial::cpu

// ---------------------------------------------------------------------------------------
// Device functions
// ---------------------------------------------------------------------------------------

// The default arguments are the caller's file and line (as std::source_location's are), so a
// diagnostic can name the barrier the block's other threads wait at.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::tutorial::cpu::syncthreads(file, line);
}
// Fibers of a block never run at the same time, so ordering and fences are free.
inline void __threadfence_block() {}
inline void __threadfence() {}

// Read-only cache load, a load from L2 past L1 (written by another block) and a streaming
// (evict-first) load: plain loads here, where every block sees the one memory.
template <typename T>
inline T __ldg(const T* p) {
  return *p;
}
template <typename T>
inline T __ldcg(const T* p) {
  return *p;
}
template <typename T>
inline T __ldcs(const T* p) {
  return *p;
}

// CUDA's global min/max overloads (the tutorial's kernels may call them unqualified).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }

// Fast-math intrinsics: the exact functions (the results differ from the GPU's in the last
// bits, as the tolerance of every comparison allows).
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline int __float2int_rn(float x) { return int(nearbyintf(x)); }
inline int __mul24(int a, int b) { return a * b; }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return a * b; }

// Atomics: the threads of a block take turns on one OS thread and blocks run one after
// another, so a plain read-modify-write is atomic here.
template <typename T>
inline T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <typename T>
inline T atomicSub(T* p, T v) {
  const T old = *p;
  *p = old - v;
  return old;
}
template <typename T>
inline T atomicExch(T* p, T v) {
  const T old = *p;
  *p = v;
  return old;
}
template <typename T>
inline T atomicMin(T* p, T v) {
  const T old = *p;
  *p = v < old ? v : old;
  return old;
}
template <typename T>
inline T atomicMax(T* p, T v) {
  const T old = *p;
  *p = v > old ? v : old;
  return old;
}
template <typename T>
inline T atomicCAS(T* p, T compare, T v) {
  const T old = *p;
  if (old == compare) *p = v;
  return old;
}
