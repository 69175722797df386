"""analyse summarise payoff LABDIR: summary of a pay-off lab run (bench/kernel-lab/payoff-lab).

Input: LABDIR/runs.csv, or else the runs.csv of every boot folder LABDIR/*/
(written by payoff-in-guest; columns in its --help), LABDIR/*/qemu-settings.txt
(clock) and LABDIR/*/facts.txt (each also read from the boot folder's
raw.tar.xz, where the committed folders keep them), LABDIR/steps.csv, LABDIR/commands.log, LABDIR/provenance.txt.

Output: LABDIR/summary.md (Markdown) and LABDIR/summary.json; with --stdout
the Markdown goes to stdout instead. Per workload and vCPU count (rows with
discard = 1 are left out; arm "calib" only gives the sections per
transaction):
  tps per arm: mean, stddev, CV [transactions/s; extend-sched: lock entries/s]
  paired ratios by round (geometric mean of the per-round ratios, 95 % t
    interval on the log ratios; scipy's t quantile): auto/stock,
    auto/measure, measure/stock (request/... when that arm ran);
    extend-sched: upstream/measure in the auto/stock and auto/measure slots
  tps_median_auto_stock, tps_median_auto_measure: the median of the same
    per-round ratios with a distribution-free interval (order statistics,
    binomial: the k-th smallest and k-th largest ratio for the largest k
    whose two tails hold at most 2.5 % each; "conf" its exact coverage;
    null bounds below 6 rounds). Robust to one slow run in one arm, which
    the lab sees now and then, on any arm; reported next to the t interval,
    which the targets use.
  tps_ratio_X_stock, tps_ratio_X_auto: the same for every other arm X
    (off, request, auto-VALUE); with an arm off also tps_ratio_measure_off
    and tps_ratio_auto_off (the patched server's binary and registration
    without the lock layer's work as the baseline)
  desched_per_1000_xacts {arm}: 1000 * sum pg_desched / sum xacts
  sections_per_xact: pg_sections / xacts of the calibration run
    (rseq_slice_detail = on; other runs count no sections)
  desched_per_1000_sections {arm}: desched_per_1000_xacts / sections_per_xact
    (extend-sched: 1000 * descheduled / entries, one section per entry)
  desched_ratio_auto_measure: the same rates paired by round
  grant_yield_fraction: sum k_syield / sum k_sgrant over the auto runs
    (extend-sched: upstream), also expired and revoked fractions, grants per
    1000 xacts, and pg_rseq vs kernel checks, run by run, within 1
    (pg_kernel_relations_runs: lower pg_grants_in_place <= k_sgrant, upper
    k_sgrant <= pg_grants_in_place + pg_requests_cleared, yields_in_grant
    pg_yields_in_grant = k_syield, in_place_identity pg_grants_in_place =
    k_sgrant - k_srevok - k_sabort; "of" runs). runs.csv written before
    pg_rseq 1.2.0 has pg_grants and pg_revoked instead of
    pg_grants_in_place and pg_requests_cleared: read as grants_in_place =
    grants - revoked, requests_cleared = revoked (analysis/lab.py observed);
    tranches.csv the same without the pg_ prefix
  waits: shares of the sampled active client backends on CPU, in an LWLock
    wait, in SpinDelay, in a heavyweight Lock wait (pg_stat_activity samples)
  host load: mean and max of host_load_start/end over the runs
  the lab's targets (docs/kernel-lab.md, "Targets"), evaluated on these numbers.
  Where grants go, per tranche (LABDIR/tranches.csv, or LABDIR/*/tranches.csv;
    payoff-in-guest: pg_stat_rseq_tranche differences of every patched run;
    rows with discard = 1 left out): per tranche row, sums over the runs of
    the asking arm of acquisitions, grants_in_place (the section ended with
    the grant still set), requests_cleared (the kernel had cleared the
    request with no grant in view), yields, yields_in_grant, descheduled
    [counts], expired_or_other = grants_in_place - yields_in_grant (grants
    still set at release whose rseq_slice_yield returned 0: the grant ended
    between the release's check and the system call, by the timer or a
    reschedule), yields_in_grant_fraction = yields_in_grant /
    (grants_in_place + requests_cleared), desched_per_1000_xacts of measure
    and of the asking arm (the
    xacts of that arm's runs in runs.csv); the top rows by grants and by
    deschedules in summary.md; tranche_sums_match_totals: runs whose
    tranche rows add up to pg_grants_in_place and pg_yields_in_grant of
    runs.csv (within 1)
  Hold times of granted sections (LABDIR/holds.csv or LABDIR/*/holds.csv:
    the traced runs, arm "trace", discard = 1, from the kernel's hrtimer
    tracepoints): hold = hrtimer_cancel - hrtimer_start of the slice timer
    [ns], the time from the grant to the section's end (its syscall),
    percentiles p50/p90/p99 (nearest rank), max, the shares over 5 us and
    50 us, sections whose timer expired first, the trace's starts against
    the run's s_granted, lost events; the "Slice length the sections need"
    statement uses them when present.
summary.json: {"clock", "rr_quantum" (guest instructions per vCPU turn of
the icount boots, 0 = qemu's own round robin, null without icount boots),
"par_quantum" (guest instructions per vCPU and round of the parallel boots,
null without them), "preempt" (the preemption model in force in the boots,
from facts.txt's sched/preempt, e.g. lazy or none; null where not recorded),
"huge_pages" (payoff-in-guest --huge-pages of the boots, from facts.txt's
settings line: "on" = huge_pages = on for every workload but regress2026*,
"off" also for boots written before the option, which ran huge_pages = off;
null without facts.txt), "patched_register" (the patched server's
rseq_slice_register, payoff-in-guest --patched-register: "auto", its own V2
rseq area, also for boots written before the option; "never", glibc's
legacy area as in stock), "stock_register" (the stock server's rseq area,
payoff-in-guest --stock-register: "legacy", glibc's, also for boots
written before the option; "v2", the patched server's V2 area from the
preload library), "slice_ext_nsec", "workloads": [{"name", "vcpus",
  "desched_per_1000_sections": {"measure", "auto"}, "grant_yield_fraction",
  "tps_ratio_auto_stock": {"mean", "lo", "hi"}, "tps_ratio_auto_measure":
  {...}, "tranches": [{"tranche", "lock_kind", "acquisitions",
  "grants_in_place", "requests_cleared", "yields", "yields_in_grant",
  "expired_or_other",
  "yields_in_grant_fraction", "descheduled", "desched_measure",
  "desched_per_1000_xacts_measure", "desched_per_1000_xacts_auto"}, ...]
  (asking arm, by grants_in_place), "tranche_sums_match_totals", "hold_ns": {"p50",
  "p90", "p99", "max", "n", "expired", "mean", "over_5us", "over_50us",
  "starts", "k_sgrant", "rearmed", "open", "lost_events", "tsc_mhz",
  "traced_runs"} or null, ...}], "targets": [...]}; numbers are null where
  not computable.
Exit status: 0; 1 no runs or unreadable input; 2 usage.
"""
import csv
import glob
import json
import math
import os
import re
import statistics as st
import sys
from collections import OrderedDict

