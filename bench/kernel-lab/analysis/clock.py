"""analyse summarise clock LABDIR: summary of a clock-lab run (bench/kernel-lab/clock-lab).

Input: LABDIR with one folder per guest step (MODEL-bN, MODEL-hog; MODEL =
icountV, rrV, parV (V 1..8), tcg1, tcg2), each holding qemu-settings.txt
(run-in-guest), host-load.csv, facts.txt, gaps.csv (probes/vcpu_gaps -c),
micro.csv (extend-sched --csv), micro-stats.csv (kernel rseq/stats
difference per extend-sched call), and when par_loop ran: par.csv
(probes/par_loop -o) and hostmark-tT-start.txt / -end.txt (file mtime: host
time [s]); LABDIR/steps.csv (steplib.sh), LABDIR/lab-settings.txt
(par_secs, stale_secs, par_reps: par_loop's running guest seconds).

Output:
  stdout (Markdown, the lab writes it to LABDIR/summary.md):
    - every boot: clock, icount shift, vCPUs, kernel, host load (mean and max
      of the 1-min load average over the boot), host seconds, guest seconds,
      host seconds per guest second, guest clocksource
    - vcpu_gaps per boot: mean_running (vCPUs progressing on average),
      all_run_frac (both/all vCPUs progressing at once), gaps per second per
      vCPU, gap length p50 / p99 / max [us], ns per clock read
    - extend-sched per boot, lock and mode: entries/s [guest time], wait
      [ns/entry], holders descheduled, grants, yields in grant, kernel
      s_granted / s_expired / s_revoked / s_yielded
    - spread per model: coefficient of variation (stddev / mean) of each
      figure over the repetitions within a boot (mean over boots) and over
      the boot means (across boots); -hog boots are left out of it
    - host load check per model: the -hog boot / the mean of the other boots
    - par_loop per boot (parallel guest time): loop instructions per guest ns of
      the 1-thread run and of every thread of the nCPU-thread run (mean,
      min, max over threads and repetitions), the aggregate of the nCPU run,
      scaling = aggregate / the 1-thread rate of the same boot, and scaling
      / nCPU; how stale the next vCPU's progress looks (p50, p99, max [ns]);
      host s per guest s while 1 and nCPU threads run (hostmark files);
      per model the spread within and across boots, and the targets of
      parallel guest time (every thread's rate in [0.98, 1.02], scaling >= 0.95 nCPU,
      stale p99 <= 2 quanta)
  LABDIR/summary.json: the same figures, machine-readable:
    {"models": {MODEL: {"clock", "vcpus", "icount_shift", "boots": [STEP...],
      "probe": {METRIC: {"per_boot": {STEP: mean}, "within_cv", "across_cv"}},
      "micro": {LOCK: {MODE: {METRIC: {...same...}}}},
      "host_load_check": {"hog_step", "host_load1_hog", "host_load1_others",
                          METRIC: hog / others},
      "par": {"per_boot": {STEP: {"rate_1", "rate_n_mean", "rate_n_min",
                 "rate_n_max", "aggregate_n", "scaling", "scaling_per_vcpu",
                 "stale_p50_ns", "stale_p99_ns", "stale_max_ns",
                 "host_s_per_guest_s_1", "host_s_per_guest_s_n"}},
              METRIC: {"within_cv", "across_cv"} for rate_n_mean, aggregate_n,
              "targets": {"rate_in_0.98_1.02", "scaling_ge_0.95n",
                          "stale_p99_le_2q", "quantum"}}}}}
Exit status: 0; 1 no step folder or unreadable input; 2 usage.
"""
import glob
import json
import math
import os
import re
import sys
from collections import OrderedDict

from .files import kv_file, read_csv
from .stats import NAN, clean, cv, fmt, mean, num, pct

nan_none = clean
STEP_RE = re.compile(r"^(icount|rr|par|tcg)([1-8])-(b\d+|hog)$")


PROBE_METRICS = [("mean_running", "mean running vCPUs", 3), ("all_run_frac", "all vCPUs progressing", 3),
                 ("gaps_per_s", "gaps/s per vCPU", 0), ("gap_p50_ns", "gap p50 ns", 0),
                 ("gap_p99_ns", "gap p99 ns", 0), ("gap_max_ns", "gap max ns", 0), ("ns_per_iter", "ns per read", 1)]
