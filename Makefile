# The two entry points of the README. Both install what they need first (scripts/setup-deps.sh is idempotent).
PRESET ?= release
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc)
CONVEYOR := $(BUILD)/tools/conveyor/conveyor
RESULTS ?= results
FUZZ_SECONDS ?= 60

.PHONY: all deps build main-job run test fuzz clean

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/build.ninja: | deps
	cmake --preset $(PRESET)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Only what the main job needs (the library, the CLI, the simulator's programs).
main-job: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target conveyor_main_job

# The main job: what this machine has, how fast memory moves per thread count, and the offload costs
# (writes the calibration used by the rest of Conveyor); then a checked block Cholesky on every device
# found (gemm offloaded, with its timeline) and the store-buffer sweep of the manycore simulator.
# Figures and JSON results go under $(RESULTS)/.
run: main-job
	@mkdir -p $(RESULTS)
	$(CONVEYOR) devices
	$(CONVEYOR) stream --threads 1-$(shell nproc) --json-out $(RESULTS)/stream.json
	$(CONVEYOR) probe --json-out $(RESULTS)/probe.json
	$(CONVEYOR) cholesky --n 2048 --block 256 --devices all --offload gemm --check \
	  --trace $(RESULTS)/cholesky-trace.json --json-out $(RESULTS)/cholesky.json
	$(CONVEYOR) sim sweep --json-out $(RESULTS)/sim_sweep.json
	$(CONVEYOR) plot $(RESULTS)/stream.json -o $(RESULTS)/stream.png
	$(CONVEYOR) plot $(RESULTS)/probe.json -o $(RESULTS)/probe.png
	$(CONVEYOR) plot $(RESULTS)/cholesky-trace.json -o $(RESULTS)/cholesky-trace.png
	$(CONVEYOR) plot $(RESULTS)/sim_sweep.json -o $(RESULTS)/sim_sweep.png
	@echo "figures and JSON results are in $(RESULTS)/"

# The runtime's own small test binary under ThreadSanitizer and under AddressSanitizer + UBSan
# (undefined behaviour is fatal there), the simulated clusters' tests (ranks as threads) under the
# former, the simulator's tests under the latter (only those targets are built in those presets,
# without the OpenCL backend to keep CI short: the runtime is tested there on emulated devices; each
# binary as JOBS shards side by side, scripts/gtest-shards.sh), then a slice of the fuzzers
# (scripts/fuzz.sh, 5 s per harness, JOBS at a time, built in the asan tree beside those tests),
# then the whole suite (ctest; the apps' OpenCL runs on the own kernels there, the CLBlast
# kernels only in the tests that compare the two, because CLBlast compiles its kernels on PoCL at
# first use for about a minute per precision), then the Python package's tests (python/tests,
# pytest, from the build tree: docs/python.md) when conveyor._core was built. The sanitizer runs,
# like ctest's, keep calibration and models in the build tree (XDG_CACHE_HOME), not the user's.
test: build
	for p in tsan asan; do \
	  cmake --preset $$p > /dev/null && \
	  cmake --build build/$$p -j $(JOBS) --target conveyor_runtime_tests && \
	  XDG_CACHE_HOME=$(CURDIR)/build/$$p/test-cache scripts/gtest-shards.sh $(JOBS) \
	    build/$$p/tests/conveyor_runtime_tests --gtest_filter='-*opencl*:*cuda*' || exit 1; \
	done
	if ninja -C build/tsan -t targets all | grep -q '^conveyor_distributed_unit_tests:'; then \
	  cmake --build build/tsan -j $(JOBS) --target conveyor_distributed_unit_tests && \
	  XDG_CACHE_HOME=$(CURDIR)/build/tsan/test-cache build/tsan/tests/conveyor_distributed_unit_tests || exit 1; \
	fi
	cmake --build build/asan -j $(JOBS) --target conveyor_manycore_tests
	UBSAN_OPTIONS=print_stacktrace=1 XDG_CACHE_HOME=$(CURDIR)/build/asan/test-cache \
	  scripts/gtest-shards.sh $(JOBS) build/asan/tests/conveyor_manycore_tests
	FUZZ_SECONDS=5 JOBS=$(JOBS) scripts/fuzz.sh
	cd $(BUILD) && CONVEYOR_OPENCL_BLAS=own ctest --output-on-failure -j $(JOBS)
	@if ls $(BUILD)/python/conveyor/_core.*.so > /dev/null 2>&1; then \
	  PYTHONPATH=$(CURDIR)/$(BUILD)/python:$(CURDIR)/python CONVEYOR_CLI=$(CURDIR)/$(CONVEYOR) \
	    python3 -m pytest -q python/tests; \
	else \
	  echo "python tests skipped: conveyor._core was not built (CONVEYOR_BUILD_PYTHON, docs/python.md)"; \
	fi

# Every libFuzzer harness of fuzz/ for FUZZ_SECONDS each (docs/fuzzing.md); `make test` runs a
# slice of it (5 s each).
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) scripts/fuzz.sh

clean:
	rm -rf build
