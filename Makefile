# pg_rseq top-level Makefile.
#
# `make postgres` builds PostgreSQL 18 twice (three times with CASSERT=1),
# side by side, from one pristine source tree:
#
#   $(BUILD)/src/postgresql-18.x      pristine source (Debian orig tarball or PG_SRC)
#   $(BUILD)/pg/src-stock             build tree, stock         -> $(BUILD)/pg/stock
#   $(BUILD)/pg/src-patched           build tree, lwlock_patch/ -> $(BUILD)/pg/patched
#   $(BUILD)/pg/src-patched-cassert   same + --enable-cassert   -> $(BUILD)/pg/patched-cassert
#
# and, on demand (lwlock_patch/lwlock_patch.mk), the core series:
#
#   $(BUILD)/pg/stage-core            pristine + `git am` of lwlock_patch/core/*.patch
#   $(BUILD)/pg/src-core              build tree, stock's options -> $(BUILD)/pg/core
#   $(BUILD)/pg/src-core-cassert      + --enable-cassert --enable-tap-tests -> $(BUILD)/pg/core-cassert
#
# `make ... PG_MAJOR=17` does the same for PostgreSQL 17 (Debian trixie's
# postgresql-17, the hooks of lwlock_patch/pg17/), with the same layout one
# level down, under $(BUILD)/pg17/ (src/, pg/, and the test outputs of the
# other makefiles, which use $(MAJOR_DIR)).
#
# Every step is guarded by a stamp file, so a second `make postgres` with
# nothing changed does not enter the PostgreSQL trees at all.
#
# Other parts of the project hook in through <dir>/<dir>.mk files (for example
# bench/bench.mk, tests/tests.mk): they are included below and may append to
# CHECK_TARGETS, e.g. `CHECK_TARGETS += ext-check`.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

# ---------------------------------------------------------------------------
# User variables
# ---------------------------------------------------------------------------
BUILD   ?= $(CURDIR)/build
# The PostgreSQL major to build and test: 18 (default) or 17.  Each major
# has its own source, build trees, installations and test outputs (18's
# directly under $(BUILD), 17's under $(BUILD)/pg17), so both can be built
# side by side; PostgreSQL builds of both are serialised by one lock.
PG_MAJOR ?= 18
PG_MAJORS := 17 18
ifeq ($(filter $(PG_MAJORS),$(PG_MAJOR)),)
$(error PG_MAJOR=$(PG_MAJOR): supported majors are $(PG_MAJORS))
endif
# Where everything of this major goes (other makefiles put their per-major
# outputs there too): $(BUILD) for 18, $(BUILD)/pg$(PG_MAJOR) otherwise.
MAJOR_DIR = $(if $(filter 18,$(PG_MAJOR)),$(BUILD),$(BUILD)/pg$(PG_MAJOR))
# Optional: an unpacked postgresql-$(PG_MAJOR).x source tree (otherwise
# Debian's postgresql-$(PG_MAJOR) orig tarball from $(PG_SUITE) is fetched).
PG_SRC  ?=
# 1: also build $(MAJOR_DIR)/pg/patched-cassert (--enable-cassert).
# Default: 1 once an assertion-enabled build exists (so that a later
# `make check` keeps testing it), else 0.
CASSERT ?= $(if $(wildcard $(MAJOR_DIR)/pg/src-patched-cassert/.pg_rseq-built),1,0)
# Parallelism inside each PostgreSQL build: the CPUs + 1 (3 on this project's
# 2-core machine, as before; 17 on 16 cores).  The builds themselves run one
# at a time (PG_LOCK), so each may use every CPU.
ifeq ($(origin JOBS),undefined)
JOBS := $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
endif
# 1: enter the PostgreSQL trees with make even if no stamp is out of date
# (use after editing files inside $(BUILD)/pg/src-* by hand).
PG_REMAKE ?= 0

