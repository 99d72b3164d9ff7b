#include "common/cuda_check.hpp"

#include <sstream>

namespace tutorial {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << "CUDA error at " << file << ":" << line << ": " << call << " failed with "
      << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ")";
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    msg << ". Is an NVIDIA GPU with a working driver present? (nvidia-smi)";
  if (err == cudaErrorMemoryAllocation) msg << ". The GPU is out of memory: try a smaller size.";
  throw CudaError(msg.str());
}

const char* cublas_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
  }
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << "cuBLAS error at " << file << ":" << line << ": " << call << " failed with "
      << cublas_status_name(status);
  throw CudaError(msg.str());
}

}  // namespace tutorial
