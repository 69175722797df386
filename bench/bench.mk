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
#   make micro-build    only build bench/micro into $(BUILD)/micro
#                       (extend-sched, fastpath_bench); used by the kernel lab.
#   make micro-deps     install what the above need (cmake, g++,
#                       libbenchmark-dev, python3, binutils) if missing.

MICRO_DIR   := $(CURDIR)/bench/micro
MICRO_BUILD := $(BUILD)/micro
MICRO_OUT   ?=
MICRO_ARGS  ?=
MICRO_DEPS  ?= cmake g++ make libbenchmark-dev python3 binutils

.PHONY: micro micro-check micro-deps micro-build

micro-deps:
	@$(call apt_install,$(MICRO_DEPS))

micro-build: micro-deps
	@cmake -S $(MICRO_DIR) -B $(MICRO_BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(MICRO_BUILD) -j $(or $(JOBS),2) >/dev/null

micro: micro-deps
	@BUILD_DIR=$(MICRO_BUILD) $(MICRO_DIR)/run $(if $(MICRO_OUT),--out $(MICRO_OUT)) $(MICRO_ARGS)

micro-check: micro-deps
	@BUILD_DIR=$(MICRO_BUILD) $(MICRO_DIR)/run --smoke --out $(BUILD)/micro-check

CHECK_TARGETS += micro-check

# ---------------------------------------------------------------------------
# pgbench comparisons (bench/run, C++ driver in bench/driver)
# ---------------------------------------------------------------------------
#   make bench          bench/run $(BENCH_ARGS): stock against patched:auto
#                       by default; e.g. make bench BENCH_ARGS="--full" or
#                       BENCH_ARGS="--a patched:off --b patched:auto --quick".
#                       Results in $(BUILD)/bench-results/run-<date>-<time>/
#                       (outside git; --out DIR for another place, e.g.
#                       --out bench/results/NAME to commit a run).
#   make bench-check    smoke test (part of `make check`): the --quick preset
#                       (stock vs patched:auto, rseq_slice_detail off: the
#                       detail counters NA) and a tiny patched:off vs
#                       patched:auto run of hot-lwlock and eviction with
#                       --detail (detail counters counted), each
#                       checked by bench/check-run (files, row counts, tps > 0,
#                       counters sane, NA exactly where not counted; the
#                       report's detail header, smoke-test note, scale and
#                       load warnings, pgbench per side and ratio plot against
#                       results.json; clean server logs; never a speed
#                       threshold), plus the driver's self-test (statistics,
#                       report rules, the plan per CPU count and --budget) and bench/kernel-lab/check-lab
#                       (lab scripts' option checks, bench/kernel-lab/analyse
#                       on fixtures with known answers, tools/apt-get-wait with a stub
#                       apt-get and a held lock; no guest).  Output in
#                       $(BUILD)/bench-check.
#   make bench-deps     install what the driver needs (cmake, g++,
#                       libboost-dev for Boost.Math, gnuplot-nox; python3-scipy
#                       and python3-matplotlib for bench/kernel-lab/analyse) if missing.
# Both need PostgreSQL (stock, patched) and pg_rseq installed in both:
# they depend on the install stamps and on ext-install-<flavour>.

BENCH_DIR   := $(CURDIR)/bench
BENCH_BUILD := $(BUILD)/bench
BENCH_ARGS  ?=
BENCH_DEPS  ?= cmake g++ make libboost-dev gnuplot-nox python3 python3-scipy python3-matplotlib
BENCH_CHECK_OUT := $(MAJOR_DIR)/bench-check
# Runs without --out go to $(MAJOR_DIR)/bench-results/run-<date>-<time>
# ($(BUILD)/bench-results for PostgreSQL 18, $(BUILD)/pg17/bench-results for 17).
BENCH_RESULTS := $(MAJOR_DIR)/bench-results
BENCH_RUN    = BUILD_DIR=$(BENCH_BUILD) PG_CONFIG=$(PG_STOCK_PREFIX)/bin/pg_config PGRSEQ_PG_DIR=$(PG_DIR) \
               PGRSEQ_BENCH_RESULTS=$(BENCH_RESULTS) $(BENCH_DIR)/run

.PHONY: bench bench-check bench-deps bench-build

bench-deps:
	@$(call apt_install,$(BENCH_DEPS))

# The driver alone (bench/run also builds it when a source changed).
bench-build: bench-deps $(PG_STOCK_STAMP)
	@$(BENCH_RUN) --self-test >/dev/null

bench: bench-deps $(PG_STOCK_STAMP) $(PG_PATCHED_STAMP) ext-install-stock ext-install-patched | pg-run-user
	@$(BENCH_RUN) $(BENCH_ARGS)

bench-check: bench-deps $(PG_STOCK_STAMP) $(PG_PATCHED_STAMP) $(CORE_STAGE_STAMP) ext-install-stock ext-install-patched | pg-run-user
	@rm -rf $(BENCH_CHECK_OUT) && mkdir -p $(BENCH_CHECK_OUT)
	@$(call msg,bench-check: statistics self-test)
	@$(BENCH_RUN) --self-test > $(BENCH_CHECK_OUT)/self-test.txt || { cat $(BENCH_CHECK_OUT)/self-test.txt; exit 1; }
	@$(call msg,bench-check: bad sizes are usage errors (exit 2))
	@for a in "--shared-buffers 0" "--shared-buffers 1kB" "--shared-buffers 12XB" "--eviction-shared-buffers 15" \
	          "--shared-buffers 9999999999999MB" "--a patched:" "--b patched-cassert::all" \
	          "--set rseq_slice_register=always"; do \
	  rc=0; $(BENCH_RUN) --dry-run $$a > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/run --dry-run $$a exited $$rc, not 2"; exit 1; }; \
	done; rc=0; $(BENCH_RUN) --dry-run --shared-buffers 128kB --eviction-shared-buffers 16 > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 0 ] || { echo "bench-check: bench/run --dry-run --shared-buffers 128kB exited $$rc, not 0"; exit 1; }
	@rc=0; $(BENCH_RUN) --dry-run --out "" > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/run --dry-run --out '' exited $$rc, not 2"; exit 1; }; \
	  rc=0; $(BENCH_RUN) --dry-run --pg-dir /nonexistent-pg-dir > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/run --dry-run --pg-dir /nonexistent-pg-dir exited $$rc, not 2"; exit 1; }
	@$(call msg,bench-check: check-run usage errors (exit 2))
	@for a in "" "/nonexistent-run-folder" "$(BENCH_CHECK_OUT) --rows abc"; do \
	  rc=0; $(BENCH_DIR)/check-run $$a > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/check-run $$a exited $$rc, not 2"; exit 1; }; \
	done
	@$(call msg,bench-check: callgrind/wired-dispatch: usage errors (exit 2); its diff applies to lwlock_patch's headers)
	@e=$(BENCH_CHECK_OUT)/wired-empty-build; mkdir -p $$e; \
	  for a in "--bogus" "--workloads foo" "--workloads hotlock,,x" "--workloads hotlock," "--workloads hotlock,hotlock" \
	           "--work $$e/pg/x" "--work $(CURDIR)/lwlock_patch/x"; do \
	  rc=0; $(CURDIR)/bench/callgrind/wired-dispatch --build $$e $$a > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/callgrind/wired-dispatch --build $$e $$a exited $$rc, not 2"; exit 1; }; \
	done; rc=0; $(CURDIR)/bench/callgrind/wired-dispatch --build /nonexistent-build-dir > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/callgrind/wired-dispatch --build /nonexistent-build-dir exited $$rc, not 2"; exit 1; }; \
	  rc=0; $(CURDIR)/bench/callgrind/wired-dispatch --build $$e --out "" > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/callgrind/wired-dispatch --out '' exited $$rc, not 2"; exit 1; }; \
	  rc=0; $(CURDIR)/bench/callgrind/wired-dispatch --build $$e --work $$e/w --out $$e/o > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 1 ] || { echo "bench-check: bench/callgrind/wired-dispatch on a build folder without servers exited $$rc, not 1"; exit 1; }
	@d=$(BENCH_CHECK_OUT)/wired-diff; rm -rf $$d && mkdir -p $$d/src/include/port $$d/src/include/storage && \
	  cp $(CURDIR)/lwlock_patch/rseq_slice.h $$d/src/include/port/ && cp $(CURDIR)/lwlock_patch/rseq_lock.h $$d/src/include/storage/ && \
	  patch -d $$d -p1 --forward --quiet < $(CURDIR)/bench/callgrind/wired-dispatch.diff > $$d/patch.log 2>&1 || \
	  { cat $$d/patch.log; echo "bench-check: bench/callgrind/wired-dispatch.diff no longer applies to lwlock_patch/rseq_slice.h and rseq_lock.h: update it"; exit 1; }; \
	  n=$$(cat $$d/src/include/storage/rseq_lock.h $$d/src/include/port/rseq_slice.h | grep -c PG_RSEQ_WIRED_PATH); \
	  [ "$$n" -ge 4 ] || { echo "bench-check: wired-dispatch.diff applied but PG_RSEQ_WIRED_PATH appears $$n times"; exit 1; }
	@$(call msg,bench-check: build-variant: usage errors (exit 2); the variant patches apply to the core series' tree)
	@for a in "" "--name x" "--patch /nonexistent-patch --name x" "--patch $(CURDIR)/bench/callgrind/core-scan-section.patch --name X" \
	         "--patch $(CURDIR)/bench/callgrind/core-scan-section.patch" "--patch $(CURDIR)/bench/callgrind/core-scan-section.patch --name x --build /nonexistent-build-dir" "--bogus" "--patch --name x"; do \
	  rc=0; $(CURDIR)/bench/build-variant $$a > /dev/null 2>&1 || rc=$$?; \
	  [ $$rc = 2 ] || { echo "bench-check: bench/build-variant $$a exited $$rc, not 2"; exit 1; }; \
	done; for p in bench/kernel-lab/core-wake-first.patch bench/callgrind/core-scan-section.patch; do \
	  patch -d $(CORE_STAGE_DIR) -p1 --dry-run --forward --quiet < $(CURDIR)/$$p > /dev/null 2>&1 || \
	  { echo "bench-check: $$p no longer applies to the core series' tree ($(CORE_STAGE_DIR)): update it"; exit 1; }; \
	done
	@$(call msg,bench-check: bench/run --quick (stock vs patched:auto))
	@SECONDS=0; $(BENCH_RUN) --quick --out $(BENCH_CHECK_OUT)/quick; \
	  $(call msg,bench-check: --quick took $${SECONDS}s)
	@$(BENCH_DIR)/check-run $(BENCH_CHECK_OUT)/quick --rows 24
	@$(call msg,bench-check: patched:off vs patched:auto --detail, hot-lwlock and eviction)
	@$(BENCH_RUN) --a patched:off --b patched:auto --workloads hot-lwlock,eviction --clients 4x \
	  --rounds 1 --duration 2 --warmup 1 --eviction-scale 2 --detail --out $(BENCH_CHECK_OUT)/modes
	@$(BENCH_DIR)/check-run $(BENCH_CHECK_OUT)/modes --rows 8
	@$(call msg,bench-check: kernel lab scripts and report generator (no guest))
	@$(BENCH_DIR)/kernel-lab/check-lab $(BENCH_CHECK_OUT)/kernel-lab

CHECK_TARGETS += bench-check

# ---------------------------------------------------------------------------
#   make kernel-lab     the kernel lab (bench/kernel-lab/lab): builds the
#                       Linux 7.x guest kernel (cached), boots it under qemu
#                       once per experiment (selftest; debug-mode check;
#                       pgbench stock vs patched, slice_ext_nsec sweep and
#                       extend-sched under lazy and under full preemption)
#                       and writes bench/results/kernel-lab/run-<date>/
#                       summary.md; then the pay-off workloads of issue 9
#                       (bench/kernel-lab/payoff-lab: CPU-bound hot locks
#                       with and without hogs at 50 and 5 us, eviction, the
#                       2026 regression shape, Oracle's lock-table shape,
#                       the 2023 select-only spread, extend-sched; stock vs
#                       measure vs auto on 1 and 2 vCPUs) into
#                       build/kernel-lab/payoff-<date>/ (summary.md,
#                       summary.json). Several hours with the full-size
#                       defaults; options in LAB_ARGS and PAYOFF_ARGS, e.g.
#                       make kernel-lab LAB_ARGS=--quick (--quick is passed
#                       to all three). Then make kernel-lab-scale (below).
#                       All resume where they stopped (--steps; steps.csv
#                       records each step's start, end and seconds).
#                       Not part of `make check` (too slow for CI).
#   make kernel-lab-scale  the pay-off workloads at 8, 4 and 2 vCPUs under
#                       parallel guest time (payoff-lab --clock parallel:
#                       every busy vCPU at one instruction per guest ns):
#                       the hot lock with and without 4 hogs per vCPU at
#                       5 us, the 2026 regression shape (simple-update),
#                       Oracle's and the
#                       2023 shape, extend-sched, under 7.2's lazy
#                       preemption into build/kernel-lab/payoff-par-<date>/,
#                       then the regression shape under preempt=none (the
#                       model before 7.0) into .../payoff-par-none-<date>/,
#                       then the hot lock with hogs under preempt=full (a
#                       woken task preempts at once) into
#                       .../payoff-par-full-<date>/, and the same with both
#                       servers on huge pages (payoff-lab --huge-pages on)
#                       into .../payoff-par-full-huge-<date>/, and that at
#                       8 and 4 vCPUs with the stock server on the patched
#                       server's V2 rseq area (--stock-register v2, the
#                       preload library of micro-build, which this target
#                       builds first) into .../payoff-par-full-huge-stockv2-<date>/.
#                       Each boot's host time grows with its busy vCPUs
#                       (about 3 host s per vCPU and guest second on an
#                       idle 2-CPU host): hours at the defaults below;
#                       SCALE_ARGS adds payoff-lab options (e.g. --rounds 3
#                       or --steps v8). The runs cited in
#                       bench/results/kernel-lab: bench/kernel-lab/
#                       sequences/parallel-2d4bb5b-*.txt, hold-2d4bb5b-*.txt,
#                       curve-2d4bb5b-*.txt, huge-2d4bb5b-*.txt and
#                       stockv2-2d4bb5b*.txt.
LAB_ARGS ?=
PAYOFF_ARGS ?=
SCALE_ARGS ?=
SCALE_DATE := $(shell date -u +%Y%m%d)
SCALE_WL := hotlock,regress2026u,oracle2024,pg2023,extend-sched
SCALE_HOT := hH-5us,h0-5us
SCALE_COMMON = --build $(BUILD) --clock parallel --secs 1 --warmup 0 --calib-secs 1 --no-trace --timeout 14400 \
	--es-secs 1 --pg2023-runs 6 --pg2023-secs 1 --rounds 6 $(if $(filter --quick,$(LAB_ARGS)),--quick)
.PHONY: kernel-lab kernel-lab-scale
kernel-lab:
	@$(CURDIR)/bench/kernel-lab/lab $(LAB_ARGS)
	@$(CURDIR)/bench/kernel-lab/payoff-lab $(if $(filter --quick,$(LAB_ARGS)),--quick) $(PAYOFF_ARGS)
	@$(MAKE) --no-print-directory kernel-lab-scale
kernel-lab-scale: micro-build
	@$(CURDIR)/bench/kernel-lab/payoff-lab $(SCALE_COMMON) --steps v8,v4,v2 \
	    $(foreach v,8 4 2,--v$(v)-workloads $(SCALE_WL)) \
	    --hotlock-variants $(SCALE_HOT) --preempt lazy $(SCALE_ARGS) --out $(BUILD)/kernel-lab/payoff-par-$(SCALE_DATE)
	@$(CURDIR)/bench/kernel-lab/payoff-lab $(SCALE_COMMON) --steps v8,v4,v2 \
	    $(foreach v,8 4 2,--v$(v)-workloads regress2026u) --preempt none $(SCALE_ARGS) \
	    --out $(BUILD)/kernel-lab/payoff-par-none-$(SCALE_DATE)
	@$(CURDIR)/bench/kernel-lab/payoff-lab $(SCALE_COMMON) --steps v8,v4,v2 \
	    $(foreach v,8 4 2,--v$(v)-workloads hotlock) --hotlock-variants hH-5us --preempt full $(SCALE_ARGS) \
	    --out $(BUILD)/kernel-lab/payoff-par-full-$(SCALE_DATE)
	@$(CURDIR)/bench/kernel-lab/payoff-lab $(SCALE_COMMON) --steps v8,v4,v2 \
	    $(foreach v,8 4 2,--v$(v)-workloads hotlock) --hotlock-variants hH-5us --preempt full --huge-pages on $(SCALE_ARGS) \
	    --out $(BUILD)/kernel-lab/payoff-par-full-huge-$(SCALE_DATE)
	@$(CURDIR)/bench/kernel-lab/payoff-lab $(SCALE_COMMON) --steps v8,v4 \
	    $(foreach v,8 4,--v$(v)-workloads hotlock) --hotlock-variants hH-5us --preempt full --huge-pages on \
	    --stock-register v2 $(SCALE_ARGS) --out $(BUILD)/kernel-lab/payoff-par-full-huge-stockv2-$(SCALE_DATE)

# ---------------------------------------------------------------------------
#   make arm64-lab      the patched PostgreSQL 18 and pg_rseq on Debian's
#                       arm64 Linux 7.x (bench/arm64-lab/arm64-lab): stages
#                       the patched source, installs the cross tools and
#                       qemu-system-arm, fetches the newest arm64 kernel of
#                       sid, cross-builds PostgreSQL and the extension for
#                       aarch64 into build/arm64-lab/, boots them in a
#                       qemu-system-aarch64 guest (TCG) and runs the checks
#                       there (start-up line, pg_rseq_kernel(), pg_regress,
#                       counter identities and tests/lock/pgbench_modes under
#                       pgbench with CPU hogs).  Closing line "arm64-lab: N
#                       passed, M failed"; results in build/arm64-lab/runs/
#                       <date-time>/ (ARM64_LAB_ARGS="--out DIR" elsewhere).
#                       About 30-60 min from scratch on 2 CPUs (the
#                       PostgreSQL build and the emulated guest); not part of
#                       `make check` (too slow for CI).
ARM64_LAB_ARGS ?=
.PHONY: arm64-lab
arm64-lab: $(STAGE_STAMP)
	@$(CURDIR)/bench/arm64-lab/arm64-lab --stage $(STAGE_DIR) $(ARM64_LAB_ARGS)

# make check-lab: only the kernel lab's no-guest checks (bench/kernel-lab/
# check-lab: option checks, step bookkeeping, bench/kernel-lab/analyse (its
# summaries, parsers, statistics and plot) on fixtures with known answers,
# apt-get-wait), a few seconds, nothing built; also run by bench-check.
.PHONY: check-lab
check-lab:
	@mkdir -p $(BENCH_CHECK_OUT)
	@$(CURDIR)/bench/kernel-lab/check-lab $(BENCH_CHECK_OUT)/kernel-lab

# ---------------------------------------------------------------------------
#   make callgrind      instruction counts (valgrind --tool=callgrind) of a
#                       fixed single-backend workload (postgres --single) on
#                       the stock server, the patched one (research layer)
#                       in modes off, measure, auto, upstream, detail and
#                       the core series' server (build/pg/core, built first)
#                       in core-off, core-measure, core-auto (PostgreSQL 18
#                       only): bench/callgrind/run.  Report in
#                       bench/results/callgrind/ (or CALLGRIND_OUT; with
#                       PG_MAJOR=17 bench/results/callgrind-pg17/), profiles
#                       in $(MAJOR_DIR)/callgrind; options in CALLGRIND_ARGS,
#                       e.g. make callgrind CALLGRIND_ARGS="--reps 2".
#                       Slow (about a minute of valgrind per run on an idle
#                       machine): not part of `make check`.
#   make callgrind-deps install valgrind, gdb, python3 if missing.
CALLGRIND_OUT  ?= $(if $(filter 18,$(PG_MAJOR)),,$(CURDIR)/bench/results/callgrind-pg$(PG_MAJOR))
CALLGRIND_ARGS ?=
CALLGRIND_DEPS ?= valgrind gdb python3 gcc binutils

.PHONY: callgrind callgrind-deps

callgrind-deps:
	@$(call apt_install,$(CALLGRIND_DEPS))

CALLGRIND_CORE := $(filter 18,$(PG_MAJOR))
callgrind: $(PG_STOCK_STAMP) $(PG_PATCHED_STAMP) $(if $(CALLGRIND_CORE),$(PG_CORE_STAMP)) callgrind-deps | pg-run-user
	@PG_RUN_USER=$(or $(PG_RUN_USER),pgrseq) \
	  CALLGRIND_COMMAND='make callgrind$(if $(filter-out 18,$(PG_MAJOR)), PG_MAJOR=$(PG_MAJOR))$(if $(CALLGRIND_ARGS), CALLGRIND_ARGS="$(CALLGRIND_ARGS)")' \
	  $(CURDIR)/bench/callgrind/run \
	  --work $(MAJOR_DIR)/callgrind --stock $(PG_STOCK_PREFIX) --patched $(PG_PATCHED_PREFIX) \
	  $(if $(CALLGRIND_CORE),--core $(PG_CORE_PREFIX),--configs stock$(comma)off$(comma)measure$(comma)auto$(comma)upstream$(comma)detail) \
	  $(if $(CALLGRIND_OUT),--out $(CALLGRIND_OUT)) $(CALLGRIND_ARGS)

# ---------------------------------------------------------------------------
#   make syscalls       system calls per pgbench transaction of the backends
#                       (strace -f -c on the postmaster), stock vs patched
#                       off, measure, auto: bench/syscalls/run; report in
#                       $(BUILD)/syscalls-<date> (or SYSCALLS_OUT); options
#                       in SYSCALLS_ARGS, e.g. SYSCALLS_ARGS="--script tpcb-like".
#   make syscalls-check (part of `make check`, about 30 s) a small run
#                       (2 clients x 300 select-only transactions, scale 1)
#                       and bench/syscalls/check on it: one sendto per
#                       transaction, and the patched server in every mode
#                       makes the same successful calls per transaction as
#                       stock (counts, not timings).
SYSCALLS_OUT  ?=
SYSCALLS_ARGS ?=

.PHONY: syscalls syscalls-check syscalls-deps

syscalls-deps:
	@$(call apt_install,strace python3)

syscalls: $(PG_STOCK_STAMP) $(PG_PATCHED_STAMP) syscalls-deps | pg-run-user
	@PG_RUN_USER=$(or $(PG_RUN_USER),pgrseq) $(CURDIR)/bench/syscalls/run \
	  --work $(MAJOR_DIR)/syscalls --stock $(PG_STOCK_PREFIX) --patched $(PG_PATCHED_PREFIX) \
	  $(if $(SYSCALLS_OUT),--out $(SYSCALLS_OUT)) $(SYSCALLS_ARGS)

syscalls-check: $(PG_STOCK_STAMP) $(PG_PATCHED_STAMP) syscalls-deps | pg-run-user
	@PG_RUN_USER=$(or $(PG_RUN_USER),pgrseq) $(CURDIR)/bench/syscalls/run \
	  --work $(MAJOR_DIR)/syscalls-check-work --stock $(PG_STOCK_PREFIX) --patched $(PG_PATCHED_PREFIX) \
	  --out $(MAJOR_DIR)/syscalls-check --clients 2 --xacts 300 --scale 1
	@$(CURDIR)/bench/syscalls/check $(MAJOR_DIR)/syscalls-check

CHECK_TARGETS += syscalls-check
