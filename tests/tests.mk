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

# make unit-check-aarch64
#                   the same unit tests cross-compiled for aarch64 Linux
#                   (Debian's g++-aarch64-linux-gnu, GoogleTest built from
#                   Debian's googletest sources in the same build) and run
#                   by CTest under qemu's user-mode emulator (qemu-aarch64 -L
#                   /usr/aarch64-linux-gnu; tests/unit/aarch64-toolchain.cmake)
#                   in $(UNIT_A64_BUILD_DIR).  Installs the packages if
#                   missing; if they cannot be installed, prints one line
#                   "unit-check-aarch64: SKIP: ..." and succeeds.  qemu-user
#                   implements neither rseq nor ptrace: the tests that need
#                   a real registration and the single-step races
#                   (race_step_test.cc) skip there with the reason; the
#                   emulated kernel, nesting, races and decisions run.
UNIT_A64_BUILD_DIR := $(BUILD)/unit-aarch64
UNIT_A64_GTEST_SRC ?= /usr/src/googletest
# qemu-user-static provides qemu-aarch64-static instead: either will do.
UNIT_A64_DEPS ?= cmake make g++-aarch64-linux-gnu googletest \
                 $(if $(shell command -v qemu-aarch64-static),,qemu-user)
UNIT_A64_CTEST_OPTS ?=

.PHONY: unit-check-aarch64 clean-unit-aarch64

unit-check-aarch64:
	@mkdir -p $(UNIT_A64_BUILD_DIR); log=$(UNIT_A64_BUILD_DIR)/.pg_rseq-deps.log; \
	if ! ( $(call apt_install,$(UNIT_A64_DEPS)) ) > $$log 2>&1; then \
	  echo "unit-check-aarch64: SKIP: could not install $(strip $(UNIT_A64_DEPS)) ($$(grep -m1 -E '^(E|W|Err):' $$log || tail -1 $$log); log: $$log)"; exit 0; fi; \
	missing=""; \
	command -v aarch64-linux-gnu-g++ > /dev/null || missing="$$missing aarch64-linux-gnu-g++"; \
	command -v qemu-aarch64 > /dev/null || command -v qemu-aarch64-static > /dev/null || missing="$$missing qemu-aarch64"; \
	[ -f $(UNIT_A64_GTEST_SRC)/CMakeLists.txt ] || missing="$$missing $(UNIT_A64_GTEST_SRC)"; \
	if [ -n "$$missing" ]; then echo "unit-check-aarch64: SKIP: cross tools missing after install:$$missing"; exit 0; fi; \
	$(call msg,cmake tests/unit for aarch64 -> $(UNIT_A64_BUILD_DIR)); \
	cmake -S $(UNIT_SRC_DIR) -B $(UNIT_A64_BUILD_DIR) \
	  -DCMAKE_TOOLCHAIN_FILE=$(UNIT_SRC_DIR)/aarch64-toolchain.cmake \
	  -DRSEQ_GTEST_SOURCE_DIR=$(UNIT_A64_GTEST_SRC) $(UNIT_CMAKE_OPTS) \
	  > $(UNIT_A64_BUILD_DIR)/.pg_rseq-cmake.log 2>&1 \
	  || { cat $(UNIT_A64_BUILD_DIR)/.pg_rseq-cmake.log; exit 1; }; \
	cmake --build $(UNIT_A64_BUILD_DIR) -j 2; \
	$(call msg,ctest under qemu-aarch64 in $(UNIT_A64_BUILD_DIR)); \
	cd $(UNIT_A64_BUILD_DIR) && SECONDS=0 && ctest --output-on-failure $(UNIT_A64_CTEST_OPTS) && \
	  $(call msg,unit-check-aarch64: $${SECONDS}s under qemu-aarch64)

clean-unit-aarch64:
	rm -rf $(UNIT_A64_BUILD_DIR)

