// float2 and float4 for the memory model's build (clang only; included by cuda_shim.hpp when
// TUTORIAL_CPU_ANALYZE is defined).
//
// As plain structs, `float4 v = in4[i]` is a 16-byte memcpy that LLVM splits into four 4-byte
// loads (or leaves as a memcpy, which the sanitizer-coverage hooks do not see). As clang
// vector types it stays one 16-byte load, like nvcc's LDG.128, and the hook sees its width.
// Same size, alignment and members (.x .y .z .w) as CUDA's.
#pragma once

#if !defined(__clang__)
#error "the memory model's vector types need clang (ext_vector_type)"
#endif

struct float1 {
  float x;
};
typedef float float2 __attribute__((ext_vector_type(2)));
struct float3 {
  float x, y, z;
};
typedef float float4 __attribute__((ext_vector_type(4)));
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "CUDA's float2");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "CUDA's float4");

inline constexpr float1 make_float1(float x) { return {x}; }
inline constexpr float2 make_float2(float x, float y) { return float2{x, y}; }
inline constexpr float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline constexpr float4 make_float4(float x, float y, float z, float w) {
  return float4{x, y, z, w};
}
