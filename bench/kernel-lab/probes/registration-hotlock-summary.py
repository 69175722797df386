#!/usr/bin/env python3
"""registration-hotlock-summary.py RUNS.CSV: the Markdown summary of
registration-hotlock (issue 42 item 2, step 2), on stdout.

Per arm: tps median [min, max]; the paired ratio arm / L within each round
(median [min, max], geometric mean, and the sign count: rounds where the arm
beat L); per transaction: the backends' CPU time, run-queue wait, timeslices,
voluntary and involuntary switches (the window's sums over the window's
transactions, estimated as tps x window), the guest's context switches and
rseq updates (ids, fastp) over the whole run; the hogs' share of CPU.
Only the standard library.
"""
import csv
import math
import statistics
import sys

ORDER = ["L", "Lp", "V", "VE", "N"]
NAMES = {"L": "L (glibc legacy)", "Lp": "L' (preload legacy)", "V": "V (V2, ext. off)",
         "VE": "VE (V2, ext. on)", "N": "N (no rseq)"}


def f(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def mr(xs):
    xs = [x for x in xs if x is not None]
    return (statistics.median(xs), min(xs), max(xs)) if xs else (None, None, None)


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    arms = [a for a in ORDER if any(r["arm"] == a for r in rows)]
    rounds = sorted({int(r["round"]) for r in rows})
    by = {(r["arm"], int(r["round"])): r for r in rows}
    print("# registration-hotlock summary\n")
    print(f"{len(rounds)} rounds, arms {', '.join(arms)}; paired = arm / L in the same round.\n")
    print("| arm | n | tps median | [min, max] | ratio of medians to L | paired arm/L median [min, max] | geo. mean paired | rounds arm > L |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    med = {}
    for a in arms:
        med[a] = mr([f(r["tps"]) for r in rows if r["arm"] == a])
    for a in arms:
        m, lo, hi = med[a]
        pairs = []
        for rd in rounds:
            x, y = by.get((a, rd)), by.get(("L", rd))
            if x and y and f(x["tps"]) and f(y["tps"]):
                pairs.append(f(x["tps"]) / f(y["tps"]))
        pm, plo, phi = mr(pairs)
        gm = math.exp(statistics.mean(math.log(p) for p in pairs)) if pairs else None
        wins = sum(1 for p in pairs if p > 1)
        ml = med.get("L", (None,))[0]
        print(f"| {NAMES[a]} | {sum(1 for r in rows if r['arm'] == a)} | {m:.1f} | [{lo:.1f}, {hi:.1f}] | "
              f"{(m / ml) if ml else float('nan'):.4f} | "
              + (f"{pm:.4f} [{plo:.4f}, {phi:.4f}] | {gm:.4f} | {wins}/{len(pairs)} |" if pairs else "n/a | n/a | n/a |"))
    print()
    print("Per transaction (medians over rounds; window sums / (tps x window s) for the backends' "
          "schedstat and switches; whole-run rseq/stats and ctxt / xacts):\n")
    print("| arm | backend CPU us | run-queue wait us | timeslices | vol. sw. | invol. sw. | utime+stime ticks x1000 | "
          "guest ctxt | rseq ids | rseq fastp | rseq cs | hog CPU share of window |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for a in arms:
        ra = [r for r in rows if r["arm"] == a]

        def per_x(r, k, scale=1.0):
            t, w, v = f(r["tps"]), f(r["win_s"]), f(r.get(k))
            return v / (t * w) * scale if t and w and v is not None else None

        def per_run(r, k):
            x, v = f(r["xacts"]), f(r.get(k))
            return v / x if x and v is not None else None

        def share(r):
            hr, br, w = f(r["hog_run_ns"]), f(r["be_run_ns"]), f(r["win_s"])
            return hr / (hr + br) if hr is not None and br and (hr + br) else None
        cells = [mr([per_x(r, "be_run_ns", 1e-3) for r in ra])[0], mr([per_x(r, "be_wait_ns", 1e-3) for r in ra])[0],
                 mr([per_x(r, "be_slices") for r in ra])[0], mr([per_x(r, "be_vcsw") for r in ra])[0],
                 mr([per_x(r, "be_ivcsw") for r in ra])[0],
                 mr([(f(r["be_utime"]) + f(r["be_stime"])) / (f(r["tps"]) * f(r["win_s"])) * 1000
                     if f(r["tps"]) and f(r["win_s"]) else None for r in ra])[0],
                 mr([per_run(r, "k_ctxt") for r in ra])[0], mr([per_run(r, "k_ids") for r in ra])[0],
                 mr([per_run(r, "k_fastp") for r in ra])[0], mr([per_run(r, "k_cs") for r in ra])[0],
                 mr([share(r) for r in ra])[0]]
        print(f"| {NAMES[a]} | " + " | ".join("n/a" if c is None else f"{c:.3f}" for c in cells) + " |")
    print()


if __name__ == "__main__":
    main()
