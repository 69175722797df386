# lwlock_patch/lwlock_patch.mk: included by the top-level Makefile.
#
# The core series (lwlock_patch/core/*.patch, `git format-patch` output for
# PostgreSQL 18): rseq slice sections around spinlocks, buffer header
# locks, LWLocks and wait-list locks, the setting rseq_slice_mode (default
# off), configure --disable-rseq-slice / meson -Drseq_slice, config.sgml,
# and the test module src/test/modules/test_rseq.  The research layer
# (lwlock_patch/*.patch and the files copied next to them) is what
# `make postgres` builds as "patched" until the extension, the benchmarks
# and the lab move to the core.
#
# make core-build   pristine 18 + `git am` of the core series in
#                   $(CORE_SRC) (a scratch git repository: git am must
#                   apply it), configured with assertions and TAP tests,
#                   built (not installed).
# make core-check   on that build, as $(PG_RUN_USER): test_rseq's
#                   regression and TAP tests, then PostgreSQL's regression
#                   and isolation suites with rseq_slice_mode = measure
#                   (lwlock_patch/core/measure.conf), and
#                   lwlock_patch/core/check-prologues against the stock
#                   build (hot lock functions keep stock's prologue: no
#                   register saves added by the sections).  Closing line:
#                   "core-check: N passed, N failed" (suites).  PostgreSQL 18
#                   only: with PG_MAJOR=17 it prints a SKIP line.
# make core-series  the series as v1-000K-*.patch in $(CORE_SERIES_DIR).

CORE_DIR         := $(MAJOR_DIR)/core
CORE_SRC         := $(CORE_DIR)/src
CORE_PATCHES     := $(sort $(wildcard $(PATCH_DIR)/core/*.patch))
CORE_BUILT       := $(CORE_DIR)/.pg_rseq-built
CORE_SERIES_DIR  ?= $(MAJOR_DIR)/core-series
CORE_DEPS        ?= libipc-run-perl
CORE_CONFIGURE_OPTS ?= --enable-debug --enable-depend --enable-cassert --enable-tap-tests \
                       --without-icu --with-readline --with-zlib

.PHONY: core-build core-check core-series core-deps

core-deps:
	@$(call apt_install,$(CORE_DEPS))

$(CORE_BUILT): $(PRISTINE_STAMP) $(CORE_PATCHES) | core-deps
	@$(call msg,core series: git am onto $(pristine_dir) in $(CORE_SRC))
	@$(take_lock); \
	rm -rf $(CORE_SRC) && mkdir -p $(CORE_DIR) && cp -a $(pristine_dir) $(CORE_SRC); \
	g="git -C $(CORE_SRC) -c user.name=pg_rseq -c user.email=pg_rseq@localhost -c core.autocrlf=false -c safe.directory=*"; \
	$$g init -q && $$g add -A > /dev/null && $$g commit -q -m pristine && \
	$$g am -q $(CORE_PATCHES) || { echo "*** the core series does not apply with git am" >&2; exit 1; }
	@cd $(CORE_SRC) && SECONDS=0 && \
	  flock $(PG_LOCK) ./configure --prefix=$(CORE_DIR)/inst $(CORE_CONFIGURE_OPTS) CFLAGS='$(PG_CFLAGS)' \
	    > .pg_rseq-configure.log 2>&1 || { tail -n 40 .pg_rseq-configure.log; exit 1; }; \
	  grep -q '^#define USE_RSEQ_SLICE 1' src/include/pg_config.h || { echo "*** configure did not enable rseq slice sections" >&2; exit 1; }; \
	  $(call msg,configure core: $${SECONDS}s)
	@SECONDS=0; $(PGMAKE) -C $(CORE_SRC) -j$(JOBS) -s; $(call msg,make core: $${SECONDS}s)
	@touch $@

core-build: $(CORE_BUILT)

ifeq ($(PG_MAJOR),18)
core-check: $(CORE_BUILT) $(PG_STOCK_STAMP) | pg-run-user
	@$(take_lock); \
	$(call give_to_pg_user,$(CORE_SRC)); \
	cd $(CORE_SRC); pass=0; fail=0; \
	run() { name=$$1; shift; $(call msg,core-check: $$name); \
	  if $(AS_PG_USER) env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$$@" > .pg_rseq-$$name.log 2>&1; then \
	    pass=$$((pass + 1)); grep -E '^# All|^Result|^ok [0-9]+ +- |check-prologues:' .pg_rseq-$$name.log | tail -3; \
	  else \
	    fail=$$((fail + 1)); tail -n 40 .pg_rseq-$$name.log; \
	    find . -name regression.diffs -newer .pg_rseq-$$name.log -exec cat {} + 2>/dev/null | head -200; \
	    echo "core-check: $$name FAILED (log: $(CORE_SRC)/.pg_rseq-$$name.log)"; \
	  fi; }; \
	run test_rseq make -C src/test/modules/test_rseq check; \
	run regress env TEMP_CONFIG=$(PATCH_DIR)/core/measure.conf make -C src/test/regress check; \
	run isolation env TEMP_CONFIG=$(PATCH_DIR)/core/measure.conf make -C src/test/isolation check; \
	run prologues $(PATCH_DIR)/core/check-prologues $(CORE_SRC) $(call tree,stock) $(CORE_SRC)/.pg_rseq-prologues; \
	echo "core-check: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]
else
core-check:
	@echo "core-check: SKIP: the core series is for PostgreSQL 18 (PG_MAJOR=$(PG_MAJOR))"
endif

core-series:
	@rm -rf $(CORE_SERIES_DIR) && mkdir -p $(CORE_SERIES_DIR)
	@for p in $(CORE_PATCHES); do cp $$p $(CORE_SERIES_DIR)/v$(PATCH_SERIES_VERSION)-$$(basename $$p); done
	@$(call msg,core series for PostgreSQL 18 in $(CORE_SERIES_DIR):)
	@for f in $(CORE_SERIES_DIR)/*.patch; do printf '%s\t%s lines\n' "$$(basename $$f)" "$$(grep -c '^[+-][^+-]' $$f)"; done

CHECK_TARGETS += core-check
