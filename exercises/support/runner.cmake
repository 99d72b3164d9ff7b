# How a student's file becomes a runner (see entry.hpp): used by the repository's build
# (exercises/CMakeLists.txt: the runners of the files in this work tree) and by the grader's
# per-submission build (student_project/CMakeLists.txt), so both compile the same way.
#
# exercise_add_runner(<exercise> ROOT <dir> REL <dir in ROOT> KIND gpu|host
#                     INCLUDE <interface headers> [CPU_INCLUDE <CPU backend headers>]
#                     GPU_LIB <lib> [CPU_LIB <lib>] HOST_LIB <lib> [CPU_TWIN] [SHADOW <dir>]
#                     [MODEL_TWIN MODEL_LIB <lib> MODEL_CXX <clang++> MODEL_FLAGS <flags...>])
#
#   ROOT/REL/entry.cu (or entry.cpp) includes the student's file(s) beside it. The translation
#   unit sees ROOT and INCLUDE only (plus the compiler's own headers): not the repository, so
#   the chapters' kernels, the references and the solutions are out of reach.
#   -> <exercise>_runner            GPU exercises: nvcc; host exercises: the C++ compiler
#   -> <exercise>_runner_cpu        with CPU_TWIN: the same entry on the CPU backend
#   -> <exercise>_runner_model      with MODEL_TWIN as well: the same entry compiled by clang
#                                   with the memory model's load/store hooks (MODEL_FLAGS, from
#                                   common/cpu_backend/analyze/CMakeLists.txt), linked with the
#                                   model's runner library; it answers the model_* calls.
#                                   The translation unit is preprocessed first (entry.ii beside
#                                   the object), then turned into LLVM IR with the hooks
#                                   (entry.ll), then compiled from that IR, so that the grader
#                                   reads exactly what was compiled (toolchain.py, objects.py).
#
# The runner libraries are linked whole, and before the student's object: from a plain
# archive the linker would take only the members that define a symbol still missing, so a
# student file that defined, say, the function writing results would silently replace that
# member; linked whole, every member is in, and a second strong definition is a link error.
# And where both define the same inline function or template instance (a COMDAT group: the
# string functions, say, or an inline function of the kit's headers), the linker keeps the
# first copy it reads: the runner library's, so that a student file cannot replace one with a
# body of its own. (What a student's object may define at all, the grader checks after the
# build: gradelib/objects.py, defined_symbol_problems.) The link options come before the
# objects on CMake's link line; the library is also linked the usual way for its own
# dependencies (Boost.Context, threads), which adds nothing more from it.
function(exercise_link_whole target lib)
  target_link_options(${target} PRIVATE
    "SHELL:-Wl,--whole-archive $<TARGET_FILE:${lib}> -Wl,--no-whole-archive")
  target_link_libraries(${target} PRIVATE ${lib})
endfunction()

# The grader's per-submission build (EXERCISE_SCAN_TEMPS) keeps what each compiler compiled
# after the preprocessor, for the grader's scans (gradelib/objects.py, preprocessed_problems):
# g++'s and clang's .ii beside the object, nvcc's host and device passes under keep/. The
# repository's own build has no need of them (and ccache would not cache those compiles).
function(exercise_keep_preprocessed target language)
  if(NOT EXERCISE_SCAN_TEMPS)
    return()
  endif()
  if(language STREQUAL "CUDA")
    set(keep "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.dir/keep")
    file(MAKE_DIRECTORY "${keep}")
    target_compile_options(${target} PRIVATE --keep "--keep-dir=${keep}")
  else()
    target_compile_options(${target} PRIVATE -save-temps=obj)
  endif()
endfunction()

