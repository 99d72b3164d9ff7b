// Chapter 06: the global accesses of steps 4 to 6: 16-byte accesses and when they are possible,
// and the loads of steps 5 and 6, which ask the L2 for the whole 128-byte line they fall in.
#pragma once

#include <cstdint>

namespace ch06 {

// The 16-byte accesses of the float4 kernels. `p` must be 16-byte aligned.
__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

// A warp's load asks the L2 for the 32-byte sectors it touches. The pieces of rows that steps 5
// and 6 read seldom start on a 128-byte line, so the rest of a line is asked for by another
// block or chunk, in a request of its own. The PTX prefetch-size hint `.L2::128B` asks the L2 to
// fetch 128 bytes with the access, the whole line; it gained step 5's tile where its input rows
// start off the lines (whole_lines.md says what it measured, and on which GPU). A hint: the loads
// return the same floats with or without it.
// `.nc` is the read-only path, right because no kernel writes the matrix it reads, which is also
// why the asm needs no "memory" clobber. Before sm_80, and on the CPU backend, these are plain
// loads. (The float2 loads of transpose_thin_regs are plain: not measured with the hint.)
// BEGIN QUOTE load-line
__device__ __forceinline__ float load1_line(const float* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float v;
  asm("ld.global.nc.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}
// END QUOTE load-line
__device__ __forceinline__ float4 load4_line(const float* p) {  // `p` 16-byte aligned
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float4 v;
  asm("ld.global.nc.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
#else
  return load4(p);
#endif
}

// float4 needs every row start of `in` and `out` on a 16-byte boundary: both pointers
// aligned and both row lengths (cols for in, rows for out) multiples of 4 floats.
inline bool float4_aligned(const float* in, const float* out, int rows, int cols) {
  return rows % 4 == 0 && cols % 4 == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

}  // namespace ch06
