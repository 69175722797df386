"""analyse summarise procstat: what each arm of a payoff-lab run cost the whole
guest per transaction, from payoff-in-guest's procstat.log.

Usage: bench/kernel-lab/analyse summarise procstat RUN_FOLDER [--markdown]

Input: RUN_FOLDER/runs.csv and RUN_FOLDER/vN/procstat.log (every boot's;
  payoff-in-guest writes it since 2026-12-02: the shell reads /proc/stat and
  rseq/stats right before pgbench starts and right after it ends, the same
  window for every arm). Discarded runs (runs.csv discard = 1) are left out.
Output (stdout): one line per boot, workload and arm: runs; transactions;
  per transaction ctxt (context switches, count), intr (interrupts, count),
  exit (returns to user space: system calls + interrupts, count; rseq/stats
  counts them for every task), fastp (returns after a context switch that
  updated an rseq area, count), busy (user + nice + system + irq + softirq
  jiffies, in us of vCPU time: one jiffy = 10 ms of USER_HZ, and under the
  icount clock 1 us = 1,000 guest instructions), faults (page faults of all
  tasks, /proc/vmstat pgfault: minor + major, count; NA for a log written
  before payoff-in-guest read it, 2026-12-04), and the shares of user,
  system, softirq and idle in all jiffies of the window [%]. With
  --markdown, a Markdown table with the same columns plus each value's
  ratio to the stock arm of the same boot and workload.
Errors: exit 1 with a message when runs.csv or every procstat.log is
  missing, or no run has both readings complete; exit 2 for an unknown
  option. A run is skipped, and counted on stderr, when its before or
  after line is missing, lacks one of the counters (a log cut short), or
  a counter other than iowait (which proc(5) calls unreliable) went
  backwards; so is a recorded run of runs.csv (not
  discarded) of a boot and workload the log covers but with no line.
Facts: USER_HZ is 100 on x86-64 (/proc/stat, proc(5)).
"""

import collections
import csv
import os
import re
import sys

from .files import boot_files

JIFFY_US = 10000.0
KEYS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "ctxt", "intr", "exit", "fastp")
# read since 2026-12-04: counted for the runs whose both readings have it
OPT_KEYS = ("pgfault", "pgmajfault")
LINE = re.compile(r"^(\S+) (\S+) (\S+) r(\d+) (before|after):\s+(.*)$")


