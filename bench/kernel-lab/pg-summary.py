#!/usr/bin/env python3
"""pg-summary.py RUNS.CSV [RUNS.CSV...]: Markdown tables from pg-in-guest's runs.csv.

Input: runs.csv files written by bench/kernel-lab/pg-in-guest (one line per
pgbench run; pg_* = pg_stat_rseq_totals difference, k_* = debugfs rseq/stats
difference across the run).  Output (stdout): per (tag, phase, mode,
slice_ext_nsec) tps mean/stddev [transactions/s], ratio to the tag's 'off'
mean, deschedules per 1000 transactions, and the pg_rseq vs kernel counters
summed over the runs [counts], with the differences.  Exit 1 on unreadable
input.
"""
import csv
import statistics as st
import sys
from collections import OrderedDict


def num(x):
    try:
        return float(x)
    except ValueError:
        return float("nan")


def main(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows += list(csv.DictReader(f))
    groups = OrderedDict()
    for r in rows:
        key = (r["tag"], r["phase"], r["mode"], r["slice_ext_nsec"])
        groups.setdefault(key, []).append(r)
    off_mean = {}
    for (tag, phase, mode, nsec), rs in groups.items():
        if phase == "perf" and mode == "off":
            off_mean[tag] = st.mean(num(r["tps"]) for r in rs)
    print("| tag | phase | mode | slice_ext_nsec | runs | tps mean | tps stddev | ratio to off | xacts | desched / 1000 xacts |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (tag, phase, mode, nsec), rs in groups.items():
        tps = [num(r["tps"]) for r in rs]
        x = sum(num(r["xacts"]) for r in rs)
        d = sum(num(r["pg_desched"]) for r in rs)
        sd = st.stdev(tps) if len(tps) > 1 else float("nan")
        ratio = st.mean(tps) / off_mean[tag] if tag in off_mean else float("nan")
        print(f"| {tag} | {phase} | {mode} | {nsec} | {len(rs)} | {st.mean(tps):.0f} | {sd:.0f} | {ratio:.3f} | {x:.0f} | {1000 * d / x if x else float('nan'):.2f} |")
    # paired ratios: each mode against 'off' of the same tag, phase and round
    print()
    print("Paired tps ratios (mode / off of the same round; interleaved runs):")
    print()
    print("| tag | phase | round | " + " | ".join(f"{m} tps" for m in ("off", "measure", "auto")) + " | measure/off | auto/off | auto/measure |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rounds = OrderedDict()
    for r in rows:
        if r["mode"] in ("off", "measure", "auto"):
            rounds.setdefault((r["tag"], r["phase"], r["round"], r["slice_ext_nsec"]), {})[r["mode"]] = num(r["tps"])
    for (tag, phase, rnd, nsec), d in rounds.items():
        if "off" not in d:
            continue
        g = lambda m: d.get(m, float("nan"))
        print(f"| {tag} | {phase} | {rnd} | {g('off'):.1f} | {g('measure'):.1f} | {g('auto'):.1f} | {g('measure') / g('off'):.3f} | {g('auto') / g('off'):.3f} | {g('auto') / g('measure'):.3f} |")
    print()
    print("Counters summed over the runs of each group (pg_rseq = pg_stat_rseq_totals difference; kernel = debugfs rseq/stats difference):")
    print()
    print("| tag | phase | mode | nsec | pg requests | pg grants | kernel sgrant | grants - sgrant | pg revoked | kernel srevok | kernel sexpir | pg yields | pg yields_in_grant | kernel syield | kernel sabort | grants/1000 xacts |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (tag, phase, mode, nsec), rs in groups.items():
        s = lambda c: sum(num(r[c]) for r in rs)
        x = s("xacts")
        print(f"| {tag} | {phase} | {mode} | {nsec} | {s('pg_requests'):.0f} | {s('pg_grants'):.0f} | {s('k_sgrant'):.0f} | {s('pg_grants') - s('k_sgrant'):.0f} | "
              f"{s('pg_revoked'):.0f} | {s('k_srevok'):.0f} | {s('k_sexpir'):.0f} | {s('pg_yields'):.0f} | {s('pg_yields_in_grant'):.0f} | {s('k_syield'):.0f} | {s('k_sabort'):.0f} | "
              f"{1000 * s('pg_grants') / x if x else float('nan'):.2f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        main(sys.argv[1:])
    except OSError as e:
        print(f"pg-summary.py: {e}", file=sys.stderr)
        sys.exit(1)