# Where the source comes from when PG_SRC is empty: sid carries only the
# newest major, Debian 13 (trixie) carries 17.
PG_SRC_PACKAGE ?= postgresql-$(PG_MAJOR)
PG_SUITE       ?= $(if $(filter 18,$(PG_MAJOR)),sid,trixie)
# Default: the Debian mirror of this machine's own apt sources
# (tools/debian-mirror; http://deb.debian.org/debian when they name none).
ifeq ($(origin DEBIAN_MIRROR),undefined)
DEBIAN_MIRROR := $(shell $(CURDIR)/tools/debian-mirror)
endif

# Same for every flavour; only --enable-cassert is added for patched-cassert.
# --enable-depend only records header dependencies (so that editing a header
# in lwlock_patch/ recompiles its users); it does not change the binaries.
PG_CONFIGURE_OPTS ?= --enable-debug --enable-depend --without-icu --with-readline --with-zlib
PG_CFLAGS         ?= -O2 -g
# The assertion-enabled build is also the vector build: compiled for
# x86-64-v3 (AVX2, FMA, BMI2, MOVBE: the RHEL 10 baseline) where this CPU
# has it, so that `make check` runs the lock layer in code that keeps
# 256-bit values in ymm registers across lock sections.  Empty elsewhere.
PG_CASSERT_MARCH  ?= $(shell f=$$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null); \
                       for x in avx2 fma bmi2 movbe; do [[ " $$f " == *" $$x "* ]] || exit 0; done; \
                       echo -march=x86-64-v3)

# Packages the build needs (checked with dpkg-query, installed if missing).
PG_BUILD_DEPS ?= build-essential bison flex libreadline-dev zlib1g-dev pkg-config \
                 libicu-dev perl rsync bzip2 patch util-linux

override BUILD := $(abspath $(BUILD))
override MAJOR_DIR := $(MAJOR_DIR)
ifneq ($(strip $(PG_SRC)),)
override PG_SRC := $(abspath $(PG_SRC))
endif

# ---------------------------------------------------------------------------
# Derived paths (other makefiles may use these)
# ---------------------------------------------------------------------------
APT_DIR   := $(MAJOR_DIR)/apt
SRC_DIR   := $(MAJOR_DIR)/src
PG_DIR    := $(MAJOR_DIR)/pg
# The new files of the lock layer (PATCH_COPIES) are shared by every major;
# the hooks into PostgreSQL's own files are a patch set per major:
# lwlock_patch/*.patch for 18, lwlock_patch/pg<major>/*.patch for the others.
PATCH_DIR := $(CURDIR)/lwlock_patch
PATCH_SET_DIR := $(if $(filter 18,$(PG_MAJOR)),$(PATCH_DIR),$(PATCH_DIR)/pg$(PG_MAJOR))

PG_STOCK_PREFIX   := $(PG_DIR)/stock
PG_PATCHED_PREFIX := $(PG_DIR)/patched
PG_CASSERT_PREFIX := $(PG_DIR)/patched-cassert
PG_CORE_PREFIX    := $(PG_DIR)/core

# Pristine tree: the stamp's first line is its absolute path, the second its version.
PRISTINE_STAMP  := $(SRC_DIR)/.pristine
PRISTINE_ORIGIN := $(SRC_DIR)/.origin
pristine_dir     = $$(sed -n 1p $(PRISTINE_STAMP))
pristine_version = $$(sed -n 2p $(PRISTINE_STAMP))

