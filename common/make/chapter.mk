# Included by each chapter's Makefile after it sets CHAPTER (its folder name):
#   make check   build this chapter and run its tests
#   make run     run its executable (ARGS="--size 2048" to pass flags)
#   make bench   run its benchmarks (BENCH_ARGS="--benchmark_filter=4096")
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
include $(TOP)/common/make/build.mk
include $(TOP)/common/make/inspect.mk

.PHONY: all build check run bench
all: build

build: configure
	cmake --build $(BUILD_DIR) --target chapter_$(CHAPTER) -j $(JOBS)

check: build
	$(call run_ctest,-L '^$(CHAPTER)/')

run: build
	$(BUILD_DIR)/bin/$(CHAPTER) $(ARGS)

bench: build
	$(BUILD_DIR)/bin/$(CHAPTER)_bench $(BENCH_ARGS)

# make sweep   (GPU; a chapter with a sweep_shapes.txt) every shape of that list, the chapter's
#              kernels (SWEEP_KERNEL_FLAGS, set in its Makefile: --kernel NAME-PREFIX ..., passed
#              to the executable, which runs only those; a prefix that starts no kernel's name
#              stops the sweep before anything is timed) against its ceiling (cuBLAS, or
#              cudaMemcpy for a transpose) in the same process: % per shape, geometric mean,
#              worst. Writes the table into the chapter's page SWEEP_PAGE (default README.md; 05
#              and 06: every_shape.md; its "GENERATED: sweep" block)
#              and the bars into sweep.svg (gnuplot); SWEEP_OUT=FILE keeps a copy of the table,
#              from which `sweep.py --from-table FILE --readme ... --plot ...` redoes both
#              without a GPU.
# make sweep RANDOM=40 [SEED=S]   40 shapes drawn at random instead (SWEEP_PROBLEM's ranges in
#              sweep.py; without SEED the seed comes from /dev/urandom and is printed), the
#              chapter's final launcher (and in 05 step 7's beside it: SWEEP_FINAL_FLAGS): the
#              same table, summary and SWEEP_OUT; the README and the picture are left as they are.
SWEEP_ITERS ?= 9
SWEEP_PAGE ?= README.md
.PHONY: sweep
sweep: build
	python3 $(TOP)/common/scripts/sweep.py --exe $(BUILD_DIR)/bin/$(CHAPTER) \
	  --iters $(SWEEP_ITERS) \
	  $(if $(RANDOM),$(SWEEP_FINAL_FLAGS) --random $(RANDOM) --problem $(SWEEP_PROBLEM) \
	    $(if $(SEED),--seed $(SEED)),$(SWEEP_KERNEL_FLAGS) --shapes $(TOP)/$(CHAPTER)/sweep_shapes.txt --readme $(TOP)/$(CHAPTER)/$(SWEEP_PAGE) \
	    --plot $(TOP)/$(CHAPTER)/sweep) \
	  $(if $(SWEEP_OUT),--out $(SWEEP_OUT))
