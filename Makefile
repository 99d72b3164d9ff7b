# make deps    install the Debian/Ubuntu packages the build needs (besides the CUDA Toolkit)
# make deps-gpu  only those a machine with a GPU needs (Colab): cmake g++ catch2 libbenchmark-dev
# make check   build everything and run every test (GPU tests are skipped without a GPU)
# make run     every chapter on the GPU: one table, kept in common/results/progression.json/.csv,
#              and the two charts when gnuplot is installed
#              (ARGS="--iters 20" adds flags to every chapter executable)
# make plots   roofline and progression charts from that JSON (gnuplot; any machine)
# make readme-tables  refill the generated results tables of the READMEs from that JSON
# make code-quotes    refill the code the lessons quote from the source (common/scripts/code_quotes.py;
#              lesson_check.py fails while a quote differs from its source)
# make memory-system  (GPU) latency per level, bandwidth by working set, Little's law, a gather,
#              __restrict__: the output is kept in common/results/memory-system.txt (chapter
#              01's opening; `make -C 01_naive memory-system` is the same). Without a GPU it
#              stops at once, as `make run` does (GPU_GOALS, common/make/build.mk)
# make bench   run every chapter's Google Benchmark binary
# make docs-test  try every command the READMEs show (common/scripts/docs_test.py; after a build)
# make arch-check  every chapter compiled for sm_75 ... sm_120, warnings checked (no GPU)
#              (ARCH_CHECK_ARGS="--arch 75 --nvcc /opt/cuda-12.4/bin/nvcc": one architecture,
#              another toolkit)
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
include $(TOP)/common/make/build.mk
include $(TOP)/common/make/inspect.mk

CHAPTERS := $(TUTORIAL_CHAPTERS)

.PHONY: all build check run plots readme-tables code-quotes memory-system bench docs-test arch-check clean
all: build

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build
	$(call run_ctest,)

# The chapters and their sizes are listed in common/chapters.txt.
PROGRESSION := python3 $(TOP)/common/scripts/progression.py
RESULTS_DIR ?= $(TOP)/common/results

run: build
	$(PROGRESSION) run --build-dir $(BUILD_DIR) --results $(RESULTS_DIR) -- $(ARGS)
	@if command -v gnuplot >/dev/null 2>&1; then $(PROGRESSION) plots --results $(RESULTS_DIR); \
	else echo "note: gnuplot not found: run \`make plots\` where it is installed to draw the charts"; fi

plots:
	$(PROGRESSION) plots --results $(RESULTS_DIR)

readme-tables:
	$(PROGRESSION) readme-tables --results $(RESULTS_DIR)

code-quotes:
	python3 $(TOP)/common/scripts/code_quotes.py

memory-system: configure
	cmake --build $(BUILD_DIR) --target 01_memory_system -j $(JOBS)
	bash $(TOP)/common/scripts/memory_system.sh $(BUILD_DIR) $(RESULTS_DIR) $(ARGS)

bench: build
	@set -e; for c in $(CHAPTERS); do \
	  if [ -x $(BUILD_DIR)/bin/$${c}_bench ]; then echo "== $$c"; $(BUILD_DIR)/bin/$${c}_bench $(BENCH_ARGS); fi; \
	done

# Not a CTest test: it runs make and ctest itself, inside the build folder that `make check`'s
# ctest is running from.
docs-test: build
	python3 $(TOP)/common/scripts/docs_test.py --build-dir $(BUILD_DIR)

arch-check:
	python3 $(TOP)/common/scripts/arch_check.py -j $(JOBS) $(ARCH_CHECK_ARGS)

clean:
	rm -rf $(BUILD_DIR)

# make grade   grade the exercises of this tree: points per test, `Score: X/Y` (exercises/README.md)
#              GRADE_ARGS="--solutions" grades the instructor solutions, "-e 02a_tiled -v" one
#              exercise, "batch DIR --out grades" a folder of submissions, "selftest" the grader
# make gradescope  write autograder.zip for Gradescope (GRADE_ARGS="-e 03a_bounds --hidden")
GRADE_ARGS ?=
.PHONY: grade gradescope
grade: configure
	BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) python3 $(TOP)/exercises/tools/grade.py $(GRADE_ARGS)

gradescope:
	python3 $(TOP)/exercises/tools/grade.py gradescope $(GRADE_ARGS)
