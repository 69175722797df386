"""analyse compare: per-round ratios of arms to a baseline arm, pooled over
payoff-lab runs into two groups, and the ratio of the two groups.

Usage: analyse compare [--base ARM] [--json] ENTRY... --vs ENTRY...

ENTRY is LABDIR:ARM[,ARM...]: a payoff-lab folder (every boot's
LABDIR/*/runs.csv, discarded runs left out, and runs whose tps is NA, not
finite or not above 0) and the arms of it that enter the group. A round
(boot folder, runs.csv tag and round) whose baseline run (--base,
default stock) and at least one listed arm ran gives one value: the mean of
ln(tps arm / tps baseline) over its listed arms, so that two arms sharing
one baseline run count as one observation, not two.

Output (Markdown on stdout; --json: one JSON object instead):
  per entry: folder, arms, rounds, geometric mean of each arm's ratio;
  per group: rounds, geometric mean of the round values (exp of their mean);
  first group / second group: the ratio of the two geometric means with a
  95 % interval from Welch's t (each group's standard error of the mean
  log, Welch-Satterthwaite degrees of freedom, scipy's t quantile), Welch's
  two-sided p, and a permutation p (two-sided: the share of 100,000 random
  relabellings of the pooled round values, seed 1, whose difference of
  group means is at least the observed one in absolute value).
JSON: {"base", "groups": [{"entries": [{"labdir", "arms", "rounds",
  "arm_means": {ARM: geometric mean}}], "rounds", "mean"}, {...}],
  "ratio": {"mean", "lo", "hi", "welch_p", "dof", "perm_p", "perm_n"}}
  (null where not computable, e.g. interval and Welch p without scipy).

Exit status: 0 done; 1 a folder without runs.csv, a runs.csv without the
columns tag, round, arm, tps (or not UTF-8, or a row cut short), one run
(tag, round, arm) recorded twice in a boot, an entry whose arms or
baseline never ran in a round together, a group with fewer than 2 rounds;
2 usage (no --vs, an entry without ":ARM", an empty or repeated arm, the
baseline arm listed as an arm, one entry given twice).
Used for: the stock server's and the patched server's rseq registrations
compared (docs/results.md, "At scale").
"""
import csv
import glob
import json
import math
import os
import random
import statistics as st
import sys
from collections import OrderedDict

from .stats import sst, nn, welch

PERM_N = 100000


def usage(msg):
    print(f"analyse compare: {msg} (analyse compare --help)", file=sys.stderr)
    return 2


def parse_entry(text):
    """"LABDIR:ARM,ARM" -> (LABDIR, [ARM, ...]); ValueError-free: None if malformed"""
    if ":" not in text:
        return None
    labdir, arms = text.rsplit(":", 1)
    arms = arms.split(",")
    if not labdir or not arms or any(not a for a in arms) or len(set(arms)) != len(arms):
        return None
    return labdir, arms


def entry_values(labdir, arms, base):
    """the round values of one entry and each arm's geometric mean ratio"""
    paths = sorted(glob.glob(os.path.join(glob.escape(labdir), "*", "runs.csv")))
    if not paths:
        raise ValueError(f"{labdir}: no */runs.csv (not a payoff-lab folder?)")
    rounds = OrderedDict()
    for p in paths:
        try:
            with open(p, encoding="utf-8-sig", newline="") as f:
                rows = list(csv.DictReader(f))
                cols = rows[0].keys() if rows else []
        except UnicodeDecodeError as e:
            raise ValueError(f"{p}: not UTF-8 ({e.reason} at byte {e.start})")
        for c in ("tag", "round", "arm", "tps"):
            if rows and c not in cols:
                raise ValueError(f"{p}: no column {c}")
        seen = set()
        for n, r in enumerate(rows, 2):
            if None in r.values():
                raise ValueError(f"{p} line {n}: the row is cut short")
            if r.get("discard") == "1":
                continue
            key = (r["tag"], r["round"], r["arm"])
            if key in seen:
                raise ValueError(f"{p} line {n}: tag {key[0]} round {key[1]} arm {key[2]} recorded twice")
            seen.add(key)
            try:
                tps = float(r["tps"])
            except ValueError:
                continue
            if math.isfinite(tps) and tps > 0:
                # the boot folder is part of the round: two boots with the
                # same tag and rounds are two rounds each, not one
                rounds.setdefault((os.path.dirname(p), r["tag"], r["round"]), {})[r["arm"]] = math.log(tps)
    values, per_arm = [], {a: [] for a in arms}
    for runs in rounds.values():
        if base not in runs:
            continue
        logs = [runs[a] - runs[base] for a in arms if a in runs]
        for a in arms:
            if a in runs:
                per_arm[a].append(runs[a] - runs[base])
        if logs:
            values.append(st.mean(logs))
    if not values:
        raise ValueError(f"{labdir}: no round with the baseline arm '{base}' and one of {', '.join(arms)}")
    return values, {a: (math.exp(st.mean(v)) if v else None) for a, v in per_arm.items()}