from .files import boot_files, kv_file, kv_text
from .lab import kernel_relations, observed
from .stats import HAVE_SCIPY, NAN, f_test_p, fmt, median_interval, nn, num, paired, pct, ratio_obj

BASE_OF = {"extend-sched": ("measure", "upstream")}   # (baseline, asking arm) where there is no stock


def mcell(o):
    if not o or o.get("median") is None:
        return "n/a"
    if o["lo"] is None:
        return f"{o['median']:.3f} (n={o['n']})"
    return f"{o['median']:.3f} [{o['lo']:.3f}, {o['hi']:.3f}]"


def rcell(o):
    if o["n"] == 0 or o["mean"] is None:
        return "n/a"
    if o["lo"] is None:
        return f"{o['mean']:.3f} (n={o['n']})"
    return f"{o['mean']:.3f} [{o['lo']:.3f}, {o['hi']:.3f}]"


def read_rows(labdir, name="runs.csv"):
    """The rows of LABDIR/NAME, else of every LABDIR/*/NAME. A row with
    fewer or more fields than the header (a file cut short by an
    interrupted run) is left out and said on stderr, never read as
    missing values."""
    top = os.path.join(labdir, name)
    paths = [top] if os.path.exists(top) else sorted(glob.glob(os.path.join(labdir, "*", name)))
    rows = []
    for p in paths:
        with open(p) as f:
            rd = csv.DictReader(f)
            for i, r in enumerate(rd, start=2):
                if None in r or None in r.values():
                    print(f"analyse summarise payoff: {p} line {i}: {len(rd.fieldnames or [])} columns in the header, "
                          "another number in this row (cut short?): left out", file=sys.stderr)
                    continue
                rows.append(observed(observed(r), prefix=""))
    return rows


def clock_of(labdir):
    clocks = set()
    kvs = [kv_text(t) for _, t in boot_files(labdir, "qemu-settings.txt")]
    kvs += [kv_file(p) for p in glob.glob(os.path.join(labdir, "qemu-settings*.txt"))]
    for kv in kvs:
        c = kv.get("clock")
        if c:
            clocks.add(c.split()[0])
    return "/".join(sorted(clocks)) if clocks else "unknown"


def boot_settings(labdir, clocks, key, default):
    """The set of one qemu-settings.txt key over the boots whose clock is
    one of `clocks` (`default` where a boot's file lacks the key: written
    before the option existed)."""
    vals = set()
    for _, text in boot_files(labdir, "qemu-settings.txt"):
        kv = kv_text(text)
        if kv.get("clock", "").split()[:1] and kv["clock"].split()[0] in clocks:
            vals.add(kv.get(key, default))
    return vals


def rr_quantum_of(labdir):
    """The boots' run-in-guest rr_quantum [guest instructions per vCPU turn;
    0 = qemu's own round robin], "/"-joined if they differ; 0 for settings
    written before the option existed."""
    qs = boot_settings(labdir, ("icount",), "rr_quantum", "0")
    if not qs:
        return None
    return int(qs.pop()) if len(qs) == 1 else "/".join(sorted(qs))


def par_quantum_of(labdir):
    """The parallel boots' round [guest instructions per vCPU and round,
    run-in-guest --par-quantum], "/"-joined if they differ; None without
    parallel boots (qemu-settings.txt "par_quantum")."""
    qs = boot_settings(labdir, ("parallel",), "par_quantum", "NA")
    if not qs:
        return None
    return int(qs.pop()) if len(qs) == 1 and next(iter(qs)).isdigit() else "/".join(sorted(qs))


def io_hold_of(labdir):
    """Whether the icount and parallel boots held guest time while every
    vCPU waited for a 9p reply (run-in-guest --io-hold; qemu-settings.txt
    "io_hold"): "on", "off" (also every boot written before the option:
    qemu's own warp), "/"-joined if the boots differ; None without icount
    or parallel boots."""
    hs = boot_settings(labdir, ("icount", "parallel"), "io_hold", "off")
    return "/".join(sorted(hs)) if hs else None


def preempt_of(labdir):
    """The preemption model in force in the boots: facts.txt's "preemption
    model requested and in force: X" (payoff-lab --preempt), else the
    bracketed entry of debugfs sched/preempt that payoff-in-guest copies
    into facts.txt ("sched/preempt: full (lazy)" -> "lazy"), "/"-joined if
    the boots differ; None where no boot's facts say."""
    ms = set()
    for _, text in boot_files(labdir, "facts.txt"):
        lines = text.splitlines()
        # payoff-in-guest's own check (payoff-lab --preempt) first: 7.x's
        # sched/preempt brackets none of its entries under none or voluntary
        forced = [ln.rsplit(":", 1)[1].strip() for ln in lines if ln.startswith("preemption model requested and in force:")]
        if forced:
            ms.add(forced[-1])
            continue
        for line in lines:
            if line.startswith("sched/preempt:") and "(" in line:
                ms.add(line.split("(", 1)[1].split(")", 1)[0].strip())
    if not ms:
        return None
    return "/".join(sorted(ms))


def setting_of(labdir, pattern, before):
    """A payoff-in-guest setting of the boots, from the "settings: ..." line
    of every LABDIR/*/facts.txt: the first group of PATTERN (a regular
    expression matched after "; " in that line), BEFORE for a boot whose
    line lacks it (written before the option existed), "/"-joined if the
    boots differ; None where no boot has facts.txt."""
    vals = set()
    for _, text in boot_files(labdir, "facts.txt"):
        m = re.search(r"^settings: .*; " + pattern, text, re.M)
        vals.add(m.group(1) if m else before)
    return "/".join(sorted(vals)) if vals else None


def huge_pages_of(labdir):
    """payoff-in-guest --huge-pages of the boots ("...; huge_pages on
    (regress2026*: off)"): "on" or "off"; "off" also for a boot written
    before the option (its servers ran huge_pages = off)."""
    return setting_of(labdir, r"huge_pages (on|off)\b", "off")


def patched_register_of(labdir):
    """The patched server's rseq_slice_register in the boots ("...;
    rseq_slice_register never (patched)", payoff-in-guest
    --patched-register): "auto" or "never"; "auto" also for a boot written
    before the option (which always ran auto)."""
    return setting_of(labdir, r"rseq_slice_register (auto|never) \(patched\)", "auto")


def stock_register_of(labdir):
    """The stock server's rseq area in the boots ("...; rseq area v2
    (stock)", payoff-in-guest --stock-register): "legacy" (glibc's 32-byte
    area) or "v2" (the patched postmaster's V2 area and enabled slice
    extension, from bench/micro's preload library); "legacy" also for a
    boot written before the option (which always ran glibc's)."""
    return setting_of(labdir, r"rseq area (legacy|v2) \(stock\)", "legacy")


