# tools/tools.mk: checks of the shared helpers in tools/, included by the
# top-level Makefile.
#
#   make tools-check    (part of `make check`, under a second, no network)
#                       tools/check-debian-mirror: tools/debian-mirror on
#                       fixture apt configurations (one-line sources.list,
#                       deb822 .sources, file order, suite-only match, none).
#                       Output in $(BUILD)/tools-check.
.PHONY: tools-check
tools-check:
	@$(call msg,tools-check: tools/debian-mirror on fixture apt sources)
	@$(CURDIR)/tools/check-debian-mirror $(BUILD)/tools-check

CHECK_TARGETS += tools-check
