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

# On a machine with a GPU (Colab) only the build and its tests are needed: the CPU backend,
# its memory model and the grader's sandbox are for machines without one (`make deps-gpu`).
DEPS_GPU_PACKAGES := cmake make g++ catch2 libbenchmark-dev python3

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The build's own make runs are quiet about the directories they enter.
MAKEFLAGS += --no-print-directory
# Every includer defines `all`; `make` alone means that, not the first rule below.
.DEFAULT_GOAL := all

.PHONY: deps deps-gpu configure

deps:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(DEPS_PACKAGES)
	@bash $(TOP)/common/make/cuda_tools.sh

deps-gpu:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(DEPS_GPU_PACKAGES)

# Targets that need a GPU (memory-system included) stop before building anything where there is
# certainly none
# (require_gpu.sh), when every goal of the command line is one of them (listing the
# benchmarks, BENCH_ARGS=--benchmark_list_tests, and judging old sanitizer logs,
# SANITIZE_FROM_LOGS=1, need none).
GPU_GOALS := run bench sweep profile sanitize model-check memory-system
GPU_GATE := $(if $(MAKECMDGOALS),$(if $(filter-out $(GPU_GOALS),$(MAKECMDGOALS)),,$(if \
              $(findstring benchmark_list_tests,$(BENCH_ARGS))$(SANITIZE_FROM_LOGS),,gpu-gate)))
.PHONY: gpu-gate
gpu-gate:
	@bash $(TOP)/common/make/require_gpu.sh 'make $(MAKECMDGOALS)' $(if $(filter $(TOP),$(CURDIR)),,chapter)

# Configures when there is no complete build folder yet, and whenever CMAKE_FLAGS are given,
# so that new options reach an existing build; a cache left by a configure that failed in the
# compiler checks is thrown away first (configure.sh says why).
configure: $(GPU_GATE)
	@bash $(TOP)/common/make/configure.sh '$(TOP)' '$(BUILD_DIR)' $(CMAKE_FLAGS)

# ctest with ARGS, then one plain line (common/make/skip_reasons.py): how many tests passed,
# were skipped (why, by count: no GPU, say) and failed. The exit status is ctest's.
CHECK_RESULTS = $(abspath $(BUILD_DIR))/Testing/check-results.xml
define run_ctest
	@echo "ctest --test-dir $(BUILD_DIR) $(1) --output-on-failure -j $(JOBS) $(CTEST_FLAGS)"
	@rm -f '$(CHECK_RESULTS)'; status=0; \
	ctest --test-dir $(BUILD_DIR) $(1) --output-on-failure -j $(JOBS) $(CTEST_FLAGS) \
	  --output-junit '$(CHECK_RESULTS)' || status=$$?; \
	python3 $(TOP)/common/make/skip_reasons.py '$(CHECK_RESULTS)' || true; exit $$status
endef