def ssum(rs, c):
    return sum(num(r[c]) for r in rs if not math.isnan(num(r[c])))


def analyse(wl, vcpus, rs):
    calib = [r for r in rs if r["arm"] == "calib"]
    runs = [r for r in rs if r["arm"] != "calib" and r.get("discard", "0") != "1"]
    base, ask = BASE_OF.get(wl, ("stock", "auto"))
    arms = list(OrderedDict.fromkeys(r["arm"] for r in runs))
    byround = {}
    for r in runs:
        if r["arm"] in byround.get(r["round"], {}):
            # two boots that numbered their rounds alike would be paired
            # wrongly, and one of the two runs silently dropped
            sys.exit(f"analyse summarise payoff: {wl} on {vcpus} vCPUs: round {r['round']} of arm {r['arm']} is recorded "
                     "twice (two boots with the same rounds: payoff-lab step vN-rK numbers a further boot's rounds from K)")
        byround.setdefault(r["round"], {})[r["arm"]] = r
    out = OrderedDict(name=wl, vcpus=vcpus)
    first = runs[0] if runs else rs[0]
    out["slice_ext_nsec"] = int(num(first["slice_ext_nsec"])) if not math.isnan(num(first["slice_ext_nsec"])) else None
    for k in ("secs", "clients", "hogs"):
        out[k] = int(num(first[k])) if not math.isnan(num(first[k])) else None
    out["shared_buffers"] = first["shared_buffers"]
    out["rounds"] = len(byround)
    out["discarded_runs"] = sum(1 for r in rs if r.get("discard", "0") == "1" and r["arm"] != "calib")
    out["baseline_arm"], out["asking_arm"] = base, ask
    # tps
    tps = OrderedDict()
    for a in arms:
        # a run without a tps (pgbench processed no transaction) is left
        # out and counted in "no_tps"
        allv = [num(r["tps"]) for r in runs if r["arm"] == a]
        v = [x for x in allv if not math.isnan(x)]
        m = st.mean(v) if v else NAN
        sd = st.stdev(v) if len(v) > 1 else NAN
        tps[a] = {"mean": nn(m, 3), "sd": nn(sd, 3), "cv": nn(sd / m if m else NAN), "n": len(v), "no_tps": len(allv) - len(v)}
    out["tps"] = tps
    # the 2023 thread's claim was a smaller spread: stddev auto / stddev
    # stock with a two-sided F test of equal variances (needs scipy)
    sa, sb = tps.get(ask, {}).get("sd"), tps.get(base, {}).get("sd")
    fp = f_test_p(sa, tps.get(ask, {}).get("n", 0), sb, tps.get(base, {}).get("n", 0))
    out["tps_sd_ratio_auto_stock"] = {"ratio": nn(sa / sb if sa and sb else NAN, 4), "f_test_p": nn(fp, 4)}

    def ratios(a, b):
        """tps a / tps b per round (rounds with both arms)"""
        return [num(d[a]["tps"]) / num(d[b]["tps"]) for d in byround.values()
                if a in d and b in d and num(d[b]["tps"]) > 0]

    def pr(a, b):
        return ratio_obj(paired(ratios(a, b)))
    out["tps_ratio_auto_stock"] = pr(ask, base)
    out["tps_ratio_auto_measure"] = pr(ask, "measure") if wl not in BASE_OF else pr(ask, base)

    out["tps_median_auto_stock"] = median_interval(ratios(ask, base))
    out["tps_median_auto_measure"] = median_interval(ratios(ask, "measure") if wl not in BASE_OF else ratios(ask, base))
    out["tps_ratio_measure_stock"] = pr("measure", "stock")
    for a in arms:
        if a not in (base, ask, "measure", "stock"):
            out[f"tps_ratio_{a}_stock"] = pr(a, "stock")
            out[f"tps_ratio_{a}_auto"] = pr(a, "auto")
    if "off" in arms:
        # the patched server in mode off: its registration and binary without the lock layer's work
        out["tps_ratio_measure_off"] = pr("measure", "off")
        out["tps_ratio_auto_off"] = pr(ask, "off")
    # deschedules
    spx = NAN
    if wl == "extend-sched":
        spx = 1.0
    elif calib:
        x = ssum(calib, "xacts")
        spx = ssum(calib, "pg_sections") / x if x else NAN
    out["sections_per_xact"] = nn(spx, 3)
    dx, ds = OrderedDict(), OrderedDict()
    for a in arms:
        if a == "stock":
            continue
        ar = [r for r in runs if r["arm"] == a]
        x = ssum(ar, "xacts")
        rate = 1000 * ssum(ar, "pg_desched") / x if x else NAN
        dx[a] = nn(rate, 4)
        ds[a] = nn(rate / spx if spx and not math.isnan(spx) else NAN, 6)
    if wl in BASE_OF:   # measure/upstream as measure/auto, so that the fixed keys exist
        dx.setdefault("auto", dx.get(ask)); ds.setdefault("auto", ds.get(ask))
    out["desched_per_1000_xacts"] = dx
    out["desched_per_1000_sections"] = ds
    rate = {}
    for rnd, d in byround.items():
        for a in ("measure", ask):
            if a in d and num(d[a]["xacts"]) > 0:
                rate.setdefault(rnd, {})[a] = num(d[a]["pg_desched"]) / num(d[a]["xacts"])
    out["desched_ratio_auto_measure"] = ratio_obj(paired(
        [d[ask] / d["measure"] for d in rate.values() if ask in d and "measure" in d and d["measure"] > 0]))
    if ask != "measure" and dx.get("measure"):
        out["desched_ratio_auto_measure"]["pooled"] = nn(dx[ask] / dx["measure"] if dx.get(ask) is not None else NAN)
    # grants
    au = [r for r in runs if r["arm"] == ask]
    g = ssum(au, "k_sgrant")
    out["grant_yield_fraction"] = nn(ssum(au, "k_syield") / g if g else NAN)
    out["grant_expired_fraction"] = nn(ssum(au, "k_sexpir") / g if g else NAN)
    out["grant_revoked_fraction"] = nn(ssum(au, "k_srevok") / g if g else NAN)
    x = ssum(au, "xacts")
    out["grants_per_1000_xacts"] = nn(1000 * g / x if x else NAN, 4)
    out["kernel_grants"] = int(g)
    # every arm that asks (auto, request, auto-VALUE: auto with another
    # rseq_slice_request): its own grant outcomes and deschedules
    per = OrderedDict()
    for a in arms:
        if a in ("stock", "off", "measure") or a == base:
            continue
        ar = [r for r in runs if r["arm"] == a]
        ga = ssum(ar, "k_sgrant")
        xa = ssum(ar, "xacts")
        rr = {}
        for rnd, d in byround.items():
            if a in d and "measure" in d and num(d["measure"]["pg_desched"]) > 0 and num(d[a]["xacts"]) > 0:
                rr[rnd] = (num(d[a]["pg_desched"]) / num(d[a]["xacts"])) / (num(d["measure"]["pg_desched"]) / num(d["measure"]["xacts"]))
        per[a] = {"grant_yield_fraction": nn(ssum(ar, "k_syield") / ga if ga else NAN),
                  "grant_expired_fraction": nn(ssum(ar, "k_sexpir") / ga if ga else NAN),
                  "grants_per_1000_xacts": nn(1000 * ga / xa if xa else NAN, 4),
                  "desched_per_1000_xacts": dx.get(a),
                  "desched_ratio_to_measure": ratio_obj(paired(list(rr.values()))),
                  "tps_ratio_to_stock": pr(a, "stock") if base == "stock" else pr(a, base),
                  "tps_ratio_to_measure": pr(a, "measure")}
    out["asking_arms"] = per
    chk = [r for r in runs if r["arm"] != "stock"]
    # the relations pg_rseq's counters keep with the kernel's
    # (analysis/lab.py kernel_relations), within 1: a section open across a
    # snapshot
    rel = [kernel_relations(r, slack=1) for r in chk]
    out["pg_kernel_relations_runs"] = {
        "lower": sum(lo is True for lo, _, _ in rel),
        "upper": sum(up is True for _, up, _ in rel),
        "yields_in_grant": sum(y is True for _, _, y in rel),
        # stronger, and what has held since payoff-20261201: a grant the
        # kernel neither revoked nor aborted is seen in place. A grant the
        # kernel ended because its section made another system call
        # (s_aborted, Linux 7.2 kernel/rseq.c rseq_syscall_enter_work) is
        # in s_granted and not in s_revoked, while pg_rseq finds it gone at
        # the section's end (payoff-20261202-rr2-pg2023-arms4: 5 such in 2
        # runs): grants_in_place = s_granted - s_revoked - s_aborted
        "in_place_identity": sum(abs(num(r["pg_grants_in_place"])
                                     - (num(r["k_sgrant"]) - num(r["k_srevok"]) - num(r["k_sabort"]))) <= 1
                                 for r in chk),
        "of": len(chk)}
    out["counters_asking_arm"] = OrderedDict((c, int(ssum(au, c))) for c in (
        "pg_requests", "pg_grants_in_place", "pg_requests_cleared", "pg_yields", "pg_yields_in_grant", "pg_desched",
        "k_sgrant", "k_sexpir", "k_srevok", "k_syield", "k_sabort"))
    out["kernel_zero_without_requests"] = all(
        num(r[c]) == 0 for r in runs if r["arm"] in ("stock", "off", "measure")
        for c in ("k_sgrant", "k_srevok", "k_syield", "k_sabort"))
    # waits
    waits = OrderedDict()
    for a in arms:
        ar = [r for r in runs if r["arm"] == a]
        act = ssum(ar, "smp_active")
        if not act:
            continue
        top = OrderedDict()
        for r in ar:
            t = r.get("smp_top_lwlock", "-")
            if ":" in t:
                k, c = t.rsplit(":", 1)
                top[k] = top.get(k, 0) + int(num(c))
        waits[a] = {"samples": int(ssum(ar, "smp_samples")), "active_per_sample": nn(act / ssum(ar, "smp_samples") if ssum(ar, "smp_samples") else NAN, 2),
                    "cpu": nn(ssum(ar, "smp_cpu") / act, 4), "lwlock": nn(ssum(ar, "smp_lwlock") / act, 4),
                    "spin": nn(ssum(ar, "smp_spin") / act, 4), "lock": nn(ssum(ar, "smp_lock") / act, 4),
                    "other": nn(ssum(ar, "smp_other") / act, 4),
                    "top_lwlock": max(top, key=top.get) if top else None}
    out["waits"] = waits
    loads = [num(r[c]) for r in runs for c in ("host_load_start", "host_load_end") if not math.isnan(num(r[c]))]
    out["host_load"] = {"mean": nn(st.mean(loads) if loads else NAN, 2), "max": nn(max(loads) if loads else NAN, 2)}
    return out


