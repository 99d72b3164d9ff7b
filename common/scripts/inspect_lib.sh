# Shared by inspect_sanitize.sh, inspect_profile.sh and inspect_sass.sh (sourced, not run).
#
# Environment (set by common/make/inspect.mk, or by hand):
#   BUILD_DIR             the CMake build folder (default: build/ next to common/)
#   INSPECT_RESULTS_DIR   if set, the digests are also copied there (e.g. common/results/inspect)

INSPECT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$INSPECT_TOP/build}
INSPECT_SCRIPTS=$INSPECT_TOP/common/scripts

# Prints the path of a CUDA tool (ncu, compute-sanitizer, cuobjdump...) or nothing.
# Looks on PATH, then next to nvcc, in $CUDA_HOME and /usr/local/cuda, in the Nsight Compute
# install folders, and for cuobjdump and nvdisasm also in NVIDIA's pip wheels: where
# `make deps` puts them (common/make/cuda_tools.sh: $CUDA_TOOLS_DIR, default
# ~/.local/share/cuda-tools) and the Python's own site-packages.
inspect_find_tool() {
  local name=$1 dir
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  local candidates=()
  if command -v nvcc >/dev/null 2>&1; then
    candidates+=("$(dirname "$(command -v nvcc)")")
  fi
  [ -n "${CUDA_HOME:-}" ] && candidates+=("$CUDA_HOME/bin")
  candidates+=(/usr/local/cuda/bin /usr/local/cuda/compute-sanitizer)
  for dir in /usr/local/cuda/nsight-compute-* /opt/nvidia/nsight-compute/*; do
    [ -d "$dir" ] && candidates+=("$dir")
  done
  for dir in "${CUDA_TOOLS_DIR:-$HOME/.local/share/cuda-tools}"/nvidia/cu*/bin; do
    [ -d "$dir" ] && candidates+=("$dir")
  done
  if command -v python3 >/dev/null 2>&1; then
    for dir in $(python3 -c 'import site, sys; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
      for sub in "$dir"/nvidia/cu*/bin "$dir"/nvidia/cuda_cuobjdump/bin; do
        [ -d "$sub" ] && candidates+=("$sub")
      done
    done
  fi
  for dir in "${candidates[@]}"; do
    if [ -x "$dir/$name" ]; then echo "$dir/$name"; return; fi
  done
}

# The chapter executable, or nothing if it is not built yet.
inspect_executable() {
  local exe="$BUILD_DIR/bin/$1"
  [ -x "$exe" ] && echo "$exe"
}

# True if the chapter is a transpose (two sizes, no K).
inspect_is_transpose() { case $1 in *transpose*) return 0 ;; *) return 1 ;; esac; }

# One line naming the GPU, or nothing when there is none (or no nvidia-smi).
inspect_gpu_name() {
  command -v nvidia-smi >/dev/null 2>&1 &&
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 |
    sed 's/, / (driver /; s/$/)/'
}

# Copies a digest into $INSPECT_RESULTS_DIR when that is set.
inspect_publish() {
  [ -n "${INSPECT_RESULTS_DIR:-}" ] || return 0
  mkdir -p "$INSPECT_RESULTS_DIR" && cp "$1" "$INSPECT_RESULTS_DIR/"
}

# Report lines: every chapter prints "<chapter>  <tool>  <verdict>" as it finishes;
# the caller prints the collected list at the end and exits non-zero if any failed.
INSPECT_FAILED=0
INSPECT_DONE=0
INSPECT_SUMMARY=()
inspect_verdict() {  # chapter tool status(ok|FAIL|skip) text
  local line
  line=$(printf '%-18s %-10s %-5s %s' "$1" "$2" "$3" "$4")
  INSPECT_SUMMARY+=("$line")
  case $3 in
    FAIL) INSPECT_FAILED=1; INSPECT_DONE=1 ;;
    ok) INSPECT_DONE=1 ;;
  esac
  [ -n "${INSPECT_QUIET:-}" ] || echo "$line"
}

inspect_finish() {  # what
  echo
  echo "== $1 summary"
  printf '%s\n' "${INSPECT_SUMMARY[@]}"
  if [ "$INSPECT_FAILED" != 0 ]; then
    echo "$1: FAILED (see the lines marked FAIL above)"
    return 1
  fi
  if [ "$INSPECT_DONE" = 0 ]; then
    echo "$1: nothing was inspected (no chapter executable is built yet)"
    return 1
  fi
  echo "$1: all inspected chapters passed"
}