MICRO_METRICS = [("entries_per_s", "entries/s", 0), ("wait_ns_per_entry", "wait ns/entry", 0),
                 ("descheduled", "holders descheduled", 0), ("grants", "grants", 0),
                 ("yield_frac", "yields in grant / grants", 3), ("k_sgrant", "kernel s_granted", 0),
                 ("k_expire_frac", "s_expired / s_granted", 3), ("k_yield_frac", "s_yielded / s_granted", 3)]


def par_boot(s):
    """par_loop figures of one boot (a dict; NaN where missing)"""
    rows = s["par"]
    th = lambda r: r["thread"] != "all"
    one = [num(r["insn_per_ns"]) for r in rows if r["threads"] == "1" and th(r)]
    nmax = max([int(r["threads"]) for r in rows], default=0)
    many = [r for r in rows if int(r["threads"]) == nmax and nmax > 1]
    rn = [num(r["insn_per_ns"]) for r in many if th(r)] or one
    agg = [num(r["insn_per_ns"]) for r in many if not th(r)] or one
    allr = [r for r in many if not th(r)]
    rate_1, aggregate = mean(one), mean(agg)
    scaling = aggregate / rate_1 if rate_1 else NAN
    return OrderedDict(
        threads=nmax or 1, reps=len(agg), rate_1=rate_1, rate_n_mean=mean(rn),
        rate_n_min=min(rn) if rn else NAN, rate_n_max=max(rn) if rn else NAN,
        aggregate_n=aggregate, scaling=scaling, scaling_per_vcpu=scaling / (nmax or 1),
        stale_p50_ns=mean([num(r["stale_p50_ns"]) for r in allr]),
        stale_p99_ns=max([num(r["stale_p99_ns"]) for r in allr], default=NAN),
        stale_max_ns=max([num(r["stale_max_ns"]) for r in allr], default=NAN),
        host_s_per_guest_s_1=s["hostmark"].get("1", NAN),
        host_s_per_guest_s_n=s["hostmark"].get(str(nmax), NAN) if nmax > 1 else s["hostmark"].get("1", NAN),
        agg_per_rep=agg, rate_n_per_rep=[mean([num(r["insn_per_ns"]) for r in many if th(r) and r["rep"] == rep])
                                        for rep in sorted({r["rep"] for r in many})] or one)


