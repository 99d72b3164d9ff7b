// Chapter 06: the 16-byte accesses that steps 4 (vec4) and 6 (thin) make, and when the
// launchers may use them.
#pragma once

#include <cstdint>

namespace ch06 {

// The 16-byte accesses of the float4 kernels. `p` must be 16-byte aligned.
__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

// float4 needs every row start of `in` and `out` on a 16-byte boundary: both pointers
// aligned and both row lengths (cols for in, rows for out) multiples of 4 floats.
inline bool float4_aligned(const float* in, const float* out, int rows, int cols) {
  return rows % 4 == 0 && cols % 4 == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

}  // namespace ch06
