#!/usr/bin/env bash
# make memory-system (at the top): runs build/bin/01_memory_system (latency per level,
# bandwidth by working set, Little's law, a gather, __restrict__; each measurement beside its
# prediction) and keeps its output in common/results/memory-system.txt, under a first line
# naming the GPU, driver and date. `make readme-tables` shows that file in chapter 01's README
# (the block `memory-system`). Without a GPU the program says so and exits non-zero, and the
# kept file stays as it was.
#   memory_system.sh BUILD_DIR RESULTS_DIR [flags for 01_memory_system...]
set -euo pipefail
build_dir=$1 results_dir=$2
shift 2
exe=$build_dir/bin/01_memory_system
# No GPU: say so before writing anything (make's gate does the same before building).
bash "$(dirname "$0")/../make/require_gpu.sh" "make memory-system" || exit $?
[ -x "$exe" ] || { echo "error: $exe is not built (make build)" >&2; exit 1; }
mkdir -p "$results_dir"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 |
      sed 's/, / (driver /; s/$/)/' || true)
{
  echo "Measured by \`make memory-system\` on **${gpu:-an unnamed GPU}**, $(date -u +%Y-%m-%dT%H:%M:%SZ)" \
       "(\`build/bin/01_memory_system${*:+ $*}\`). Sizes in binary units (1 MB = 2^20 bytes, 1 GB =" \
       "2^30 bytes), rates in GB/s of 10^9 bytes per second."
  "$exe" "$@"
} | tee "$tmp"
cp "$tmp" "$results_dir/memory-system.txt"
echo "wrote $results_dir/memory-system.txt (make readme-tables shows it in 01_naive/README.md)"
