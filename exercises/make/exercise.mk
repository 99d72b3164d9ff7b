# Included by each exercise's Makefile after it sets EXERCISE (its folder name):
#   make check   build the exercise, run each of its tests in its own process, show the points
#                (fails while a test fails; GPU tests are "pending" on a machine without a GPU)
#   make test    run the Catch2 test binary directly: ARGS='"<test name>"' runs one test,
#                ARGS=--list-tests lists them
#   make test-cpu the same with the CPU-backend build of the tests (machines without a GPU;
#                common/cpu_backend/README.md): the kernels run on the CPU, speed tests skip
#   make build   only build
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
include $(TOP)/common/make/build.mk

GRADE := python3 $(TOP)/exercises/tools/grade.py

.PHONY: all build check test test-cpu
all: build

build: configure
	cmake --build $(BUILD_DIR) --target exercise_$(EXERCISE) -j $(JOBS)

check: configure
	$(GRADE) grade -e $(EXERCISE) --build-dir $(BUILD_DIR) --verbose --quiet --strict

test: build
	$(BUILD_DIR)/bin/$(EXERCISE)_tests $(ARGS)

test-cpu: build
	@test -x $(BUILD_DIR)/bin/$(EXERCISE)_tests_cpu || { echo "no $(EXERCISE)_tests_cpu: \
	the CPU backend is off in this build, or the exercise runs on the host only \
	(common/cpu_backend/README.md)"; exit 1; }
	$(BUILD_DIR)/bin/$(EXERCISE)_tests_cpu $(ARGS)
