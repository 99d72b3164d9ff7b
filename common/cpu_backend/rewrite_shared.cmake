# cmake -DSOURCE_ROOT=<repository> -DSHADOW_ROOT=<folder> -P rewrite_shared.cmake
#
# Two CUDA declarations have no macro spelling in C++, so the CPU build compiles a rewritten
# copy of the files that use them (same line numbers; a #line directive keeps the compiler's
# messages pointing at the original):
#
#   __shared__ alignas(16) float As[BK][BM];   ->  alignas(16) __shared__ float As[BK][BM];
#       (C++ wants the attribute before the storage class that __shared__ becomes)
#   extern __shared__ float4 smem[];           ->  float4* const smem = static_cast<float4*>(
#                                                      ::tutorial::cpu::dynamic_shared_memory());
#       (`extern` at block scope would name a global that nobody defines; here it becomes a
#        pointer to the launch's dynamic shared memory, which every valid use treats alike)
#
# The copies go to SHADOW_ROOT/<same relative path>, which the CPU build puts before the
# repository on the include path; every include in the tutorial is relative to the repository
# root, so `#include "05_double_buffer/kernels.cuh"` then finds the copy. Runs at every build
# (it only reads a few dozen files): a copy is rewritten only when its content changes, and
# removed when its original no longer needs it.
cmake_minimum_required(VERSION 3.22)

if(NOT SOURCE_ROOT OR NOT SHADOW_ROOT)
  message(FATAL_ERROR "usage: cmake -DSOURCE_ROOT=... -DSHADOW_ROOT=... -P rewrite_shared.cmake")
endif()

set(candidates "")
foreach(depth "*" "*/*" "*/*/*" "*/*/*/*" "*/*/*/*/*")
  foreach(ext cu cuh)
    file(GLOB found RELATIVE "${SOURCE_ROOT}" "${SOURCE_ROOT}/${depth}.${ext}")
    list(APPEND candidates ${found})
  endforeach()
endforeach()
list(FILTER candidates EXCLUDE REGEX "^(build|\\.git/)")

set(extern_shared
    "extern[ \t]+__shared__[ \t]+([^[;]*[^[; \t])[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\[[ \t]*\\][ \t]*;")
set(shared_then_attribute "__shared__([ \t]+)((alignas|__align__)[ \t]*\\([^)]*\\))")

set(wanted "")
foreach(relative IN LISTS candidates)
  file(READ "${SOURCE_ROOT}/${relative}" text)
  string(FIND "${text}" "__shared__" has_shared)
  if(has_shared EQUAL -1)
    continue()
  endif()
  set(original "${text}")

  while(TRUE)
    string(REGEX MATCH "${extern_shared}" declaration "${text}")
    if(NOT declaration)
      break()
    endif()
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    string(REGEX REPLACE "(alignas|__align__)[ \t]*\\([^)]*\\)" "" type "${type}")
    string(STRIP "${type}" type)
    set(replacement
        "${type}* const ${name} = static_cast<${type}*>(::tutorial::cpu::dynamic_shared_memory());")
    string(FIND "${text}" "${declaration}" at)
    string(LENGTH "${declaration}" length)
    string(SUBSTRING "${text}" 0 ${at} before)
    math(EXPR rest "${at} + ${length}")
    string(SUBSTRING "${text}" ${rest} -1 after)
    set(text "${before}${replacement}${after}")
  endwhile()
  string(REGEX REPLACE "${shared_then_attribute}" "\\2\\1__shared__" text "${text}")

  if(NOT text STREQUAL original)
    set(copy "${SHADOW_ROOT}/${relative}")
    set(content "#line 1 \"${SOURCE_ROOT}/${relative}\"\n${text}")
    set(old "")
    if(EXISTS "${copy}")
      file(READ "${copy}" old)
    endif()
    if(NOT old STREQUAL content)
      file(WRITE "${copy}" "${content}")
    endif()
    list(APPEND wanted "${relative}")
  endif()
endforeach()

# Copies whose original no longer needs rewriting (or is gone) must not shadow it any more.
file(GLOB_RECURSE existing RELATIVE "${SHADOW_ROOT}" "${SHADOW_ROOT}/*")
foreach(relative IN LISTS existing)
  if(NOT relative IN_LIST wanted)
    file(REMOVE "${SHADOW_ROOT}/${relative}")
  endif()
endforeach()
