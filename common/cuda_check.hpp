// Error checking for every CUDA runtime and cuBLAS call in the tutorial.
//
// A failing call throws tutorial::CudaError whose message names the call as written,
// the file:line and the runtime's own error string. Library code never calls exit():
// the chapter executables catch the exception in main() and exit non-zero.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tutorial {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Sizes or flags a kernel cannot handle (e.g. chapter 02 needs multiples of the tile).
struct UnsupportedShape : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A block that needs more than this GPU allows one block to have (shared memory, registers,
// threads): tutorial::launch refuses it before launching, naming the limit. An
// UnsupportedShape, so the chapter tables and benchmarks show the kernel as skipped with the
// reason, as they do for a size it refuses; the tests skip it (common/gemm_test.hpp).
struct KernelDoesNotFit : UnsupportedShape {
  using UnsupportedShape::UnsupportedShape;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);
const char* cublas_status_name(cublasStatus_t status);

}  // namespace tutorial

// Never compiled out: a silent failure costs students far more than the check.
#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    const cudaError_t tutorial_err_ = (call);                                     \
    if (tutorial_err_ != cudaSuccess)                                             \
      ::tutorial::throw_cuda_error(tutorial_err_, #call, __FILE__, __LINE__);     \
  } while (0)

#define CUBLAS_CHECK(call)                                                        \
  do {                                                                            \
    const cublasStatus_t tutorial_status_ = (call);                               \
    if (tutorial_status_ != CUBLAS_STATUS_SUCCESS)                                \
      ::tutorial::throw_cublas_error(tutorial_status_, #call, __FILE__, __LINE__); \
  } while (0)
