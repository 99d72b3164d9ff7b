// Between the scheduler and the runtime of the CPU backend (not for chapters).
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace tutorial::cpu {

// What cudaGetLastError() returns next. The explanation, if any, goes to stderr at once:
// the runtime's error names are generic, the backend usually knows more.
void set_last_error(cudaError_t error, const std::string& explanation = "");  // counts a failure
void count_failure();  // failures(): scheduler.hpp

}  // namespace tutorial::cpu