def group_ratio(a, b):
    """exp(mean a - mean b) of two groups of round values with Welch's 95 %
    interval, two-sided p and dof (stats.welch)"""
    d = st.mean(a) - st.mean(b)
    return (math.exp(d),) + welch(d, st.variance(a) / len(a), len(a), st.variance(b) / len(b), len(b))


def permutation_p(a, b, n=PERM_N, seed=1):
    """two-sided permutation p of the difference of means of a and b"""
    rng = random.Random(seed)
    pool, k = list(a) + list(b), len(a)
    obs = abs(st.mean(a) - st.mean(b))
    total = sum(pool)
    hits = 0
    for _ in range(n):
        rng.shuffle(pool)
        sa = sum(pool[:k])
        if abs(sa / k - (total - sa) / (len(pool) - k)) >= obs - 1e-12:
            hits += 1
    return hits / n


def main(argv):
    args = argv[1:]
    base, as_json = "stock", False
    groups, cur = [[], []], 0
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a == "--base":
            if i + 1 >= len(args) or not args[i + 1] or ":" in args[i + 1] or args[i + 1].startswith("-"):
                return usage("--base wants an arm")
            base, i = args[i + 1], i + 2
            continue
        if a == "--json":
            as_json, i = True, i + 1
            continue
        if a == "--vs":
            if cur == 1:
                return usage("--vs given twice")
            cur, i = 1, i + 1
            continue
        e = parse_entry(a)
        if e is None:
            return usage(f"want LABDIR:ARM[,ARM...], got '{a}'")
        groups[cur].append(e)
        i += 1
    if cur != 1 or not groups[0] or not groups[1]:
        return usage("want entries on both sides of --vs")
    entries = [(os.path.normpath(d), tuple(a)) for g in groups for d, a in g]
    if len(set(entries)) != len(entries):
        return usage("an entry is given twice")
    if any(base in a for _, a in entries):
        return usage(f"the baseline arm '{base}' is listed as an arm")
    out = {"base": base, "groups": []}
    vals = []
    for g in groups:
        gv, entries = [], []
        for labdir, arms in g:
            v, means = entry_values(labdir, arms, base)
            gv += v
            entries.append({"labdir": labdir, "arms": arms, "rounds": len(v),
                            "arm_means": {k: nn(m) for k, m in means.items()}})
        if len(gv) < 2:
            raise ValueError(f"a group has {len(gv)} round(s): want at least 2")
        vals.append(gv)
        out["groups"].append({"entries": entries, "rounds": len(gv), "mean": nn(math.exp(st.mean(gv)))})
    r, lo, hi, p, dof = group_ratio(vals[0], vals[1])
    out["ratio"] = {"mean": nn(r), "lo": nn(lo) if lo is not None else None, "hi": nn(hi) if hi is not None else None,
                    "welch_p": nn(p, 4) if p is not None else None, "dof": nn(dof, 1) if dof is not None else None,
                    "perm_p": nn(permutation_p(vals[0], vals[1]), 4), "perm_n": PERM_N}
    if as_json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"Per-round ratios to the arm `{base}` (one value per round: the mean log ratio of the listed arms).\n")
    print("| group | folder | arms | rounds | geometric mean per arm |")
    print("| --- | --- | --- | ---: | --- |")
    for gi, g in enumerate(out["groups"]):
        for e in g["entries"]:
            cells = ", ".join(f"{k} {m:.3f}" if m is not None else f"{k} n/a" for k, m in e["arm_means"].items())
            print(f"| {'AB'[gi]} | {e['labdir']} | {','.join(e['arms'])} | {e['rounds']} | {cells} |")
    for gi, g in enumerate(out["groups"]):
        print(f"\ngroup {'AB'[gi]}: {g['rounds']} rounds, geometric mean {g['mean']:.3f}", end="")
    x = out["ratio"]
    iv = f" [{x['lo']:.3f}, {x['hi']:.3f}]" if x["lo"] is not None else ""
    wp = f", Welch p {x['welch_p']:.4f} (dof {x['dof']})" if x["welch_p"] is not None else ""
    pp = f"{x['perm_p']:.4f}" if x["perm_p"] else f"< {1 / PERM_N:g}"
    why = "" if x["lo"] is not None else " (no interval: " + ("no scipy" if sst is None else "no spread in the round values") + ")"
    print(f"\n\nA/B: {x['mean']:.3f}{iv}{wp}{why}, permutation p {pp} ({PERM_N} relabellings)")
    return 0
