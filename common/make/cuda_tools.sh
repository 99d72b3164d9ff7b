#!/usr/bin/env bash
# make deps, after the Debian packages: `make sass` needs cuobjdump and nvdisasm, which every
# full CUDA Toolkit has and a minimal one (NVIDIA's PyPI wheels of the compiler alone, say)
# lacks. Where they are missing, NVIDIA's PyPI wheels of the two (CUDA 13: they read the
# machine code of CUDA 12 and 13 builds alike) go to CUDA_TOOLS_DIR (default
# ~/.local/share/cuda-tools), where common/scripts/inspect_lib.sh looks for them; where that
# cannot be done, this says how to get them. Never fails `make deps`: only `make sass` needs them.
#
#   cuda_tools.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/inspect_lib.sh"

if [ -n "$(inspect_find_tool cuobjdump)" ] && [ -n "$(inspect_find_tool nvdisasm)" ]; then
  exit 0
fi
dir=${CUDA_TOOLS_DIR:-$HOME/.local/share/cuda-tools}
how="they come with the full CUDA Toolkit (NVIDIA's installer, or its apt repository's
  cuda-cuobjdump-XX-Y and cuda-nvdisasm-XX-Y), or from PyPI:
  python3 -m pip install --target $dir nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm"
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "note: this CUDA Toolkit has no cuobjdump/nvdisasm, which \`make sass\` needs, and" \
       "python3 has no pip to fetch them (Debian: the python3-pip package); $how"
  exit 0
fi
echo "cuobjdump/nvdisasm: not in this CUDA Toolkit; NVIDIA's PyPI wheels of them into $dir" \
     "(for \`make sass\`)"
# --target installs into a folder of its own, which also works where the system's Python is
# "externally managed" (Debian 12, Ubuntu 24.04) and refuses a plain `pip install`.
if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
       --no-deps --upgrade --target "$dir" "nvidia-cuda-cuobjdump>=13,<14" \
       "nvidia-cuda-nvdisasm>=13,<14"; then
  echo "note: pip could not install them (above); \`make sass\` needs cuobjdump and nvdisasm:" \
       "$how"
  exit 0
fi
found=$(inspect_find_tool cuobjdump)
echo "cuobjdump: ${found:-still not found under $dir (make sass will say so)}"