CHECK_TARGETS += unit-check-aarch64

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
	  $(call prefix,$(LOCK_FLAVOR))/bin $(MAJOR_DIR)/lock-check

CHECK_TARGETS += lock-check

# make abi-check    extensions built against STOCK PostgreSQL 18 headers on
#                   the patched server (tests/abi/stock_abi_check): the stock
#                   pg_buffercache and a probe module (tests/abi) take buffer
#                   header locks through the stock LockBufHdr/UnlockBufHdr
#                   pair and find LWLocks through stock-compiled offsets; the
#                   lock layer's depth stays 0 and every tranche is the one
#                   stock code expects, in modes auto, measure (detail on and
#                   off) and off.  Runs on $(LOCK_FLAVOR).  Closing line:
#                   "abi-check: N passed, N failed".
.PHONY: abi-check
abi-check: ext-install-$(LOCK_FLAVOR) $(PG_STOCK_STAMP)
	@$(call msg,stock-built extensions on $(LOCK_FLAVOR))
	@PG_RUN_USER=$(PG_RUN_USER) bash $(CURDIR)/tests/abi/stock_abi_check \
	  $(call prefix,stock) $(call tree,stock) $(call prefix,$(LOCK_FLAVOR)) $(MAJOR_DIR)/abi-check

CHECK_TARGETS += abi-check

# make glibc-check  who owns the rseq registration (tests/glibc/glibc_check):
#                   the patched server through a newer glibc's dynamic
#                   loader (Debian $(GLIBC_SUITE)'s $(GLIBC_PACKAGE), fetched
#                   with a private apt configuration like the PostgreSQL
#                   source, unpacked with dpkg-deb -x into $(GLIBC_DIR); the
#                   machine's C library is not touched), the setting
#                   rseq_slice_register under auto/never/always with a
#                   preloaded library that reads glibc's rseq area
#                   (tests/glibc/rseq_glibc_user.c), and
#                   GLIBC_TUNABLES=glibc.pthread.rseq=0.  If the package
#                   cannot be fetched, the newer-glibc cases print one SKIP
#                   line and the rest still runs.  Closing line:
#                   "glibc-check: N passed, N failed".
GLIBC_FLAVOR  ?= $(LOCK_FLAVOR)
GLIBC_SUITE   ?= sid
GLIBC_PACKAGE ?= libc6
GLIBC_APT_DIR := $(BUILD)/apt-glibc
GLIBC_DIR     := $(BUILD)/glibc-$(GLIBC_SUITE)

.PHONY: glibc-check glibc-fetch clean-glibc

# Fetch and unpack once (deb_fetch, Makefile); a failed fetch leaves
# $(GLIBC_DIR)/.pg_rseq-skip with the reason and does not fail.
glibc-fetch:
	@$(call deb_fetch,$(GLIBC_SUITE),$(GLIBC_PACKAGE),$(GLIBC_APT_DIR),$(GLIBC_DIR))

glibc-check: ext-install-$(GLIBC_FLAVOR) unit-build glibc-fetch | pg-run-user
	@$(call msg,rseq registration with glibc $(GLIBC_SUITE) and the host's on $(GLIBC_FLAVOR))
	@if [ -f $(GLIBC_DIR)/.pg_rseq-unpacked ]; then dir=$(GLIBC_DIR); \
	else dir="SKIP:$$(cat $(GLIBC_DIR)/.pg_rseq-skip 2>/dev/null || echo 'not fetched')"; rm -rf $(GLIBC_DIR); fi; \
	PG_RUN_USER=$(PG_RUN_USER) bash $(CURDIR)/tests/glibc/glibc_check \
	  $(call prefix,$(GLIBC_FLAVOR))/bin $(MAJOR_DIR)/glibc-check "$$dir" $(UNIT_BUILD_DIR)/rseq_slice_unit

clean-glibc:
	rm -rf $(GLIBC_DIR) $(GLIBC_APT_DIR) $(BUILD)/glibc-check

CHECK_TARGETS += glibc-check
