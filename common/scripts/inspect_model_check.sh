#!/usr/bin/env bash
# make model-check: the CPU backend's memory model against Nsight Compute, chapter by chapter,
# on a GPU (model_vs_ncu.py: the verdicts and why).
#
#   inspect_model_check.sh [--inputs-only] CHAPTER...
#
# --inputs-only: only find (or make) the model's CSVs, before the chapters are built, so that a
# missing CSV is reported before minutes of building.
#
# The model's counts are `make analyze`'s CSVs, <chapter>-model.csv, read from $MODEL_DIR, or
# by default from build/analyze/, where the missing ones are made first when this build has the
# analyzers (the CPU backend and clang++ 14+). A GPU machine without clang makes them elsewhere:
# `make analyze` on any machine (no GPU needed), then MODEL_DIR=<the copied folder> here.
# Writes build/model-check/<chapter>.md (the side-by-side table) and <chapter>-ncu.csv.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/inspect_lib.sh"

inputs_only=""
if [ "${1:-}" = --inputs-only ]; then
  inputs_only=1
  shift
fi
model_dir=${MODEL_DIR:-$BUILD_DIR/analyze}
OUT_DIR="$BUILD_DIR/model-check"
mkdir -p "$OUT_DIR"

missing=()
for chapter in "$@"; do
  [ -f "$model_dir/$chapter-model.csv" ] || missing+=("$chapter")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ -n "${MODEL_DIR:-}" ]; then
    files=$(printf '%s-model.csv ' "${missing[@]}")
    echo "error: no ${files% } in MODEL_DIR=$MODEL_DIR: make them with \`make analyze\` (any" \
         "machine with clang, no GPU needed) and copy its build/analyze/*-model.csv there" >&2
    exit 2
  fi
  if [ ! -f "$BUILD_DIR/common/cpu_backend/analyze/${missing[0]}_analyze.cpp" ]; then
    echo "error: no memory-model counts in $model_dir, and this build cannot make them (it has" \
         "no CPU backend or no clang++ 14+): run \`make analyze\` on any machine with clang (no" \
         "GPU needed), copy its build/analyze/*-model.csv to this machine, then" \
         "\`make model-check MODEL_DIR=<that folder>\` (common/INSPECT.md)" >&2
    exit 2
  fi
  echo "== the memory model's counts of ${missing[*]} are missing: make analyze first"
  INSPECT_QUIET=1 bash "$INSPECT_SCRIPTS/inspect_analyze.sh" "${missing[@]}" \
    >"$OUT_DIR/analyze.log" 2>&1 || {
    echo "error: make analyze failed: $OUT_DIR/analyze.log" >&2
    exit 1
  }
fi

[ -z "$inputs_only" ] || exit 0

NCU=$(inspect_find_tool ncu)
if [ -z "$NCU" ]; then
  echo "error: ncu (Nsight Compute, part of the CUDA Toolkit) not found: make model-check runs" \
       "each chapter under it, on a GPU" >&2
  exit 2
fi
bash "$INSPECT_TOP/common/make/require_gpu.sh" "make model-check" || exit $?

for chapter in "$@"; do
  exe=$(inspect_executable "$chapter")
  if [ -z "$exe" ]; then
    inspect_verdict "$chapter" model-check skip "not built yet ($BUILD_DIR/bin/$chapter missing)"
    continue
  fi
  out="$OUT_DIR/$chapter.md"
  rm -f "$out"
  python3 "$INSPECT_SCRIPTS/model_vs_ncu.py" --model "$model_dir/$chapter-model.csv" \
    --exe "$exe" --out "$out" --ncu-bin "$NCU"
  status=$?
  summary=$(tail -n 1 "$out" 2>/dev/null)
  case $status in
    0) inspect_verdict "$chapter" model-check ok "$summary" ;;
    1) inspect_verdict "$chapter" model-check FAIL "$summary" ;;
    *) inspect_verdict "$chapter" model-check FAIL "model_vs_ncu.py exited with $status (above)" ;;
  esac
done

inspect_finish "make model-check"