def tranche_table(wl, vcpus, runs_all, trows):
    """per-tranche outcomes of the asking arm (and the deschedules of measure): list of dicts, by grants"""
    base, ask = BASE_OF.get(wl, ("stock", "auto"))
    trows = [r for r in trows if r["workload"] == wl and int(num(r["vcpus"])) == vcpus and r.get("discard", "0") != "1"]
    runs = [r for r in runs_all if r["arm"] != "calib" and r.get("discard", "0") != "1"]
    xacts = {a: ssum([r for r in runs if r["arm"] == a], "xacts") for a in ("measure", ask)}
    acc = OrderedDict()
    cols = ("acquisitions", "descheduled", "grants_in_place", "requests_cleared", "yields", "yields_in_grant")
    for r in trows:
        if r["arm"] not in ("measure", ask):
            continue
        d = acc.setdefault((r["tranche"], r["lock_kind"]), {"measure": {}, ask: {}})[r["arm"]]
        for c in cols:
            v = num(r[c])
            if not math.isnan(v):
                d[c] = d.get(c, 0) + v
    out = []
    for (t, k), d in acc.items():
        a, m = d[ask], d["measure"]
        gi, rc, yig = a.get("grants_in_place"), a.get("requests_cleared"), a.get("yields_in_grant")
        row = OrderedDict(tranche=t, lock_kind=k)
        for c in cols:
            row[c] = int(a[c]) if c in a else None
        row["expired_or_other"] = int(gi - yig) if None not in (gi, yig) else None
        answered = gi + rc if None not in (gi, rc) else None
        row["yields_in_grant_fraction"] = nn(yig / answered if answered and yig is not None else NAN)
        row["desched_measure"] = int(m["descheduled"]) if "descheduled" in m else None
        for a2, key in (("measure", "desched_per_1000_xacts_measure"), (ask, "desched_per_1000_xacts_auto")):
            ds = d[a2].get("descheduled")
            row[key] = nn(1000 * ds / xacts[a2] if ds is not None and xacts[a2] else (0.0 if xacts[a2] else NAN), 4)
        out.append(row)
    out.sort(key=lambda r: (-(r["grants_in_place"] or 0), -(r["desched_measure"] or 0), r["tranche"]))
    return out


