#!/usr/bin/python3
"""yield-accounting.py: read the trace of bench/kernel-lab/probes/yield-accounting
and say, for every yield the kernel counted (rseq_slice_yield returned 1, the
kernel's s_yielded), how pg_rseq counted it.

Usage: yield-accounting.py DIR    (DIR = yield-accounting's --out)

Prints one table (counts) and writes DIR/yields.csv (one row per kernel
yield: pid, time, class). Classes:
  counted        reached from rseq_slice_granted's granted path, returned 1,
                 counted into a shared counter slot (yields_in_grant)
  local-attached reached the same way while the process counted locally
                 before PgRseqAttachBackend: moved into its slot at attach
  local-never    the same in a process that never attached while traced
                 (the postmaster, or one started before the probes): lost
  local-detached the same after PgRseqDetachBackend: lost to pg_rseq
  revoked-path   rseq_slice_granted's revoked path (granted read 0) got 1:
                 pg_rseq counted the grant as revoked
  other          a yield that returned 1 with no rseq_slice_granted call of
                 that process before it (a yield from elsewhere)
Also: grants armed (hrtimer_start of rseq_slice_expired) per class of the
calling process, and the probe lines lost (the trace's entries/written).
Exit status: 0 printed; 1 unreadable input.
"""
import collections
import csv
import re
import sys

LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+(?P<ts>[\d.]+):\s+(?P<ev>\S+):\s*(?P<rest>.*)$")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    try:
        offs = open(d + "/offsets.txt").read()
        lines = open(d + "/trace.txt").read().splitlines()
    except OSError as e:
        print("yield-accounting.py: %s" % e, file=sys.stderr)
        return 1
    m = re.search(r"local_minus_state 0x([0-9a-f]+)", offs)
    local_off = int(m.group(1), 16)
    attached = {}          # pid -> attach time
    detached = {}          # pid -> detach time
    pending = {}           # pid -> (ts, local, g) of the last rseq_slice_granted entry
    rows = []
    cls = collections.Counter()
    grants_by = collections.Counter()
    for ln in lines:
        if ln.startswith("#"):
            continue
        x = LINE.match(ln)
        if not x:
            continue
        pid, ts, ev, rest = int(x["pid"]), float(x["ts"]), x["ev"], x["rest"]
        f = dict(kv.split("=", 1) for kv in rest.replace("(", " ").replace(")", " ").split() if "=" in kv)
        if ev == "attach":
            attached[pid] = ts
        elif ev == "detach":
            detached[pid] = ts
        elif ev == "granted":
            s, ctr = int(f["s"], 16), int(f["ctr"], 16)
            pending[pid] = (ts, ctr - s == local_off, int(f["g"]))
        elif ev in ("ret_g", "ret_r"):
            # after the system call returned to user space (the kretprobe
            # below fires before): a check that the paths are what g said
            if ev == "ret_r" and int(f["ret"]) == 1:
                cls["(ret_r saw 1)"] += 1
        elif ev == "hrtimer_start":
            grants_by["armed"] += 1
        elif ev == "yret":
            # the kernel's return: comes before the uprobe after the syscall
            p = pending.pop(pid, None)
            if int(f["ret"]) != 1:
                continue
            if p is None:
                c = "other"
            elif p[2] == 0:
                c = "revoked-path"
            elif not p[1]:
                c = "counted"
            elif pid in detached and detached[pid] <= p[0]:
                c = "local-detached"
            elif pid in attached:
                c = "local-attached"
            else:
                c = "local-never"
            cls[c] += 1
            rows.append((pid, ts, c))
    with open(d + "/yields.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pid", "ts", "class"])
        w.writerows(rows)
    print("kernel yields (rseq_slice_yield returned 1): %d" % sum(v for k, v in cls.items() if not k.startswith("(")))
    for c in ("counted", "local-attached", "local-never", "local-detached", "revoked-path", "other", "(ret_r saw 1)"):
        print("  %-15s %d" % (c, cls[c]))
    print("grants armed (hrtimer_start): %d" % grants_by["armed"])
    lost = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", offs + "\n".join(lines[:5]))
    if lost:
        print("trace entries in buffer / written: %s / %s" % lost.groups())
    return 0


if __name__ == "__main__":
    sys.exit(main())
