# tests/tests.mk: included by the top-level Makefile.
#
# make unit-check   GoogleTest unit tests of lwlock_patch/rseq_slice.h and
#                   rseq_slice_kernel.c (tests/unit/), built with CMake in
#                   $(BUILD)/unit and run with CTest.  Needs no PostgreSQL build.
#                   Two executables run the same tests: rseq_slice_unit (detail
#                   counters off, the inline fast path) and rseq_slice_unit_detail
#                   (detail on, the slow path; CTest names detail.*).  KnownBug.*
#                   are skipped unless RSEQ_UNIT_KNOWN_BUGS=1.

UNIT_SRC_DIR   := $(CURDIR)/tests/unit
UNIT_BUILD_DIR := $(BUILD)/unit
# Packages the unit tests need (checked with dpkg-query, installed if missing).
UNIT_DEPS ?= cmake g++ make libgtest-dev
UNIT_CMAKE_OPTS ?=
UNIT_CTEST_OPTS ?=

.PHONY: unit-check unit-deps unit-build clean-unit

unit-deps:
	@$(call apt_install,$(UNIT_DEPS))

unit-build: unit-deps
	@$(call msg,cmake tests/unit -> $(UNIT_BUILD_DIR))
	@mkdir -p $(UNIT_BUILD_DIR)
	@cmake -S $(UNIT_SRC_DIR) -B $(UNIT_BUILD_DIR) $(UNIT_CMAKE_OPTS) > $(UNIT_BUILD_DIR)/.pg_rseq-cmake.log 2>&1 \
	  || { cat $(UNIT_BUILD_DIR)/.pg_rseq-cmake.log; exit 1; }
	@cmake --build $(UNIT_BUILD_DIR) -j 2

unit-check: unit-build
	@$(call msg,ctest in $(UNIT_BUILD_DIR))
	@cd $(UNIT_BUILD_DIR) && SECONDS=0 && ctest --output-on-failure $(UNIT_CTEST_OPTS) && \
	  $(call msg,unit-check: $${SECONDS}s)

clean-unit:
	rm -rf $(UNIT_BUILD_DIR)

CHECK_TARGETS += unit-check

# make lock-check   the lock layer on a real server (tests/lock/pgbench_modes):
#                   start-up LOG line, pgbench with more clients than CPUs in
#                   modes auto/off/measure (deschedules > 0, all zero in off),
#                   an ERROR while holding LWLocks.  Runs on the assertion-
#                   enabled build when CASSERT=1 (the depth invariant is
#                   asserted at every lock operation there).
LOCK_FLAVOR ?= $(if $(filter 1,$(CASSERT)),patched-cassert,patched)

.PHONY: lock-check
lock-check: ext-install-$(LOCK_FLAVOR)
	@$(call msg,lock layer under pgbench on $(LOCK_FLAVOR))
	@PG_RUN_USER=$(PG_RUN_USER) bash $(CURDIR)/tests/lock/pgbench_modes \
	  $(call prefix,$(LOCK_FLAVOR))/bin $(BUILD)/lock-check

CHECK_TARGETS += lock-check
