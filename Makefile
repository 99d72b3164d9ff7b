# make deps    install the Debian/Ubuntu packages the build needs (besides the CUDA Toolkit)
# make check   build everything and run every test (GPU tests are skipped without a GPU)
# make run     run every chapter on the GPU, one table each
# make bench   run every chapter's Google Benchmark binary
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
include $(TOP)/common/make/build.mk
include $(TOP)/common/make/inspect.mk

CHAPTERS := 01_naive 02_tiled 03_bounds 04_register_block 05_double_buffer 06_transpose

.PHONY: all build check run bench clean
all: build

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) $(CTEST_FLAGS)
	$(print_skip_reasons)

run: build
	@set -e; for c in $(CHAPTERS); do \
	  if [ -x $(BUILD_DIR)/bin/$$c ]; then echo "== $$c"; $(BUILD_DIR)/bin/$$c $(ARGS); fi; \
	done

bench: build
	@set -e; for c in $(CHAPTERS); do \
	  if [ -x $(BUILD_DIR)/bin/$${c}_bench ]; then echo "== $$c"; $(BUILD_DIR)/bin/$${c}_bench $(BENCH_ARGS); fi; \
	done

clean:
	rm -rf $(BUILD_DIR)
