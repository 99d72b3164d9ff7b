// The CUDA runtime calls of common/, on the CPU (see include/cuda_runtime.h). cuBLAS is in
// cublas.cpp, so that a program can have the runtime without the reference GEMM (the exercise
// runners, exercises/support/).
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "common/cpu_backend/guarded_memory.hpp"
#include "common/cpu_backend/runtime_internal.hpp"
#include "common/cpu_backend/scheduler.hpp"
#include "common/cpu_backend/size_cap.hpp"

struct CUevent_st {
  std::chrono::steady_clock::time_point time;
  bool recorded = false;
};

namespace tutorial::cpu {

namespace {
cudaError_t g_last_error = cudaSuccess;

// The limits of an H100's SM, so that the occupancy arithmetic of common/ has real numbers
// to work with; what the "device" really is, its name says.
constexpr size_t kMaxSmemPerBlockOptin = 227 * 1024;

// The SM count the backend reports: 1 (it runs one block at a time), or TUTORIAL_CPU_SM_COUNT,
// so that a launcher that plans by the SM count (chapter 05's split-K and stream-K) makes the
// plan it would make on a given GPU (`make analyze ANALYZE_SMS=132`, common/INSPECT.md).
int sm_count() {
  const char* text = std::getenv("TUTORIAL_CPU_SM_COUNT");
  const int sms = text ? std::atoi(text) : 1;
  return sms >= 1 ? sms : 1;
}

cudaError_t fail(cudaError_t error, const std::string& explanation) {
  set_last_error(error, explanation);
  return error;
}

// Every runtime call returns its error and also leaves it for cudaGetLastError(), as the
// real runtime does for most errors.
cudaError_t result(cudaError_t error) {
  if (error != cudaSuccess) {
    g_last_error = error;
    count_failure();
  }
  return error;
}

const char* memcpy_kind_name(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
  }
  return "?";
}

std::string pointer_text(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

cudaError_t copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (bytes == 0) return cudaSuccess;
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) {
    // Unified addressing: whatever each pointer is.
  } else if (dst_device && !is_device_range(dst, bytes)) {
    return fail(cudaErrorInvalidValue, std::string(memcpy_kind_name(kind)) + " of " +
                                           std::to_string(bytes) + " bytes: the destination " +
                                           pointer_text(dst) +
                                           " is not inside one device allocation");
  } else if (src_device && !is_device_range(src, bytes)) {
    return fail(cudaErrorInvalidValue, std::string(memcpy_kind_name(kind)) + " of " +
                                           std::to_string(bytes) + " bytes: the source " +
                                           pointer_text(src) +
                                           " is not inside one device allocation");
  }
  const DeviceAccess open;  // the backend's own copy: device memory is closed to host code
  copy_bytes(dst, src, bytes);  // never the C library's memmove (guarded_memory.hpp)
  return cudaSuccess;
}
}  // namespace

uint64_t g_failures = 0;
uint64_t failures() { return g_failures; }
void count_failure() { ++g_failures; }

void set_last_error(cudaError_t error, const std::string& explanation) {
  ++g_failures;
  g_last_error = error;
  if (!explanation.empty()) std::fprintf(stderr, "CPU backend: %s\n", explanation.c_str());
}

}  // namespace tutorial::cpu

using namespace tutorial::cpu;

extern "C" {

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported:
      return "operation not supported (the CPU backend has no GPU hardware to ask)";
  }
  return "unknown error";
}

cudaError_t cudaGetLastError(void) { return std::exchange(g_last_error, cudaSuccess); }
cudaError_t cudaPeekAtLastError(void) { return g_last_error; }

// ---------------------------------------------------------------------------------------
// The device: the CPU backend itself
// ---------------------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : result(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (device != 0) return result(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "CPU backend (no GPU; H100-like SM limits)");
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  p->totalGlobalMem = size_t(sysconf(_SC_PHYS_PAGES)) * page;
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = sm_count();
  p->memoryBusWidth = 64;
  p->l2CacheSize = 0;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->sharedMemPerBlockOptin = kMaxSmemPerBlockOptin;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return result(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; return cudaSuccess;
    case cudaDevAttrClockRate: *value = 1000000; return cudaSuccess;         // kHz, nominal
    case cudaDevAttrMultiProcessorCount: *value = sm_count(); return cudaSuccess;
    case cudaDevAttrMemoryClockRate: *value = 1000000; return cudaSuccess;   // kHz, nominal
    case cudaDevAttrGlobalMemoryBusWidth: *value = 64; return cudaSuccess;
    case cudaDevAttrL2CacheSize: *value = 0; return cudaSuccess;
  }
  return result(cudaErrorInvalidValue);
}

