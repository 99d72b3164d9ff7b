# Build conventions shared by every target, and the one function that adds a chapter.

# The CPU backend (TUTORIAL_CPU_BACKEND, TUTORIAL_CPU_BACKEND_ENABLED, tutorial_add_cpu_tests).
include(${CMAKE_CURRENT_LIST_DIR}/../cpu_backend/cpu_backend.cmake)

# Warnings on, -lineinfo always (Nsight Compute and compute-sanitizer map SASS to source
# lines), spills always reported, full ptxas report one option away.
function(tutorial_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo -Xcompiler=-Wall,-Wextra -Xptxas=--warn-on-spills
                               --expt-relaxed-constexpr>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${TUTORIAL_PTXAS_VERBOSE}>>:-Xptxas=-v>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()

# Registers a Catch2 test binary with CTest, one process per TEST_CASE, labelled
# `<label>/host` or `<label>/gpu`. Test cases tagged [gpu] need a GPU; without one they exit
# with 77, which CTest reports as skipped.
# (One label per test: Catch's discovery cannot attach a list. Select a chapter with
# `ctest -L '^01_naive/'`, a kind with `ctest -L '/gpu$'`.)
function(tutorial_add_catch_tests target label)
  catch_discover_tests(${target} TEST_SPEC "[gpu]" TEST_PREFIX "${label}/gpu: "
                       PROPERTIES LABELS "${label}/gpu" SKIP_RETURN_CODE 77 TIMEOUT 600)
  catch_discover_tests(${target} TEST_SPEC "~[gpu]" TEST_PREFIX "${label}/host: "
                       PROPERTIES LABELS "${label}/host" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# tutorial_add_refusal_test(<target> <label> <what> <pattern> ARGS...)
# Runs <target> ARGS with every GPU hidden; passes when it exits 2 (kExitUsage: refused before
# any GPU is looked for, so a machine with one answers the same) and its output matches
# <pattern> (a grep -E regular expression).
function(tutorial_add_refusal_test target label what pattern)
  set(test_name "${label}/host: ${what}")
  add_test(NAME "${test_name}"
           COMMAND sh -c "out=\$(\"\$0\" \"\$@\" 2>&1); code=\$?; printf '%s\\n' \"\$out\"; \
[ \$code -eq 2 ] || { echo \"exit \$code, expected 2\"; exit 1; }; \
printf '%s\\n' \"\$out\" | grep -Eq '${pattern}'"
                   $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties("${test_name}" PROPERTIES LABELS "${label}/host" TIMEOUT 60
                                                 ENVIRONMENT "CUDA_VISIBLE_DEVICES=")
endfunction()

# tutorial_add_chapter(<name>)
#
# A chapter folder holds, by convention:
#   main.cu    the chapter executable         -> bin/<name>
#   tests.cu   its Catch2 tests               -> bin/<name>_tests (CTest label <name>)
#   bench.cu   its Google Benchmark file      -> bin/<name>_bench
# and its kernel headers. `chapter_<name>` builds the three (and bin/<name>_tests_cpu, the
# tests on the CPU backend, where it is enabled).
function(tutorial_add_chapter name)
  add_executable(${name} main.cu)
  target_link_libraries(${name} PRIVATE tutorial_common)
  tutorial_target_defaults(${name})

  add_executable(${name}_tests tests.cu)
  target_link_libraries(${name}_tests PRIVATE tutorial_common tutorial_test_main)
  tutorial_target_defaults(${name}_tests)
  tutorial_add_catch_tests(${name}_tests ${name})

  add_executable(${name}_bench bench.cu)
  target_link_libraries(${name}_bench PRIVATE tutorial_common tutorial_bench_main)
  tutorial_target_defaults(${name}_bench)
  # The benchmark names, listed with or without a GPU, so a student can pick a filter.
  add_test(NAME "${name}/host: bench --benchmark_list_tests lists the names"
           COMMAND ${name}_bench --benchmark_list_tests)
  set_tests_properties("${name}/host: bench --benchmark_list_tests lists the names"
                       PROPERTIES LABELS "${name}/host" TIMEOUT 60
                                  PASS_REGULAR_EXPRESSION "${name}/[^\n]+/[0-9]+")

  # What the executable refuses without a GPU: a size no kernel can index, and a --kernel
  # prefix that starts no kernel's name (the answer lists the names).
  tutorial_add_refusal_test(${name} ${name} "--size 100000 is refused before looking for a GPU"
                            "at most 2147483647 elements" --size 100000)
  tutorial_add_refusal_test(${name} ${name} "--kernel with no such kernel lists the kernels"
                            "the kernels are:" --kernel no-such-kernel)

  add_custom_target(chapter_${name} DEPENDS ${name} ${name}_tests ${name}_bench)

  # The same tests.cu on the CPU backend -> bin/<name>_tests_cpu (CTest label <name>/cpu).
  if(TUTORIAL_CPU_BACKEND_ENABLED)
    tutorial_add_cpu_tests(${name}_tests_cpu ${name} SOURCES tests.cu)
    add_dependencies(chapter_${name} ${name}_tests_cpu)
  endif()
  # The chapter's analyzer (`make analyze`; common/cpu_backend/analyze/, defined before the
  # chapters), which a test of the chapter's runs.
  if(TARGET ${name}_analyze)
    add_dependencies(chapter_${name} ${name}_analyze)
  endif()
endfunction()
