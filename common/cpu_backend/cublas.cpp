// cuBLAS on the CPU (include/cublas_v2.h): the handle calls and SGEMM, which is the harness's
// blocked CPU GEMM (tutorial::cpu_gemm) for the layout common/reference.cpp uses and a plain
// loop for any other.
#include <cublas_v2.h>

#include <algorithm>
#include <cstddef>

#include "common/cpu_backend/guarded_memory.hpp"
#include "common/reference.hpp"

struct cublasContext {
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t) {
  return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float* alpha,
                           const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
  if (lda < std::max(1, ta ? k : m) || ldb < std::max(1, tb ? n : k) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  const tutorial::cpu::DeviceAccess open;  // "the GPU" computes: device memory is open
  if (!ta && !tb && *alpha == 1.0f && *beta == 0.0f && lda == m && ldb == k && ldc == m &&
      k > 0) {
    // The harness's call (tutorial::cublas_sgemm): a column-major m x n matrix is a row-major
    // n x m one, so C = A·B column-major is Cᵀ = Bᵀ·Aᵀ row-major: the blocked CPU GEMM.
    tutorial::cpu_gemm(B, A, C, n, m, k);
    return CUBLAS_STATUS_SUCCESS;
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int p = 0; p < k; ++p) {
        const float a = ta ? A[p + size_t(i) * lda] : A[i + size_t(p) * lda];
        const float b = tb ? B[j + size_t(p) * ldb] : B[p + size_t(j) * ldb];
        sum += double(a) * b;
      }
      float& c = C[i + size_t(j) * ldc];
      c = float(*alpha * sum + (*beta == 0.0f ? 0.0 : double(*beta) * c));
    }
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