def tranche_sums_match(runs_all, trows):
    """patched runs whose tranche rows add up to the pg_stat_rseq_totals deltas of runs.csv, within 1"""
    sums = {}
    for r in trows:
        key = (r["tag"], r["workload"], r["arm"], r["round"])
        s = sums.setdefault(key, {"grants_in_place": 0, "yields_in_grant": 0})
        for c in s:
            v = num(r[c])
            s[c] += 0 if math.isnan(v) else v
    res = {"grants_in_place": 0, "yields_in_grant": 0, "of": 0}
    for r in runs_all:
        if r["arm"] == "stock" or math.isnan(num(r["pg_grants_in_place"])):
            continue
        s = sums.get((r["tag"], r["workload"], r["arm"], r["round"]), {"grants_in_place": 0, "yields_in_grant": 0})
        res["of"] += 1
        res["grants_in_place"] += abs(s["grants_in_place"] - num(r["pg_grants_in_place"])) <= 1
        res["yields_in_grant"] += abs(s["yields_in_grant"] - num(r["pg_yields_in_grant"])) <= 1
    return res


def hold_summary(wl, vcpus, hrows):
    """the hold times of the traced runs of a workload (the last traced run's percentiles, counts summed)"""
    hr = [r for r in hrows if r["workload"] == wl and int(num(r["vcpus"])) == vcpus]
    if not hr:
        return None
    last = hr[-1]

    def iv(r, c):
        v = num(r.get(c, "NA"))
        return None if math.isnan(v) else v
    out = OrderedDict()
    for c in ("p50", "p90", "p99", "max", "mean"):
        out[c] = nn(iv(last, f"{c}_ns") if iv(last, f"{c}_ns") is not None else NAN, 1)
    for c in ("n", "expired", "starts", "k_sgrant", "rearmed", "open", "lost_events", "cancelled", "unmatched"):
        vals = [iv(r, c) for r in hr]
        out[c] = int(sum(v for v in vals if v is not None)) if any(v is not None for v in vals) else None
    for c in ("over_5us", "over_50us"):
        out[c] = nn(iv(last, c) if iv(last, c) is not None else NAN)
    out["tsc_mhz"] = nn(iv(last, "tsc_mhz") if iv(last, "tsc_mhz") is not None else NAN, 3)
    out["slice_ext_nsec"] = int(iv(last, "slice_ext_nsec")) if iv(last, "slice_ext_nsec") is not None else None
    out["traced_runs"] = len(hr)
    return out


def targets(ws):
    """the lab's targets (docs/kernel-lab.md, "Targets") on these numbers: list of dicts (target, workload, value, goal, met)"""
    t = []

    def add(target, w, value, goal, met):
        t.append({"target": target, "workload": f"{w['name']} ({w['vcpus']} vCPU)", "value": value, "goal": goal,
                  "met": met})
    for w in ws:
        if w["name"].startswith("hotlock") and w["vcpus"] == 1:
            d = w["desched_ratio_auto_measure"]
            pooled = d.get("pooled", d["mean"])
            gy = w["grant_yield_fraction"]
            label = f"mechanism at {w['slice_ext_nsec'] // 1000} us"
            add(label, w, {"desched_auto_measure": pooled, "grant_yield_fraction": gy},
                "desched auto/measure <= 0.05, grant_yield_fraction >= 0.95",
                pooled is not None and gy is not None and pooled <= 0.05 and gy >= 0.95)
    for w in ws:
        if w["vcpus"] == 1 and w["name"] != "extend-sched":
            m = w["tps_ratio_auto_measure"]["mean"]
            add("cost of asking (1 vCPU)", w, m, "tps auto/measure >= 0.995", m is not None and m >= 0.995)
    for w in ws:
        if w["vcpus"] > 1 and w["name"] != "extend-sched":
            r = w["tps_ratio_auto_stock"]
            d = w["desched_ratio_auto_measure"]
            pooled = d.get("pooled", d["mean"])
            gy = w["grant_yield_fraction"]
            ok = (r["mean"] is not None and r["lo"] is not None and r["mean"] >= 1.10 and r["lo"] > 1
                  and pooled is not None and pooled <= 0.5 and gy is not None and gy >= 0.7)
            add("pay-off (several vCPUs)", w, {"tps_auto_stock": r["mean"], "lo": r["lo"], "desched_auto_measure": pooled,
                                               "grant_yield_fraction": gy},
                "auto/stock >= 1.10 with lo > 1, desched <= 0.5, grant_yield_fraction >= 0.7", ok)
    for w in ws:
        if w["name"] != "extend-sched":
            lo = w["tps_ratio_auto_stock"]["lo"]
            add("nothing slower", w, lo, "lower 95 % bound of auto/stock >= 0.98", lo is not None and lo >= 0.98)
    return t


def slice_statement(ws):
    """what the hotlock runs at 50 us and 5 us say about the slice length the sections need"""
    lines = []
    by = {(w["name"], w["vcpus"]): w for w in ws}
    for h in sorted({w["name"].split("-")[1] for w in ws if w["name"].startswith("hotlock-")}):
        a, b = by.get((f"hotlock-{h}-50us", 1)), by.get((f"hotlock-{h}-5us", 1))
        if not a or not b:
            continue
        lines.append(f"- hotlock {h} (1 vCPU): grants yielded inside the slice {pct(a['grant_yield_fraction'])} at 50 us, "
                     f"{pct(b['grant_yield_fraction'])} at 5 us; expired {pct(a['grant_expired_fraction'])} vs "
                     f"{pct(b['grant_expired_fraction'])}; holders descheduled auto/measure "
                     f"{fx(a['desched_ratio_auto_measure'].get('pooled'))} vs {fx(b['desched_ratio_auto_measure'].get('pooled'))}.")
    for w in ws:
        h = w.get("hold_ns")
        if not h:
            continue
        if not h["n"]:
            lines.append(f"- {w['name']} ({w['vcpus']} vCPU, slice {h['slice_ext_nsec']} ns, traced run): no granted section "
                         f"ended with a syscall ({h['starts']} grants traced, {h['expired']} expired).")
            continue
        lost = f" **{h['lost_events']} trace events lost: the counts are incomplete.**" if h["lost_events"] else ""
        lines.append(f"- {w['name']} ({w['vcpus']} vCPU, slice {h['slice_ext_nsec']} ns, traced run): of {h['n']} granted sections "
                     f"that ended with a syscall, the time from the grant to the end was p50 {fns(h['p50'])}, p90 {fns(h['p90'])}, "
                     f"p99 {fns(h['p99'])}, max {fns(h['max'])}; {pct(h['over_5us'])} needed more than 5 us (the kernel's default "
                     f"and minimum slice), {pct(h['over_50us'])} more than 50 us (its maximum); {h['expired']} timers expired first "
                     f"(of {h['starts']} traced grants; s_granted {h['k_sgrant']}).{lost}")
    for w in ws:
        if not w["name"].startswith("hotlock") and w["kernel_grants"]:
            lines.append(f"- {w['name']} ({w['vcpus']} vCPU, {w['slice_ext_nsec']} ns): {w['kernel_grants']} grants, "
                         f"{pct(w['grant_yield_fraction'])} yielded inside the slice, {pct(w['grant_expired_fraction'])} expired.")
    return lines


