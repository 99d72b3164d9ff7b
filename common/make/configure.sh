#!/usr/bin/env bash
# make configure: runs `cmake -S TOP -B BUILD_DIR FLAGS...` when the build folder has no
# complete configuration yet, or when FLAGS are given (so that new options reach an existing
# build); otherwise does nothing.
#
#   configure.sh TOP BUILD_DIR [FLAGS...]
#
# nvcc only in /usr/local/cuda/bin (not on the PATH, no CUDACXX) is found too.
#
# A configure that stopped in CMake's compiler checks (no nvcc where CUDACXX or
# -DCMAKE_CUDA_COMPILER pointed) leaves a cache that every later cmake run trusts: the bad
# compiler path stays, and the C++ compiler's half-written checks make the next run fail with
# "No known features for CXX compiler", which names the wrong compiler. Such a cache holds
# nothing worth keeping (CMake itself deletes the cache when the compiler changes), so it is
# removed and the configure starts from scratch.
set -uo pipefail
top=$1 build=$2
shift 2

cache=$build/CMakeCache.txt

# The value of a cache entry ("NAME:TYPE=value"), or nothing.
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n 1; }

# True when the cache's compilers exist and CMake finished checking both of them.
compilers_checked() {
  local version lang file compiler
  version=$(cache_value CMAKE_CACHE_MAJOR_VERSION).$(cache_value CMAKE_CACHE_MINOR_VERSION).$(cache_value CMAKE_CACHE_PATCH_VERSION)
  for lang in CXX CUDA; do
    compiler=$(cache_value "CMAKE_${lang}_COMPILER")
    [ -n "$compiler" ] && command -v "$compiler" >/dev/null 2>&1 || return 1
    file=$build/CMakeFiles/$version/CMake${lang}Compiler.cmake
    # Written in two steps; the second (after the test compilations) fills in the features.
    grep -q "^set(CMAKE_${lang}_COMPILE_FEATURES \"[^\"]" "$file" 2>/dev/null || return 1
  done
}

# A configured folder keeps the CUDA compiler it was configured with: CMake reads CUDACXX only
# when its cache names none. CUDACXX naming another compiler asks for a switch of toolkits, so
# the folder starts again from an empty cache (what CMake does when -DCMAKE_CUDA_COMPILER
# changes); every file is then compiled again. (An nvcc put first on the PATH is not noticed:
# common/BUILD.md says to use a fresh build folder for that.)
if [ -f "$cache" ] && [ -n "${CUDACXX:-}" ]; then
  configured=$(cache_value CMAKE_CUDA_COMPILER)
  wanted=${CUDACXX%% *}
  wanted=$(command -v "$wanted" 2>/dev/null || echo "$wanted")
  if [ -n "$configured" ] && [ "$(realpath -m "$wanted")" != "$(realpath -m "$configured")" ]; then
    echo "note: CUDACXX=$CUDACXX is not the CUDA compiler $build was configured with" \
         "($configured): configuring it again from an empty CMake cache (everything is" \
         "compiled again)"
    rm -rf "$cache" "$build/CMakeFiles"
  fi
fi

if [ -f "$cache" ] && ! compilers_checked; then
  echo "note: the last configure of $build stopped in CMake's compiler checks:" \
       "starting again from an empty CMake cache"
  rm -rf "$cache" "$build/CMakeFiles"
fi

if [ $# -gt 0 ] || [ ! -f "$cache" ] || { [ ! -f "$build/Makefile" ] && [ ! -f "$build/build.ninja" ]; }; then
  if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    set -- -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc "$@"
  fi
  echo "cmake -S $top -B $build $*"
  if ! cmake -S "$top" -B "$build" "$@"; then
    echo "error: cmake could not configure $build: the first \"CMake Error\" above says why;" \
         "fix that and run make again" >&2
    exit 1
  fi
fi
