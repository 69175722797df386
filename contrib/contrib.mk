# contrib/contrib.mk: the pg_rseq extension (contrib/pg_rseq), built,
# installed and tested against every server flavour that `make postgres`
# builds.  Included by the top-level Makefile, which defines BUILD, PG_DIR,
# FLAVORS, install_stamp, AS_PG_USER/PG_RUN_USER and msg.
#
#   make ext-install   build + install pg_rseq into each flavour's server
#                      (out-of-tree builds: $(BUILD)/ext-<flavour>)
#   make ext-check     META.json check, then for each flavour: a temporary
#                      cluster in $(BUILD)/ext-check/<flavour> on a free
#                      localhost port, pg_regress (PGXS installcheck: the
#                      patched or the stock schedule), server stopped even
#                      on failure
#
# Flavours: $(FLAVORS) (stock patched, plus patched-cassert with CASSERT=1),
# and patched-cassert whenever it is installed (CI builds it with
# `make postgres CASSERT=1`, then runs `make check`): the assertion build
# checks the lock layer's depth invariant during the ERROR-in-LWLocks test.
# The core series' assertion build, core-cassert (`make core-build`,
# build/pg/core-cassert), is a flavour too whenever it is installed (CI:
# `make check` runs core-check, which builds it): its schedule (core_*)
# runs on a server started with rseq_slice_mode = measure
# (PGC_POSTMASTER).  `make ext-check-core-cassert` builds it if needed.
# Only PostgreSQL 18 has the core series.
# Override with EXT_FLAVORS="stock".

EXT_SRC     := $(CURDIR)/contrib/pg_rseq
EXT_FLAVORS ?= $(FLAVORS) $(if $(filter patched-cassert,$(FLAVORS)),,$(if $(wildcard $(PG_CASSERT_STAMP)),patched-cassert)) \
               $(if $(filter 18,$(PG_MAJOR)),$(if $(wildcard $(PG_CORE_CASSERT_STAMP)),core-cassert))
ext_objdir   = $(MAJOR_DIR)/ext-$(1)
ext_workdir  = $(MAJOR_DIR)/ext-check/$(1)

# The extension's own make, without our command-line variables.
EXTMAKE = env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory

.PHONY: ext-install ext-check ext-meta-check

ext-install: $(addprefix ext-install-,$(EXT_FLAVORS))

ext-check: ext-meta-check $(addprefix ext-check-,$(EXT_FLAVORS))

# META.json against the PGXN meta spec 1.0.0 and the control file.
ext-meta-check:
	@$(call msg,checking META.json)
	@perl $(EXT_SRC)/scripts/check_meta.pl $(CURDIR)/META.json $(EXT_SRC)/pg_rseq.control

define ext_rules
.PHONY: ext-install-$(1) ext-check-$(1)

ext-install-$(1): $(call install_stamp,$(1))
	@$$(call msg,pg_rseq: make install for $(1) in $(call ext_objdir,$(1)))
	@mkdir -p $(call ext_objdir,$(1))
	@$$(EXTMAKE) -C $(call ext_objdir,$(1)) -f $(EXT_SRC)/Makefile \
	  PG_CONFIG=$(call prefix,$(1))/bin/pg_config all install
	@echo "[pg_rseq] pg_rseq for $(1): $$$$($$(EXTMAKE) -s -C $(call ext_objdir,$(1)) -f $(EXT_SRC)/Makefile PG_CONFIG=$(call prefix,$(1))/bin/pg_config lock-layer) lock layer"

ext-check-$(1): ext-install-$(1) ext-meta-check | pg-run-user
	@bash $(EXT_SRC)/scripts/ext_check.sh $(1) $(call prefix,$(1)) \
	  $(call ext_objdir,$(1)) $(call ext_workdir,$(1)) $(PG_RUN_USER)
endef

$(foreach f,stock patched patched-cassert core core-cassert,$(eval $(call ext_rules,$(f))))

CHECK_TARGETS += ext-check
