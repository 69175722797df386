"""analyse summarise lab LABDIR: Markdown summary of a kernel lab run (bench/kernel-lab/lab).

Input: LABDIR as written by bench/kernel-lab/lab: selftest.md, timings.txt,
and one folder per boot (check/, lazy/, full/) written by pg-in-guest:
runs.csv (one line per pgbench run: tps [transactions/s], xacts [count],
pg_* = pg_stat_rseq_totals difference, k_* = debugfs rseq/stats difference
across the run [counts]; pg_grants_in_place and pg_requests_cleared, or in
files written before pg_rseq 1.2.0 pg_grants and pg_revoked, from which
they are derived: grants_in_place = grants - revoked, requests_cleared =
revoked), micro.csv (extend-sched --csv), micro-stats.csv
(rseq/stats difference per extend-sched call), check.txt, facts-*.txt.

Output (stdout), Markdown:
  - setup: kernel, boot command line, preemption model, slice_ext_nsec per boot;
    wall time of every step
  - the qemu settings of every boot (qemu-settings.txt: clock, accel, icount
    shift, smp, memory, kernel version, boot args, host load, full command
    line) and the steps (steps.csv: start, end, duration, exit, host load)
  - selftest and debug-mode check verdicts
  - pgbench per boot: per arm (stock, off, measure, auto) tps mean, stddev and
    coefficient of variation over rounds, mean within-run stddev of the 5 s
    progress tps, paired ratio to stock and to off (geometric mean of the
    per-round ratios, 95 % t interval, two-sided one-sample t test p on the
    log ratios; rounds are interleaved, so a ratio compares runs taken
    minutes apart), deschedules and grants in place per 1000 transactions
  - the slice_ext_nsec sweep: per value, auto tps, paired ratio to off of the
    same round, grants (pg_rseq / kernel), yields inside the grant, timer
    expiries, deschedules per 1000 transactions
  - counters side by side, per boot/phase/arm/nsec: pg_rseq vs kernel, with
    the relations that must hold run by run checked and marked:
    grants_in_place <= s_granted <= grants_in_place + requests_cleared,
    yields_in_grant = s_yielded (exact, see kernel_relations), and kernel
    zero for stock/off/measure
  - extend-sched: entries/s per lock kind, off vs upstream, paired ratio,
    grants vs kernel s_granted
Exit status: 0; 1 on unreadable input or no runs.csv; 2 usage.
The t quantiles come from scipy (Debian python3-scipy).
"""
import glob
import math
import os
import re
import statistics as st
from collections import OrderedDict

from .files import kv_file, read_csv
from .stats import NAN, fmt, num, paired, ratio_cell


def observed(r, prefix="pg_"):
    """R with pg_rseq 1.2.0's outcome columns: PREFIX + grants_in_place and
    requests_cleared. A row written before 1.2.0 has PREFIX + grants (left
    with granted set + request cleared by the kernel with granted clear) and
    revoked (the latter) instead: grants_in_place = grants - revoked,
    requests_cleared = revoked (NA where either is NA). Returns R."""
    gi, rc = prefix + "grants_in_place", prefix + "requests_cleared"
    if gi not in r and prefix + "grants" in r and prefix + "revoked" in r:
        g, rv = num(r[prefix + "grants"]), num(r[prefix + "revoked"])
        r[gi] = "NA" if math.isnan(g) or math.isnan(rv) else str(int(g - rv))
        r[rc] = r[prefix + "revoked"]
    return r


def kernel_relations(r, slack=0):
    """The relations between pg_rseq's totals and the kernel's rseq/stats
    over the same run (a runs.csv row, after observed()): (lower, upper,
    yields), each True if it holds within SLACK:
      lower:  pg_grants_in_place <= k_sgrant (a section that left with
              granted set was granted);
      upper:  k_sgrant <= pg_grants_in_place + pg_requests_cleared (every
              grant ends in place or with the request cleared; a cleared
              request may also be no grant at all: cleared at a context
              switch, or refused);
      yields: pg_yields_in_grant = k_syield (rseq_slice_yield returned 1).
    A row without pg_rseq counts (stock: NA) gives (None, None, None)."""
    gi, rc, yig = num(r["pg_grants_in_place"]), num(r["pg_requests_cleared"]), num(r["pg_yields_in_grant"])
    sg, sy = num(r["k_sgrant"]), num(r["k_syield"])
    if any(math.isnan(x) for x in (gi, rc, yig, sg, sy)):
        return None, None, None
    return gi <= sg + slack, sg <= gi + rc + slack, abs(yig - sy) <= slack