# Patched source staging tree (pristine + lwlock_patch/*.patch + copied files).
STAGE_DIR   := $(PG_DIR)/stage-patched
STAGE_STAMP := $(PG_DIR)/.stage-patched.stamp
STAGE_LIST  := $(PG_DIR)/.stage-patched.inputs
PATCHES     := $(sort $(wildcard $(PATCH_SET_DIR)/*.patch))
# <file in lwlock_patch/>:<destination in the PostgreSQL tree>
PATCH_COPIES := rseq_slice.h:src/include/port/rseq_slice.h \
                rseq_slice_kernel.c:src/backend/storage/lmgr/rseq_slice_kernel.c \
                rseq_lock.h:src/include/storage/rseq_lock.h \
                rseq_stats.h:src/include/storage/rseq_stats.h \
                rseq_lock.c:src/backend/storage/lmgr/rseq_lock.c
# The core series: pristine + `git am` of lwlock_patch/core/*.patch (18 only).
CORE_STAGE_DIR   := $(PG_DIR)/stage-core
CORE_STAGE_STAMP := $(PG_DIR)/.stage-core.stamp
CORE_PATCHES     := $(sort $(wildcard $(PATCH_DIR)/core/*.patch))
PATCH_COPY_SRCS := $(wildcard $(foreach c,$(PATCH_COPIES),$(PATCH_DIR)/$(firstword $(subst :, ,$(c)))))

FLAVORS := stock patched
ifeq ($(CASSERT),1)
FLAVORS += patched-cassert
endif

# Per-flavour paths and stamps.  $(call tree,F) / $(call prefix,F).
tree          = $(PG_DIR)/src-$(1)
prefix        = $(PG_DIR)/$(1)
synced_stamp  = $(call tree,$(1))/.pg_rseq-synced
config_file   = $(call tree,$(1))/.pg_rseq-config
config_stamp  = $(call tree,$(1))/.pg_rseq-configured
built_stamp   = $(call tree,$(1))/.pg_rseq-built
install_stamp = $(call prefix,$(1))/.pg_rseq-installed
origin_stamp  = $(if $(filter stock,$(1)),$(PRISTINE_STAMP),$(if $(filter core%,$(1)),$(CORE_STAGE_STAMP),$(STAGE_STAMP)))
origin_dir    = $(if $(filter stock,$(1)),$(pristine_dir),$(if $(filter core%,$(1)),$(CORE_STAGE_DIR),$(STAGE_DIR)))
flavor_opts   = $(if $(filter %-cassert,$(1)),--enable-cassert)$(if $(filter core-cassert,$(1)), --enable-tap-tests)
flavor_cflags = $(PG_CFLAGS)$(if $(filter %-cassert,$(1)), $(PG_CASSERT_MARCH))

# Depend on these (not on the phony targets) from other makefiles.
PG_STOCK_STAMP   := $(call install_stamp,stock)
PG_PATCHED_STAMP := $(call install_stamp,patched)
PG_CASSERT_STAMP := $(call install_stamp,patched-cassert)
PG_CORE_STAMP    := $(call install_stamp,core)
PG_CORE_CASSERT_STAMP := $(call install_stamp,core-cassert)

# PostgreSQL's make, without our command-line variables or jobserver, and
# serialised across flavours and majors (one PostgreSQL build at a time on
# 2 cores): every major takes 18's lock file.
PG_LOCK := $(BUILD)/pg/.build.lock
PGMAKE   = flock $(PG_LOCK) env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make
# Same lock for the rest of a one-line shell recipe (staging, syncing).
take_lock = mkdir -p $(sort $(PG_DIR) $(patsubst %/,%,$(dir $(PG_LOCK)))) && exec 9>>$(PG_LOCK) && flock 9

# initdb/postgres refuse to run as root: run them as $(PG_RUN_USER) then.
ifeq ($(shell id -u),0)
PG_RUN_USER ?= pgrseq
AS_PG_USER  := runuser -u $(PG_RUN_USER) --
else
PG_RUN_USER ?=
AS_PG_USER  :=
endif

msg = echo "[pg_rseq] $(1)"

# Write $(1) with content $(2) only if it differs (keeps the mtime otherwise).
define write_if_changed
	mkdir -p $(dir $(1)); \
	printf '%s\n' $(2) > $(1).tmp.$$$$; \
	if cmp -s $(1).tmp.$$$$ $(1); then rm -f $(1).tmp.$$$$; else mv -f $(1).tmp.$$$$ $(1); fi
endef

# rsync $(1)/ into $(2)/ in checksum mode: only changed files are rewritten
# (and get a new mtime).  Files that the previous sync brought in and that
# are gone from $(1) are deleted; every other file in $(2) is a build output
# and is kept (plain `rsync --delete` would remove them).
define sync_tree
	$(take_lock); \
	mkdir -p $(2); \
	(cd $(1) && find . \( -type f -o -type l \) ! -name '.pg_rseq-*' -print | LC_ALL=C sort) > $(2)/.pg_rseq-manifest.new; \
	rsync -rlc --exclude='/.pg_rseq-*' $(1)/ $(2)/; \
	if [ -f $(2)/.pg_rseq-manifest ]; then \
	  LC_ALL=C comm -23 $(2)/.pg_rseq-manifest $(2)/.pg_rseq-manifest.new \
	    | (cd $(2) && tr '\n' '\0' | xargs -0 -r rm -fv --); \
	fi; \
	mv -f $(2)/.pg_rseq-manifest.new $(2)/.pg_rseq-manifest
endef

.PHONY: all postgres postgres-deps postgres-check clean-postgres distclean-postgres \
        check help FORCE pg-run-user postgres-stock postgres-patched postgres-patched-cassert

all: postgres

help:
	@echo "make postgres        build $(FLAVORS) under $(PG_DIR)"
	@echo "make postgres CASSERT=1   also build patched-cassert"
	@echo "make postgres-check  PostgreSQL regression suite on the patched tree"
	@echo "make check           $(CHECK_TARGETS)"
	@echo "make clean-postgres  rm -rf $(PG_DIR)"

postgres: $(addprefix postgres-,$(FLAVORS))
	@$(call msg,installs: $(foreach f,$(FLAVORS),$(call prefix,$(f))))

FORCE:

# ---------------------------------------------------------------------------
# Build dependencies
# ---------------------------------------------------------------------------
# $(call apt_install,PACKAGES): install the Debian packages of the list that
# are missing (dpkg-query), running `apt-get update` only if a first install
# fails.  Used by every *-deps target of the project.  apt-get runs through
# tools/apt-get-wait: when another apt or dpkg holds its lock, it waits up to
# APT_LOCK_TIMEOUT seconds (default 600) and says which process it waits for,
# instead of failing at once.
APT_LOCK_TIMEOUT ?= 600
APT_GET_WAIT     := $(CURDIR)/tools/apt-get-wait
define apt_install
have=" $$({ dpkg-query -W -f='$${db:Status-Abbrev}$${Package}\n' $(1) 2>/dev/null || true; } | awk '$$1 == "ii" {printf "%s ", $$2}')"; \
missing=""; \
for p in $(1); do case "$$have" in *" $$p "*) ;; *) missing="$$missing $$p";; esac; done; \
if [ -n "$$missing" ]; then \
  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
  $(call msg,installing$$missing); \
  aptw="$$sudo env DEBIAN_FRONTEND=noninteractive APT_LOCK_TIMEOUT=$(APT_LOCK_TIMEOUT) $(APT_GET_WAIT)"; \
  $$aptw install -y -q --no-install-recommends $$missing \
  || { $$aptw update -q && $$aptw install -y -q --no-install-recommends $$missing; }; \
fi
endef

postgres-deps:
	@$(call apt_install,$(PG_BUILD_DEPS))

# ---------------------------------------------------------------------------
# Pristine source
# ---------------------------------------------------------------------------
# Records where the source comes from; re-fetch/re-copy only when that changes.
$(PRISTINE_ORIGIN): FORCE
	@$(call write_if_changed,$@,$(if $(PG_SRC),"PG_SRC=$(PG_SRC)","apt:$(PG_SUITE):$(PG_SRC_PACKAGE)"))

$(PRISTINE_STAMP): $(PRISTINE_ORIGIN) | postgres-deps
	@mkdir -p $(SRC_DIR)
ifneq ($(PG_SRC),)
	@test -x $(PG_SRC)/configure || { echo "PG_SRC=$(PG_SRC): no configure script" >&2; exit 1; }
	@ver=$$(sed -n "s/^PACKAGE_VERSION='\(.*\)'$$/\1/p" $(PG_SRC)/configure); \
	case "$$ver" in $(PG_MAJOR).*|$(PG_MAJOR)beta*|$(PG_MAJOR)rc*) ;; *) echo "PG_SRC is PostgreSQL '$$ver', expected $(PG_MAJOR).x (PG_MAJOR=$(PG_MAJOR))" >&2; exit 1;; esac; \
	dest=$(SRC_DIR)/postgresql-$$ver; \
	$(call msg,copying $(PG_SRC) to $$dest); \
	rsync -a --delete $(PG_SRC)/ $$dest/; \
	printf '%s\n%s\n' "$$dest" "$$ver" > $@
else
	@mkdir -p $(APT_DIR)/state/lists/partial $(APT_DIR)/cache/archives/partial $(APT_DIR)/download
	@echo "deb-src $(DEBIAN_MIRROR) $(PG_SUITE) main" > $(APT_DIR)/sources.list
	@$(call msg,apt-get update (private config in $(APT_DIR), $(PG_SUITE) deb-src only))
	@APT_LOCK_TIMEOUT=$(APT_LOCK_TIMEOUT) $(APT_GET_WAIT) -q $(APT_OPTS) update
	@$(call msg,apt-get source --download-only $(PG_SRC_PACKAGE))
	@cd $(APT_DIR)/download && rm -f ./* && APT_LOCK_TIMEOUT=$(APT_LOCK_TIMEOUT) $(APT_GET_WAIT) -q $(APT_OPTS) source --download-only $(PG_SRC_PACKAGE)
	@orig=$$(ls $(APT_DIR)/download/$(PG_SRC_PACKAGE)_*.orig.tar.* | grep -v '\.asc$$' | head -1); \
	test -f "$$orig" || { echo "no orig tarball in $(APT_DIR)/download" >&2; exit 1; }; \
	$(call msg,unpacking $$orig); \
	rm -rf $(SRC_DIR)/unpack && mkdir -p $(SRC_DIR)/unpack && tar -xf "$$orig" -C $(SRC_DIR)/unpack; \
	top=$$(ls $(SRC_DIR)/unpack); \
	test -x $(SRC_DIR)/unpack/$$top/configure || { echo "unexpected tarball layout: $$top" >&2; exit 1; }; \
	ver=$$(sed -n "s/^PACKAGE_VERSION='\(.*\)'$$/\1/p" $(SRC_DIR)/unpack/$$top/configure); \
	dest=$(SRC_DIR)/postgresql-$$ver; \
	rm -rf $$dest && mv $(SRC_DIR)/unpack/$$top $$dest && rmdir $(SRC_DIR)/unpack; \
	printf '%s\n%s\n' "$$dest" "$$ver" > $@; \
	$(call msg,pristine source: $$dest)
endif

# Private apt configuration: never touches the machine's own sources.
APT_OPTS = -o Dir::Etc::sourcelist=$(APT_DIR)/sources.list \
           -o Dir::Etc::sourceparts=- \
           -o Dir::State=$(APT_DIR)/state \
           -o Dir::Cache=$(APT_DIR)/cache \
           -o APT::Sandbox::User=root

# $(call deb_fetch,SUITE,PACKAGE[=VERSION],APT_DIR,DEST): one binary package
# of Debian's SUITE downloaded with a private apt configuration in APT_DIR
# (APT_OPTS pointed there: the machine's sources, lists and cache are not
# used or touched) and unpacked (dpkg-deb -x, not installed) into DEST,
# once: DEST/.pg_rseq-unpacked holds the package's file name.  A failed
# update or download does not fail the make: DEST/.pg_rseq-skip holds the
# reason (apt's first E:/W:/Err: line and APT_DIR/fetch.log), for the
# caller's SKIP line.  Used by glibc-fetch (tests/tests.mk) and
# perltidy-fetch (lwlock_patch/lwlock_patch.mk).
define deb_fetch
if [ -f $(4)/.pg_rseq-unpacked ]; then exit 0; fi; \
opts="$(subst $(APT_DIR)/,$(3)/,$(APT_OPTS))"; pkg=$(firstword $(subst =, ,$(2))); \
rm -rf $(4) && mkdir -p $(4) $(3)/state/lists/partial $(3)/cache/archives/partial $(3)/download; \
echo "deb $(DEBIAN_MIRROR) $(1) main" > $(3)/sources.list; \
$(call msg,apt-get update (private config in $(3), $(1) deb only)); \
log=$(3)/fetch.log; \
if apt-get -q $$opts update > $$log 2>&1 && \
   (cd $(3)/download && rm -f ./*.deb && apt-get -q $$opts download $(2)) >> $$log 2>&1; then \
  deb=$$(ls $(3)/download/$${pkg}_*.deb | head -1); \
  $(call msg,unpacking $$(basename $$deb) into $(4)); \
  dpkg-deb -x $$deb $(4) && basename $$deb > $(4)/.pg_rseq-unpacked; \
else \
  echo "could not fetch Debian $(1)'s $(2) ($$(grep -m1 -E '^(E|W|Err):' $$log || tail -1 $$log); log: $$log)" > $(4)/.pg_rseq-skip; \
fi
endef

# ---------------------------------------------------------------------------
# Patched source staging: pristine + lwlock_patch/*.patch (sorted) + copies
# ---------------------------------------------------------------------------
# The list of inputs, so that removing a patch also restages.
$(STAGE_LIST): FORCE
	@$(call write_if_changed,$@,$(notdir $(PATCHES) $(PATCH_COPY_SRCS)) "--")

$(STAGE_STAMP): $(PRISTINE_STAMP) $(STAGE_LIST) $(PATCHES) $(PATCH_COPY_SRCS)
	@$(call msg,staging patched source in $(STAGE_DIR))
	@$(take_lock); \
	rm -rf $(STAGE_DIR).tmp && cp -a $(pristine_dir) $(STAGE_DIR).tmp; \
	for p in $(PATCHES); do \
	  $(call msg,applying $$(basename $$p)); \
	  patch -d $(STAGE_DIR).tmp -p1 --forward --batch --no-backup-if-mismatch < $$p \
	    || { echo "*** $$p does not apply (see the .rej files in $(STAGE_DIR).tmp)" >&2; exit 1; }; \
	done; \
	rej=$$(find $(STAGE_DIR).tmp -name '*.rej'); \
	if [ -n "$$rej" ]; then echo "*** rejected hunks: $$rej" >&2; exit 1; fi; \
	for c in $(PATCH_COPIES); do \
	  src=$(PATCH_DIR)/$${c%%:*}; dst=$(STAGE_DIR).tmp/$${c#*:}; \
	  if [ -f $$src ]; then $(call msg,copying $${c%%:*} -> $${c#*:}); mkdir -p $$(dirname $$dst); cp $$src $$dst; fi; \
	done; \
	rm -rf $(STAGE_DIR) && mv $(STAGE_DIR).tmp $(STAGE_DIR)
	@touch $@

# ---------------------------------------------------------------------------
# Per-flavour rules: sync -> configure -> make -> make install
# ---------------------------------------------------------------------------
define flavor_rules
postgres-$(1): $(call install_stamp,$(1))

$(call synced_stamp,$(1)): $(call origin_stamp,$(1))
	@$$(call msg,syncing $(call tree,$(1)))
	@$$(call sync_tree,$$(call origin_dir,$(1)),$(call tree,$(1)))
	@touch $$@

# Configure options + source version + configure script checksum.
$(call config_file,$(1)): $(call synced_stamp,$(1)) FORCE
	@$$(call write_if_changed,$$@,"--prefix=$(call prefix,$(1))" $(PG_CONFIGURE_OPTS) $(call flavor_opts,$(1)) "CFLAGS=$(call flavor_cflags,$(1))" \
	  "version=$$(pristine_version)" "configure=$$$$(md5sum < $(call tree,$(1))/configure | cut -d' ' -f1)")

$(call config_stamp,$(1)): $(call config_file,$(1))
	@$$(call msg,configure $(1) (log: $(call tree,$(1))/.pg_rseq-configure.log))
	@cd $(call tree,$(1)) && SECONDS=0 && \
	  flock $(PG_LOCK) ./configure --prefix=$(call prefix,$(1)) $(PG_CONFIGURE_OPTS) $(call flavor_opts,$(1)) \
	    CFLAGS='$(call flavor_cflags,$(1))' > .pg_rseq-configure.log 2>&1 \
	  || { tail -n 40 .pg_rseq-configure.log; exit 1; }; \
	  $$(call msg,configure $(1): $$$${SECONDS}s)
	@touch $$@

$(call built_stamp,$(1)): $(call config_stamp,$(1)) $(call synced_stamp,$(1)) $(if $(filter 1,$(PG_REMAKE)),FORCE)
	@$$(call msg,make -j$(JOBS) in $(call tree,$(1)))
	@SECONDS=0; $$(PGMAKE) -C $(call tree,$(1)) -j$(JOBS) -s; $$(call msg,make $(1): $$$${SECONDS}s)
	@touch $$@

$(call install_stamp,$(1)): $(call built_stamp,$(1))
	@$$(call msg,make install -> $(call prefix,$(1)))
	@$$(PGMAKE) -C $(call tree,$(1)) install -s
	@for b in postgres pgbench pg_config psql initdb pg_ctl; do \
	  test -x $(call prefix,$(1))/bin/$$$$b || { echo "missing $(call prefix,$(1))/bin/$$$$b" >&2; exit 1; }; \
	done; \
	test -f "$$$$($(call prefix,$(1))/bin/pg_config --pgxs)" || { echo "PGXS not installed in $(call prefix,$(1))" >&2; exit 1; }
	@touch $$@
endef

$(foreach f,stock patched patched-cassert core core-cassert,$(eval $(call flavor_rules,$(f))))

# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------
# Make $(1) writable by $(PG_RUN_USER) (no-op when not root).
define give_to_pg_user
	if [ -n "$(AS_PG_USER)" ]; then chown -R $(PG_RUN_USER): $(1); fi
endef

# Create $(PG_RUN_USER) if needed (no-op when not root).  Other makefiles
# that start servers as root can depend on this phony target.
pg-run-user:
	@if [ -n "$(AS_PG_USER)" ] && ! id -u $(PG_RUN_USER) >/dev/null 2>&1; then \
	  $(call msg,creating user $(PG_RUN_USER) to run PostgreSQL as non-root); \
	  useradd --system --user-group --no-create-home --shell /usr/sbin/nologin $(PG_RUN_USER); \
	fi

# PostgreSQL's own regression suite (temp install) on the patched tree.
# It holds the build lock: `make check` re-enters the tree (make all, temp
# install), so no `make postgres` may rebuild it meanwhile.
# On the assertion-enabled tree when CASSERT=1: the lock layer's depth
# invariant is then asserted at every lock operation of the whole suite.
PG_CHECK_FLAVOR ?= $(if $(filter 1,$(CASSERT)),patched-cassert,patched)
postgres-check: $(call built_stamp,$(PG_CHECK_FLAVOR)) | pg-run-user
	@$(call msg,make check in $(call tree,$(PG_CHECK_FLAVOR))$(if $(AS_PG_USER), as $(PG_RUN_USER)))
	@$(take_lock); \
	$(call give_to_pg_user,$(call tree,$(PG_CHECK_FLAVOR))); \
	cd $(call tree,$(PG_CHECK_FLAVOR)) && touch .pg_rseq-check.start && SECONDS=0 && \
	if $(AS_PG_USER) env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make check 2>&1 | tee .pg_rseq-check.log; then \
	  $(call msg,postgres-check: $${SECONDS}s); \
	  st=0; \
	else \
	  st=1; \
	  for d in $$(find . -name regression.diffs -newer .pg_rseq-check.start); do \
	    echo "===== $$d ====="; cat $$d; \
	  done; \
	fi; \
	pass=$$(grep -cE '^ok [0-9]+ ' .pg_rseq-check.log || true); \
	fail=$$(grep -cE '^not ok [0-9]+ ' .pg_rseq-check.log || true); \
	echo "postgres-check: $$pass passed, $$fail failed"; \
	exit $$st

# The lock layer as a patch series for PostgreSQL 18: the core series
# (lwlock_patch/core/*.patch, `git format-patch` output) as
# v$(PATCH_SERIES_VERSION)-000K-*.patch in $(PATCH_SERIES_DIR), for `git am`
# on a PostgreSQL 18 tree.  `make research-series` writes the research layer
# (what `make postgres` builds as patched; for PG_MAJOR=17 too) from the
# pristine tree, the new files in lwlock_patch/ and the major's hooks
# ($(PATCH_SET_DIR)) by lwlock_patch/make-series, to $(RESEARCH_SERIES_DIR).
PATCH_SERIES_DIR ?= $(MAJOR_DIR)/patch-series
RESEARCH_SERIES_DIR ?= $(MAJOR_DIR)/research-series
PATCH_SERIES_VERSION ?= 1
.PHONY: patch-series research-series
ifeq ($(PG_MAJOR),18)
patch-series:
	@rm -rf $(PATCH_SERIES_DIR) && mkdir -p $(PATCH_SERIES_DIR)
	@for p in $(CORE_PATCHES); do cp $$p $(PATCH_SERIES_DIR)/v$(PATCH_SERIES_VERSION)-$$(basename $$p); done
	@$(call msg,the core series for PostgreSQL 18 in $(PATCH_SERIES_DIR) (git am on a PostgreSQL 18 tree):)
	@for f in $(PATCH_SERIES_DIR)/*.patch; do printf '  %s\t%s lines +/-\n' "$$(basename $$f)" "$$(grep -c '^[+-][^+-]' $$f)"; done
else
patch-series:
	@echo "patch-series: the core series is for PostgreSQL 18 (PG_MAJOR=$(PG_MAJOR)): make research-series PG_MAJOR=$(PG_MAJOR) writes the research layer" >&2; exit 1
endif

research-series: $(PRISTINE_STAMP)
	@$(call msg,writing the research layer's series for PostgreSQL $(PG_MAJOR) to $(RESEARCH_SERIES_DIR))
	@$(PATCH_DIR)/make-series $(pristine_dir) $(RESEARCH_SERIES_DIR) $(PATCH_SERIES_VERSION) $(PATCH_SET_DIR)

clean-postgres:
	rm -rf $(PG_DIR)

# Also forget the fetched source and the private apt state.
distclean-postgres: clean-postgres
	rm -rf $(SRC_DIR) $(APT_DIR)

# ---------------------------------------------------------------------------
# Hooks for the rest of the project
# ---------------------------------------------------------------------------
# `make check` runs every target in CHECK_TARGETS.  Parts of the project add
# theirs from <dir>/<dir>.mk (bench/bench.mk, tests/tests.mk, ...), which are
# included here, before the check rule is read:
#     CHECK_TARGETS += my-check
CHECK_TARGETS := postgres-check

PG_RSEQ_MAKEFILES := $(foreach d,$(patsubst %/,%,$(filter-out build/,$(wildcard */))),$(wildcard $(d)/$(d).mk))
-include $(PG_RSEQ_MAKEFILES)

# make check's last line says so when the assertion-enabled build was not
# part of it (a fresh clone has CASSERT=0 and no patched-cassert build).
define cassert_skip_note
if [ "$(CASSERT)" != 1 ]; then \
  if [ -f $(PG_CASSERT_STAMP) ]; then \
    $(call msg,SKIP: CASSERT=0: postgres-check and lock-check ran on patched$(comma) not patched-cassert (ext-check did test patched-cassert): make check CASSERT=1 for all of them); \
  else \
    $(call msg,SKIP: patched-cassert not built (CASSERT=0): make postgres CASSERT=1 then make check); \
  fi; \
fi
endef
comma := ,

# With PG_MAJOR=17, `make check` skips the targets that test no server
# (they ran with the default major already): it runs the regression suite,
# the extension's suites, the lock, ABI, glibc, pgbench and system-call
# checks on the servers of $(MAJOR_DIR).
CHECK_NO_SERVER := unit-check unit-check-aarch64 micro-check docs-check tools-check
CHECK_RUN := $(if $(filter 18,$(PG_MAJOR)),$(CHECK_TARGETS),$(filter-out $(CHECK_NO_SERVER),$(CHECK_TARGETS)))

check: $(CHECK_RUN)
	@$(cassert_skip_note)
