#!/usr/bin/python3
"""yield-accounting.py: read the trace of bench/kernel-lab/probes/yield-accounting
and say, for every yield the kernel counted (rseq_slice_yield returned 1:
Linux 7.2 counts s_yielded exactly then), how pg_rseq counted it.

Usage: yield-accounting.py OUT    (OUT = yield-accounting's --out: reads
       OUT/offsets.txt, OUT/guest/trace.txt, OUT/guest/payoff/runs.csv)

Prints a table of counts and writes OUT/guest/yields.csv (one row per kernel
yield: pid, time in s of the trace clock, site, class). Classes:
  counted         the call came from a granted path (pg_rseq saw `granted`)
                  and counted into a shared counter slot: yields_in_grant
  local-attached  the same while the process counted locally before
                  PgRseqAttachBackend: moved into its slot at attach
  local-never     the same in a process that never attached while traced
                  (the postmaster, or one started before the probes): lost
  local-detached  the same after PgRseqDetachBackend: lost to pg_rseq
  revoked-path    the call came from the revoked path (pg_rseq read
                  `granted` 0 and counted revoked), yet the kernel yielded
  other           no pg_rseq call site of that process before it
Also printed: grants armed (hrtimer_start of rseq_slice_expired), the
trace's entries in buffer / written (equal: nothing lost), and from runs.csv
the sums over the asking runs of s_yielded and yields_in_grant.
Exit status: 0 printed; 1 unreadable input; 2 usage.
"""
import collections
import csv
import re
import sys

LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+(?P<ts>[\d.]+):\s+(?P<ev>\S+):\s*(?P<rest>.*)$")
CLASSES = ("counted", "local-attached", "local-never", "local-detached", "revoked-path", "other")


def fields(rest):
    return dict(kv.split("=", 1) for kv in rest.replace("(", " ").replace(")", " ").split() if "=" in kv)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    try:
        offs = open(out + "/offsets.txt", encoding="utf-8").read()
        lines = open(out + "/guest/trace.txt", encoding="utf-8").read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        print("yield-accounting.py: cannot read %s/offsets.txt and %s/guest/trace.txt as text: %s" % (out, out, e),
              file=sys.stderr)
        return 1
    m = re.search(r"^local_minus_state ([0-9a-f]+)$", offs, re.M)
    if not m:
        print("yield-accounting.py: %s/offsets.txt has no local_minus_state line (not written by "
              "yield-accounting?)" % out, file=sys.stderr)
        return 1
    local_off = int(m.group(1), 16)
    bad = 0
    attached, detached, last = {}, {}, {}
    cls = collections.Counter()
    by_site = collections.Counter()
    rows = []
    armed = 0
    ret0 = collections.Counter()
    for ln in lines:
        x = LINE.match(ln)
        if not x or ln.lstrip().startswith("#"):
            continue
        try:
            pid, ts, ev = int(x["pid"]), float(x["ts"]), x["ev"]
            f = fields(x["rest"])
            if ev.startswith("y_"):
                int(f["ctr"], 16), int(f["s"], 16)
            elif ev == "yret":
                int(f["ret"])
        except (KeyError, ValueError):
            bad += 1            # a line cut short (or another probe's)
            continue
        if ev == "attach":
            attached[pid] = ts
        elif ev == "detach":
            detached[pid] = ts
        elif ev.startswith("y_"):
            last[pid] = (ts, ev, int(f["ctr"], 16) - int(f["s"], 16) == local_off)
        elif ev == "hrtimer_start":
            armed += 1
        elif ev == "yret":
            p = last.pop(pid, None)
            if int(f["ret"]) != 1:
                ret0[p[1].split("_")[1] if p else "none"] += 1
                continue
            if p is None:
                c, site = "other", "-"
            else:
                site = p[1]
                if site.startswith("y_revoked"):
                    c = "revoked-path"
                elif not p[2]:
                    c = "counted"
                elif pid in detached and detached[pid] <= p[0]:
                    c = "local-detached"
                elif pid in attached:
                    c = "local-attached"
                else:
                    c = "local-never"
            cls[c] += 1
            by_site[site] += 1
            rows.append((pid, ts, site, c))
    try:
        with open(out + "/guest/yields.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["pid", "ts", "site", "class"])
            w.writerows(rows)
    except OSError as e:
        print("yield-accounting.py: cannot write %s/guest/yields.csv: %s (the table follows anyway)" % (out, e),
              file=sys.stderr)
    if not any(LINE.match(ln) for ln in lines):
        print("yield-accounting.py: warning: %s/guest/trace.txt has no trace entries (did the probes run?)" % out,
              file=sys.stderr)
    print("kernel yields (rseq_slice_yield returned 1): %d" % sum(cls.values()))
    for c in CLASSES:
        print("  %-15s %d" % (c, cls[c]))
    print("by call site: %s" % ", ".join("%s %d" % kv for kv in sorted(by_site.items())))
    print("yields that returned 0, by path: %s" % (", ".join("%s %d" % kv for kv in sorted(ret0.items())) or "none"))
    print("grants armed (hrtimer_start of rseq_slice_expired): %d" % armed)
    if bad:
        print("malformed probe lines skipped: %d" % bad)
    hdr = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", "\n".join(lines[:10]))
    if hdr:
        print("trace entries in buffer / written: %s / %s" % hdr.groups())
    try:
        runs = list(csv.DictReader(open(out + "/guest/payoff/runs.csv", encoding="utf-8")))
        ask = [r for r in runs if r.get("arm") not in ("stock", "measure", "off", "calib", None)]
        # a run counts only if both of its values are numbers
        both = [r for r in ask if all((r.get(c) or "").isdigit() for c in ("k_syield", "pg_yields_in_grant"))]
        sy = sum(int(r["k_syield"]) for r in both)
        yig = sum(int(r["pg_yields_in_grant"]) for r in both)
        print("runs.csv, asking runs (%d, %d with both counts): s_yielded %d, yields_in_grant %d, difference %d"
              % (len(ask), len(both), sy, yig, yig - sy))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        print("runs.csv: not read (%s)" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
