"""analyse summarise clock LABDIR: summary of a clock-lab run (bench/kernel-lab/clock-lab).

Input: LABDIR with one folder per guest step (MODEL-bN, MODEL-hog; MODEL =
icount1, icount2, rr2, tcg1, tcg2), each holding qemu-settings.txt (run-in-guest),
host-load.csv, facts.txt, gaps.csv (probes/vcpu_gaps -c), micro.csv
(extend-sched --csv), micro-stats.csv (kernel rseq/stats difference per
extend-sched call); LABDIR/steps.csv (steplib.sh).

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
  LABDIR/summary.json: the same figures, machine-readable:
    {"models": {MODEL: {"clock", "vcpus", "icount_shift", "boots": [STEP...],
      "probe": {METRIC: {"per_boot": {STEP: mean}, "within_cv", "across_cv"}},
      "micro": {LOCK: {MODE: {METRIC: {...same...}}}},
      "host_load_check": {"hog_step", "host_load1_hog", "host_load1_others",
                          METRIC: hog / others}}}}
Exit status: 0; 1 no step folder or unreadable input; 2 usage.
"""
import glob
import json
import os
import re
import sys
from collections import OrderedDict

from .files import kv_file, read_csv
from .stats import NAN, clean, cv, fmt, mean, num, pct

nan_none = clean
STEP_RE = re.compile(r"^(icount|rr|tcg)([12])-(b\d+|hog)$")


PROBE_METRICS = [("mean_running", "mean running vCPUs", 3), ("all_run_frac", "all vCPUs progressing", 3),
                 ("gaps_per_s", "gaps/s per vCPU", 0), ("gap_p50_ns", "gap p50 ns", 0),
                 ("gap_p99_ns", "gap p99 ns", 0), ("gap_max_ns", "gap max ns", 0), ("ns_per_iter", "ns per read", 1)]
MICRO_METRICS = [("entries_per_s", "entries/s", 0), ("wait_ns_per_entry", "wait ns/entry", 0),
                 ("descheduled", "holders descheduled", 0), ("grants", "grants", 0),
                 ("yield_frac", "yields in grant / grants", 3), ("k_sgrant", "kernel s_granted", 0),
                 ("k_expire_frac", "s_expired / s_granted", 3), ("k_yield_frac", "s_yielded / s_granted", 3)]


def main(labdir):
    steps = OrderedDict()
    for d in sorted(glob.glob(os.path.join(labdir, "*"))):
        name = os.path.basename(d)
        m = STEP_RE.match(name)
        if m and os.path.exists(os.path.join(d, "qemu-settings.txt")):
            steps[name] = {"dir": d, "model": m.group(1) + m.group(2), "kind": m.group(3)}
    if not steps:
        print(f"analyse summarise clock: no step folders (MODEL-bN, MODEL-hog with qemu-settings.txt) in {labdir}", file=sys.stderr)
        return 1
    # order: model, then b1, b2, ..., hog
    order = {"icount1": 0, "icount2": 1, "rr2": 2, "tcg1": 3, "tcg2": 4}
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

    print(f"# Clock lab summary: `{os.path.basename(os.path.abspath(labdir))}`\n")
    print("Generated by `bench/kernel-lab/analyse summarise clock` from the step folders next to this file. "
          "Guest figures (entries/s, ns, gaps) are in **guest** time; host load is the host's 1-minute load average "
          "sampled every 5 s during the boot (2 host CPUs).\n")

    print("## Boots\n")
    print("| step | clock | icount shift | rr quantum | vCPUs | kernel | host load mean (max) | host s | guest s | host s / guest s | clocksource |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | --- |")
    for name, s in steps.items():
        q, f = s["set"], s["facts"]
        hs, gs = num(q.get("elapsed_s")), num(f.get("guest_uptime_end_s"))
        cs = f.get("clocksource", "?").split(" (")[0]
        print(f"| {name} | {q.get('clock', '?')} | {q.get('icount_shift', '?')} | {q.get('rr_quantum', '0' if q.get('clock') == 'icount' else 'NA')} | {q.get('smp', '?')} | {q.get('kernel_version', '?').split(' ')[0]} | "
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
