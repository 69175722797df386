"""analyse boots: the pay-off lab's ratios with the boot as the unit.

Usage: analyse boots [--base ARM] [--arm ARM[,ARM]] [--workload NAME] [--json] LABDIR...
       analyse boots [--base ARM] [--workload NAME] [--json] LABDIR:ARM[,ARM]... --vs LABDIR:ARM[,ARM]...

Rounds are nested in boots (payoff-lab boots the guest once per step, and a
boot's rounds share its page layout, its start-up and its neighbours on the
host), so an interval over rounds shows the spread within a boot, not
between boots. This command gives one value per boot and tests over boots.

Input: every LABDIR/*/runs.csv (one boot folder each, e.g. LABDIR/v8 and
LABDIR/v8-r7); discarded runs, calib runs and runs whose tps is NA, not
finite or not above 0 are left out. Within a boot, a round (workload,
vCPUs, tag, round) whose baseline run (--base; default stock, or measure
for extend-sched) and at least one listed arm ran gives one value: the mean
over the listed arms of ln(tps arm / tps base) (default arm auto, upstream
for extend-sched). A boot's value is the mean of its round values: the log
of the geometric mean of its rounds' paired ratios, which is the per-round
ratio `analyse summarise payoff` pools, taken within the boot.

One group (no --vs): the boots of every LABDIR are pooled per workload and
vCPU count (name several folders only when they ran the same
configuration). Per workload: each boot's ratio and rounds; over boots the
geometric mean of the boot ratios, a 95 % interval from Student's t on the
boot values (k - 1 degrees of freedom; none below 2 boots), the one-sample
t p, and the exact sign-flip permutation p (the share of the 2^k ways of
signing the boot values whose |mean| is at least the observed one; with k
boots no data can give less than 2 / 2^k: 0.5 at 2 boots, 0.25 at 3, 0.125
at 4, 0.0625 at 5, 0.03125 at 6); and the pooled-rounds figure for
comparison (what treats every round as independent).

Two groups (--vs): ENTRY is LABDIR:ARM[,ARM] as for `analyse compare`; the
ratio of the groups' boot means, Student's t with pooled variance (nA + nB
- 2 df), and the exact permutation p over the C(nA + nB, nA) labellings of
the boots with the smallest p any labelling can give.

Verdict: a boot-level claim stands when there are at least 3 boots (in each
group), the boot-level interval excludes 1 and the per-boot ratios lie on
one side of 1 (two groups: the groups' boot values do not overlap);
otherwise the reasons are printed. The permutation floor is said beside
the verdict: below 6 boots (one group) no permutation test over boots can
give p <= 0.05, whatever the data, so a claim that stands on fewer boots
stands on the t interval alone (which assumes normal boot values of one
variance, nothing so few boots can check).

Output: Markdown on stdout; --json: {"base", "workloads": [{"workload",
"vcpus", "arms", "boots": [{"boot", "rounds", "ratio"}], "over_boots":
{"k", "ratio", "lo", "hi", "t_p", "perm_p", "perm_min", "why", "note"},
"pooled_rounds": {"rounds", "ratio"}}]} (two groups: "groups": [[boots],
[boots]] and "over_boots" with "df" and "labellings"). Ratios rounded to 4
decimals, p to 4.
Exit status: 0 done; 1 a folder without */runs.csv, a runs.csv without the
columns workload, vcpus, tag, round, arm, tps, a run recorded twice in a
boot, no round with the baseline and an arm; 2 usage.
"""
import csv
import glob
import json
import math
import os
import statistics as st
import sys
from collections import OrderedDict

from .stats import boots_one, boots_two

DEFAULTS = {"extend-sched": ("measure", "upstream")}   # as analysis.payoff's BASE_OF


def usage(msg):
    print(f"analyse boots: {msg} (analyse boots --help)", file=sys.stderr)
    return 2


