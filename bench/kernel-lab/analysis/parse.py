"""analyse parse: the per-run parsers of the pay-off lab (payoff-in-guest
calls them in the guest between runs; analyse summarise payoff and check-lab
import them).

Usage:
  analyse parse tranche-delta BEFORE AFTER PREFIX
      BEFORE, AFTER: pg_stat_rseq_tranche snapshots, CSV with a header
      (COPY ... TO STDOUT WITH (FORMAT csv, HEADER)): tranche, lock_kind,
      acquisitions, descheduled_while_holding, grants_in_place,
      requests_cleared, yields, yields_in_grant (pg_rseq 1.2.0; a snapshot
      of 1.1.0 with grants and revoked instead is read as grants_in_place =
      grants - revoked, requests_cleared = revoked). PREFIX: the first
      fields of every output line, comma separated (tag,vcpus,workload,arm,
      round,discard,slice_ext_nsec). Prints one CSV line per (tranche,
      lock_kind) row to stdout: PREFIX, tranche, lock_kind, acquisitions,
      descheduled, grants_in_place, requests_cleared, yields,
      yields_in_grant [counts: AFTER - BEFORE; a
      row missing in BEFORE counts from 0, i.e. it was first used in the
      run; NA where either side is NULL, e.g. acquisitions of a spinlock
      row with rseq_slice_detail off]. Rows whose deltas are all 0 (or NA)
      are left out.
  analyse parse holds TRACE --tsc-mhz MHZ --prefix PREFIX --hist FILE
                  [--lost N]
      TRACE: the text of /sys/kernel/tracing/trace with the events
      timer:hrtimer_start, timer:hrtimer_cancel, timer:hrtimer_expire_entry
      and trace_clock x86-tsc (timestamps in TSC counts, converted to ns
      with MHZ, the guest's TSC frequency from dmesg; a timestamp with a
      '.' is taken as seconds). Every hrtimer_start with
      function=rseq_slice_expired opens a granted section on its hrtimer
      pointer (one per CPU); it ends with
        cancelled  hrtimer_cancel of that pointer: the task entered a
                   syscall (rseq_slice_yield or another) with the grant
                   on; hold = cancel ts - start ts [ns]: the time from the
                   grant (the interrupt that would have preempted) to the
                   section's end;
        expired    hrtimer_expire_entry first: the slice timer fired
                   (s_expired if the task still held the grant, else a
                   grant revoked earlier by a reschedule whose timer ran
                   out);
        rearmed    another hrtimer_start of the pointer first (a new grant
                   on that CPU while the timer was still armed: the earlier
                   grant ended without a syscall);
        open       still open when the trace ends.
      Events of other timers are ignored; cancels/expiries of the slice
      timer with nothing open are counted as unmatched. "[LOST N EVENTS]"
      lines of the trace are added to --lost (the ring buffer's
      overrun/dropped counts, read by the caller).
      Prints one CSV line: PREFIX, tsc_mhz, starts, cancelled, expired,
      rearmed, open, unmatched, lost_events, n, mean_ns, p50_ns, p90_ns,
      p99_ns, max_ns, over_5us, over_50us (n = cancelled holds measured;
      percentiles nearest-rank over them; over_X = share of them longer
      than X; NA when n = 0). Writes FILE: the raw histogram, CSV
      bucket_lo_ns,bucket_hi_ns,count (100 ns buckets, non-empty ones)
      and a last line expired,,COUNT.
Exit status: 0; 1 unreadable input; 2 usage.
"""
import csv
import math
import re
import sys

TRANCHE_COLS = ["acquisitions", "descheduled_while_holding", "grants_in_place", "requests_cleared", "yields", "yields_in_grant"]
TRANCHE_OUT = ["acquisitions", "descheduled", "grants_in_place", "requests_cleared", "yields", "yields_in_grant"]
HOLD_COLS = ["tsc_mhz", "starts", "cancelled", "expired", "rearmed", "open", "unmatched", "lost_events", "n",
             "mean_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns", "over_5us", "over_50us"]
BUCKET_NS = 100
SLICE_FN = "rseq_slice_expired"


def read_snapshot(path):
    """the rows of a pg_stat_rseq_tranche snapshot by (tranche, lock_kind),
    with 1.2.0's columns (derived from grants and revoked in a 1.1.0 one)"""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if "grants_in_place" not in r and "grants" in r:
                g, rv = r["grants"], r["revoked"]
                r["grants_in_place"] = "" if g == "" or rv == "" else str(int(g) - int(rv))
                r["requests_cleared"] = rv
            rows[(r["tranche"], r["lock_kind"])] = r
    return rows


def tranche_delta(before, after):
    """list of (tranche, lock_kind, [deltas or None]) for the rows of AFTER that moved"""
    out = []
    for key, a in after.items():
        b = before.get(key)
        d = []
        for c in TRANCHE_COLS:
            av = a.get(c, "")
            bv = b.get(c, "") if b is not None else "0"
            d.append(None if av == "" or bv == "" else int(av) - int(bv))
        if any(x for x in d if x is not None):
            out.append((key[0], key[1], d))
    return out


def csv_line(fields):
    return ",".join(csv_field(x) for x in fields)


