# packaging/packaging.mk: Debian packages of the patched server and of the
# extension, included by the top-level Makefile (docs/packages.md).
#
#   make deb        Debian's postgresql-18 source package from sid + the core
#                   series (lwlock_patch/core) as quilt patches, version
#                   +rseq1, built by sbuild in a clean mmdebstrap'd sid
#                   chroot (nocheck: about 22 min on 2 cores) -> build/deb/server
#   make deb-ext    the extension as postgresql-18-pg-rseq (pg_buildext,
#                   packaging/pg-rseq/debian), built by sbuild against
#                   Debian's stock server-dev and against the patched one
#                   when make deb has run -> build/deb/ext-stock, ext-patched
#   make deb-check  in a sid chroot: Debian's postgresql-18, a cluster with
#                   pgbench data, the patched packages over it, the extension,
#                   back to Debian's: the data is identical
#   make kernel-deb Debian's linux-source-7.2 from sid with
#                   CONFIG_RSEQ_SLICE_EXTENSION=y on the configuration of
#                   Debian's own linux-image (KERNEL_DEB_ARGS="--base lab"
#                   for the kernel lab's), as packages (bindeb-pkg)
#                   -> build/deb/kernel-debian-amd64 (or kernel-lab)
#   make kernel-deb-check  the lab-config package: its vmlinuz booted in
#                   the lab's guest, installed there with dpkg, the patched
#                   server's pg_rseq_kernel() on it, purged again
#   make deb-lint   (part of make check, about a minute, no package build)
#                   the quilt series applies to Debian's source package, the
#                   extension's packaging builds a source package that
#                   lintian accepts
.PHONY: deb deb-ext deb-check deb-lint kernel-deb kernel-deb-check

deb:
	@$(CURDIR)/packaging/deb/build-server

deb-ext:
	@$(CURDIR)/packaging/deb/build-ext

deb-check:
	@$(CURDIR)/packaging/deb/check

kernel-deb:
	@$(CURDIR)/packaging/deb/build-kernel-deb $(KERNEL_DEB_ARGS)

kernel-deb-check:
	@$(CURDIR)/packaging/deb/check-kernel-deb

deb-lint:
	@$(call msg,deb-lint: the core series applies to Debian's postgresql-18 source; lintian on both source packages)
	@$(CURDIR)/packaging/deb/lint

# 18's packaging only: with PG_MAJOR=17 make check leaves it out.
ifeq ($(PG_MAJOR),18)
CHECK_TARGETS += deb-lint
endif
