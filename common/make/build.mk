# Shared by the top-level Makefile and every chapter's Makefile.
# TOP must be set by the includer to the repository root.
BUILD_DIR   ?= $(TOP)/build
CMAKE_FLAGS ?=
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
# Debian/Ubuntu packages the build needs besides the CUDA Toolkit (python3 and gnuplot-nox:
# the results tables and plots of common/scripts/progression.py; libboost-context-dev: the
# fibers of the CPU backend, common/cpu_backend/; bubblewrap and gnupg: the exercise grader's
# sandbox and the sealed solutions, exercises/README.md).
DEPS_PACKAGES := cmake make g++ catch2 libbenchmark-dev python3 gnuplot-nox libboost-context-dev \
                 bubblewrap gnupg

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps configure

deps:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(DEPS_PACKAGES)

configure: $(BUILD_DIR)/CMakeCache.txt

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S $(TOP) -B $(BUILD_DIR) $(CMAKE_FLAGS)

# After ctest: list each distinct reason a test was skipped (e.g. no GPU), one line each.
define print_skip_reasons
	@grep -ho 'SKIPPED: [^"]*' $(BUILD_DIR)/Testing/Temporary/LastTest.log 2>/dev/null | sort -u | sed 's/^SKIPPED: /note: GPU tests were skipped: /' || true
endef
