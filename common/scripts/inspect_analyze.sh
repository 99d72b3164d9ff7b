#!/usr/bin/env bash
# make analyze: the CPU backend's memory model on every kernel of each chapter, at a small
# shape: warp requests, sectors per request, shared-memory wavefronts and bank conflicts, in
# the columns of `make profile` where they overlap. Needs no GPU.
#
#   inspect_analyze.sh CHAPTER...
#
# Builds bin/<chapter>_analyze (clang with load/store hooks, common/cpu_backend/README.md,
# "The memory model") unless NO_BUILD is set, runs it with $ANALYZE_ARGS, and writes
# build/analyze/<chapter>-analyze.md, and the raw counts as build/analyze/<chapter>-model.csv.
# ANALYZE_SMS=N: the launchers plan for a GPU of N SMs (the CPU backend reports 1), as they
# would on that GPU: what `make model-check` on it needs where a plan depends on the SM count.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/inspect_lib.sh"
if [ -n "${ANALYZE_SMS:-}" ]; then
  if ! [[ $ANALYZE_SMS =~ ^[1-9][0-9]*$ ]]; then
    echo "error: ANALYZE_SMS=$ANALYZE_SMS: give the GPU's SM count, e.g. ANALYZE_SMS=132 (H100 SXM)" >&2
    exit 2
  fi
  export TUTORIAL_CPU_SM_COUNT=$ANALYZE_SMS
fi

OUT_DIR="$BUILD_DIR/analyze"
mkdir -p "$OUT_DIR"
read -r -a args <<<"${ANALYZE_ARGS:-}"

if [ -z "${NO_BUILD:-}" ]; then
  # The analyzers exist where the CPU backend is on and clang++ 14+ was found at configure time.
  if [ ! -f "$BUILD_DIR/common/cpu_backend/analyze/$1_analyze.cpp" ]; then
    echo "error: the memory model is not configured in $BUILD_DIR: it needs the CPU backend" \
         "(on by default without a GPU; on a GPU machine: make analyze" \
         "CMAKE_FLAGS=-DTUTORIAL_CPU_BACKEND=ON) and clang++ 14 or newer (make deps)" >&2
    exit 1
  fi
  targets=()
  for chapter in "$@"; do targets+=("${chapter}_analyze"); done
  cmake --build "$BUILD_DIR" --target "${targets[@]}" -j "${JOBS:-2}" || exit 1
fi

for chapter in "$@"; do
  exe="$BUILD_DIR/bin/${chapter}_analyze"
  if [ ! -x "$exe" ]; then
    inspect_verdict "$chapter" analyze skip "not built yet ($exe missing)"
    continue
  fi
  digest="$OUT_DIR/$chapter-analyze.md"
  csv="$OUT_DIR/$chapter-model.csv"
  # At the default shape and SM count, a digest and CSV made so (the stamp) after the analyzer
  # was built are its output already (make check's test of the analyzer's kernel names writes
  # them): shown, not made again.
  stamp="$OUT_DIR/.$chapter.default-shape"
  default=""
  [ ${#args[@]} -eq 0 ] && [ -z "${ANALYZE_SMS:-}" ] && default=1
  if [ -n "$default" ] && [ "$stamp" -nt "$exe" ] && [ -f "$digest" ] && [ -f "$csv" ]; then
    cat "$digest"
    echo
    inspect_publish "$digest"
    inspect_verdict "$chapter" analyze ok "$(grep -c '^| `' "$digest") kernels -> $digest (up to date)"
    continue
  fi
  # The same counts as CSV, from the same run, for `make model-check` on a GPU machine
  # (model_vs_ncu.py).
  rm -f "$stamp"
  if "$exe" "${args[@]}" --csv-to "$csv" >"$digest" 2>"$digest.err"; then
    [ -z "$default" ] || touch "$stamp"
    cat "$digest"
    echo
    inspect_publish "$digest"
    inspect_verdict "$chapter" analyze ok "$(grep -c '^| `' "$digest") kernels -> $digest"
  else
    cat "$digest.err" >&2
    inspect_verdict "$chapter" analyze FAIL "$exe exited with an error, see $digest.err"
  fi
done

inspect_finish "make analyze"
