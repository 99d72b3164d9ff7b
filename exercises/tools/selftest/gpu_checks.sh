#!/usr/bin/env bash
# The grader's checks that need a GPU machine (exercises/INSTRUCTORS.md, "Tests of the
# grader"): the solutions with their speed tests, the planted faults and the attacks on 03a's
# speed test, in the sandbox the machine gives (bubblewrap where it works), then as root in
# the `user` sandbox (a GPU host without bubblewrap, as the H200 graders are): the runner's
# own syscall filter must let the CUDA driver work there too.
#
#   EXERCISES_KEY_FILE=/path/to/exercises.key bash exercises/tools/selftest/gpu_checks.sh
#
# The key file must be readable by its owner only (chmod 600): the grader refuses the hidden
# tests in the `user` sandbox otherwise.
set -euo pipefail
cd "$(dirname "$0")/../../.."
: "${EXERCISES_KEY_FILE:?set EXERCISES_KEY_FILE to the passphrase file (mode 600)}"
python3 exercises/tools/grade.py selftest --gpu
if [ "$(id -u)" = 0 ]; then
  python3 exercises/tools/grade.py selftest --gpu --sandbox user --parts solutions,faults,corpus
else
  echo "note: not root: the user-sandbox pass needs root (sudo -E bash $0)"
fi
