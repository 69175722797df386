# lwlock_patch/lwlock_patch.mk: included by the top-level Makefile.
#
# The core series (lwlock_patch/core/*.patch, `git format-patch` output for
# PostgreSQL 18): rseq slice sections around spinlocks, buffer header
# locks, LWLocks and wait-list locks, the setting rseq_slice_mode (default
# off), configure --disable-rseq-slice / meson -Drseq_slice, config.sgml,
# and the test module src/test/modules/test_rseq.  `make patch-series`
# writes it for `git am`.  The research layer (lwlock_patch/*.patch and the
# files copied next to them) is what `make postgres` builds as "patched"
# until the extension, the benchmarks and the lab move to the core.
#
# Two flavours of the top-level Makefile build the core (on demand, not by
# `make postgres`):
#   core          stock's configure options      -> $(PG_CORE_PREFIX)
#                 (make callgrind's core configurations)
#   core-cassert  + --enable-cassert --enable-tap-tests (and the vector
#                 -march of patched-cassert)    -> $(PG_DIR)/core-cassert
# Their source is $(CORE_STAGE_DIR): the pristine tree as a scratch git
# repository with the series applied by `git am` (so a series that git am
# refuses fails the build), then without .git.
#
# make core-build   build and install core-cassert.
# make core-check   on core-cassert, as $(PG_RUN_USER): test_rseq's
#                   regression and TAP tests (PG_TEST_EXTRA=rseq_counts:
#                   t/002_counts.pl too), its regression test again
#                   where glibc registers no rseq area
#                   (GLIBC_TUNABLES=glibc.pthread.rseq=0: path off, the
#                   output must be expected/test_rseq_1.out), then
#                   PostgreSQL's regression
#                   and isolation suites with rseq_slice_mode = measure
#                   (lwlock_patch/core/measure.conf), pgindent (with
#                   the tree's pg_bsd_indent) changes none of the series'
#                   .c and .h files, perltidy with PostgreSQL's
#                   perltidyrc changes none of its .pl and .pm files
#                   (perltidy 20250105, see perltidy-fetch below; a SKIP
#                   line, not a step, where it cannot be fetched), lwlock_patch/core/check-startup-paths
#                   (the path chosen under a faked 7.2 kernel, with the
#                   yield refused as by a seccomp filter, without an rseq
#                   area), the documentation is valid DocBook
#                   (make -C doc/src/sgml check: xmllint --valid), and
#                   lwlock_patch/core/check-prologues against the stock
#                   build (hot lock functions keep stock's prologue: no
#                   register saves added by the sections), and
#                   lwlock_patch/core/check-compiled-out (built as
#                   --disable-rseq-slice, the lock files and the heaviest
#                   lock users are stock's machine code but for the
#                   functions calling the start-up and slot routines).
#                   Closing line:
#                   "core-check: N passed, N failed" (steps).  PostgreSQL 18
#                   only: with PG_MAJOR=17 it prints a SKIP line.

CORE_DEPS ?= libipc-run-perl libxml2-utils docbook-xml
CORE_CHECK_TREE := $(call tree,core-cassert)

.PHONY: core-build core-check core-deps postgres-core postgres-core-cassert perltidy-fetch

# perltidy for the series' Perl files.  PostgreSQL 18 asks for perltidy
# 20230309 (src/tools/pgindent/README), which no Debian suite has; Debian
# trixie's 20250105 leaves PostgreSQL 18.6's own TAP files as they are
# (src/tools/pgindent/pgperltidy over src/test/modules/test_misc and
# src/bin/pg_basebackup changes nothing), so the check uses that version,
# pinned: fetched with a private apt configuration and unpacked into
# $(PERLTIDY_DIR) by deb_fetch (Makefile), as glibc-fetch does with libc6 (the machine's own
# perltidy, if any, is not used or touched).  A failed fetch leaves the
# reason in $(PERLTIDY_DIR)/.pg_rseq-skip and does not fail.
PERLTIDY_SUITE   ?= trixie
PERLTIDY_VERSION ?= 20250105-1
PERLTIDY_APT_DIR := $(BUILD)/apt-perltidy
PERLTIDY_DIR     := $(BUILD)/perltidy

perltidy-fetch:
	@$(call deb_fetch,$(PERLTIDY_SUITE),perltidy=$(PERLTIDY_VERSION),$(PERLTIDY_APT_DIR),$(PERLTIDY_DIR))

core-deps:
	@$(call apt_install,$(CORE_DEPS))

$(CORE_STAGE_STAMP): $(PRISTINE_STAMP) $(CORE_PATCHES) | core-deps
	@$(call msg,core series: git am onto the pristine tree in $(CORE_STAGE_DIR))
	@$(take_lock); \
	rm -rf $(CORE_STAGE_DIR).tmp && cp -a $(pristine_dir) $(CORE_STAGE_DIR).tmp; \
	g="git -C $(CORE_STAGE_DIR).tmp -c user.name=pg_rseq -c user.email=pg_rseq@localhost -c core.autocrlf=false -c safe.directory=*"; \
	$$g init -q && $$g add -A > /dev/null && $$g commit -q -m pristine && \
	$$g am -q $(CORE_PATCHES) || { echo "*** the core series does not apply with git am (in $(CORE_STAGE_DIR).tmp)" >&2; exit 1; }; \
	rm -rf $(CORE_STAGE_DIR).tmp/.git $(CORE_STAGE_DIR) && mv $(CORE_STAGE_DIR).tmp $(CORE_STAGE_DIR)
	@touch $@

