# The CPU backend: the same kernel and test sources compiled by the host C++ compiler, run on
# the CPU (see common/cpu_backend/README.md).
#
#   -DTUTORIAL_CPU_BACKEND=AUTO  (default) build and register the CPU-backend tests when no GPU
#                                is found at configure time
#   -DTUTORIAL_CPU_BACKEND=ON    always (e.g. on a GPU machine, to check the backend itself)
#   -DTUTORIAL_CPU_BACKEND=OFF   never
#
# When enabled, every chapter's tests.cu is also built into bin/<chapter>_tests_cpu and its
# [gpu] test cases are registered with CTest under the label <chapter>/cpu.
set(TUTORIAL_CPU_BACKEND AUTO CACHE STRING
    "Build and run the kernel tests on the CPU backend: AUTO (when no GPU is found), ON or OFF")
set_property(CACHE TUTORIAL_CPU_BACKEND PROPERTY STRINGS AUTO ON OFF)

set(TUTORIAL_CPU_BACKEND_DIR ${CMAKE_CURRENT_LIST_DIR})
set(TUTORIAL_CPU_SHADOW_DIR ${CMAKE_BINARY_DIR}/cpu_backend/shadow)

function(tutorial_cpu_backend_decide)
  set(TUTORIAL_CPU_BACKEND_ENABLED OFF PARENT_SCOPE)
  if(TUTORIAL_CPU_BACKEND STREQUAL "OFF")
    return()
  endif()
  if(TUTORIAL_CPU_BACKEND STREQUAL "AUTO")
    find_program(TUTORIAL_NVIDIA_SMI_FOR_CPU_BACKEND nvidia-smi)
    if(TUTORIAL_NVIDIA_SMI_FOR_CPU_BACKEND)
      execute_process(COMMAND ${TUTORIAL_NVIDIA_SMI_FOR_CPU_BACKEND} -L OUTPUT_VARIABLE gpus
                      RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
      if(rc EQUAL 0 AND gpus MATCHES "GPU [0-9]")
        message(STATUS "CPU backend: off, a GPU is present (-DTUTORIAL_CPU_BACKEND=ON runs the "
                       "kernel tests on the CPU as well)")
        return()
      endif()
    endif()
  endif()
  find_package(boost_context 1.66 CONFIG QUIET)
  if(NOT TARGET Boost::context)
    if(TUTORIAL_CPU_BACKEND STREQUAL "ON")
      message(FATAL_ERROR "The CPU backend needs Boost.Context: `make deps`, or "
                          "sudo apt-get install libboost-context-dev")
    endif()
    message(WARNING "No GPU and no Boost.Context: the kernel tests cannot run on the CPU "
                    "backend either (`make deps` installs libboost-context-dev)")
    return()
  endif()
  message(STATUS "CPU backend: on, the kernel tests also run on the CPU (labels <chapter>/cpu)")
  set(TUTORIAL_CPU_BACKEND_ENABLED ON PARENT_SCOPE)
endfunction()
tutorial_cpu_backend_decide()

# Compile options of every target built for the CPU backend: the CUDA shim force-included (as
# nvcc includes its runtime header implicitly), the backend's cuda_runtime.h, cublas_v2.h,
# cuda_pipeline.h and common/launch.cuh ahead of everything, then the rewritten copies of the
# files that need it (rewrite_shared.cmake), then the repository.
function(tutorial_cpu_target_defaults target)
  target_compile_options(${target} PRIVATE
    -include ${TUTORIAL_CPU_BACKEND_DIR}/cuda_shim.hpp
    -Wall -Wextra
    -Wno-unknown-pragmas     # #pragma unroll is nvcc's
    -Wno-unused-parameter)   # nvcc does not warn about device code's unused parameters
  target_include_directories(${target} BEFORE PRIVATE ${TUTORIAL_CPU_BACKEND_DIR}/include
                                                      ${TUTORIAL_CPU_SHADOW_DIR})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  add_dependencies(${target} tutorial_cpu_shadow)
endfunction()

# The C++ translation units of a CPU-backend target: .cu files through a one-line wrapper
# that includes them by their path from the repository root (so a rewritten copy, if any,
# is the one found); .cpp files as they are.
function(tutorial_cpu_sources out_var target)
  set(result "")
  foreach(source IN LISTS ARGN)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT path MATCHES "\\.cu$")
      list(APPEND result "${path}")
      continue()
    endif()
    file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}" "${path}")
    if(relative MATCHES "^\\.\\./")
      set(relative "${path}")  # outside the repository: compiled as it is
    endif()
    string(MAKE_C_IDENTIFIER "${relative}" stem)
    set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/${target}_sources/${stem}.cpp")
    file(CONFIGURE OUTPUT "${wrapper}"
         CONTENT "// ${relative} compiled as C++ for the CPU backend.\n#include \"${relative}\"\n")
    list(APPEND result "${wrapper}")
  endforeach()
  set(${out_var} ${result} PARENT_SCOPE)
endfunction()

# tutorial_add_cpu_library(<name> SOURCES <files...> [LINK <targets...>])
#   A static library of the given sources built for the CPU backend, e.g. the CPU twin of a
#   support library that links tutorial_common.
function(tutorial_add_cpu_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  tutorial_cpu_sources(sources ${name} ${ARG_SOURCES})
  add_library(${name} STATIC ${sources})
  target_link_libraries(${name} PUBLIC tutorial_common_cpu ${ARG_LINK})
  tutorial_cpu_target_defaults(${name})
endfunction()

# tutorial_add_cpu_tests(<target> <label> SOURCES <files...> [LINK <targets...>] [ALL_TESTS]
#                        [NO_CTEST])
#   A Catch2 test binary built for the CPU backend. Its [gpu] test cases (all of them with
#   ALL_TESTS) are registered with CTest as "<label>/cpu: <name>", label <label>/cpu, unless
#   NO_CTEST (the exercises register nothing: their stubs fail by design).
function(tutorial_add_cpu_tests target label)
  cmake_parse_arguments(ARG "ALL_TESTS;NO_CTEST" "" "SOURCES;LINK" ${ARGN})
  tutorial_cpu_sources(sources ${target} ${ARG_SOURCES})
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE ${ARG_LINK} tutorial_common_cpu tutorial_test_main_cpu)
  tutorial_cpu_target_defaults(${target})
  # Exported symbols let the fault handler name the kernel (dladdr).
  set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
  if(ARG_ALL_TESTS)
    catch_discover_tests(${target} TEST_PREFIX "${label}/cpu: "
                         PROPERTIES LABELS "${label}/cpu" SKIP_RETURN_CODE 77 TIMEOUT 600)
  elseif(NOT ARG_NO_CTEST)
    catch_discover_tests(${target} TEST_SPEC "[gpu]" TEST_PREFIX "${label}/cpu: "
                         PROPERTIES LABELS "${label}/cpu" SKIP_RETURN_CODE 77 TIMEOUT 600)
  endif()
endfunction()
