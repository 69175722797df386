# docs/docs.mk: the documentation's check, included by the top-level Makefile.
#
#   make docs-check     (part of `make check`, a few seconds, no server)
#                       docs/check-docs: docs/sql.md's object table against
#                       the extension's newest install script (the version
#                       pg_rseq.control's default_version names), every
#                       citation of README.md, docs/ and the results READMEs
#                       resolves to a file of the checkout (or to git history
#                       for `git show COMMIT:PATH`), README.md <= 15 KB, no
#                       tracked file names a folder of the build machine.
#                       First, on a fixture in $(BUILD)/docs-check: a new
#                       version 1.2.0 with a renamed column must make the
#                       SQL check fail and name the column, and the same
#                       fixture with the table updated must pass; and
#                       --sql-table must print the table docs/sql.md holds.
.PHONY: docs-check
DOCS_CHECK_DIR := $(BUILD)/docs-check
docs-check:
	@$(call msg,docs-check: a drift caught on a fixture; the SQL reference; citations; README size)
	@f=$(DOCS_CHECK_DIR); rm -rf $$f && mkdir -p $$f/contrib/pg_rseq $$f/docs && \
	  v=$$(sed -n "s/^default_version = '\(.*\)'/\1/p" $(CURDIR)/contrib/pg_rseq/pg_rseq.control) && \
	  sed 's/^default_version = .*/default_version = '"'"'9.9.9'"'"'/' $(CURDIR)/contrib/pg_rseq/pg_rseq.control > $$f/contrib/pg_rseq/pg_rseq.control && \
	  sed 's/OUT yields_in_grant bigint/OUT yields_in_grant_x bigint/' $(CURDIR)/contrib/pg_rseq/pg_rseq--$$v.sql > $$f/contrib/pg_rseq/pg_rseq--9.9.9.sql && \
	  cp $(CURDIR)/docs/sql.md $$f/docs/ && \
	  rc=0; $(CURDIR)/docs/check-docs --sql-only $$f > $$f/out.txt 2>&1 || rc=$$?; \
	  [ $$rc = 1 ] && grep -q 'columns of pg_stat_rseq_tranche() differ from contrib/pg_rseq/pg_rseq--9.9.9.sql' $$f/out.txt \
	    && grep -q 'yields_in_grant_x' $$f/out.txt \
	    || { cat $$f/out.txt; echo "docs-check: check-docs did not catch a renamed column in the newest install script (exit $$rc)"; exit 1; }; \
	  sed -i 's/`yields_in_grant`/`yields_in_grant_x`/g' $$f/docs/sql.md && \
	  $(CURDIR)/docs/check-docs --sql-only $$f > $$f/out2.txt 2>&1 \
	    || { cat $$f/out2.txt; echo "docs-check: check-docs refused a table that matches the fixture's script"; exit 1; }
	@$(CURDIR)/docs/check-docs --sql-table $(DOCS_CHECK_DIR) > $(DOCS_CHECK_DIR)/table.txt && \
	  sed -n '/^<!-- sql-objects:begin -->$$/,/^<!-- sql-objects:end -->$$/p' $(DOCS_CHECK_DIR)/docs/sql.md | sed '1d;$$d' \
	    | cmp -s - $(DOCS_CHECK_DIR)/table.txt \
	    || { diff $(DOCS_CHECK_DIR)/table.txt <(sed -n '/sql-objects:begin/,/sql-objects:end/p' $(DOCS_CHECK_DIR)/docs/sql.md); \
	         echo "docs-check: check-docs --sql-table does not print the table that passes"; exit 1; }
	@$(CURDIR)/docs/check-docs $(CURDIR)

CHECK_TARGETS += docs-check