# configure must have turned the sections on (Linux x86_64/aarch64, sys/rseq.h)
$(call built_stamp,core) $(call built_stamp,core-cassert): | core-deps
core-build: $(PG_CORE_CASSERT_STAMP)
	@grep -q '^#define USE_RSEQ_SLICE 1' $(CORE_CHECK_TREE)/src/include/pg_config.h \
	  || { echo "*** configure did not enable rseq slice sections in $(CORE_CHECK_TREE)" >&2; exit 1; }

ifeq ($(PG_MAJOR),18)
core-check: core-build $(PG_STOCK_STAMP) perltidy-fetch | pg-run-user
	@$(take_lock); \
	$(call give_to_pg_user,$(CORE_CHECK_TREE)); \
	cd $(CORE_CHECK_TREE); pass=0; fail=0; \
	run() { name=$$1; shift; $(call msg,core-check: $$name); \
	  if $(AS_PG_USER) env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$$@" > .pg_rseq-$$name.log 2>&1; then \
	    pass=$$((pass + 1)); grep -E '^# All|^Result|^ok [0-9]+ +- |check-prologues:|check-compiled-out:|check-startup-paths:|^pgindent:|^perltidy:' .pg_rseq-$$name.log | tail -3 || true; \
	  else \
	    fail=$$((fail + 1)); tail -n 40 .pg_rseq-$$name.log; \
	    find . -name regression.diffs -newer .pg_rseq-$$name.log -exec cat {} + 2>/dev/null | head -200; \
	    echo "core-check: $$name FAILED (log: $(CORE_CHECK_TREE)/.pg_rseq-$$name.log)"; \
	  fi; }; \
	run test_rseq env PG_TEST_EXTRA=rseq_counts make -C src/test/modules/test_rseq check; \
	run test_rseq-no-rseq sh -c 'GLIBC_TUNABLES=glibc.pthread.rseq=0 make -C src/test/modules/test_rseq check TAP_TESTS= && cmp src/test/modules/test_rseq/results/test_rseq.out src/test/modules/test_rseq/expected/test_rseq_1.out'; \
	run regress env TEMP_CONFIG=$(PATCH_DIR)/core/measure.conf make -C src/test/regress check; \
	run isolation env TEMP_CONFIG=$(PATCH_DIR)/core/measure.conf make -C src/test/isolation check; \
	run pgindent sh -c 'make -C src/tools/pg_bsd_indent > /dev/null && files=$$(sed -n "s|^+++ b/\(.*\.[ch]\)$$|\1|p" $(CORE_PATCHES) | sort -u) && src/tools/pgindent/pgindent --indent=src/tools/pg_bsd_indent/pg_bsd_indent --diff $$files > .pg_rseq-pgindent.diff && if [ -s .pg_rseq-pgindent.diff ]; then cat .pg_rseq-pgindent.diff; exit 1; fi; echo "pgindent: $$(echo $$files | wc -w) files of the series unchanged"'; \
	if [ -f $(PERLTIDY_DIR)/.pg_rseq-unpacked ]; then \
	  run perltidy sh -c 'files=$$(sed -n "s|^+++ b/\(.*\.p[lm]\)$$|\1|p" $(CORE_PATCHES) | sort -u) && bad=0 && for f in $$files; do PERL5LIB=$(PERLTIDY_DIR)/usr/share/perl5 $(PERLTIDY_DIR)/usr/bin/perltidy --profile=src/tools/pgindent/perltidyrc -st -se $$f | diff -u $$f - || bad=1; done; [ $$bad = 0 ] && echo "perltidy: $$(echo $$files | wc -w) Perl files of the series unchanged ($$(cat $(PERLTIDY_DIR)/.pg_rseq-unpacked))"'; \
	else echo "core-check: perltidy SKIP: $$(cat $(PERLTIDY_DIR)/.pg_rseq-skip 2>/dev/null)"; fi; \
	run startup-paths $(PATCH_DIR)/core/check-startup-paths $(call prefix,core-cassert)/bin $(CORE_CHECK_TREE)/.pg_rseq-startup-paths; \
	run sgml make -C doc/src/sgml check; \
	run prologues $(PATCH_DIR)/core/check-prologues $(CORE_CHECK_TREE) $(call tree,stock) $(CORE_CHECK_TREE)/.pg_rseq-prologues; \
	run compiled-out $(PATCH_DIR)/core/check-compiled-out $(CORE_CHECK_TREE) $(call tree,stock) $(CORE_CHECK_TREE)/.pg_rseq-compiled-out; \
	echo "core-check: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]
else
core-check:
	@echo "core-check: SKIP: the core series is for PostgreSQL 18 (PG_MAJOR=$(PG_MAJOR))"
endif

CHECK_TARGETS += core-check
