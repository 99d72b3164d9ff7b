// 16-byte global loads and stores with bounds, for kernels that read and write float4
// (chapter 04's vectorized_gemm and everything after it). A kernel takes VEC as a template
// parameter and its launcher picks VEC = true only when rows_are_16_byte_aligned(): the
// same kernel source then serves every shape, with 4-byte accesses where 16 are not allowed.
// From chapter 05's step 6 on, A's width and B's and C's are chosen apart (vec_operands).
#pragma once

#include <cstdint>
#include <type_traits>

namespace tutorial {

// Reads M[row][col .. col+3] of a rows x cols row-major matrix, zero where outside it.
// VEC: one 16-byte load. The caller guarantees cols % 4 == 0 and col % 4 == 0 (so the four
// floats are all inside or all outside) and a 16-byte-aligned base pointer.
template <bool VEC>
__device__ __forceinline__ float4 load_float4(const float* __restrict__ M, int row, int col,
                                              int rows, int cols) {
  if (VEC) {
    if (row < rows && col < cols) return *reinterpret_cast<const float4*>(&M[row * cols + col]);
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  if (row >= rows) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float* p = M + row * cols + col;
  return make_float4(col + 0 < cols ? p[0] : 0.0f, col + 1 < cols ? p[1] : 0.0f,
                     col + 2 < cols ? p[2] : 0.0f, col + 3 < cols ? p[3] : 0.0f);
}

// Four consecutive floats of a row, p[0 .. 3], zero from index `inside` on (inside <= 0: none):
// the load of kernels whose rows do not start on 16 bytes. PAIRS: they start on 8 (p is 8-byte
// aligned and `inside` is even or >= 4, so each pair is wholly inside or outside), and two 8-byte
// loads read the four floats where four 4-byte loads would (half the load instructions, and a
// warp's requests half as many; chapter 05's lab/LOG.md, "8-byte pairs").
__device__ __forceinline__ float4 load_4_floats(const float* __restrict__ p, int inside,
                                                bool pairs) {
  if (pairs) {
    const float2 lo = 0 < inside ? *reinterpret_cast<const float2*>(p) : make_float2(0.0f, 0.0f);
    const float2 hi =
        2 < inside ? *reinterpret_cast<const float2*>(p + 2) : make_float2(0.0f, 0.0f);
    return make_float4(lo.x, lo.y, hi.x, hi.y);
  }
  return make_float4(0 < inside ? p[0] : 0.0f, 1 < inside ? p[1] : 0.0f,
                     2 < inside ? p[2] : 0.0f, 3 < inside ? p[3] : 0.0f);
}

// Whether 8-byte accesses may start at p (a kernel asks this of its own arguments).
__host__ __device__ inline bool starts_on_8_bytes(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 8 == 0;
}

// Writes v to M[row][col .. col+3], skipping what lies outside the matrix (same VEC contract).
template <bool VEC>
__device__ __forceinline__ void store_float4(float* __restrict__ M, int row, int col, int rows,
                                             int cols, float4 v) {
  if (row >= rows) return;
  float* p = M + row * cols + col;
  if (VEC) {
    if (col < cols) *reinterpret_cast<float4*>(p) = v;
    return;
  }
  if (col + 0 < cols) p[0] = v.x;
  if (col + 1 < cols) p[1] = v.y;
  if (col + 2 < cols) p[2] = v.z;
  if (col + 3 < cols) p[3] = v.w;
}

// Where float4 loads and stores may start.
inline bool starts_on_16_bytes(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// 16-byte accesses need every row of A, B and C to start on a 16-byte boundary.
inline bool rows_are_16_byte_aligned(const float* A, const float* B, const float* C, int N,
                                     int K) {
  return K % 4 == 0 && N % 4 == 0 && starts_on_16_bytes(A) && starts_on_16_bytes(B) &&
         starts_on_16_bytes(C);
}

// The launchers' choice between a kernel's two variants, written once:
//     if (rows_are_16_byte_aligned(A, B, C, N, K)) launch_vec(std::true_type{});
//     else                                          launch_vec(std::false_type{});
// where launch_vec(vec) launches kernel<..., decltype(vec)::value>.
template <typename LaunchVec>
void dispatch_vec(const float* A, const float* B, const float* C, int N, int K,
                                   LaunchVec launch_vec) {
  if (rows_are_16_byte_aligned(A, B, C, N, K))
    launch_vec(std::true_type{});
  else
    launch_vec(std::false_type{});
}

// Each operand's own choice (chapter 05, step 6 on): A's rows are K floats long, B's and C's N.
// With K % 4 == 0 A can be read 16 bytes at a time even when N % 4 != 0 (B and C 4 bytes at a
// time), and the other way round: one odd dimension costs float4 to one side only.
// Where an operand is not 16 bytes wide, its rows may still start on 8 bytes: pairsA / pairsB say
// so, for a plan's key (chapter 05's 8 x 4-lane tiles then move them 8 bytes at a time, by
// load_4_floats or by cp.async, deciding that in the kernel; dispatch_vec_operands does not
// need it).
struct VecOperands {
  bool a = true;         // A's loads
  bool bc = true;        // B's loads and C's stores
  bool pairsA = false;   // !a, and A's loads go in 8-byte pairs (K even, A on 8 bytes)
  bool pairsB = false;   // !bc, and B's rows move in 8-byte pairs (N even, B on 8 bytes)
  constexpr VecOperands(bool both = true) : a(both), bc(both) {}
  constexpr VecOperands(bool a_, bool bc_, bool pairsA_ = false, bool pairsB_ = false)
      : a(a_), bc(bc_), pairsA(!a_ && pairsA_), pairsB(!bc_ && pairsB_) {}
  constexpr bool both() const { return a && bc; }
  constexpr bool operator==(const VecOperands& o) const {
    return a == o.a && bc == o.bc && pairsA == o.pairsA && pairsB == o.pairsB;
  }
};

inline VecOperands vec_operands(const float* A, const float* B, const float* C, int N, int K) {
  return {K % 4 == 0 && starts_on_16_bytes(A),
          N % 4 == 0 && starts_on_16_bytes(B) && starts_on_16_bytes(C),
          K % 2 == 0 && starts_on_8_bytes(A), N % 2 == 0 && starts_on_8_bytes(B)};
}

// dispatch_vec with one choice per operand: launch_vec(vecA, vecBC) with std::true_type or
// std::false_type for each, from vec_operands().
template <typename LaunchVec>
void dispatch_vec_operands(const float* A, const float* B, const float* C, int N, int K,
                           LaunchVec launch_vec) {
  const VecOperands v = vec_operands(A, B, C, N, K);
  if (v.a) {
    if (v.bc) launch_vec(std::true_type{}, std::true_type{});
    else      launch_vec(std::true_type{}, std::false_type{});
  } else {
    if (v.bc) launch_vec(std::false_type{}, std::true_type{});
    else      launch_vec(std::false_type{}, std::false_type{});
  }
}

}  // namespace tutorial
