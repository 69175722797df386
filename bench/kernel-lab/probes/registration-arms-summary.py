#!/usr/bin/env python3
"""registration-arms-summary.py RUNS.CSV: the Markdown summary of
registration-arms (issue 42 item 2, step 1), on stdout.

Per place (host, guest) and arm: median, min and max over the reps of guest
ns per getppid, per futex round trip, per preemption (lost wall time, and the
CPU time charged to the preempted process), the ratio of the medians to L and
the difference in ns; the paired ratio arm / L within each rep (the runs of a
rep are adjacent in time), median [min, max]; the kernel's rseq counters
(debugfs rseq/stats, system-wide) per event.  Only the standard library.
"""
import csv
import statistics
import sys

ORDER = ["L", "Lp", "V", "VE", "N"]
NAMES = {"L": "L (glibc legacy)", "Lp": "L' (preload legacy)", "V": "V (V2, ext. off)",
         "VE": "VE (V2, ext. on)", "N": "N (no rseq)"}
MEASURES = [("getppid_ns", "ns per getppid"), ("pp_ns", "ns per futex round trip"),
            ("preempt_ns", "ns lost per preemption"), ("preempt_cpu_ns", "CPU ns charged per preemption")]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def med_range(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None, None
    return statistics.median(xs), min(xs), max(xs)


def fmt(x, d=1):
    return "n/a" if x is None else f"{x:.{d}f}"


def per(r, k, n):
    a, b = num(r.get(k)), num(r.get(n))
    return a / b if a is not None and b else None


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    print("# registration-arms summary\n")
    print("Medians over the reps, [min, max] across them; ratio = median of the arm / median of L;")
    print("paired = arm / L within each rep (median [min, max] over reps). Guest ns under icount")
    print("= guest instructions.\n")
    for place in ("guest", "host"):
        pr = [r for r in rows if r["place"] == place]
        if not pr:
            continue
        arms = [a for a in ORDER if any(r["arm"] == a for r in pr)]
        reps = sorted({int(r["rep"]) for r in pr})
        print(f"## {place}: {pr[0].get('kernel', '?')}, glibc {pr[0].get('glibc', '?')}, "
              f"{len(reps)} reps, counts: {pr[0].get('getppid_n')} getppid, {pr[0].get('pp_n')} round trips, "
              f"{pr[0].get('work_n')} loop iterations\n")
        by = {a: [r for r in pr if r["arm"] == a] for a in arms}
        byrep = {(a, int(r["rep"])): r for a in arms for r in by[a]}
        meds = {}
        for k, title in MEASURES:
            print(f"### {title}\n")
            print("| arm | registration | n | median | [min, max] | ratio to L | arm - L (ns) | paired arm/L |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- |")
            for a in arms:
                m, lo, hi = med_range([num(r[k]) for r in by[a]])
                meds[(a, k)] = m
            for a in arms:
                m = meds[(a, k)]
                lo = min((num(r[k]) for r in by[a] if num(r[k]) is not None), default=None)
                hi = max((num(r[k]) for r in by[a] if num(r[k]) is not None), default=None)
                ml = meds.get(("L", k))
                ratio = f"{m / ml:.4f}" if m is not None and ml else "n/a"
                diff = f"{m - ml:+.1f}" if m is not None and ml is not None else "n/a"
                pairs = []
                for rep in reps:
                    x, y = byrep.get((a, rep)), byrep.get(("L", rep))
                    if x and y and num(x[k]) is not None and num(y[k]):
                        pairs.append(num(x[k]) / num(y[k]))
                pm, plo, phi = med_range(pairs)
                paired = f"{pm:.4f} [{plo:.4f}, {phi:.4f}]" if pm is not None else "n/a"
                reg = f"{by[a][0].get('registration')} {by[a][0].get('reg_len')} B, {by[a][0].get('owner')}"
                print(f"| {NAMES[a]} | {reg} | {len(by[a])} | {fmt(m)} | [{fmt(lo)}, {fmt(hi)}] | {ratio} | {diff} | {paired} |")
            print()
        print("### Kernel rseq counters per event (debugfs rseq/stats differences, medians over reps)\n")
        print("| arm | ids / getppid | exit / getppid | ids / round trip | fastp / round trip | "
              "vol. sw. / round trip | invol. sw. / round trip | preemptions in pair | ids / preemption | "
              "fastp / preemption | cs / preemption |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for a in arms:
            def m(f):
                return fmt(med_range([f(r) for r in by[a]])[0], 3)
            print(f"| {NAMES[a]} | {m(lambda r: per(r, 'k_ids_sys', 'getppid_n'))} | "
                  f"{m(lambda r: per(r, 'k_exit_sys', 'getppid_n'))} | "
                  f"{m(lambda r: per(r, 'k_ids_pp', 'pp_n'))} | {m(lambda r: per(r, 'k_fastp_pp', 'pp_n'))} | "
                  f"{m(lambda r: num(r.get('pp_vcsw')))} | {m(lambda r: num(r.get('pp_ivcsw')))} | "
                  f"{fmt(med_range([num(r.get('pair_invol')) for r in by[a]])[0], 0)} | "
                  f"{m(lambda r: per(r, 'k_ids_pair', 'pair_invol'))} | "
                  f"{m(lambda r: per(r, 'k_fastp_pair', 'pair_invol'))} | "
                  f"{m(lambda r: per(r, 'k_cs_pair', 'pair_invol'))} |")
        print()
        print("Pair details (medians): alone_ns, pair_ns, forkwait_ns, lost_ns\n")
        print("| arm | alone_ns | pair_ns | forkwait_ns | lost_ns |")
        print("| --- | --- | --- | --- | --- |")
        for a in arms:
            vals = [fmt(med_range([num(r.get(k)) for r in by[a]])[0], 0)
                    for k in ("alone_ns", "pair_ns", "forkwait_ns", "lost_ns")]
            print(f"| {NAMES[a]} | " + " | ".join(vals) + " |")
        print()


if __name__ == "__main__":
    main()
