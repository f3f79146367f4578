# The two entry points of the README. Both install what they need first (scripts/setup-deps.sh is idempotent).
PRESET ?= release
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc)
CONVEYOR := $(BUILD)/tools/conveyor/conveyor
RESULTS ?= results

.PHONY: all deps build run test clean

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/build.ninja: | deps
	cmake --preset $(PRESET)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The main job: what this machine has, how fast memory moves per thread count, and the offload costs
# (writes the calibration used by the rest of Conveyor), with figures under $(RESULTS)/.
run: build
	@mkdir -p $(RESULTS)
	$(CONVEYOR) devices
	$(CONVEYOR) stream --threads 1-$(shell nproc) --json-out $(RESULTS)/stream.json
	$(CONVEYOR) probe --json-out $(RESULTS)/probe.json
	$(CONVEYOR) plot $(RESULTS)/stream.json -o $(RESULTS)/stream.png
	$(CONVEYOR) plot $(RESULTS)/probe.json -o $(RESULTS)/probe.png
	@echo "figures and JSON results are in $(RESULTS)/"

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build