function(exercise_add_runner exercise)
  cmake_parse_arguments(ARG "CPU_TWIN;MODEL_TWIN"
                        "ROOT;REL;KIND;INCLUDE;CPU_INCLUDE;GPU_LIB;CPU_LIB;HOST_LIB;SHADOW;MODEL_LIB;MODEL_CXX"
                        "MODEL_FLAGS" ${ARGN})
  set(dir "${ARG_ROOT}/${ARG_REL}")
  if(ARG_KIND STREQUAL "host")
    add_executable(${exercise}_runner "${dir}/entry.cpp")
    target_include_directories(${exercise}_runner PRIVATE "${ARG_ROOT}" "${ARG_INCLUDE}")
    target_compile_options(${exercise}_runner PRIVATE -Wall -Wextra)
    exercise_link_whole(${exercise}_runner ${ARG_HOST_LIB})
    return()
  endif()

  add_executable(${exercise}_runner "${dir}/entry.cu")
  target_include_directories(${exercise}_runner PRIVATE "${ARG_ROOT}" "${ARG_INCLUDE}")
  target_compile_options(${exercise}_runner PRIVATE
    -lineinfo -Xcompiler=-Wall,-Wextra -Xptxas=--warn-on-spills --expt-relaxed-constexpr)
  exercise_keep_preprocessed(${exercise}_runner CUDA)
  exercise_link_whole(${exercise}_runner ${ARG_GPU_LIB})
  if(NOT ARG_CPU_TWIN)
    return()
  endif()

  # The CPU backend (common/cpu_backend/README.md): the entry compiled as C++ through a
  # one-line wrapper, after the two source rewrites of rewrite_shared.cmake (into SHADOW,
  # which comes before ROOT on the include path).
  set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/${exercise}_cpu_entry.cpp")
  file(CONFIGURE OUTPUT "${wrapper}"
       CONTENT "// ${ARG_REL}/entry.cu, compiled as C++ for the CPU backend.\n#include \"${ARG_REL}/entry.cu\"\n")
  if(NOT TARGET exercise_cpu_shadow)  # one for the whole ROOT
    add_custom_target(exercise_cpu_shadow
      COMMAND ${CMAKE_COMMAND} -DSOURCE_ROOT=${ARG_ROOT} -DSHADOW_ROOT=${ARG_SHADOW}
              -P ${ARG_CPU_INCLUDE}/rewrite_shared.cmake
      VERBATIM)
  endif()
  add_executable(${exercise}_runner_cpu "${wrapper}")
  add_dependencies(${exercise}_runner_cpu exercise_cpu_shadow)
  target_compile_options(${exercise}_runner_cpu PRIVATE
    -include "${ARG_CPU_INCLUDE}/common/cpu_backend/cuda_shim.hpp"
    -Wall -Wextra -Wno-unknown-pragmas -Wno-unused-parameter)
  target_include_directories(${exercise}_runner_cpu BEFORE PRIVATE
    "${ARG_CPU_INCLUDE}/first" "${ARG_SHADOW}" "${ARG_ROOT}" "${ARG_INCLUDE}" "${ARG_CPU_INCLUDE}")
  # Exported symbols let the CPU backend's fault handler name the kernel (dladdr).
  set_target_properties(${exercise}_runner_cpu PROPERTIES ENABLE_EXPORTS ON)
  exercise_keep_preprocessed(${exercise}_runner_cpu CXX)
  exercise_link_whole(${exercise}_runner_cpu ${ARG_CPU_LIB})
  if(EXERCISE_SCAN_TEMPS)
    # The grader's build compiles the student's file with g++ for the CPU backend first, and
    # with nvcc (and clang, below) only once that passed: a file that fails, or holds a
    # compile-time bomb that the grader stops at its CPU limit, costs one compile, not three.
    add_dependencies(${exercise}_runner ${exercise}_runner_cpu)
    # Every macro defined at the end of the CPU build's translation unit (-dM): the grader
    # refuses a student file that uses one that pastes or stringizes tokens (objects.py).
    set(macros "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${exercise}_runner_cpu.dir/macros.h")
    add_custom_command(
      OUTPUT "${macros}"
      COMMAND ${CMAKE_CXX_COMPILER} -E -dM
              -include "${ARG_CPU_INCLUDE}/common/cpu_backend/cuda_shim.hpp"
              -I${ARG_CPU_INCLUDE}/first -I${ARG_SHADOW} -I${ARG_ROOT} -I${ARG_INCLUDE}
              -I${ARG_CPU_INCLUDE} "${wrapper}" -o "${macros}"
      DEPENDS "${wrapper}"
      VERBATIM)
    add_custom_target(${exercise}_macros DEPENDS "${macros}")
    add_dependencies(${exercise}_macros exercise_cpu_shadow)
    add_dependencies(${exercise}_runner_cpu ${exercise}_macros)
  endif()

  if(NOT ARG_MODEL_TWIN)
    return()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${exercise}_runner_model.dir")
  set(object "${dir}/entry.o")
  set(includes -include "${ARG_CPU_INCLUDE}/common/cpu_backend/cuda_shim.hpp"
               -I${ARG_CPU_INCLUDE}/first -I${ARG_SHADOW} -I${ARG_ROOT} -I${ARG_INCLUDE}
               -I${ARG_CPU_INCLUDE})
  # Preprocessed (entry.ii), then optimized with the hooks into LLVM IR (entry.ll), then
  # compiled from that IR with no further optimization: the grader reads entry.ii and entry.ll
  # (toolchain.py, objects.py), and the object holds exactly the code they describe.
  add_custom_command(
    OUTPUT "${object}" "${dir}/entry.ii" "${dir}/entry.ll"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND ${ARG_MODEL_CXX} ${ARG_MODEL_FLAGS} ${includes} -E -MD -MF "${object}.d"
            -MT "${object}" "${wrapper}" -o "${dir}/entry.ii"
    COMMAND ${ARG_MODEL_CXX} ${ARG_MODEL_FLAGS} -x c++-cpp-output -S -emit-llvm "${dir}/entry.ii"
            -o "${dir}/entry.ll"
    COMMAND ${ARG_MODEL_CXX} -O2 -fPIE -Xclang -disable-llvm-passes -x ir -c "${dir}/entry.ll"
            -o "${object}"
    DEPFILE "${object}.d"
    DEPENDS "${wrapper}"
    COMMENT "clang++ with the memory model's hooks: ${exercise}"
    VERBATIM)
  add_executable(${exercise}_runner_model "${object}")
  add_dependencies(${exercise}_runner_model exercise_cpu_shadow)
  if(EXERCISE_SCAN_TEMPS)
    add_dependencies(${exercise}_runner_model ${exercise}_runner_cpu)  # as nvcc's, above
  endif()
  set_target_properties(${exercise}_runner_model PROPERTIES LINKER_LANGUAGE CXX ENABLE_EXPORTS ON)
  # The kernels' section's __start_/__stop_ symbols out of the dynamic symbol table, where one
  # would share the first kernel's address and take its name in messages (common/cpu_backend/
  # scheduler.cpp, function_symbol).
  target_link_options(${exercise}_runner_model PRIVATE "LINKER:-z,start-stop-visibility=hidden")
  exercise_link_whole(${exercise}_runner_model ${ARG_MODEL_LIB})
endfunction()