def boot_dirs(labdir):
    """the pg-in-guest boots: folders with a console.log and a facts-*.txt"""
    return [d for d in sorted(glob.glob(os.path.join(labdir, "*")))
            if os.path.isfile(os.path.join(d, "console.log")) and glob.glob(os.path.join(d, "facts-*.txt"))]


def settings_of(d):
    """qemu-settings.txt of a run-in-guest folder (key: value lines), or {}"""
    return kv_file(os.path.join(d, "qemu-settings.txt"))


def section_qemu(labdir):
    dirs = [d for d in sorted(glob.glob(os.path.join(labdir, "*"))) if settings_of(d)]
    if not dirs:
        return
    print("## qemu settings of every boot\n")
    print("From each boot's `qemu-settings.txt` (written by run-in-guest). Host load: the host's 1-minute load average, "
          "mean and max of the 5 s samples during the boot (`host-load.csv`).\n")
    print("| boot | clock | accel | icount | smp | mem MiB | kernel | boot args | host load mean (max) | host s | exit |")
    print("| --- | --- | --- | --- | ---: | ---: | --- | --- | --- | ---: | --- |")
    for d in dirs:
        q = settings_of(d)
        print(f"| {os.path.basename(d)} | {q.get('clock', '?')} | `{q.get('accel', '?')}` | `{q.get('icount', '?')}` | {q.get('smp', '?')} | "
              f"{q.get('mem_mib', '?')} | {q.get('kernel_version', '?').split(' ')[0]} | `{q.get('append', '?')}` | "
              f"{q.get('host_load1_mean', '?')} ({q.get('host_load1_max', '?')}) | {q.get('elapsed_s', '?')} | {q.get('exit', '?')} |")
    print("\nFull qemu command lines:\n")
    for d in dirs:
        print(f"- `{os.path.basename(d)}`: `{settings_of(d).get('qemu_cmdline', '?')}`")
    print()