def csv_field(x):
    s = "NA" if x is None else str(x)
    return '"' + s.replace('"', '""') + '"' if any(ch in s for ch in ',"\n') else s


LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?"
                  r"(?P<ts>\d+(?:\.\d+)?):\s+(?P<event>\w+):\s*(?P<rest>.*)$")
LOST = re.compile(r"\[LOST (\d+) EVENTS\]")


def parse_trace(lines, tsc_mhz):
    """the granted sections of a trace text: dict with the counts, holds [ns] (sorted) and lost events"""
    res = {"starts": 0, "cancelled": 0, "expired": 0, "rearmed": 0, "open": 0, "unmatched": 0, "lost": 0, "holds": []}
    slice_timers = set()
    pending = {}   # hrtimer pointer -> start ts [ns]
    for line in lines:
        m = LOST.search(line)
        if m:
            res["lost"] += int(m.group(1))
            continue
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            continue
        ev, rest, ts = m.group("event"), m.group("rest"), m.group("ts")
        if ev not in ("hrtimer_start", "hrtimer_cancel", "hrtimer_expire_entry"):
            continue
        ns = float(ts) * 1e9 if "." in ts else int(ts) * 1000.0 / tsc_mhz
        fields = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
        ptr = fields.get("hrtimer")
        if ptr is None:
            continue
        if ev == "hrtimer_start":
            if fields.get("function") != SLICE_FN:
                continue
            slice_timers.add(ptr)
            if ptr in pending:
                res["rearmed"] += 1
            pending[ptr] = ns
            res["starts"] += 1
        elif ptr in slice_timers or fields.get("function") == SLICE_FN:
            t0 = pending.pop(ptr, None)
            if t0 is None:
                res["unmatched"] += 1
            elif ev == "hrtimer_cancel":
                res["cancelled"] += 1
                res["holds"].append(ns - t0)
            else:
                res["expired"] += 1
    res["open"] = len(pending)
    res["holds"].sort()
    return res


def pctl(sorted_vals, p):
    """nearest-rank percentile p (0..100) of a sorted list"""
    if not sorted_vals:
        return None
    k = max(1, math.ceil(p / 100.0 * len(sorted_vals)))
    return sorted_vals[k - 1]


def hold_stats(res, lost_extra=0):
    h = res["holds"]
    n = len(h)
    r = {"starts": res["starts"], "cancelled": res["cancelled"], "expired": res["expired"], "rearmed": res["rearmed"],
         "open": res["open"], "unmatched": res["unmatched"], "lost_events": res["lost"] + lost_extra, "n": n}
    r["mean_ns"] = round(sum(h) / n, 1) if n else None
    for p in (50, 90, 99):
        v = pctl(h, p)
        r[f"p{p}_ns"] = None if v is None else round(v, 1)
    r["max_ns"] = round(h[-1], 1) if n else None
    r["over_5us"] = round(sum(1 for x in h if x > 5000) / n, 6) if n else None
    r["over_50us"] = round(sum(1 for x in h if x > 50000) / n, 6) if n else None
    return r


def histogram(res):
    b = {}
    for x in res["holds"]:
        k = int(x // BUCKET_NS) * BUCKET_NS
        b[k] = b.get(k, 0) + 1
    return sorted(b.items())


def usage():
    print(__doc__, file=sys.stderr)
    return 2


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        return usage()
    if argv[1] == "tranche-delta":
        if len(argv) != 5:
            return usage()
        for t, k, d in tranche_delta(read_snapshot(argv[2]), read_snapshot(argv[3])):
            print(argv[4] + "," + csv_line([t, k] + d))
        return 0
    if argv[1] == "holds":
        opts, rest = {}, argv[2:]
        trace = None
        while rest:
            a = rest.pop(0)
            if a in ("--tsc-mhz", "--prefix", "--hist", "--lost"):
                if not rest:
                    print(f"analyse parse: {a} wants a value", file=sys.stderr)
                    return 2
                opts[a] = rest.pop(0)
            elif trace is None and not a.startswith("--"):
                trace = a
            else:
                print(f"analyse parse: unknown argument {a}", file=sys.stderr)
                return 2
        if trace is None or "--prefix" not in opts or "--hist" not in opts or "--tsc-mhz" not in opts:
            return usage()
        try:
            mhz = float(opts["--tsc-mhz"])
            lost = int(opts.get("--lost", "0"))
        except ValueError:
            print("analyse parse: --tsc-mhz wants a frequency in MHz, --lost a count", file=sys.stderr)
            return 2
        if not mhz > 0 or lost < 0:
            print("analyse parse: --tsc-mhz wants a positive frequency, --lost a count >= 0", file=sys.stderr)
            return 2
        with open(trace, errors="replace") as f:
            res = parse_trace(f, mhz)
        st = hold_stats(res, lost)
        with open(opts["--hist"], "w") as f:
            f.write("bucket_lo_ns,bucket_hi_ns,count\n")
            for lo, c in histogram(res):
                f.write(f"{lo},{lo + BUCKET_NS},{c}\n")
            f.write(f"expired,,{res['expired']}\n")
        st["tsc_mhz"] = opts["--tsc-mhz"]
        print(opts["--prefix"] + "," + csv_line([st[c] for c in HOLD_COLS]))
        return 0
    return usage()
