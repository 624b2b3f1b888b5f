# Front door of the sysdev series workbench.  See README.md.
SHELL := /bin/bash

.PHONY: help run test deps tree apply regen build boot perf references

help:
	@echo "make run    - the main job: deps, kernel tree, apply outgoing/, build, boot in QEMU"
	@echo "make test   - the whole test suite (what CI runs)"
	@echo "make deps | tree | apply | build | boot   - one step of the main job"
	@echo "make regen [V=N]   - regenerate outgoing/ from the working branch (-v N)"
	@echo "make references    - remake ci/references/ from the unpatched base (when references_current fails)"

run:
	bash scripts/run-series.sh

test:
	bash ci/run-tests.sh

deps:
	bash scripts/install-deps.sh

tree:
	bash scripts/prepare-tree.sh

apply:
	bash scripts/apply-series.sh

regen:
	bash scripts/regen-series.sh $(if $(V),-v $(V))

references:
	bash ci/run-tests.sh --references

build:
	bash scripts/build-kernel.sh x86_64

# Performance of the series head against the unpatched base (not part of
# make test: about 60 minutes cold, 8 warm).  See Documentation/performance.md.
perf:
	bash ci/perf/run-perf.sh

boot:
	. scripts/lib.sh && k=$$(sysdev_kunit_expect) && bash qemu/boot.sh -k $${k:+-K "$$k"} -c boot,tree,suspend "$$BUILD_ROOT/x86_64/arch/x86/boot/bzImage"
