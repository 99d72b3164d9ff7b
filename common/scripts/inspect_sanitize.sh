#!/usr/bin/env bash
# make sanitize: run each chapter executable under compute-sanitizer's memcheck, racecheck and
# synccheck at two small sizes (one of them odd), and fail on any report.
#
#   inspect_sanitize.sh CHAPTER...
#
# The executable launches every kernel of the chapter (a correctness launch, two warm-ups and
# --iters timed ones), so one run covers the whole chapter. It also calls cuBLAS for the
# reference: memcheck checks cuBLAS too (it must be clean), racecheck and synccheck skip it
# (SANITIZE_EXCLUDE), since a hazard inside a vendor kernel is not the lesson's.
# Each tool runs at two small sizes (see sanitize_sizes). Logs: build/sanitize/
# <chapter>-<tool>-<n>.log (the sanitizer's report) and .out (the program's output);
# build/sanitize/<chapter>-sanitize.txt collects the verdicts. SANITIZE_FROM_LOGS=1 judges the
# logs of the last run again without running anything.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/inspect_lib.sh"

SANITIZER=$(inspect_find_tool compute-sanitizer)
if [ -z "$SANITIZER" ] && [ -z "${SANITIZE_FROM_LOGS:-}" ]; then
  echo "error: compute-sanitizer not found (it comes with the CUDA Toolkit)" >&2
  exit 1
fi
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
JOBS=${INSPECT_JOBS:-1}
[ -n "$JOBS" ] || JOBS=1
TIMEOUT=${INSPECT_TIMEOUT:-900}
# Kernel names of cuBLAS/cuBLASLt (matched against the mangled and the demangled name).
SANITIZE_EXCLUDE=${SANITIZE_EXCLUDE:-.*(cublas|xmma|cutlass|gemmSN|gemv|splitK|ampere_|volta_|turing_|sm[0-9]+_).*}
SANITIZER_ERROR_EXIT=86  # distinguishes "the sanitizer reported something" from a failing program
OUT_DIR="$BUILD_DIR/sanitize"
mkdir -p "$OUT_DIR"

# Two sizes per chapter: a small odd one (bounds checks, scalar fallbacks; an early chapter may
# refuse it) and a small one whose sides are multiples of 32 and of 4 but not of the larger
# tiles (the tile-multiple chapter, float4 paths, partial tiles). SANITIZE_ARGS replaces both.
sanitize_sizes() {
  if [ -n "${SANITIZE_ARGS:-}" ]; then
    if inspect_is_transpose "$1"; then  # a transpose has no K: drop "--k N" from the GEMM sizes
      echo "$SANITIZE_ARGS" | sed -E 's/(^| )--k +[^ ]+//g'
    else
      echo "$SANITIZE_ARGS"
    fi
  elif inspect_is_transpose "$1"; then
    echo "--m 67 --n 45 --iters 1"
    echo "--m 132 --n 68 --iters 1"
  else
    echo "--m 67 --n 45 --k 33 --iters 1"
    echo "--m 160 --n 96 --k 64 --iters 1"
  fi
}

# "--m 67 --n 45 --k 33 --iters 1" -> "67x45x33"
size_label() {
  local label="" prev=""
  for word in $*; do
    case $prev in --m|--n|--k|--size|--rows|--cols) label="${label:+${label}x}$word" ;; esac
    prev=$word
  done
  echo "${label:-$*}"
}

# One run: the program's output goes to <base>.out, the sanitizer's report to <base>.log, the
# exit code to <base>.rc; then sanitize_judge writes the verdict.
sanitize_once() {  # chapter tool exe n args...
  local chapter=$1 tool=$2 exe=$3 n=$4
  shift 4
  local base="$OUT_DIR/$chapter-$tool-$n"
  if [ -z "${SANITIZE_FROM_LOGS:-}" ]; then
    local filter=()
    [ "$tool" != memcheck ] && filter=(--kernel-name-exclude "regex=$SANITIZE_EXCLUDE")
    rm -f "$base.log" "$base.out" "$base.rc"
    timeout "$TIMEOUT" "$SANITIZER" --tool "$tool" --error-exitcode "$SANITIZER_ERROR_EXIT" \
      --print-limit 20 --log-file "$base.log" "${filter[@]}" "$exe" "$@" >"$base.out" 2>&1
    echo $? >"$base.rc"
  fi
  sanitize_judge "$base" "$tool" "$(size_label "$@")"
}

