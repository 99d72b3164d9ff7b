#!/usr/bin/env bash
# make profile: Nsight Compute on each kernel of each chapter, a digest table of the metrics the
# lesson talks about, and the full report for the Nsight Compute UI.
#
#   inspect_profile.sh CHAPTER...
#
# Profiles only the chapter's own kernels (namespace chNN::), not cuBLAS, the L2 flush or the
# bandwidth probe; the first launch of each kernel is kept in the digest. GPU clocks are left
# as they are (--clock-control none). Writes build/profile/<chapter>.ncu-rep (open it with
# `ncu-ui`), <chapter>-raw.csv (every collected metric) and <chapter>-profile.md (the digest).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/inspect_lib.sh"

NCU=$(inspect_find_tool ncu)
if [ -z "$NCU" ]; then
  echo "error: ncu (Nsight Compute) not found (it comes with the CUDA Toolkit)" >&2
  exit 1
fi
TIMEOUT=${INSPECT_TIMEOUT:-900}
KERNEL_FILTER=${PROFILE_KERNELS:-regex:ch[0-9][0-9]::}
OUT_DIR="$BUILD_DIR/profile"
mkdir -p "$OUT_DIR"
METRICS=$(python3 "$INSPECT_SCRIPTS/ncu_digest.py" --print-metrics) || exit 1
NCU_VERSION=$("$NCU" --version 2>/dev/null | grep -io 'version [0-9.]*' | head -n 1)

# GEMMs at 4096: at 2048 the three matrices (48 MB) fit in the H100/H200's 50-60 MB L2, and the
# DRAM column would say nothing about the lesson's traffic model.
profile_args() {
  if [ -n "${PROFILE_ARGS:-}" ]; then echo "$PROFILE_ARGS"
  elif inspect_is_transpose "$1"; then echo "--size 4096 --iters 1 --no-check"
  else echo "--size 4096 --iters 1 --no-check"; fi
}

run_ncu() {  # log metrics exe args...
  local log=$1 metrics=$2
  shift 2
  timeout "$TIMEOUT" "$NCU" --clock-control none \
    --kernel-name-base demangled --kernel-name "$KERNEL_FILTER" \
    --set basic --metrics "$metrics" --import-source yes \
    --force-overwrite --export "$rep_base" "$@" >"$log" 2>&1
}

for chapter in "$@"; do
  exe=$(inspect_executable "$chapter")
  if [ -z "$exe" ]; then
    inspect_verdict "$chapter" profile skip "not built yet ($BUILD_DIR/bin/$chapter missing)"
    continue
  fi
  read -r -a args <<<"$(profile_args "$chapter")"
  rep_base="$OUT_DIR/$chapter"
  log="$OUT_DIR/$chapter-ncu.log"
  raw="$OUT_DIR/$chapter-raw.csv"
  digest="$OUT_DIR/$chapter-profile.md"
  rm -f "$rep_base.ncu-rep"
  echo "== profiling $chapter: ncu ... build/bin/$chapter ${args[*]}"
  metrics=$METRICS
  run_ncu "$log" "$metrics" "$exe" "${args[@]}"
  rc=$?
  if [ $rc != 0 ]; then
    # A metric this GPU or ncu version does not know: drop it and try once more.
    kept=()
    IFS=, read -r -a wanted <<<"$METRICS"
    for m in "${wanted[@]}"; do
      grep '==ERROR==' "$log" | grep -qF "$m" || kept+=("$m")
    done
    if [ "${#kept[@]}" != "${#wanted[@]}" ]; then
      echo "   (not available here, dropped: $(comm -23 <(printf '%s\n' "${wanted[@]}" | sort) <(printf '%s\n' "${kept[@]}" | sort) | paste -sd' ' -))"
      metrics=$(IFS=,; echo "${kept[*]}")
      mv "$log" "$log.first-try"
      run_ncu "$log" "$metrics" "$exe" "${args[@]}"
      rc=$?
      [ $rc = 0 ] && METRICS=$metrics  # the next chapters need not find out again
    fi
  fi
  if [ $rc = 124 ]; then
    inspect_verdict "$chapter" profile FAIL "timed out after ${TIMEOUT}s, see $log"
    continue
  fi
  if grep -q 'ERR_NVGPUCTRPERM' "$log"; then
    inspect_verdict "$chapter" profile FAIL "no permission to read the GPU performance counters (see $log)"
    continue
  fi
  if [ $rc != 0 ] || [ ! -f "$rep_base.ncu-rep" ]; then
    inspect_verdict "$chapter" profile FAIL "ncu exited $rc: $(grep -m1 -E '==ERROR==|^error' "$log" | cut -c1-160), see $log"
    continue
  fi
  if ! "$NCU" --import "$rep_base.ncu-rep" --csv --page raw --print-units base \
         --print-kernel-base demangled >"$raw" 2>"$raw.err" &&
     ! "$NCU" --import "$rep_base.ncu-rep" --csv --page raw >"$raw" 2>"$raw.err"; then
    inspect_verdict "$chapter" profile FAIL "could not export $rep_base.ncu-rep: $(head -n 1 "$raw.err")"
    continue
  fi
  header="\`ncu --set basic --metrics ... build/bin/$chapter ${args[*]}\`, ${NCU_VERSION:-ncu}; full report: build/profile/$chapter.ncu-rep"
  if python3 "$INSPECT_SCRIPTS/ncu_digest.py" "$raw" --chapter "$chapter" --out "$digest" \
       --header "$header"; then
    inspect_publish "$digest"
    inspect_verdict "$chapter" profile ok "$(grep -c '^| `' "$digest") kernels -> $digest, $rep_base.ncu-rep"
  else
    inspect_verdict "$chapter" profile FAIL "no kernel was profiled, see $log"
  fi
done

inspect_finish "make profile"