def fns(x):
    """ns with a unit: 1234.0 -> '1.23 us', 850 -> '850 ns'"""
    if x is None:
        return "n/a"
    return f"{x / 1000:.2f} us" if x >= 1000 else f"{x:.0f} ns"


def fx(x, nd=3):
    return "n/a" if x is None else f"{x:.{nd}f}"


def arm_rows(res, key):
    """(workload, arm, values, the row's first three Markdown cells) for
    every arm of every workload's dict `key` (tps, asking_arms, waits)"""
    for w in res["workloads"]:
        for a, v in w[key].items():
            yield w, a, v, f"| {w['name']} | {w['vcpus']} | {a} |"


def markdown(labdir, res):
    o = []
    p = o.append
    p(f"# Pay-off lab: `{os.path.basename(os.path.abspath(labdir))}`\n")
    p("Generated by `bench/kernel-lab/analyse summarise payoff` from `runs.csv` (written by `payoff-in-guest`, driven by "
      f"`payoff-lab`). Clock model: **{res['clock']}**"
      f"{'' if not res.get('rr_quantum') else ', vCPU turns of ' + str(res['rr_quantum']) + ' guest instructions (rr quantum, the patched qemu of build-qemu)'}"
      f"{'' if not res.get('par_quantum') else ', parallel guest time in rounds of ' + str(res['par_quantum']) + ' guest instructions per vCPU (the patched qemu of build-qemu)'}"
      f"{'' if not res.get('preempt') else '; preemption model ' + str(res['preempt'])}"
      f"{'; huge_pages = on (but regress2026*)' if res.get('huge_pages') == 'on' else ''}"
      f"{'; the patched server keeps glibc' + chr(39) + 's legacy rseq area (rseq_slice_register = never)' if res.get('patched_register') == 'never' else ''}"
      f"{'; the stock server has the patched server' + chr(39) + 's V2 rseq area and enabled slice extension (--stock-register v2)' if res.get('stock_register') == 'v2' else ''}"
      f"; slice_ext_nsec {res['slice_ext_nsec']} ns unless a row says otherwise.\n")
    for name, heading in (("provenance.txt", "## Provenance\n"), ("commands.log", "Commands (`commands.log`):\n")):
        # a file of the lab folder, quoted verbatim under its heading
        path = os.path.join(labdir, name)
        if os.path.exists(path):
            p(heading)
            with open(path) as f:
                for line in f:
                    p(f"    {line.rstrip()}")
            p("")
    if not HAVE_SCIPY:
        p("**No intervals: python3-scipy is not installed** (every 95 % interval, p-value and F test below is n/a; "
          "`apt-get install python3-scipy`, then run `bench/kernel-lab/analyse summarise payoff` on this folder again).")
        p("")
        print("analyse summarise payoff: python3-scipy is not installed: intervals, p-values and F tests are n/a", file=sys.stderr)
    p("## Workloads\n")
    p("Ratios are geometric means of the per-round ratios with 95 % t intervals (rounds interleave the arms in Williams order, both servers up). "
      "`desched/1000 sect` = holders descheduled per 1000 lock sections, from deschedules per transaction and the sections per "
      "transaction of one calibration run with `rseq_slice_detail = on` (`sect/xact`). `yield` = kernel s_yielded / s_granted over "
      "the auto runs (extend-sched: upstream), `expired` = s_expired / s_granted. extend-sched: tps = lock entries/s, "
      "its baseline is `measure` and its asking arm `upstream`.\n")
    p("| workload | vCPUs | nsec | s x rounds | clients | hogs | shared_buffers | tps stock | tps measure | tps auto | auto/stock [95% CI] | auto/measure [95% CI] | measure/stock | sect/xact | desched/1000 xacts measure / auto | desched/1000 sect measure / auto | desched auto/measure | grants/1000 xacts | yield | expired | pg vs kernel | host load |")
    p("| --- | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | --- |")
    for w in res["workloads"]:
        base, ask = w["baseline_arm"], w["asking_arm"]
        t = w["tps"]
        tm = lambda a: fmt(t[a]["mean"], 1) if a in t else "-"
        d = w["desched_ratio_auto_measure"]
        dd = d.get("pooled", d["mean"])
        eq = w["pg_kernel_relations_runs"]
        bounds = min(eq["lower"], eq["upper"])
        p(f"| {w['name']} | {w['vcpus']} | {w['slice_ext_nsec']} | {w['secs']} x {w['rounds']} | {w['clients']} | {w['hogs']} | {w['shared_buffers']} | "
          f"{tm('stock') if base == 'stock' else '-'} | {tm('measure')} | {tm(ask)} | {rcell(w['tps_ratio_auto_stock'])} | {rcell(w['tps_ratio_auto_measure'])} | "
          f"{rcell(w['tps_ratio_measure_stock'])} | {fx(w['sections_per_xact'], 1)} | "
          f"{fx(w['desched_per_1000_xacts'].get('measure'), 2)} / {fx(w['desched_per_1000_xacts'].get(ask), 2)} | "
          f"{fx(w['desched_per_1000_sections'].get('measure'), 4)} / {fx(w['desched_per_1000_sections'].get(ask), 4)} | {fx(dd)} | "
          f"{fx(w['grants_per_1000_xacts'], 2)} | {pct(w['grant_yield_fraction'])} | {pct(w['grant_expired_fraction'])} | "
          f"{bounds}/{eq['of']}, {eq['yields_in_grant']}/{eq['of']} | {fx(w['host_load']['mean'], 1)} ({fx(w['host_load']['max'], 1)}) |")
    p("\n`pg vs kernel`: patched runs (extend-sched: its lock layer's own counters) in which pg_rseq's `grants_in_place` <= "
      "the kernel's s_granted <= `grants_in_place + requests_cleared`, and in which `yields_in_grant` = s_yielded, both within 1 "
      "(see the counters table).\n")
    p("### Counters of the asking arm (sums over its runs)\n")
    cols = ["pg_requests", "pg_grants_in_place", "pg_requests_cleared", "pg_yields", "pg_yields_in_grant", "pg_desched", "k_sgrant", "k_sexpir", "k_srevok", "k_syield", "k_sabort"]
    p("Run-by-run checks, within 1: `gip <= sg` pg grants_in_place <= s_granted (a section that left with `granted` set was granted); "
      "`sg <= gip+rc` s_granted <= grants_in_place + requests_cleared (every grant ends in place or with its request cleared; a cleared "
      "request may also be none: cleared at a context switch, or refused); `yig = sy` yields_in_grant = s_yielded; "
      "`gip = sg-srv-sab` grants_in_place = s_granted - s_revoked - s_aborted (a grant the kernel neither revoked nor ended at another "
      "system call is seen in place).\n")
    p("| workload | vCPUs | arm | " + " | ".join(cols) + " | gip <= sg | sg <= gip+rc | yig = sy | gip = sg-srv-sab |")
    p("| --- | ---: | --- | " + " | ".join("---:" for _ in cols) + " | ---: | ---: | ---: | ---: |")
    for w in res["workloads"]:
        c, eq = w["counters_asking_arm"], w["pg_kernel_relations_runs"]
        p(f"| {w['name']} | {w['vcpus']} | {w['asking_arm']} | " + " | ".join(fmt(c[k]) for k in cols)
          + f" | {eq['lower']}/{eq['of']} | {eq['upper']}/{eq['of']} | {eq['yields_in_grant']}/{eq['of']} | {eq['in_place_identity']}/{eq['of']} |")
    p("")
    p("### Spread and extra arms\n")
    p("`sd auto/stock` = stddev of the asking arm's tps over that of the baseline, with the p of a two-sided F test of equal variances.\n")
    p("| workload | vCPUs | arm | runs | tps mean | stddev | CV | sd auto/stock (F test p) |")
    p("| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for w, a, v, lead in arm_rows(res, "tps"):
        sr = w["tps_sd_ratio_auto_stock"]
        cell = f"{fx(sr['ratio'])} (p={fx(sr['f_test_p'], 3)})" if a == w["asking_arm"] and sr["ratio"] is not None else ""
        runs_cell = f"{v['n']} (+{v['no_tps']} without tps)" if v["no_tps"] else f"{v['n']}"
        p(f"{lead} {runs_cell} | {fmt(v['mean'], 1)} | {fmt(v['sd'], 1)} | {pct(v['cv']) if v['cv'] is not None else 'n/a'} | {cell} |")
    offs = [w for w in res["workloads"] if w.get("tps_ratio_off_stock")]
    if offs:
        p("\n### The patched server in mode off\n")
        reg = ("glibc's legacy rseq area, as in stock (rseq_slice_register = never)" if res.get("patched_register") == "never"
               else "the postmaster's own V2 rseq area (rseq_slice_register = auto)")
        p("Arm `off`: the patched server with `rseq_slice_mode = off` (no lock-layer work; the same binary and rseq "
          f"registration as measure and auto: {reg}). off/stock isolates the patched server's binary"
          f"{' (the stock server has the same V2 registration)' if res.get('stock_register') == 'v2' else ' and registration'}, "
          "measure/off the lock layer's measuring.\n")
        p("| workload | vCPUs | off/stock [95% CI] | measure/off [95% CI] | auto/off [95% CI] |")
        p("| --- | ---: | --- | --- | --- |")
        for w in offs:
            p(f"| {w['name']} | {w['vcpus']} | {rcell(w['tps_ratio_off_stock'])} | {rcell(w.get('tps_ratio_measure_off'))} | "
              f"{rcell(w.get('tps_ratio_auto_off'))} |")
    p("\n### Medians of the per-round ratios (distribution-free)\n")
    p("The median of the paired per-round ratios with its order-statistic interval (coverage `conf`, at least 95 %; "
      "none below 6 rounds): one slow run in one arm moves it by one rank, where it can move the t interval above by percents.\n")
    p("| workload | vCPUs | rounds | auto/stock median [interval] | auto/measure median [interval] | conf |")
    p("| --- | ---: | ---: | --- | --- | ---: |")
    for w in res["workloads"]:
        ms, mm = w.get("tps_median_auto_stock") or {}, w.get("tps_median_auto_measure") or {}
        p(f"| {w['name']} | {w['vcpus']} | {ms.get('n', 0)} | {mcell(ms)} | {mcell(mm)} | "
          f"{pct(ms['conf']) if ms.get('conf') is not None else 'n/a'} |")
    p("\n### Every arm that asks\n")
    p("`auto-X` / `request` = patched auto with `rseq_slice_request = X` (a later lock layer's setting).\n")
    p("| workload | vCPUs | arm | tps / stock [95% CI] | tps / measure [95% CI] | desched/1000 xacts | desched / measure | grants/1000 xacts | yield | expired |")
    p("| --- | ---: | --- | --- | --- | ---: | --- | ---: | ---: | ---: |")
    for w, a, v, lead in arm_rows(res, "asking_arms"):
        p(f"{lead} {rcell(v['tps_ratio_to_stock'])} | {rcell(v['tps_ratio_to_measure'])} | "
          f"{fx(v['desched_per_1000_xacts'], 2)} | {rcell(v['desched_ratio_to_measure'])} | {fx(v['grants_per_1000_xacts'], 2)} | "
          f"{pct(v['grant_yield_fraction'])} | {pct(v['grant_expired_fraction'])} |")
    p("\n### Where the backends were (pg_stat_activity samples)\n")
    p("Share of the sampled active client backends: on CPU (no wait event), waiting for an LWLock, in `SpinDelay` (spinlock or "
      "buffer header spin delay), waiting for a heavyweight lock, other waits; `top LWLock` = the most sampled LWLock wait event.\n")
    p("| workload | vCPUs | arm | samples | active per sample | CPU | LWLock | SpinDelay | Lock | other | top LWLock |")
    p("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for w, a, v, lead in arm_rows(res, "waits"):
        p(f"{lead} {v['samples']} | {fx(v['active_per_sample'], 1)} | {pct(v['cpu'])} | {pct(v['lwlock'])} | "
          f"{pct(v['spin'])} | {pct(v['lock'])} | {pct(v['other'])} | {v['top_lwlock'] or '-'} |")
    p("\n## Where grants go, per tranche\n")
    p("From `tranches.csv` (pg_stat_rseq_tranche differences across every patched run; sums over the asking arm's runs). "
      "Seen when releasing the lock closed the outermost section: `in place` = grants_in_place (the grant was still set); "
      "`cleared` = requests_cleared (the kernel had cleared the request with no grant in view: a grant revoked, or a request "
      "cleared at a context switch or refused); `yig` = yields_in_grant (rseq_slice_yield returned 1: the section ended "
      "inside the extension); `yig/answered` = yig / (in place + cleared); `exp/other` = in place - yig: grants still "
      "set at release whose yield returned 0 (the grant ended between the check and the system call). `desched/1000 xacts` = "
      "holders descheduled per 1000 transactions of the arm, measure vs auto. Rows: the top 5 by grants in place and the top 5 by "
      "deschedules (measure or auto).\n")
    any_t = False
    for w in res["workloads"]:
        rows = w.get("tranches") or []
        if not rows:
            continue
        any_t = True
        top_g = [r for r in rows if r["grants_in_place"]][:5]
        top_d = sorted(rows, key=lambda r: -max(r["desched_per_1000_xacts_measure"] or 0, r["desched_per_1000_xacts_auto"] or 0))[:5]
        top_d = [r for r in top_d if (r["desched_per_1000_xacts_measure"] or 0) or (r["desched_per_1000_xacts_auto"] or 0)]
        pick = [r for r in rows if r in top_g or r in top_d]
        m = w["tranche_sums_match_totals"]
        p(f"**{w['name']}** ({w['vcpus']} vCPU, asking arm {w['asking_arm']}; tranche rows add up to the totals of runs.csv in "
          f"{m['grants_in_place']}/{m['of']} runs for grants_in_place, {m['yields_in_grant']}/{m['of']} for yields_in_grant)\n")
        p("| tranche | lock kind | top by | acquisitions | in place | cleared | yig | yig/answered | exp/other | yields | desched/1000 xacts measure / auto |")
        p("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for r in pick:
            by = "/".join(x for x, s in (("in place", top_g), ("desched", top_d)) if r in s)
            p(f"| {r['tranche']} | {r['lock_kind']} | {by} | {fmt(r['acquisitions'])} | {fmt(r['grants_in_place'])} | {fmt(r['requests_cleared'])} | "
              f"{fmt(r['yields_in_grant'])} | {pct(r['yields_in_grant_fraction'])} | {fmt(r['expired_or_other'])} | {fmt(r['yields'])} | "
              f"{fx(r['desched_per_1000_xacts_measure'], 2)} / {fx(r['desched_per_1000_xacts_auto'], 2)} |")
        p("")
    if not any_t:
        p("No `tranches.csv` (a lab run before per-tranche snapshots).\n")
    p("## Hold times of granted sections\n")
    p("From `holds.csv`: one traced run per workload (arm `trace` = patched auto with the kernel's timer:hrtimer_start, "
      "hrtimer_cancel and hrtimer_expire_entry tracepoints on, discard = 1: left out of every ratio and target). A grant arms "
      "the per-CPU slice timer (`hrtimer_start` of rseq_slice_expired); the section's system call (the yield, or another) "
      "cancels it. Hold = cancel - start [trace clock x86-tsc, converted with the guest TSC frequency from dmesg]: the time "
      "from the grant to the section's end, the part of the section the extension has to cover (the tracepoints' own cost "
      "included). `expired` = the timer fired first; `starts` vs `s_granted` = the trace's grants vs the kernel's count for "
      "the same run; `lost` = ring buffer overrun/dropped events (must be 0).\n")
    hw = [w for w in res["workloads"] if w.get("hold_ns")]
    if hw:
        p("| workload | vCPUs | slice ns | starts | s_granted | cancelled (n) | expired | rearmed | open | lost | p50 | p90 | p99 | max | > 5 us | > 50 us |")
        p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for w in hw:
            h = w["hold_ns"]
            lost = fmt(h["lost_events"]) if not h["lost_events"] else f"**{fmt(h['lost_events'])}**"
            p(f"| {w['name']} | {w['vcpus']} | {h['slice_ext_nsec']} | {fmt(h['starts'])} | {fmt(h['k_sgrant'])} | {fmt(h['n'])} | "
              f"{fmt(h['expired'])} | {fmt(h['rearmed'])} | {fmt(h['open'])} | {lost} | {fns(h['p50'])} | {fns(h['p90'])} | "
              f"{fns(h['p99'])} | {fns(h['max'])} | {pct(h['over_5us'])} | {pct(h['over_50us'])} |")
        p("")
    else:
        p("No `holds.csv` (no traced run: --no-trace, or a lab run before the trace).\n")
    p("\n## Targets\n")
    p("| target | workload | value | goal | met |")
    p("| --- | --- | --- | --- | --- |")
    for t in res["targets"]:
        v = t["value"]
        vs = ", ".join(f"{k} {fx(x)}" for k, x in v.items()) if isinstance(v, dict) else fx(v)
        p(f"| {t['target']} | {t['workload']} | {vs} | {t['goal']} | {'yes' if t['met'] else '**no**'} |")
    p("\n## Slice length the sections need\n")
    lines = slice_statement(res["workloads"])
    o += lines or ["- no hotlock runs at both 50 us and 5 us"]
    p("")
    sp = os.path.join(labdir, "steps.csv")
    if os.path.exists(sp):
        p("## Steps (`steps.csv`)\n")
        p("| step | status | start (UTC) | end (UTC) | wall s | exit | host load start | end | note |")
        p("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
        with open(sp) as f:
            for r in csv.DictReader(f):
                p(f"| {r['step']} | {r['status']} | {r['start_utc']} | {r['end_utc']} | {r['secs']} | {r['exit']} | "
                  f"{r['host_load_start']} | {r['host_load_end']} | {r['note']} |")
        p("")
    return "\n".join(o) + "\n"


def summarize(labdir):
    rows = read_rows(labdir)
    if not rows:
        raise OSError(f"no runs (no runs.csv, or only its header or rows cut short) in {labdir} or its boot folders")
    need = ("workload", "vcpus", "arm", "round", "tps", "xacts", "slice_ext_nsec")
    missing = [c for c in need if c not in rows[0]]
    if missing:
        raise OSError(f"runs.csv of {labdir} lacks the column(s) {', '.join(missing)}: not a payoff-in-guest runs.csv")
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["workload"], int(num(r["vcpus"]))), []).append(r)
    ws = [analyse(wl, v, rs) for (wl, v), rs in sorted(groups.items(), key=lambda kv: (kv[0][1], list(groups).index(kv[0])))]
    trows, hrows = read_rows(labdir, "tranches.csv"), read_rows(labdir, "holds.csv")
    for w in ws:
        rs = groups[(w["name"], w["vcpus"])]
        w["tranches"] = tranche_table(w["name"], w["vcpus"], rs, trows)
        w["tranche_sums_match_totals"] = tranche_sums_match(rs, [r for r in trows if r["workload"] == w["name"]
                                                                 and int(num(r["vcpus"])) == w["vcpus"]])
        w["hold_ns"] = hold_summary(w["name"], w["vcpus"], hrows)
    nsecs = [w["slice_ext_nsec"] for w in ws if w["slice_ext_nsec"] and not w["name"].endswith("-5us")]
    main_nsec = max(set(nsecs), key=nsecs.count) if nsecs else None
    res = OrderedDict(clock=clock_of(labdir), rr_quantum=rr_quantum_of(labdir), par_quantum=par_quantum_of(labdir), io_hold=io_hold_of(labdir),
                      preempt=preempt_of(labdir), huge_pages=huge_pages_of(labdir),
                      patched_register=patched_register_of(labdir), stock_register=stock_register_of(labdir),
                      slice_ext_nsec=main_nsec, workloads=ws)
    res["targets"] = targets(ws)
    return res


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help") or len(argv) > 3 or (len(argv) == 3 and argv[2] != "--stdout"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1].startswith("-") and not os.path.isdir(argv[1]):
        print(f"analyse summarise payoff: unknown option {argv[1]} (usage: analyse summarise payoff LABDIR [--stdout])", file=sys.stderr)
        return 2
    labdir = argv[1]
    res = summarize(labdir)
    md = markdown(labdir, res)
    if len(argv) == 3:
        sys.stdout.write(md)
    else:
        with open(os.path.join(labdir, "summary.md"), "w") as f:
            f.write(md)
    with open(os.path.join(labdir, "summary.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    return 0
