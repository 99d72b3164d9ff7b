# Shared by the top-level Makefile and every chapter's Makefile.
# TOP must be set by the includer to the repository root.
BUILD_DIR   ?= $(TOP)/build
# The chapters, in order (common/chapters.txt: the one list).
TUTORIAL_CHAPTERS := $(shell sed -n 's/^\([0-9][0-9]_[a-z_0-9]*\).*/\1/p' $(TOP)/common/chapters.txt)
CMAKE_FLAGS ?=
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
# Debian/Ubuntu packages the build needs besides the CUDA Toolkit (python3 and gnuplot-nox:
# the results tables and plots of common/scripts/progression.py; libboost-context-dev: the
# fibers of the CPU backend, common/cpu_backend/; bubblewrap and gnupg: the exercise grader's
# sandbox and the sealed solutions, exercises/README.md; clang: the CPU backend's memory model,
# `make analyze`, common/cpu_backend/README.md).
DEPS_PACKAGES := cmake make g++ catch2 libbenchmark-dev python3 gnuplot-nox libboost-context-dev \
                 bubblewrap gnupg clang

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The build's own make runs are quiet about the directories they enter.
MAKEFLAGS += --no-print-directory

.PHONY: deps configure

deps:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(DEPS_PACKAGES)

# nvcc only in /usr/local/cuda/bin (not on the PATH) is found too.
CUDA_COMPILER_FLAG := $(shell command -v nvcc >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/nvcc ] && \
                        echo -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc; })

# Configures when there is no complete build folder yet (also after a configure that failed
# half-way), and whenever CMAKE_FLAGS are given, so that new options reach an existing build.
configure:
	@if [ -n "$(strip $(CMAKE_FLAGS))" ] || [ ! -f $(BUILD_DIR)/CMakeCache.txt ] || \
	    { [ ! -f $(BUILD_DIR)/Makefile ] && [ ! -f $(BUILD_DIR)/build.ninja ]; }; then \
	  echo "cmake -S $(TOP) -B $(BUILD_DIR) $(CUDA_COMPILER_FLAG) $(CMAKE_FLAGS)"; \
	  cmake -S $(TOP) -B $(BUILD_DIR) $(CUDA_COMPILER_FLAG) $(CMAKE_FLAGS); \
	fi

# After ctest: list each distinct reason a test was skipped (e.g. no GPU), one line each.
define print_skip_reasons
	@grep -ho 'SKIPPED: [^"]*' $(BUILD_DIR)/Testing/Temporary/LastTest.log 2>/dev/null | sort -u | sed 's/^SKIPPED: /note: GPU tests were skipped: /' || true
endef
