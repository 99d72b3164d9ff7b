// The two references every GEMM is checked against: a CPU GEMM and cuBLAS SGEMM.
// All matrices are row-major: A is M×K, B is K×N, C is M×N, and C = A·B.
#pragma once

#include <cublas_v2.h>

namespace tutorial {

// Blocked and multi-threaded; checks 1024³ in well under a few seconds on two cores.
void cpu_gemm(const float* A, const float* B, float* C, int M, int N, int K);

// Owns a cuBLAS handle set to plain FP32 math (no TF32 tensor cores), so that cuBLAS is the
// same-arithmetic ceiling the chapters race against.
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// Row-major C = A·B through column-major cuBLAS: a row-major matrix is its transpose in
// column-major order, so we ask cuBLAS for Cᵀ = Bᵀ·Aᵀ, i.e. swap the operands and M/N.
void cublas_sgemm(cublasHandle_t handle, const float* A, const float* B, float* C, int M, int N,
                  int K);

}  // namespace tutorial