def section_steps(labdir):
    p = os.path.join(labdir, "steps.csv")
    if not os.path.exists(p):
        return
    print("## Steps (`steps.csv`)\n")
    print("| step | status | start (UTC) | end (UTC) | wall s | exit | host load start | end | note |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for r in read_csv(p):
        print(f"| {r['step']} | {r['status']} | {r['start_utc']} | {r['end_utc']} | {r['secs']} | {r['exit']} | "
              f"{r['host_load_start']} | {r['host_load_end']} | {r['note']} |")
    print()


def facts_of(d):
    out = {}
    for fp in sorted(glob.glob(os.path.join(d, "facts-*.txt"))):
        with open(fp, errors="replace") as f:
            for line in f:
                for key in ("uname -a", "cmdline", "sched/preempt", "rseq/slice_ext_nsec", "rseq/debug", "nproc"):
                    if line.startswith(key + ":") and key not in out:
                        out[key] = line.split(":", 1)[1].strip()
    return out


def section_setup(labdir, boots):
    print("## Setup\n")
    print("| boot | kernel | command line (extra) | sched/preempt | slice_ext_nsec | rseq/debug | CPUs |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for d in boots:
        f = facts_of(d)
        uname = f.get("uname -a", "?").split()
        kernel = uname[2] if len(uname) > 2 else "?"
        extra = " ".join(a for a in f.get("cmdline", "").split() if a.split("=")[0] not in ("console", "panic", "quiet", "rdinit"))
        print(f"| {os.path.basename(d)} | {kernel} | `{extra or '-'}` | `{f.get('sched/preempt', '?')}` | "
              f"{f.get('rseq/slice_ext_nsec', '?')} | {f.get('rseq/debug', '?')} | {f.get('nproc', '?')} |")
    tp = os.path.join(labdir, "timings.txt")
    if os.path.exists(tp):
        print("\nWall time of each step (`timings.txt`):\n")
        with open(tp) as f:
            for line in f:
                print(f"    {line.rstrip()}")
    print()


def section_verdicts(labdir):
    print("## Selftest and debug-mode check\n")
    sp = os.path.join(labdir, "selftest.md")
    if os.path.exists(sp):
        with open(sp) as f:
            txt = f.read()
        for run, res in re.findall(r"## (Run \d+[^\n]*)\n.*?- result: \*\*(\w+)\*\*", txt, re.S):
            print(f"- selftest {run}: **{res}**")
    else:
        print("- selftest: not run")
    cp = os.path.join(labdir, "check", "check.txt")
    if os.path.exists(cp):
        with open(cp, errors="replace") as f:
            lines = f.read().splitlines()
        for line in lines:
            if line.startswith("CHECK ") or line.startswith("rseq/debug during") or line.startswith("kernel sgrant") \
                    or line.startswith("server log lines") or line.startswith("dmesg segfault"):
                print(f"- check: {line}")
    else:
        print("- check: not run")
    print()


def section_perf(rows):
    perf = [r for r in rows if r["phase"] == "perf"]
    groups = OrderedDict()
    for r in perf:
        groups.setdefault((r["tag"], r["workload"], r["clients"], r["secs"]), []).append(r)
    if not groups:
        return
    print("## pgbench: stock vs patched\n")
    print("Each round runs every arm once (rotated order up to commit 1de9c76, a Williams design since); ratios pair the runs of the same round. "
          "`CV` = stddev / mean of the per-run tps over rounds; `within` = mean over runs of the stddev of pgbench's 5 s progress tps. "
          "Deschedules (`descheduled_while_holding`) exist only where the rseq_cs marker is armed (measure, auto).\n")
    for (tag, wl, clients, secs), rs in groups.items():
        arms = list(OrderedDict.fromkeys(r["arm"] for r in rs))
        byround = {}
        for r in rs:
            byround.setdefault(r["round"], {})[r["arm"]] = num(r["tps"])
        print(f"### boot `{tag}`: {wl}, {clients} clients, {secs} s per run, {len(byround)} rounds\n")
        print("| arm | runs | tps mean | tps stddev | CV | within | latency ms | ratio to stock [95% CI] | ratio to off [95% CI] | desched / 1000 xacts | grants in place / 1000 xacts |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |")
        for a in arms:
            ar = [r for r in rs if r["arm"] == a]
            tps = [num(r["tps"]) for r in ar]
            m = st.mean(tps)
            sd = st.stdev(tps) if len(tps) > 1 else NAN
            within = st.mean([num(r["tps_sd_5s"]) for r in ar])
            lat = st.mean([num(r["lat_ms"]) for r in ar])
            x = sum(num(r["xacts"]) for r in ar)
            ds = sum(num(r["pg_desched"]) for r in ar)
            gr = sum(num(r["pg_grants_in_place"]) for r in ar)
            vs = {}
            for base in ("stock", "off"):
                if base == a or base not in arms:
                    vs[base] = "-"
                else:
                    vs[base] = ratio_cell(paired([d[a] / d[base] for d in byround.values() if a in d and base in d]))
            print(f"| {a} | {len(ar)} | {fmt(m)} | {fmt(sd)} | {fmt(100 * sd / m, 1)} % | {fmt(within)} | {fmt(lat, 2)} | {vs['stock']} | {vs['off']} | "
                  f"{fmt(1000 * ds / x if x else NAN, 1)} | {fmt(1000 * gr / x if x else NAN, 2)} |")
        print()
        # the extension's purpose: fewer lock holders descheduled. Only
        # measure and auto arm the marker; pair their rates per round.
        rate = {}
        for r in rs:
            x = num(r["xacts"])
            if r["arm"] in ("measure", "auto") and x > 0:
                rate.setdefault(r["round"], {})[r["arm"]] = 1000 * num(r["pg_desched"]) / x
        pairs = [d["auto"] / d["measure"] for d in rate.values() if "auto" in d and "measure" in d and d["measure"] > 0]
        if pairs:
            print(f"Deschedules while holding per 1000 transactions, auto / measure paired by round: "
                  f"**{ratio_cell(paired(pairs))}** (per round: {', '.join(f'{x:.2f}' for x in pairs)}).\n")
        print("Per round (tps):\n")
        print("| round | " + " | ".join(arms) + " |")
        print("| ---: | " + " | ".join("---:" for _ in arms) + " |")
        for rnd, d in byround.items():
            print(f"| {rnd} | " + " | ".join(fmt(d.get(a, NAN), 1) for a in arms) + " |")
        print()


def section_sweep(rows):
    sw = [r for r in rows if r["phase"] == "sweep"]
    tags = list(OrderedDict.fromkeys((r["tag"], r["workload"]) for r in sw))
    if not tags:
        return
    print("## slice_ext_nsec sweep (patched server, auto vs off)\n")
    print("Each round runs off once and auto once per slice length; the ratio pairs auto with off of the same round. "
          "`yield in grant` = kernel s_yielded / s_granted: sections that ended inside the granted slice.\n")
    for tag, wl in tags:
        rs = [r for r in sw if r["tag"] == tag and r["workload"] == wl]
        off = {r["round"]: num(r["tps"]) for r in rs if r["arm"] == "off"}
        print(f"### boot `{tag}`: {wl}\n")
        print("| arm | slice_ext_nsec | runs | tps mean | tps stddev | ratio to off [95% CI] | pg grants in place / kernel s_granted | s_yielded | s_expired | yield in grant | desched / 1000 xacts |")
        print("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        keys = OrderedDict()
        for r in rs:
            keys.setdefault((r["arm"], r["slice_ext_nsec"] if r["arm"] != "off" else "-"), []).append(r)
        for (arm, nsec), ar in sorted(keys.items(), key=lambda kv: (kv[0][0] != "off", num(kv[0][1]) if kv[0][1] != "-" else 0)):
            tps = [num(r["tps"]) for r in ar]
            s = lambda c: sum(num(r[c]) for r in ar)
            x = s("xacts")
            rat = "-" if arm == "off" else ratio_cell(paired([num(r["tps"]) / off[r["round"]] for r in ar if r["round"] in off]))
            yig = f"{100 * s('k_syield') / s('k_sgrant'):.1f} %" if s("k_sgrant") else "n/a"
            print(f"| {arm} | {nsec} | {len(ar)} | {fmt(st.mean(tps))} | {fmt(st.stdev(tps) if len(tps) > 1 else NAN)} | {rat} | "
                  f"{fmt(s('pg_grants_in_place'))} / {fmt(s('k_sgrant'))} | {fmt(s('k_syield'))} | {fmt(s('k_sexpir'))} | {yig} | {fmt(1000 * s('pg_desched') / x if x else NAN, 1)} |")
        print()


def section_counters(rows):
    print("## pg_rseq counters next to the kernel's rseq/stats\n")
    print("Sums over the runs of each group; both sides are differences over the same interval (snapshots right before and after each pgbench run). "
          "Checked run by run, exactly: `in place <= sgrant <= in place + cleared` (pg_rseq `grants_in_place` <= the kernel's `s_granted` <= "
          "`grants_in_place + requests_cleared`: a section that left with `granted` set was granted, and every grant ends in place or with its "
          "request cleared, which user space cannot tell from a request cleared at a context switch or refused); "
          "`yig = syield` pg_rseq `yields_in_grant` = the kernel's `s_yielded`; "
          "`kernel 0` that runs without slice requests (stock, off, measure) moved no kernel slice counter.\n")
    print("| boot | phase | arm | nsec | runs | pg requests | pg grants_in_place | kernel sgrant | pg requests_cleared | kernel srevok | kernel sexpir | pg yields_in_grant | kernel syield | kernel sabort | checks |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["tag"], r["phase"], r["arm"], r["slice_ext_nsec"]), []).append(r)
    bad = 0
    for (tag, phase, arm, nsec), rs in groups.items():
        s = lambda c: sum(num(r[c]) for r in rs)
        checks = []
        if arm in ("stock", "off", "measure"):
            z = all(num(r[c]) == 0 for r in rs for c in ("k_sgrant", "k_srevok", "k_syield", "k_sabort"))
            checks.append("kernel 0 ok" if z else "**kernel not 0**")
            bad += not z
        if arm != "stock":
            rel = [kernel_relations(r) for r in rs]
            bounds = sum(lo is True and up is True for lo, up, _ in rel)
            eq = sum(y is True for _, _, y in rel)
            checks.append(f"in place <= sgrant <= in place + cleared {bounds}/{len(rs)}")
            checks.append(f"yig = syield {eq}/{len(rs)}")
            bad += bounds != len(rs) or eq != len(rs)
        print(f"| {tag} | {phase} | {arm} | {nsec} | {len(rs)} | {fmt(s('pg_requests'))} | {fmt(s('pg_grants_in_place'))} | {fmt(s('k_sgrant'))} | "
              f"{fmt(s('pg_requests_cleared'))} | {fmt(s('k_srevok'))} | {fmt(s('k_sexpir'))} | "
              f"{fmt(s('pg_yields_in_grant'))} | {fmt(s('k_syield'))} | {fmt(s('k_sabort'))} | {', '.join(checks)} |")
    print(f"\nGroups failing a check: {bad}.\n")


def section_micro(labdir):
    rows, kst = [], []
    for d in glob.glob(os.path.join(labdir, "*")):
        if os.path.exists(os.path.join(d, "micro.csv")):
            rows += read_csv(os.path.join(d, "micro.csv"))
        if os.path.exists(os.path.join(d, "micro-stats.csv")):
            kst += read_csv(os.path.join(d, "micro-stats.csv"))
    if not rows:
        return
    print("## extend-sched: slice extension off vs upstream\n")
    print("`build/micro/extend-sched -l all` (1 + nCPU threads on a user-space lock, see bench/micro); "
          "`glibc` = glibc's rseq registration kept (the probe re-registers V2), `rseq0` = GLIBC_TUNABLES=glibc.pthread.rseq=0. "
          "Ratio = upstream / off entries/s of the same round.\n")
    # tag is BOOT-REG-rN
    groups = OrderedDict()
    for r in rows:
        m = re.match(r"(.*)-(glibc|rseq0)-r(\d+)$", r["tag"])
        if not m:
            continue
        groups.setdefault((m.group(1), m.group(2), r["lock"]), {}).setdefault(m.group(3), {})[r["mode_requested"]] = r
    print("| boot | registration | lock | rounds | off entries/s | upstream entries/s | ratio [95% CI] | off wait ns/entry | upstream wait ns/entry | grants | revoked | yields in grant | descheduled |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (tag, reg, lock), rnds in groups.items():
        off = [d["off"] for d in rnds.values() if "off" in d]
        up = [d["upstream"] for d in rnds.values() if "upstream" in d]
        modes = {r["mode"] for r in up}
        rat = paired([num(d["upstream"]["entries_per_s"]) / num(d["off"]["entries_per_s"]) for d in rnds.values() if "off" in d and "upstream" in d])
        mean = lambda xs, c: st.mean(num(x[c]) for x in xs) if xs else NAN
        tot = lambda xs, c: sum(num(x[c]) for x in xs)
        label = "" if modes <= {"upstream"} else f" (ran as {'/'.join(sorted(modes))})"
        print(f"| {tag} | {reg} | {lock}{label} | {len(rnds)} | {fmt(mean(off, 'entries_per_s'))} | {fmt(mean(up, 'entries_per_s'))} | {ratio_cell(rat)} | "
              f"{fmt(mean(off, 'wait_ns_per_entry'))} | {fmt(mean(up, 'wait_ns_per_entry'))} | {fmt(tot(up, 'grants'))} | {fmt(tot(up, 'revoked'))} | "
              f"{fmt(tot(up, 'yields_in_grant'))} | {fmt(tot(up, 'descheduled'))} |")
    if kst:
        print("\nKernel rseq/stats difference around each extend-sched call (3 lock kinds), summed over rounds, next to extend-sched's own grant count:\n")
        print("| boot | registration | mode | calls | kernel sgrant | extend-sched grants | kernel srevok | extend-sched revoked | kernel syield | extend-sched yields in grant | kernel sabort |")
        print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        kg = OrderedDict()
        for r in kst:
            kg.setdefault((r["tag"], r["registration"], r["mode"]), []).append(r)
        for (tag, reg, mode), ks in kg.items():
            es = [r for r in rows if re.match(re.escape(f"{tag}-{reg}-r") + r"\d+$", r["tag"]) and r["mode_requested"] == mode]
            s = lambda xs, c: sum(num(x[c]) for x in xs)
            print(f"| {tag} | {reg} | {mode} | {len(ks)} | {fmt(s(ks, 'sgrant'))} | {fmt(s(es, 'grants'))} | {fmt(s(ks, 'srevok'))} | {fmt(s(es, 'revoked'))} | "
                  f"{fmt(s(ks, 'syield'))} | {fmt(s(es, 'yields_in_grant'))} | {fmt(s(ks, 'sabort'))} |")
    print()


def main(labdir):
    boots = boot_dirs(labdir)
    rows = []
    for d in boots:
        p = os.path.join(d, "runs.csv")
        if os.path.exists(p):
            rows += [observed(r) for r in read_csv(p)]
    print(f"# Kernel lab summary: `{os.path.basename(os.path.abspath(labdir))}`\n")
    print("Generated by `bench/kernel-lab/analyse summarise lab` from the raw files next to this one. "
          "The guest runs under qemu TCG (emulated CPUs; the clock model of each boot is in the qemu settings below): absolute tps are not comparable with real hardware; read the ratios.\n")
    section_setup(labdir, boots)
    section_qemu(labdir)
    section_steps(labdir)
    section_verdicts(labdir)
    if not rows:
        print("No pgbench runs (runs.csv) found."
              + (" The committed folder keeps its boot folders packed: `tar -xJf raw.tar.xz` in it restores them."
                 if os.path.exists(os.path.join(labdir, "raw.tar.xz")) else ""))
        return 1 if not os.path.exists(os.path.join(labdir, "selftest.md")) else 0
    section_perf(rows)
    section_sweep(rows)
    section_counters([r for r in rows if r["phase"] != "check"])
    section_micro(labdir)
    return 0
