#!/usr/bin/env bash
# Issue 46's check on a machine with a GPU: every exercise's instructor solution, hidden tests
# included, graded on the GPU (correctness and speed: nothing pending), each planted fault
# exactly its own points, then the speed tests' reference kernels listed. Needs the sealed
# solutions' passphrase (EXERCISES_KEY_FILE, default ../shared/ci-secrets/exercises.key).
#
#   bash exercises/tools/selftest/gpu_check.sh [BUILD_DIR]
#
# About 10 minutes on one H100 after the build (the races: 8 speed tests, 2 rounds of about
# 1.5 s each side).
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
export EXERCISES_KEY_FILE=${EXERCISES_KEY_FILE:-$(cd .. && pwd)/shared/ci-secrets/exercises.key}
[ -d "$build" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --target exercise_check exercise_reference exercise_kit -j "$(nproc)"
"$build"/bin/exercise_reference --list
python3 exercises/tools/grade.py --solutions --hidden --backend gpu --sandbox none \
  --build-dir "$build" --strict --json solutions-gpu.json -v ||
  echo "gpu_check: a solution is short of full marks (above: which test, and its speed ratio)"
python3 exercises/tools/grade.py selftest --gpu --parts solutions,faults --sandbox none \
  --build-dir "$build"
