// The one launch point of the tutorial, CPU backend edition.
//
// The CPU build puts common/cpu_backend/include first on the include path, so every
// `#include "common/launch.cuh"` of a chapter lands here instead of on common/launch.cuh.
// Same interface, nearly the same checks: validate the geometry, refuse dynamic shared memory
// above the opt-in maximum (the GPU edition's fuller fit check, require_fit, needs the compiled
// kernel's registers and static shared memory, which the CPU does not have), run the kernel, check cudaGetLastError(), remember the configuration. "Run" means: the scheduler
// (common/cpu_backend/scheduler.cpp) calls the kernel once per CUDA thread, each thread a
// fiber, one block at a time, and returns when the grid is done.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "common/cpu_backend/scheduler.hpp"
#include "common/ceil_div.hpp"
#include "common/dependent_launch.cuh"
#include "common/launch_record.hpp"

namespace tutorial {

namespace cpu {
template <typename T>
bool launch_argument_ok(size_t index, const T& value) {
  if constexpr (std::is_pointer_v<T> && !std::is_function_v<std::remove_pointer_t<T>>)
    return kernel_pointer_argument(index, value);
  return true;
}
}  // namespace cpu

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t dynamic_smem,
            Args&&... args) {
  // CUDA copies kernel arguments bytewise; so does this launch, and no code of a class's
  // copy constructor runs beside the kernel (where the memory model would not look).
  static_assert((std::is_trivially_copyable_v<std::decay_t<Params>> && ...),
                "kernel parameters must be trivially copyable");
  validate_launch(grid, block);
  ensure_dynamic_smem(reinterpret_cast<const void*>(kernel), dynamic_smem);
  // The arguments, converted to the kernel's parameter types once, as the GPU's parameter
  // space holds them; every thread then gets its own copy, as it would in registers.
  const std::tuple<std::decay_t<Params>...> params(static_cast<Params>(args)...);
  // Pointer arguments must point at device memory (or be null): a kernel that got a host
  // pointer would compute into host memory, where on a GPU it faults.
  bool pointers_ok = true;
  std::apply([&](const auto&... p) {
    size_t index = 0;
    ((pointers_ok = pointers_ok && cpu::launch_argument_ok(index++, p)), ...);
  }, params);
  auto run_one_thread = [&] { std::apply(kernel, params); };
  if (pointers_ok)
    cpu::run_grid(reinterpret_cast<const void*>(kernel), grid, block, dynamic_smem,
                  cpu::ThreadBody{&run_one_thread, [](void* f) { (*static_cast<decltype(run_one_thread)*>(f))(); }});
  CUDA_CHECK(cudaGetLastError());
  record_launch(LaunchRecord{reinterpret_cast<const void*>(kernel), grid, block, dynamic_smem});
}

// The CPU runs one grid after another: a kernel launched "after" is a kernel launched.
template <typename... Params, typename... Args>
void launch_after(void (*kernel)(Params...), dim3 grid, dim3 block, size_t dynamic_smem,
                  Args&&... args) {
  launch(kernel, grid, block, dynamic_smem, std::forward<Args>(args)...);
}

}  // namespace tutorial
