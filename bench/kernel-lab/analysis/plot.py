"""analyse plot results SUMMARY_JSON OUT.png: the consolidated pay-off
results as one picture.

Input: SUMMARY_JSON, a consolidated summary.json (analyse summarise
results; bench/results/kernel-lab/summary.json): per workload and vCPU
count "tps_ratio_auto_stock" {"mean", "lo", "hi"} (throughput of the
patched server in mode auto over stock, geometric mean of the per-round
ratios with its 95 % t interval), or for a workload without a stock arm
(extend-sched) "tps_ratio_auto_measure" (asking arm over its baseline).
Output: OUT.png (matplotlib, Agg backend, 8 x N/3+1.5 inches at 120 dpi):
one horizontal bar per workload and vCPU count from lo to hi with a dot at
the mean, a line at 1.0 (no change), labelled with the workload's name
(hot locks carry their slice length: hotlock-h8-5us), vCPUs, clock model
(icount, rrN, parN) and preemption model where recorded; x axis:
throughput ratio [tps / tps]. Prints OUT.png's
path on stdout.

analyse plot scaling SUMMARY_JSON OUT.png: the same file's "scaling"
series (the rows of parallel guest time: analyse summarise results) as a
curve: x = vCPUs (2, 4, 8 on a log2 axis), y = auto/stock (extend-sched:
upstream/measure) with its 95 % interval as an error bar, one line per
series and preemption model, a line at 1.0. Prints OUT.png's path.

Exit status: 0 written; 1 unreadable or wrongly shaped SUMMARY_JSON, no
workload with a ratio (results) or no scaling series (scaling), matplotlib
missing (Debian python3-matplotlib), OUT not writable; 2 usage.
"""
import json
import sys


def rows_of(d):
    """[(label, mean, lo, hi)] of a consolidated summary.json, in its order"""
    if not isinstance(d, dict) or not isinstance(d.get("workloads"), list):
        raise ValueError("not a consolidated summary.json (no 'workloads' list)")
    out = []
    for w in d["workloads"]:
        r, what = w.get("tps_ratio_auto_stock"), "auto/stock"
        if not r or r.get("mean") is None:
            r = w.get("tps_ratio_auto_measure")
            what = f"{w.get('asking_arm', 'auto')}/{w.get('baseline_arm', 'measure')}"
        if not r or r.get("mean") is None:
            continue
        lo = r.get("lo") if r.get("lo") is not None else r["mean"]
        hi = r.get("hi") if r.get("hi") is not None else r["mean"]
        # name, vCPUs, clock model, preemption model (where recorded): what tells two rows apart
        how = ", ".join(x for x in (w.get("model"), w.get("preempt")) if x)
        out.append((f"{w.get('name')}, {w.get('vcpus')} vCPU{', ' + how if how else ''}: {what}",
                    float(r["mean"]), float(lo), float(hi)))
    if not out:
        raise ValueError("no workload with a throughput ratio")
    return out


def series_of(d):
    """[(label, [(vcpus, mean, lo, hi)])] of a consolidated summary.json's
    "scaling" list, points without a ratio left out."""
    if not isinstance(d, dict) or not isinstance(d.get("scaling"), list):
        raise ValueError("not a consolidated summary.json with a 'scaling' list (analyse summarise results)")
    out = []
    for g in d["scaling"]:
        pts = []
        for p in g.get("points", []):
            r = p.get("tps_ratio") or {}
            if r.get("mean") is None:
                continue
            lo = r["lo"] if r.get("lo") is not None else r["mean"]
            hi = r["hi"] if r.get("hi") is not None else r["mean"]
            pts.append((int(p["vcpus"]), float(r["mean"]), float(lo), float(hi)))
        if pts:
            ratio = (g.get("points") or [{}])[0].get("ratio", "auto/stock")
            out.append((f"{g.get('series')} ({ratio}{', ' + g['preempt'] if g.get('preempt') else ''})", pts))
    if not out:
        raise ValueError("no scaling series with a throughput ratio")
    return out


def plot_scaling(d, path, plt):
    series = series_of(d)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    n = len(series)
    for i, (label, pts) in enumerate(series):
        # spread the series a little along x so that the error bars do not hide each other
        off = 2 ** ((i - (n - 1) / 2) * 0.03)
        xs = [p[0] * off for p in pts]
        ax.errorbar(xs, [p[1] for p in pts], yerr=[[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]],
                    marker="o", capsize=3, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log", base=2)
    vs = sorted({p[0] for _, pts in series for p in pts})
    ax.set_xticks(vs)
    ax.set_xticklabels([str(v) for v in vs])
    ax.set_xlabel("vCPUs (parallel guest time: each busy vCPU at one instruction per guest ns)")
    ax.set_ylabel("throughput ratio, geometric mean and 95 % interval")
    ax.set_title("pg_rseq in the kernel lab: auto/stock against the vCPU count", fontsize=10)
    ax.grid(linestyle=":", linewidth=0.5)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")


def main(argv):
    if len(argv) == 4 and argv[1] == "scaling":
        with open(argv[2]) as f:
            try:
                d = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{argv[2]}: not JSON: {e}")
        series_of(d)
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise OSError("matplotlib is not installed (apt-get install python3-matplotlib)")
        plot_scaling(d, argv[3], plt)
        print(argv[3])
        return 0
    if len(argv) != 4 or argv[1] != "results":
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2]) as f:
        try:
            d = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{argv[2]}: not JSON: {e}")
    rows = rows_of(d)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise OSError("matplotlib is not installed (apt-get install python3-matplotlib)")
    fig, ax = plt.subplots(figsize=(8, len(rows) / 3 + 1.5), dpi=120)
    ys = list(range(len(rows)))[::-1]
    for y, (label, m, lo, hi) in zip(ys, rows):
        color = "tab:green" if lo > 1 else ("tab:red" if hi < 1 else "tab:gray")
        ax.plot([lo, hi], [y, y], color=color, linewidth=3, solid_capstyle="butt")
        ax.plot([m], [y], "o", color=color, markeredgecolor="black", markersize=5)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.set_xlabel("throughput ratio (tps / tps),\ngeometric mean and 95 % interval;\n"
                  "green: above 1, red: below 1,\ngrey: includes 1 (no difference shown)", fontsize=9)
    # Two short lines: one long title line is cut at the figure's edge,
    # since tight_layout does not wrap text.
    ax.set_title("pg_rseq in the kernel lab: patched auto over stock\n"
                 "(slice length in each workload's name)", fontsize=10)
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(argv[3], bbox_inches="tight")
    print(argv[3])
    return 0