// 0: there is no CUDA driver or runtime behind this backend.
cudaError_t cudaDriverGetVersion(int* version) {
  *version = 0;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = 0;
  return cudaSuccess;
}

// Launches run to completion before they return: there is nothing to wait for.
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceReset(void) { return cudaSuccess; }

// ---------------------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  ensure_fault_handler();  // host code that touches device memory is told why it faulted
  *ptr = guarded_alloc(bytes);
  return *ptr ? cudaSuccess : result(cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr || guarded_free(ptr)) return cudaSuccess;
  return fail(cudaErrorInvalidValue,
              "cudaFree(" + pointer_text(ptr) + "): not the start of a device allocation");
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  *total_bytes = size_t(sysconf(_SC_PHYS_PAGES)) * page;
  *free_bytes = size_t(sysconf(_SC_AVPHYS_PAGES)) * page;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  return copy(dst, src, bytes, kind);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  return copy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  if (!is_device_range(ptr, bytes))
    return fail(cudaErrorInvalidValue, "cudaMemset of " + std::to_string(bytes) + " bytes at " +
                                           pointer_text(ptr) +
                                           ": not inside one device allocation");
  const DeviceAccess open;
  fill_bytes(ptr, static_cast<unsigned char>(value), bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t) {
  return cudaMemset(ptr, value, bytes);
}

// ---------------------------------------------------------------------------------------
// Events: the host clock (the work between two records has finished when the second is
// recorded, since launches are synchronous here)
// ---------------------------------------------------------------------------------------

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (!event) return result(cudaErrorInvalidResourceHandle);
  event->time = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : result(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!start || !end || !start->recorded || !end->recorded)
    return result(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return cudaSuccess;
}

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;  // a hint
  if (value < 0 || size_t(value) > kMaxSmemPerBlockOptin)
    return fail(cudaErrorInvalidValue,
                "cudaFuncSetAttribute(MaxDynamicSharedMemorySize, " + std::to_string(value) +
                    "): the limit is " + std::to_string(kMaxSmemPerBlockOptin) + " bytes");
  set_max_dynamic_smem(func, size_t(value));
  return cudaSuccess;
}

// Registers per thread and the compiled shared memory size exist only for a GPU build.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void*) {
  *attr = cudaFuncAttributes{};
  return fail(cudaErrorNotSupported,
              "cudaFuncGetAttributes: registers and static shared memory of a kernel exist only "
              "in a GPU build (tests that need them use REQUIRE_REAL_GPU())");
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void*, int,
                                                          size_t) {
  *blocks = 0;
  return fail(cudaErrorNotSupported,
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor: the CPU backend has no SM to ask "
              "(tests that need it use REQUIRE_REAL_GPU())");
}

}  // extern "C"

// ---------------------------------------------------------------------------------------
// Size cap of the harness's checks (size_cap.hpp)
// ---------------------------------------------------------------------------------------

namespace tutorial::cpu {

namespace {
int scaled(int d) { return d > 256 ? 128 + d % 128 : d; }
}  // namespace

bool scale_down_gemm(int& M, int& N, int& K) {
  if (double(M) * N * K <= kMaxGemmMultiplyAdds) return false;
  std::fprintf(stderr,
               "CPU backend: checking M=%d N=%d K=%d at M=%d N=%d K=%d (dimensions above 256 "
               "shrink to 128 + their remainder mod 128; see common/cpu_backend/size_cap.hpp)\n",
               M, N, K, scaled(M), scaled(N), scaled(K));
  M = scaled(M);
  N = scaled(N);
  K = scaled(K);
  return true;
}

bool scale_down_transpose(int& rows, int& cols) {
  if (double(rows) * cols <= kMaxTransposeElements) return false;
  std::fprintf(stderr,
               "CPU backend: checking the transpose of %d x %d at %d x %d (dimensions above 256 "
               "shrink to 128 + their remainder mod 128; see common/cpu_backend/size_cap.hpp)\n",
               rows, cols, scaled(rows), scaled(cols));
  rows = scaled(rows);
  cols = scaled(cols);
  return true;
}

}  // namespace tutorial::cpu