def par_section(steps, models, out):
    """the par_loop tables (parallel guest time); adds "par" to out["models"]"""
    if not any(s["par"] for s in steps.values()):
        return
    rs = [(n, s["rounds"]) for n, s in steps.items() if s.get("rounds")]
    if rs:
        print("## Rounds of parallel guest time (qemu's own count, `.guest/qemu-stderr`)\n")
        print("The whole boot: rounds closed, the share cut short by a timer deadline, the share in which every vCPU "
              "idled before the round's end, and the mean round [guest instructions].\n")
        print("| step | quantum | rounds | cut by a deadline | all idle before the end | mean round |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for n, r in rs:
            k = r["rounds"] or 1
            print(f"| {n} | {r['quantum']} | {fmt(r['rounds'])} | {pct(r['shortened'] / k)} | {pct(r['idle'] / k)} | {fmt(r['instructions'] / k, 1)} |")
            out["models"][steps[n]["model"]].setdefault("rounds", {})[n] = r
        print()
    print("## par_loop: instructions per guest ns of each busy vCPU, and parallel scaling\n")
    print("`probes/par_loop`: one thread, then one pinned thread per vCPU, each running an exactly counted loop (2 instructions "
          "per iteration) for the rate phase; rate = loop instructions / guest ns of the thread's own window (the guest kernel's "
          "own work on that vCPU, e.g. the 1 kHz tick, is not counted, so a vCPU at exactly 1 instruction per ns shows a little "
          "less). scaling = aggregate of the nCPU-thread run / the 1-thread rate of the same boot. stale = own clock minus the "
          "next vCPU's last published clock reading (how long ago it was last seen to progress). host s / guest s: host time "
          "between the hostmark files (their mtimes) per guest second of par_loop's running phases "
          "(reps x (rate + stale phase), from `lab-settings.txt`): 1 busy vCPU, then nCPU busy; it follows the host's load.\n")
    print("| step | vCPUs | reps | 1 thread insn/ns | per-thread insn/ns at nCPU: mean [min..max] | aggregate insn/ns | scaling | scaling / nCPU | stale p50 / p99 / max ns | host s / guest s, 1 busy | nCPU busy |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |")
    for name, s in steps.items():
        if not s["par"]:
            continue
        b = s["parb"] = par_boot(s)
        print(f"| {name} | {b['threads']} | {b['reps']} | {fmt(b['rate_1'], 4)} | {fmt(b['rate_n_mean'], 4)} [{fmt(b['rate_n_min'], 4)}..{fmt(b['rate_n_max'], 4)}] | "
              f"{fmt(b['aggregate_n'], 3)} | {fmt(b['scaling'], 3)} | {fmt(b['scaling_per_vcpu'], 4)} | "
              f"{fmt(b['stale_p50_ns'])} / {fmt(b['stale_p99_ns'])} / {fmt(b['stale_max_ns'])} | {fmt(b['host_s_per_guest_s_1'], 2)} | {fmt(b['host_s_per_guest_s_n'], 2)} |")
    print()
    print("Per model: spread (CV within a boot = over its repetitions, mean over boots; across = over the boot means, "
          "`-hog` boots left out) and the targets of the parallel model: every thread's rate of every repetition in [0.98, 1.02] "
          "(the per-thread min and max over all boots), scaling / nCPU >= 0.95 in every boot, stale p99 <= 2 quanta "
          "(par models; quantum from qemu-settings.txt).\n")
    print("| model | boots | per-thread insn/ns min..max | within CV | across CV | scaling / nCPU per boot | aggregate within CV | across CV | stale p99 max ns | rate in [0.98, 1.02] | scaling >= 0.95 N | stale p99 <= 2 quanta |")
    print("| --- | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- | --- |")
    yn = lambda v: "n/a" if v is None else ("yes" if v else "**no**")
    for model, names in models.items():
        bn = [n for n in names if steps[n]["kind"] != "hog" and steps[n]["par"]]
        if not bn:
            continue
        bs = [steps[n]["parb"] for n in bn]
        q = num(steps[bn[0]]["set"].get("par_quantum"))
        shift = num(steps[bn[0]]["set"].get("icount_shift"))
        lo, hi = min(b["rate_n_min"] for b in bs), max(b["rate_n_max"] for b in bs)
        stale99 = max(b["stale_p99_ns"] for b in bs)
        w_rate = mean([cv(b["rate_n_per_rep"]) for b in bs])
        a_rate = cv([b["rate_n_mean"] for b in bs])
        w_agg = mean([cv(b["agg_per_rep"]) for b in bs])
        a_agg = cv([b["aggregate_n"] for b in bs])
        quantum_ns = q * 2 ** shift if not math.isnan(q) and not math.isnan(shift) else NAN
        tg = OrderedDict([("quantum", nan_none(q)), ("rate_in_0.98_1.02", bool(lo >= 0.98 and hi <= 1.02)),
                          ("scaling_ge_0.95n", bool(all(b["scaling_per_vcpu"] >= 0.95 for b in bs))),
                          ("stale_p99_le_2q", None if math.isnan(quantum_ns) or math.isnan(stale99) else bool(stale99 <= 2 * quantum_ns))])
        out["models"][model]["par"] = OrderedDict(
            per_boot={n: OrderedDict((k, nan_none(v)) for k, v in steps[n]["parb"].items() if not isinstance(v, list)) for n in bn},
            rate_n_mean={"within_cv": nan_none(w_rate), "across_cv": nan_none(a_rate)},
            aggregate_n={"within_cv": nan_none(w_agg), "across_cv": nan_none(a_agg)}, targets=tg)
        print(f"| {model} | {len(bn)} | {fmt(lo, 4)}..{fmt(hi, 4)} | {pct(w_rate)} | {pct(a_rate)} | {', '.join(fmt(b['scaling_per_vcpu'], 4) for b in bs)} | "
              f"{pct(w_agg)} | {pct(a_agg)} | {fmt(stale99)} | {yn(tg['rate_in_0.98_1.02'])} | {yn(tg['scaling_ge_0.95n'])} | {yn(tg['stale_p99_le_2q'])} |")
    print()


PAR_SET = {}


def main(labdir):
    # par_loop's durations (clock-lab's lab-settings.txt: par_secs=, stale_secs=, par_reps=)
    PAR_SET.update(par_secs=NAN, stale_secs=NAN, par_reps=NAN)
    sp = os.path.join(labdir, "lab-settings.txt")
    if os.path.exists(sp):
        with open(sp) as f:
            for m in re.finditer(r"\b(par_secs|stale_secs|par_reps)=([0-9.]+)", f.read()):
                PAR_SET[m.group(1)] = float(m.group(2))
    steps = OrderedDict()
    for d in sorted(glob.glob(os.path.join(labdir, "*"))):
        name = os.path.basename(d)
        m = STEP_RE.match(name)
        if m and os.path.exists(os.path.join(d, "qemu-settings.txt")):
            steps[name] = {"dir": d, "model": m.group(1) + m.group(2), "kind": m.group(3)}
    if not steps:
        packed = os.path.join(labdir, "raw.tar.xz")
        hint = (f" (the committed folders keep them packed: `tar -xJf raw.tar.xz` in {labdir} restores them)"
                if os.path.exists(packed) else "")
        print(f"analyse summarise clock: no step folders (MODEL-bN, MODEL-hog with qemu-settings.txt) in {labdir}{hint}",
              file=sys.stderr)
        return 1
    # order: model, then b1, b2, ..., hog
    corder = {"icount": 0, "rr": 1, "par": 2, "tcg": 3}
    order = {f"{c}{v}": 10 * i + v for c, i in corder.items() for v in range(1, 9)}
    steps = OrderedDict(sorted(steps.items(), key=lambda kv: (order[kv[1]["model"]], kv[1]["kind"] == "hog",
                                                              int(kv[1]["kind"][1:]) if kv[1]["kind"] != "hog" else 0)))
    for name, s in steps.items():
        d = s["dir"]
        s["set"] = kv_file(os.path.join(d, "qemu-settings.txt"))
        s["facts"] = kv_file(os.path.join(d, "facts.txt"))
        s["gaps"] = [r for r in read_csv(os.path.join(d, "gaps.csv")) if r["thread"] == "all"]
        s["micro"] = read_csv(os.path.join(d, "micro.csv"))
        s["kstats"] = read_csv(os.path.join(d, "micro-stats.csv"))
        loads = [num(r["load1"]) for r in read_csv(os.path.join(d, "host-load.csv"))]
        s["load_mean"], s["load_max"] = mean(loads), (max(loads) if loads else NAN)
        # per-run micro rows joined with the kernel counters of the same call
        ks = {(r["round"], r["lock"], r["mode"]): r for r in s["kstats"]}
        runs = []
        for r in s["micro"]:
            rnd = r["tag"].rsplit("-r", 1)[-1]
            k = ks.get((rnd, r["lock"], r["mode_requested"]), {})
            g = num(r["grants"])
            kg = num(k.get("sgrant"))
            runs.append({"round": rnd, "lock": r["lock"], "mode": r["mode_requested"],
                         "entries_per_s": num(r["entries_per_s"]), "wait_ns_per_entry": num(r["wait_ns_per_entry"]),
                         "descheduled": num(r["descheduled"]), "grants": g,
                         "yield_frac": num(r["yields_in_grant"]) / g if g else NAN,
                         "k_sgrant": kg, "k_sexpir": num(k.get("sexpir")), "k_srevok": num(k.get("srevok")),
                         "k_syield": num(k.get("syield")),
                         "k_expire_frac": num(k.get("sexpir")) / kg if kg else NAN,
                         "k_yield_frac": num(k.get("syield")) / kg if kg else NAN})
        s["runs"] = runs
        s["par"] = read_csv(os.path.join(d, "par.csv"))
        # qemu's round statistics (icount-parallel-time.patch, printed at exit)
        s["rounds"] = None
        qe = os.path.join(d, ".guest", "qemu-stderr")
        if os.path.exists(qe):
            with open(qe, errors="replace") as f:
                for line in f:
                    m = re.search(r"qemu icount parallel: quantum (\d+) instructions, (\d+) rounds \((\d+) shortened by a timer deadline, "
                                  r"(\d+) with every vCPU idle before the end\), (\d+) instructions of guest time by rounds", line)
                    if m:
                        s["rounds"] = dict(zip(("quantum", "rounds", "shortened", "idle", "instructions"), map(int, m.groups())))
        # host s per busy guest s of each par_loop call: host time between
        # the hostmark files' mtimes / the guest seconds the call spends
        # running (reps x (rate + stale phase + the 1-ms start of each), from
        # LABDIR/lab-settings.txt): the guest's uptime between the marks also
        # holds idle warps (loading par_loop over 9p), which cost no host time
        s["hostmark"] = {}
        for t in sorted({r["threads"] for r in s["par"]}):
            a, b = (os.path.join(d, f"hostmark-t{t}-{x}.txt") for x in ("start", "end"))
            if os.path.exists(a) and os.path.exists(b):
                stale = PAR_SET["stale_secs"] if int(t) > 1 and PAR_SET["stale_secs"] > 0 else 0.0
                g = PAR_SET["par_reps"] * (PAR_SET["par_secs"] + 0.001 + (stale + 0.001 if stale else 0.0))
                s["hostmark"][t] = (os.stat(b).st_mtime - os.stat(a).st_mtime) / g if g > 0 else NAN

    print(f"# Clock lab summary: `{os.path.basename(os.path.abspath(labdir))}`\n")
    print("Generated by `bench/kernel-lab/analyse summarise clock` from the step folders next to this file. "
          "Guest figures (entries/s, ns, gaps) are in **guest** time; host load is the host's 1-minute load average "
          "sampled every 5 s during the boot (2 host CPUs).\n")

    print("## Boots\n")
    print("| step | clock | icount shift | rr quantum | par quantum | vCPUs | kernel | host load mean (max) | host s | guest s | host s / guest s | clocksource |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | --- |")
    for name, s in steps.items():
        q, f = s["set"], s["facts"]
        hs, gs = num(q.get("elapsed_s")), num(f.get("guest_uptime_end_s"))
        cs = f.get("clocksource", "?").split(" (")[0]
        print(f"| {name} | {q.get('clock', '?')} | {q.get('icount_shift', '?')} | {q.get('rr_quantum', '0' if q.get('clock') == 'icount' else 'NA')} | {q.get('par_quantum', 'NA')} | {q.get('smp', '?')} | {q.get('kernel_version', '?').split(' ')[0]} | "
              f"{fmt(s['load_mean'], 2)} ({fmt(s['load_max'], 2)}) | {fmt(hs)} | {fmt(gs, 1)} | {fmt(hs / gs if gs else NAN, 2)} | {cs} |")
    first = next(iter(steps.values()))["set"]
    print(f"\nqemu command line of the first boot (`{next(iter(steps))}/qemu-settings.txt`; every boot's is in its own file):\n")
    print(f"    {first.get('qemu_cmdline', '?')}\n")

    print("## vcpu_gaps: how long a vCPU stands still\n")
    print("One thread pinned per vCPU reads CLOCK_MONOTONIC in a loop; a gap is a reading more than the threshold after the previous one. "
          "mean running = sum over vCPUs of (1 - fraction of time in gaps): 2 if both vCPUs run in parallel, 1 if they take turns. "
          "Per boot: mean over the repetitions [min..max].\n")
    print("| step | reps | threshold ns | mean running | all progressing | gaps/s per vCPU | gap p50 us | gap p99 us | gap max us | ns per read |")
    print("| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, s in steps.items():
        g = s["gaps"]
        if not g:
            print(f"| {name} | 0 | | | | | | | | |")
            continue
        col = lambda c: [num(r[c]) for r in g]
        rng = lambda c, nd: f"{fmt(mean(col(c)), nd)} [{fmt(min(col(c)), nd)}..{fmt(max(col(c)), nd)}]"
        print(f"| {name} | {len(g)} | {g[0]['gap_threshold_ns']} | {rng('mean_running', 3)} | {rng('all_run_frac', 3)} | {fmt(mean(col('gaps_per_s')))} | "
              f"{fmt(mean(col('gap_p50_ns')) / 1e3, 1)} | {fmt(mean(col('gap_p99_ns')) / 1e3, 1)} | {fmt(max(col('gap_max_ns')) / 1e3, 1)} | {rng('ns_per_iter', 1)} |")
    print()

    print("## extend-sched with the slice extension\n")
    print("`GLIBC_TUNABLES=glibc.pthread.rseq=0 extend-sched -m MODE -l LOCK -t 1+nCPU -H nCPU -i 100`, one call per (round, lock, mode); "
          "kernel counters = rseq/stats difference around the call. Per boot: mean over rounds (CV within the boot).\n")
    print("| step | lock | mode | rounds | entries/s (CV) | wait ns/entry | holders descheduled | grants | yields in grant / grants | kernel s_granted | s_expired / s_granted | s_yielded / s_granted |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, s in steps.items():
        groups = OrderedDict()
        for r in s["runs"]:
            groups.setdefault((r["lock"], r["mode"]), []).append(r)
        for (lock, mode), rs in groups.items():
            c = lambda k: [r[k] for r in rs]
            print(f"| {name} | {lock} | {mode} | {len(rs)} | {fmt(mean(c('entries_per_s')))} ({pct(cv(c('entries_per_s')))}) | {fmt(mean(c('wait_ns_per_entry')))} | "
                  f"{fmt(mean(c('descheduled')))} | {fmt(mean(c('grants')))} | {fmt(mean(c('yield_frac')), 3)} | {fmt(mean(c('k_sgrant')))} | "
                  f"{fmt(mean(c('k_expire_frac')), 3)} | {fmt(mean(c('k_yield_frac')), 3)} |")
    print()

    # ---- spread and host load check per model
    out = {"labdir": os.path.abspath(labdir), "models": OrderedDict()}
    models = OrderedDict()
    for name, s in steps.items():
        models.setdefault(s["model"], []).append(name)
    print("## Spread per model\n")
    print("CV = stddev / mean. *within* = over the repetitions inside one boot (mean of the per-boot CVs); "
          "*across* = over the per-boot means of the boots `-b1`, `-b2`, ... (the `-hog` boot left out).\n")
    print("| model | boots | figure | within a boot | across boots | per-boot means |")
    print("| --- | ---: | --- | ---: | ---: | --- |")
    for model, names in models.items():
        bnames = [n for n in names if steps[n]["kind"] != "hog"]
        q = steps[names[0]]["set"]
        mj = out["models"][model] = OrderedDict(
            clock=q.get("clock"), vcpus=num(q.get("smp")), icount_shift=q.get("icount_shift"),
            rr_quantum=q.get("rr_quantum", "0" if q.get("clock") == "icount" else "NA"), boots=bnames,
            host_load1_mean={n: nan_none(steps[n]["load_mean"]) for n in names}, probe=OrderedDict(), micro=OrderedDict())
        for key, label, nd in PROBE_METRICS:
            per = {n: [num(r[key]) for r in steps[n]["gaps"]] for n in bnames}
            w = mean([cv(v) for v in per.values()])
            a = cv([mean(v) for v in per.values()])
            mj["probe"][key] = {"per_boot": {n: nan_none(mean(v)) for n, v in per.items()}, "within_cv": nan_none(w), "across_cv": nan_none(a)}
            if key in ("mean_running", "gap_p99_ns", "ns_per_iter"):
                print(f"| {model} | {len(bnames)} | vcpu_gaps {label} | {pct(w)} | {pct(a)} | {', '.join(fmt(mean(v), nd) for v in per.values())} |")
        locks = OrderedDict()
        for n in bnames:
            for r in steps[n]["runs"]:
                locks.setdefault(r["lock"], OrderedDict()).setdefault(r["mode"], None)
        for lock, modes in locks.items():
            mj["micro"][lock] = OrderedDict()
            for mode in modes:
                mm = mj["micro"][lock][mode] = OrderedDict()
                for key, label, nd in MICRO_METRICS:
                    per = {n: [r[key] for r in steps[n]["runs"] if r["lock"] == lock and r["mode"] == mode] for n in bnames}
                    w = mean([cv(v) for v in per.values()])
                    a = cv([mean(v) for v in per.values()])
                    mm[key] = {"per_boot": {n: nan_none(mean(v)) for n, v in per.items()}, "within_cv": nan_none(w), "across_cv": nan_none(a)}
                    if key in ("entries_per_s", "descheduled") or (mode == "upstream" and key in ("k_yield_frac", "k_expire_frac")):
                        print(f"| {model} | {len(bnames)} | {lock} {mode} {label} | {pct(w)} | {pct(a)} | {', '.join(fmt(mean(v), nd) for v in per.values())} |")
            # deschedule reduction, upstream / measure, per boot
            if "measure" in modes and "upstream" in modes:
                red = {n: mean([r["descheduled"] for r in steps[n]["runs"] if r["lock"] == lock and r["mode"] == "upstream"]) /
                       mean([r["descheduled"] for r in steps[n]["runs"] if r["lock"] == lock and r["mode"] == "measure"])
                       for n in bnames}
                mj["micro"][lock]["desched_upstream_over_measure"] = {n: nan_none(v) for n, v in red.items()}
                print(f"| {model} | {len(bnames)} | {lock} descheduled upstream / measure | | {pct(cv(list(red.values())))} | {', '.join(fmt(v, 3) for v in red.values())} |")
    print()

    print("## Host load check\n")
    print("The `-hog` boot ran with extra busy loops on the host (`host-hogs.txt`). Ratio = figure of the `-hog` boot / mean of the other boots of "
          "the model; under icount guest-time figures should not move (ratio 1 within the across-boot spread), under multi-threaded TCG they follow the host.\n")
    print("| model | host load hog boot | host load other boots | host s / guest s, hog / others | mean running | ns per read | " +
          " | ".join(f"{lock} {mode} entries/s" for lock in ("tas", "ticket") for mode in ("measure", "upstream")) + " |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in range(4)) + " |")
    for model, names in models.items():
        hog = [n for n in names if steps[n]["kind"] == "hog"]
        others = [n for n in names if steps[n]["kind"] != "hog"]
        if not hog or not others:
            continue
        h = steps[hog[0]]
        slow = lambda s: num(s["set"].get("elapsed_s")) / num(s["facts"].get("guest_uptime_end_s"))
        pm = lambda s, k: mean([num(r[k]) for r in s["gaps"]])
        mm = lambda s, lock, mode: mean([r["entries_per_s"] for r in s["runs"] if r["lock"] == lock and r["mode"] == mode])
        ratio = lambda f: f(h) / mean([f(steps[n]) for n in others])
        chk = OrderedDict(hog_step=hog[0], host_load1_hog=nan_none(h["load_mean"]),
                          host_load1_others=nan_none(mean([steps[n]["load_mean"] for n in others])),
                          slowdown=nan_none(ratio(slow)), mean_running=nan_none(ratio(lambda s: pm(s, "mean_running"))),
                          ns_per_iter=nan_none(ratio(lambda s: pm(s, "ns_per_iter"))))
        cells = []
        for lock in ("tas", "ticket"):
            for mode in ("measure", "upstream"):
                v = ratio(lambda s: mm(s, lock, mode))
                chk[f"{lock}_{mode}_entries_per_s"] = nan_none(v)
                cells.append(fmt(v, 3))
        out["models"][model]["host_load_check"] = chk
        print(f"| {model} | {fmt(h['load_mean'], 2)} | {fmt(chk['host_load1_others'] or NAN, 2)} | {fmt(chk['slowdown'] or NAN, 2)} | "
              f"{fmt(chk['mean_running'] or NAN, 3)} | {fmt(chk['ns_per_iter'] or NAN, 3)} | " + " | ".join(cells) + " |")
    print()

    par_section(steps, models, out)

    sp = os.path.join(labdir, "steps.csv")
    if os.path.exists(sp):
        print("## Steps (`steps.csv`)\n")
        print("| step | status | start (UTC) | end (UTC) | wall s | exit | host load start | end |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
        for r in read_csv(sp):
            print(f"| {r['step']} | {r['status']} | {r['start_utc']} | {r['end_utc']} | {r['secs']} | {r['exit']} | {r['host_load_start']} | {r['host_load_end']} |")
        print()
    with open(os.path.join(labdir, "summary.json"), "w") as f:
        json.dump(clean(out), f, indent=1)
        f.write("\n")
    return 0
