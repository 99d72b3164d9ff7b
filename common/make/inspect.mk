# Inspect the kernels, one command each (what the numbers mean: common/INSPECT.md):
#   make sanitize   compute-sanitizer memcheck, racecheck and synccheck at two small sizes (one
#                   odd); fails on any report
#   make profile    Nsight Compute on each kernel once: a digest table, and the full report
#                   build/profile/<chapter>.ncu-rep for the Nsight Compute UI
#   make sass       the machine code of the kernels (build/sass/<chapter>.sass) and a count of
#                   the instructions the lesson talks about; needs no GPU
#   make analyze    the CPU backend's memory model: every kernel at a small shape, its warp
#                   requests, sectors/request and shared-memory wavefronts counted on the CPU;
#                   needs no GPU (clang++ and the CPU backend; build/analyze/<chapter>-analyze.md)
#   make model-check  on a GPU: the memory model's counts (make analyze's CSV, made anywhere)
#                   against Nsight Compute's, kernel by kernel; fails where they differ
# Inside a chapter folder they inspect that chapter; at the top every chapter (a chapter that is
# not built yet is reported and skipped), and they fail if any chapter fails.
# Variables:
#   NO_BUILD=1               inspect build/bin as it is, without building first
#   CHAPTER=02_tiled         at the top: only this chapter
#   SANITIZE_ARGS="--m 67 --n 45 --k 33 --iters 1"   override the chapter executable's flags
#   PROFILE_ARGS="--size 2048 --iters 1 --no-check"   (the transpose chapter has its own defaults)
#   INSPECT_JOBS=4           sanitizer runs at once (default 1)
#   SANITIZE_FROM_LOGS=1     judge the sanitizer logs of the last run again, running nothing
#   SASS_ARCH=sm_80          which machine code to dump when the binary holds several
#   INSPECT_RESULTS_DIR=dir  also copy the digests there
#   ANALYZE_ARGS="--size 256 --lines"  the analyzers' shape, and a table per source line
#   ANALYZE_SMS=132          the analyzers' launchers plan for a GPU of that many SMs (default 1,
#                            the CPU backend's; chapter 05's split-K plan depends on it)
#   MODEL_DIR=dir            where model-check finds <chapter>-model.csv (default build/analyze)

# The chapters a command covers: the one this Makefile belongs to, or all of them.
INSPECT_CHAPTERS = $(or $(CHAPTER),$(TUTORIAL_CHAPTERS))
INSPECT_ENV = BUILD_DIR='$(BUILD_DIR)' SANITIZE_ARGS='$(SANITIZE_ARGS)' PROFILE_ARGS='$(PROFILE_ARGS)' \
              SANITIZE_FROM_LOGS='$(SANITIZE_FROM_LOGS)' \
              INSPECT_JOBS='$(INSPECT_JOBS)' SASS_ARCH='$(SASS_ARCH)' INSPECT_RESULTS_DIR='$(INSPECT_RESULTS_DIR)'
INSPECT_PREREQ = $(if $(NO_BUILD),,build)

# build.mk's first rule would otherwise be the default goal; `make` alone means `make all`.
.DEFAULT_GOAL := all

.PHONY: sanitize profile sass
sanitize: $(INSPECT_PREREQ)
	@$(INSPECT_ENV) bash $(TOP)/common/scripts/inspect_sanitize.sh $(INSPECT_CHAPTERS)

profile: $(INSPECT_PREREQ)
	@$(INSPECT_ENV) bash $(TOP)/common/scripts/inspect_profile.sh $(INSPECT_CHAPTERS)

sass: $(INSPECT_PREREQ)
	@$(INSPECT_ENV) bash $(TOP)/common/scripts/inspect_sass.sh $(INSPECT_CHAPTERS)

# The memory model builds only its own analyzers (clang), not the whole tree.
.PHONY: analyze
analyze: configure
	@$(INSPECT_ENV) ANALYZE_ARGS='$(ANALYZE_ARGS)' ANALYZE_SMS='$(ANALYZE_SMS)' JOBS='$(JOBS)' NO_BUILD='$(NO_BUILD)' \
	  bash $(TOP)/common/scripts/inspect_analyze.sh $(INSPECT_CHAPTERS)

# The model against the hardware (common/scripts/inspect_model_check.sh, model_vs_ncu.py): ncu
# runs each chapter at the model's size; build/model-check/<chapter>.md holds the side-by-side
# table. Without MODEL_DIR the counts come from this build's analyzers (built and run first
# when their CSVs are missing); a build without them says what to run instead.
MODEL_CHECK = @$(INSPECT_ENV) MODEL_DIR='$(MODEL_DIR)' ANALYZE_ARGS='$(ANALYZE_ARGS)' \
  ANALYZE_SMS='$(ANALYZE_SMS)' JOBS='$(JOBS)' NO_BUILD='$(NO_BUILD)' \
  bash $(TOP)/common/scripts/inspect_model_check.sh
.PHONY: model-check model-check-inputs
model-check: model-check-inputs $(INSPECT_PREREQ)
	$(MODEL_CHECK) $(INSPECT_CHAPTERS)

model-check-inputs: $(if $(NO_BUILD),,configure)
	$(MODEL_CHECK) --inputs-only $(INSPECT_CHAPTERS)
