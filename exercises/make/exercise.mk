# Included by each exercise's Makefile after it sets EXERCISE (its folder name):
#   make check     build your file's runner and grade it: every test, its points, the run's
#                  seed (fails while a test fails; speed tests are pending without a GPU)
#   make test TEST="random odd"   only the tests whose name contains the text, with details
#   make test-cpu  the same on the CPU backend, even on a machine with a GPU
#   make build     only build
# Add SEED=<n> to any of them to draw the shapes and data of an earlier run again.
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
include $(TOP)/common/make/build.mk

GRADE := python3 $(TOP)/exercises/tools/grade.py
SEED ?=
SEED_ARG := $(if $(SEED),--seed $(SEED))

.PHONY: all build check test test-cpu
all: build

build: configure
	cmake --build $(BUILD_DIR) --target exercise_$(EXERCISE) -j $(JOBS) -- --no-print-directory

# --rerun: the reports say how to draw the same run again in the words the student typed.
# Exit status 1 (make's "Error 1") while a test is short of its points: said in words, since a
# student's stub is in that state by design.
check: configure
	@$(GRADE) grade -e $(EXERCISE) --build-dir $(BUILD_DIR) --verbose --quiet --strict $(SEED_ARG) \
	  --rerun 'make check SEED={seed}'; status=$$?; \
	if [ $$status -eq 1 ]; then echo; echo "make check: not every test has all its points yet," \
	  "so make reports an error (Error 1) below; that is expected until the exercise is done."; fi; \
	exit $$status

test: configure
	$(GRADE) grade -e $(EXERCISE) --build-dir $(BUILD_DIR) --verbose --quiet $(SEED_ARG) \
	  $(if $(TEST),--test '$(TEST)') --rerun "make test$(if $(TEST), TEST='$(TEST)') SEED={seed}"

test-cpu: configure
	$(GRADE) grade -e $(EXERCISE) --build-dir $(BUILD_DIR) --verbose --quiet --backend cpu \
	  $(SEED_ARG) $(if $(TEST),--test '$(TEST)') \
	  --rerun "make test-cpu$(if $(TEST), TEST='$(TEST)') SEED={seed}"