# Reads <base>.rc/.log/.out and writes "status<TAB>text" (status ok or FAIL) to <base>.result.
# memcheck and synccheck end their report with "ERROR SUMMARY: N errors"; racecheck with
# "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)". Any hazard, warning
# included, fails.
sanitize_judge() {  # base tool size
  local base=$1 tool=$2 size=$3
  local log="$base.log" out="$base.out" rc errors hazards kernels refused
  rc=$(cat "$base.rc" 2>/dev/null)
  errors=$(grep -ho 'ERROR SUMMARY: [0-9]* error' "$log" 2>/dev/null | grep -o '[0-9]*' | tail -n 1)
  hazards=$(grep -ho 'RACECHECK SUMMARY: [0-9]* hazard' "$log" 2>/dev/null | grep -o '[0-9]*' | tail -n 1)
  if [ -z "$errors" ]; then
    errors=$(grep -ho 'RACECHECK SUMMARY: .*(\([0-9]*\) error' "$log" 2>/dev/null | grep -o '([0-9]*' | tr -d '(' | tail -n 1)
  fi
  kernels=$(grep -ho '^=========  *at [^+]*' "$log" 2>/dev/null | sed 's/^=========  *at //; s/^void //; s/(.*//' |
            sort -u | head -n 3 | paste -sd, -)
  refused=$(grep -c 'skipped:' "$out" 2>/dev/null)
  local what="${errors:-?} errors"
  [ "$tool" = racecheck ] && what="$what, ${hazards:-?} hazards"
  [ "${refused:-0}" != 0 ] && what="$what ($refused kernel(s) refused this size)"
  local status text
  if [ -z "$rc" ]; then
    status=FAIL text="$size: no exit code in $base.rc (the run did not finish)"
  elif [ "$rc" = 124 ]; then
    status=FAIL text="$size: timed out after ${TIMEOUT}s, see $out"
  elif [ "$rc" = "$SANITIZER_ERROR_EXIT" ] || [ "${errors:-0}" != 0 ] || [ "${hazards:-0}" != 0 ]; then
    status=FAIL text="$size: $what${kernels:+ in $kernels}, see $log"
  elif [ "$rc" = 3 ]; then
    status=FAIL text="no CUDA device: $(grep -m1 '^error' "$out")"
  elif [ "$rc" != 0 ]; then
    status=FAIL text="$size: program exited $rc: $(grep -m1 -i 'error\|wrong' "$out" | cut -c1-160), see $out"
  elif [ -z "$errors" ]; then
    status=FAIL text="$size: no error summary in $log (did the sanitizer run?)"
  else
    status=ok text="$size: $what"
  fi
  printf '%s\t%s\n' "$status" "$text" >"$base.result"
}

chapters=()
for chapter in "$@"; do
  exe=$(inspect_executable "$chapter")
  if [ -n "${SANITIZE_FROM_LOGS:-}" ]; then
    exe="(logs of the last run)"
    if ! ls "$OUT_DIR/$chapter"-*.rc >/dev/null 2>&1; then
      inspect_verdict "$chapter" sanitize skip "no logs in $OUT_DIR"
      continue
    fi
  elif [ -z "$exe" ]; then
    inspect_verdict "$chapter" sanitize skip "not built yet ($BUILD_DIR/bin/$chapter missing)"
    continue
  fi
  chapters+=("$chapter")
  rm -f "$OUT_DIR/$chapter"-*.result
  for tool in $TOOLS; do
    n=0
    while read -r -a args; do
      n=$((n + 1))
      while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
      echo "   $tool: build/bin/$chapter ${args[*]}"
      sanitize_once "$chapter" "$tool" "$exe" "$n" "${args[@]}" </dev/null &
    done < <(sanitize_sizes "$chapter")
  done
done
echo "(waiting for $(jobs -rp | wc -l) sanitizer runs; logs in $OUT_DIR)"
wait

# The verdicts in chapter order, and one file per chapter for the README.
gpu=$(inspect_gpu_name)
for chapter in "${chapters[@]}"; do
  digest="$OUT_DIR/$chapter-sanitize.txt"
  {
    echo "compute-sanitizer on build/bin/$chapter${gpu:+, $gpu}"
    [ -n "$SANITIZER" ] && echo "($("$SANITIZER" --version 2>/dev/null | grep -m1 -i version))"
  } >"$digest"
  for tool in $TOOLS; do
    status=ok text=""
    results=("$OUT_DIR/$chapter-$tool"-*.result)
    if [ ! -f "${results[0]}" ]; then
      status=FAIL text="no result (the run died)"
    fi
    for result in "${results[@]}"; do
      [ -f "$result" ] || continue
      IFS=$'\t' read -r one_status one_text <"$result"
      [ "$one_status" = ok ] || status=FAIL
      text="${text:+$text; }$one_text"
    done
    [ "$status" = ok ] && text="clean: $text"
    INSPECT_QUIET=1 inspect_verdict "$chapter" "$tool" "$status" "$text"
    printf '%-10s %-5s %s\n' "$tool" "$status" "$text" >>"$digest"
  done
  inspect_publish "$digest"
done

inspect_finish "make sanitize"