def boot_rounds(labdir):
    """{boot folder: {(workload, vcpus): {(tag, round): {arm: ln tps}}}} of one LABDIR"""
    # by boot folder (v8 before v8-r7)
    paths = sorted(glob.glob(os.path.join(glob.escape(labdir), "*", "runs.csv")), key=os.path.dirname)
    if not paths:
        raise ValueError(f"{labdir}: no */runs.csv (not a payoff-lab folder?)")
    out = OrderedDict()
    for p in paths:
        with open(p, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
        for c in ("workload", "vcpus", "tag", "round", "arm", "tps"):
            if rows and c not in rows[0]:
                raise ValueError(f"{p}: no column {c}")
        wl, seen = OrderedDict(), set()
        for n, r in enumerate(rows, 2):
            if None in r.values() or None in r:
                raise ValueError(f"{p} line {n}: the row is cut short")
            if r.get("discard") == "1" or r["arm"] == "calib":
                continue
            key = (r["workload"], r["vcpus"], r["tag"], r["round"], r["arm"])
            if key in seen:
                raise ValueError(f"{p} line {n}: workload {key[0]} tag {key[2]} round {key[3]} arm {key[4]} recorded twice")
            seen.add(key)
            try:
                tps = float(r["tps"])
            except ValueError:
                continue
            if math.isfinite(tps) and tps > 0:
                wl.setdefault((r["workload"], int(r["vcpus"])), OrderedDict()).setdefault(
                    (r["tag"], r["round"]), {})[r["arm"]] = math.log(tps)
        out[os.path.dirname(p)] = wl
    return out


def round_values(rounds, arms, base):
    vals = []
    for runs in rounds.values():
        if base in runs:
            logs = [runs[a] - runs[base] for a in arms if a in runs]
            if logs:
                vals.append(st.mean(logs))
    return vals


def rounded(x):
    """x (nested dicts/lists) with every float rounded to 4 decimals, for JSON"""
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [rounded(v) for v in x]
    return round(x, 4) if isinstance(x, float) else x


def cell(o):
    iv = f" [{o['lo']:.3f}, {o['hi']:.3f}]" if o["lo"] is not None else " (no interval)"
    tp = f", t p {o['t_p']:.3f}" if o["t_p"] is not None else ""
    return f"{o['ratio']:.3f}{iv}{tp}, permutation p {o['perm_p']:.3f} (smallest possible {o['perm_min']:.3g})"


def verdict(o):
    v = "boot level: " + ("stands" if not o["why"] else "does not stand: " + "; ".join(o["why"]))
    return v + (f" (and {o['note']})" if o.get("note") else "")


def one_group(labdirs, base, arms, workload, as_json):
    per = OrderedDict()   # (workload, vcpus) -> [(boot, base, arms, values)]
    for d in labdirs:
        for boot, wls in boot_rounds(d).items():
            for (w, v), rounds in wls.items():
                if workload and w != workload:
                    continue
                db, da = DEFAULTS.get(w, ("stock", "auto"))
                b, a = base or db, arms or [da]
                vals = round_values(rounds, a, b)
                if vals:
                    per.setdefault((w, v), []).append((boot, b, a, vals))
    if not per:
        raise ValueError(f"no round with a baseline and an asking arm in {', '.join(labdirs)}"
                         + (f" for workload {workload}" if workload else ""))
    out = {"workloads": []}
    for (w, v), boots in per.items():
        logs = [st.mean(x[3]) for x in boots]
        o = boots_one(logs)
        pooled = [y for x in boots for y in x[3]]
        out["workloads"].append({
            "workload": w, "vcpus": v, "base": boots[0][1], "arms": boots[0][2],
            "boots": [{"boot": x[0], "rounds": len(x[3]), "ratio": math.exp(st.mean(x[3]))} for x in boots],
            "over_boots": o,
            "pooled_rounds": {"rounds": len(pooled), "ratio": math.exp(st.mean(pooled))}})
    if as_json:
        print(json.dumps(rounded(out), indent=1))
        return 0
    print("One value per boot: the geometric mean of its rounds' paired ratios; the interval (Student's t, k - 1 df) "
          "and the exact sign-flip permutation test are over boots.\n")
    for x in out["workloads"]:
        ratio = f"{','.join(x['arms'])}/{x['base']}"
        print(f"**{x['workload']}**, {x['vcpus']} vCPUs, {ratio}\n")
        print(f"| boot folder | rounds | {ratio} |")
        print("| --- | ---: | ---: |")
        for b in x["boots"]:
            print(f"| {b['boot']} | {b['rounds']} | {b['ratio']:.3f} |")
        o = x["over_boots"]
        print(f"\nover {o['k']} boot(s): {cell(o)}")
        print(f"rounds pooled as if independent ({x['pooled_rounds']['rounds']} rounds; not a boot-level figure): "
              f"{x['pooled_rounds']['ratio']:.3f}")
        print(verdict(o) + "\n")
    return 0


def two_groups(groups, base, workload, as_json):
    base = base or "stock"
    boots = [[], []]
    for gi, g in enumerate(groups):
        for labdir, arms in g:
            got = False
            for boot, wls in boot_rounds(labdir).items():
                vals = [y for (w, _), rounds in wls.items() if not workload or w == workload
                        for y in round_values(rounds, arms, base)]
                if vals:
                    got = True
                    boots[gi].append({"boot": boot, "arms": arms, "rounds": len(vals),
                                      "mean_log": st.mean(vals), "values": vals})
            if not got:
                raise ValueError(f"{labdir}: no round with the baseline arm '{base}' and one of {', '.join(arms)}")
    o = boots_two([x["mean_log"] for x in boots[0]], [x["mean_log"] for x in boots[1]])
    out = {"base": base,
           "groups": [[{"boot": x["boot"], "arms": x["arms"], "rounds": x["rounds"],
                        "ratio": math.exp(x["mean_log"])} for x in g] for g in boots],
           "over_boots": o}
    if as_json:
        print(json.dumps(rounded(out), indent=1))
        return 0
    print(f"One value per boot: the geometric mean of its rounds' ratios of the listed arms to `{base}`.\n")
    print(f"| group | boot folder | arms | rounds | ratio to {base} |")
    print("| --- | --- | --- | ---: | ---: |")
    for gi, g in enumerate(out["groups"]):
        for x in g:
            print(f"| {'AB'[gi]} | {x['boot']} | {','.join(x['arms'])} | {x['rounds']} | {x['ratio']:.3f} |")
    print(f"\nA/B over boots ({o['k'][0]} against {o['k'][1]}; Student's t, pooled variance, {o['df']} df; "
          f"exact permutation over {o['labellings']} labellings): {cell(o)}")
    print(verdict(o))
    return 0


def parse_entry(text):
    if ":" not in text:
        return None
    labdir, arms = text.rsplit(":", 1)
    arms = arms.split(",")
    if not labdir or any(not a for a in arms) or len(set(arms)) != len(arms):
        return None
    return os.path.normpath(labdir), arms


def main(argv):
    args = argv[1:]
    base = arms = workload = None
    as_json, vs, pos = False, None, []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("--base", "--arm", "--workload"):
            if i + 1 >= len(args) or not args[i + 1] or args[i + 1].startswith("-"):
                return usage(f"{a} wants a value")
            v = args[i + 1]
            if a == "--base":
                base = v
            elif a == "--arm":
                arms = v.split(",")
                if any(not x for x in arms) or len(set(arms)) != len(arms):
                    return usage("--arm wants ARM[,ARM...], each once")
            else:
                workload = v
            i += 2
            continue
        if a == "--json":
            as_json, i = True, i + 1
            continue
        if a == "--vs":
            if vs is not None:
                return usage("--vs given twice")
            vs, i = len(pos), i + 1
            continue
        if a.startswith("-"):
            return usage(f"unknown option {a}")
        pos.append(a)
        i += 1
    if not pos:
        return usage("want at least one LABDIR")
    if vs is None:
        if any(":" in p and not os.path.isdir(p) for p in pos):
            return usage("LABDIR:ARM entries want --vs (one group: LABDIR... with --arm)")
        if base and arms and base in arms:
            return usage(f"the baseline arm '{base}' is listed as an arm")
        if len(set(map(os.path.normpath, pos))) != len(pos):
            return usage("a LABDIR is given twice")
        return one_group([os.path.normpath(p) for p in pos], base, arms, workload, as_json)
    if arms:
        return usage("with --vs the arms go in the entries (LABDIR:ARM[,ARM])")
    groups = [[], []]
    for j, p in enumerate(pos):
        e = parse_entry(p)
        if e is None:
            return usage(f"want LABDIR:ARM[,ARM...], got '{p}'")
        groups[0 if j < vs else 1].append(e)
    if not groups[0] or not groups[1]:
        return usage("want entries on both sides of --vs")
    flat = [(d, tuple(x)) for g in groups for d, x in g]
    if len(set(flat)) != len(flat):
        return usage("an entry is given twice")
    if any((base or "stock") in x for _, x in flat):
        return usage(f"the baseline arm '{base or 'stock'}' is listed as an arm")
    return two_groups(groups, base, workload, as_json)