def parse_log(text):
    """{(tag, workload, arm, round): (before dict, after dict)} of a procstat.log's text"""
    seen = {}
    for line in text.splitlines():
        m = LINE.match(line.rstrip("\n"))
        if not m:
            continue
        vals = {}
        for kv in m.group(6).split():
            k, _, v = kv.partition("=")
            if v.isdigit():
                vals[k] = int(v)
        key = (m.group(1), m.group(2), m.group(3), m.group(4))
        seen.setdefault(key, {})[m.group(5)] = vals
    return seen


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    folder = argv[1]
    bad = [a for a in argv[2:] if a != "--markdown"]
    if bad or folder.startswith("-"):
        print(f"analyse summarise procstat: unknown option {(bad or [folder])[0]} (usage: RUN_FOLDER [--markdown])",
              file=sys.stderr)
        return 2
    markdown = "--markdown" in argv[2:]
    runs_csv = os.path.join(folder, "runs.csv")
    if not os.path.exists(runs_csv):
        print(f"analyse summarise procstat: no {runs_csv}", file=sys.stderr)
        return 1
    logs = boot_files(folder, "procstat.log", "v*")
    if not logs:
        print(f"analyse summarise procstat: no {folder}/vN/procstat.log (runs before 2026-12-02 have none)",
              file=sys.stderr)
        return 1
    xacts, discard = {}, set()
    with open(runs_csv) as f:
        for r in csv.DictReader(f):
            key = (r["tag"], r["workload"], r["arm"], r["round"])
            try:
                xacts[key] = int(r["xacts"])
            except ValueError:
                continue
            if r.get("discard", "0") == "1":
                discard.add(key)
    acc = collections.OrderedDict()
    skipped = 0
    seen = {}
    for _, text in logs:
        seen.update(parse_log(text))
    covered = {k[:2] for k in seen}   # (boot, workload) pairs the logs cover
    for key in xacts:
        if key[:2] in covered and key not in discard and key not in seen:
            skipped += 1              # a run of a covered workload without any reading
    for key, ba in seen.items():
        if key in discard or key not in xacts or xacts[key] <= 0:
            continue
        if "before" not in ba or "after" not in ba:
            skipped += 1
            continue
        b, a = ba["before"], ba["after"]
        # iowait may go backwards (proc(5): "not reliable"); every other
        # counter only grows, so a smaller after-value is a cut-short line
        if any(k not in b or k not in a or (a[k] < b[k] and k != "iowait") for k in KEYS):
            skipped += 1
            continue
        d = {k: a[k] - b[k] for k in KEYS}
        jif = sum(d.get(k, 0) for k in ("user", "nice", "system", "idle", "iowait", "irq", "softirq"))
        busy = sum(d.get(k, 0) for k in ("user", "nice", "system", "irq", "softirq"))
        s = acc.setdefault(key[:3], collections.defaultdict(float))
        s["runs"] += 1
        s["xacts"] += xacts[key]
        for k in ("ctxt", "intr", "exit", "fastp"):
            s[k] += d.get(k, 0)
        if all(k in b and k in a and a[k] >= b[k] for k in OPT_KEYS):
            s["pgfault"] += a["pgfault"] - b["pgfault"]
            s["f_xacts"] += xacts[key]
        s["busy"] += busy
        s["jif"] += jif
        for k in ("user", "system", "softirq", "idle"):
            s["j_" + k] += d.get(k, 0)
    if skipped:
        print(f"analyse summarise procstat: {skipped} runs without both readings complete skipped", file=sys.stderr)
    if not acc:
        print(f"analyse summarise procstat: no run of {folder} has both readings complete", file=sys.stderr)
        return 1
    cols = ("ctxt", "intr", "exit", "fastp", "busy_us", "faults")

    def per(s):
        x = s["xacts"]
        # faults only over the runs that read them (all or none in one boot)
        return {"ctxt": s["ctxt"] / x, "intr": s["intr"] / x, "exit": s["exit"] / x,
                "fastp": s["fastp"] / x, "busy_us": s["busy"] * JIFFY_US / x,
                "faults": s["pgfault"] / s["f_xacts"] if s["f_xacts"] else float("nan")}

    def share(s, k):
        return 100.0 * s["j_" + k] / s["jif"] if s["jif"] else float("nan")

    if not markdown:
        print("tag workload arm runs xacts " + " ".join(c + "/xact" for c in cols)
              + " user% system% softirq% idle%")
        for (tag, wl, arm), s in acc.items():
            p = per(s)
            print(f"{tag} {wl} {arm} {int(s['runs'])} {int(s['xacts'])} "
                  + " ".join("NA" if p[c] != p[c] else f"{p[c]:.3f}" for c in cols)
                  + " " + " ".join(f"{share(s, k):.1f}" for k in ("user", "system", "softirq", "idle")))
        return 0
    print("| boot | workload | arm | runs | transactions | context switches / xact | interrupts / xact "
          "| returns to user / xact | rseq updates after a switch / xact | busy vCPU us / xact "
          "| page faults / xact | user / system / softirq / idle % |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for (tag, wl, arm), s in acc.items():
        p = per(s)
        base = acc.get((tag, wl, "stock"))
        bp = per(base) if base and base["xacts"] else None

        def cell(c, fmt):
            if p[c] != p[c]:
                return "NA"
            v = fmt.format(p[c])
            if bp and arm != "stock" and bp[c] and bp[c] == bp[c]:
                v += f" ({p[c] / bp[c]:.3f})"
            return v
        print(f"| {tag} | {wl} | {arm} | {int(s['runs'])} | {int(s['xacts']):,} | {cell('ctxt', '{:.2f}')} "
              f"| {cell('intr', '{:.2f}')} | {cell('exit', '{:.2f}')} | {cell('fastp', '{:.3f}')} "
              f"| {cell('busy_us', '{:.1f}')} | {cell('faults', '{:.2f}')} | "
              + " / ".join(f"{share(s, k):.1f}" for k in ("user", "system", "softirq", "idle")) + " |")
    print()
    print("(in parentheses: the ratio to the stock arm of the same boot and workload)")
    return 0
