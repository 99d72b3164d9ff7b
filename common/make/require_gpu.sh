#!/usr/bin/env bash
# Stops a target that needs an NVIDIA GPU (make run, bench, sweep, profile, sanitize,
# model-check, memory-system) before it builds anything, where there is certainly none, and says
# what works without one.
#
#   require_gpu.sh WHAT [chapter]      WHAT: the command, e.g. "make run"; "chapter" when run in
#                                      a chapter folder (its own table is the one to point to)
#
# "Certainly none": CUDA_VISIBLE_DEVICES is set but empty, or nvidia-smi lists no GPU, or there
# is neither nvidia-smi nor a GPU device node (/dev/nvidia0; /dev/dxg under WSL). Anything else
# goes on, and the program itself reports a missing device (exit 3). Exit status 3 here too.
set -uo pipefail
what=$1 chapter=${2:-}

why=""
if [ "${CUDA_VISIBLE_DEVICES-unset}" = "" ]; then
  why="CUDA_VISIBLE_DEVICES is empty"
elif command -v nvidia-smi >/dev/null 2>&1; then
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    why="nvidia-smi lists no GPU"
  fi
elif [ ! -e /dev/nvidia0 ] && [ ! -e /dev/dxg ]; then
  why="no nvidia-smi, no /dev/nvidia0"
fi
[ -z "$why" ] && exit 0

if [ -n "$chapter" ]; then
  first="make analyze" all="this chapter"
else
  first="make -C 01_naive analyze" all="every chapter and exercise"
fi
echo "error: no NVIDIA GPU found ($why): \`$what\` runs kernels on a GPU; nothing was built." >&2
echo "Without a GPU: \`$first\` builds only what its table needs and prints each kernel's" \
     "memory requests, counted on the CPU (common/BUILD.md, \"Without a GPU\"); \`make check\` builds" \
     "$all and runs the kernel tests on the CPU backend." >&2
exit 3
