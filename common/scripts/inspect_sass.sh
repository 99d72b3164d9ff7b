#!/usr/bin/env bash
# make sass: dump the machine code (SASS) of each chapter's kernels and count the instructions
# the lesson talks about (128-bit vs 32-bit loads, FFMA, spills, barriers).
#
#   inspect_sass.sh CHAPTER...
#
# Needs no GPU, only cuobjdump + nvdisasm (the CUDA Toolkit; where it lacks them, `make deps`
# fetches NVIDIA's PyPI wheels of the two: common/make/cuda_tools.sh). Writes build/sass/<chapter>.sass (the full dump, demangled) and
# build/sass/<chapter>-sass.md (the summary table). SASS_ARCH=sm_80 picks an architecture when
# the executable holds several (default: the newest one in it).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/inspect_lib.sh"

CUOBJDUMP=$(inspect_find_tool cuobjdump)
if [ -z "$CUOBJDUMP" ]; then
  echo "error: cuobjdump not found: \`make deps\` fetches it where the CUDA Toolkit lacks it" \
       "(common/make/cuda_tools.sh says how else)" >&2
  exit 1
fi
# cuobjdump -sass runs nvdisasm; the pip wheels put it next to cuobjdump, not on PATH.
NVDISASM=$(inspect_find_tool nvdisasm)
if [ -z "$NVDISASM" ] && [ -x "$(dirname "$CUOBJDUMP")/nvdisasm" ]; then
  NVDISASM="$(dirname "$CUOBJDUMP")/nvdisasm"
fi
if [ -z "$NVDISASM" ]; then
  echo "error: nvdisasm not found: \`make deps\` fetches it where the CUDA Toolkit lacks it" \
       "(common/make/cuda_tools.sh says how else)" >&2
  exit 1
fi
export PATH="$(dirname "$NVDISASM"):$PATH"
if command -v c++filt >/dev/null 2>&1; then DEMANGLE=c++filt
elif [ -n "$(inspect_find_tool cu++filt)" ]; then DEMANGLE=$(inspect_find_tool cu++filt)
else DEMANGLE=cat; echo "note: no c++filt: kernel names stay mangled" >&2
fi

OUT_DIR="$BUILD_DIR/sass"
mkdir -p "$OUT_DIR"

for chapter in "$@"; do
  exe=$(inspect_executable "$chapter")
  if [ -z "$exe" ]; then
    inspect_verdict "$chapter" sass skip "not built yet ($BUILD_DIR/bin/$chapter missing)"
    continue
  fi
  archs=$("$CUOBJDUMP" --list-elf "$exe" 2>/dev/null | grep -o 'sm_[0-9]*[a-z]\?' | sort -u -V)
  if [ -z "$archs" ]; then
    inspect_verdict "$chapter" sass FAIL "no machine code (cubin) in $exe"
    continue
  fi
  arch=${SASS_ARCH:-$(echo "$archs" | tail -n 1)}
  dump="$OUT_DIR/$chapter.sass"
  digest="$OUT_DIR/$chapter-sass.md"
  if ! "$CUOBJDUMP" -sass -arch "$arch" "$exe" 2>"$OUT_DIR/$chapter.sass.err" | $DEMANGLE >"$dump"; then
    inspect_verdict "$chapter" sass FAIL "cuobjdump failed: $(head -n 1 "$OUT_DIR/$chapter.sass.err")"
    continue
  fi
  echo
  header="\`cuobjdump -sass -arch $arch build/bin/$chapter\` (full dump: build/sass/$chapter.sass)"
  if python3 "$INSPECT_SCRIPTS/sass_summary.py" "$dump" --chapter "$chapter" --out "$digest" \
       --header "$header"; then
    inspect_publish "$digest"
    inspect_verdict "$chapter" sass ok "$arch, $(grep -c '^| `' "$digest") kernels -> $digest"
  else
    inspect_verdict "$chapter" sass FAIL "no chNN:: kernel found in $dump"
  fi
done

inspect_finish "make sass"
