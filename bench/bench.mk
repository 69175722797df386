# bench/bench.mk: benchmark targets, included by the top-level Makefile.
#
#   make micro          build bench/micro (cmake -> $(BUILD)/micro) and run
#                       check-fastpath + extend-sched + fastpath_bench;
#                       results in bench/results/micro/<date>/ (or MICRO_OUT);
#                       options for bench/micro/run in MICRO_ARGS, e.g.
#                       make micro MICRO_ARGS="--duration 3 --reps 3"
#   make micro-check    fast smoke test (part of `make check`): build, run
#                       extend-sched 1 s with the tas lock, fastpath_bench
#                       with a tiny min time, check-fastpath; checks that the
#                       outputs parse and that entry counts are > 0.
#                       Output in $(BUILD)/micro-check.
#   make micro-deps     install what the above need (cmake, g++,
#                       libbenchmark-dev, python3, binutils) if missing.

MICRO_DIR   := $(CURDIR)/bench/micro
MICRO_BUILD := $(BUILD)/micro
MICRO_OUT   ?=
MICRO_ARGS  ?=
MICRO_DEPS  ?= cmake g++ make libbenchmark-dev python3 binutils

.PHONY: micro micro-check micro-deps

micro-deps:
	@missing=""; \
	for p in $(MICRO_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $(call msg,installing$$missing); \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$sudo apt-get install -y -q --no-install-recommends $$missing \
	  || { $$sudo apt-get update -q && $$sudo apt-get install -y -q --no-install-recommends $$missing; }; \
	fi

micro: micro-deps
	@BUILD_DIR=$(MICRO_BUILD) $(MICRO_DIR)/run $(if $(MICRO_OUT),--out $(MICRO_OUT)) $(MICRO_ARGS)

micro-check: micro-deps
	@BUILD_DIR=$(MICRO_BUILD) $(MICRO_DIR)/run --smoke --out $(BUILD)/micro-check

CHECK_TARGETS += micro-check
