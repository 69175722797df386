"""analyse summarise results: the kernel lab's consolidated pay-off results:
bench/results/kernel-lab/summary.md and summary.json, built from the
per-run folders that a sources file names.

Usage: analyse summarise results SOURCES OUTDIR

SOURCES: a text file, one line per run folder (relative to the file's own
folder): `FOLDER [WORKLOAD,WORKLOAD...]`; without a workload list every
workload of the folder is taken. A line `@lock-path COMMIT [COMMIT...]`
names the commits that changed the lock path's instructions (objdump,
bench/callgrind): a row whose lock layer (else its checkout) does not
contain all of them (git merge-base --is-ancestor, in the git checkout that
holds SOURCES) is marked as measured on an older lock path, and one that
git does not know as unknown; without the line nothing is marked. A line
`@source FOLDER` names a run without the preemption source (its workloads
with 0 hogs: the hot lock's h0 variant, oracle2024 with --oracle-hogs 0):
its rows are not workloads of the tables but are set beside the same
workload with hogs ("preemption_source" below). `#` starts a comment; quote a folder name with
spaces (shell words). Each FOLDER must hold the summary.json that
bench/kernel-lab/analyse summarise payoff wrote (payoff-lab runs it); its
commands.log (the command) and summary.md (provenance) are read if there
(else those fields are null). Folders may use different clock models and
preemption models (each row names its own). A workload (name, vCPU count,
clock and preemption model) may come from one folder only: the sources file
says which run stands for it.

Writes OUTDIR/summary.json:
  {"clock": "icount" (the folders' clocks, "/"-joined when they differ),
   "slice_ext_nsec": N (the most common one),
   "workloads": [{"name" (the run's workload name, with " (huge pages)"
     added where its boots ran payoff-in-guest --huge-pages on, " (stock on
     V2 area)" where they ran --stock-register v2, " (huge pages, stock on
     V2 area)" for both), "vcpus",
     "clock", "rr_quantum" (0 = qemu's own
     vCPU turns, N = rr2's N-instruction turns), "par_quantum" (parallel
     guest time: instructions per vCPU and round; null for icount),
     "model" (the short label of the table: icount, rrN or parN),
     "preempt" (preemption model in force, e.g. lazy or none; null where
     the folder's summary.json does not say), "slice_ext_nsec" [ns],
     "clients", "hogs", "rounds", "secs" [s],
     "desched_per_1000_sections": {"measure": x, "auto": y} [counts],
     "desched_per_1000_xacts": {"measure", "auto"} [counts],
     "grants_per_1000_xacts" [kernel grants of the asking arm],
     "desched_ratio_auto_measure" [ratio], "grant_yield_fraction"
     (s_yielded / s_granted of the asking arm), "grant_expired_fraction",
     "tps_ratio_auto_stock": {"mean", "lo", "hi", "n"} (geometric mean of
     the per-round ratios, 95 % t interval, rounds), "tps_ratio_auto_measure",
     "tps_ratio_measure_stock" (same shape, or null),
     "tps_mean": {"stock", "measure", "auto"} [transactions/s, mean over the
     recorded runs; extend-sched: entries/s of measure and upstream],
     "waits_stock", "waits_measure": {"cpu", "lwlock", "spin"} (shares of
     the sampled active client backends on CPU, waiting on an LWLock, in
     SpinDelay, i.e. s_lock's or a buffer header lock's spin delay; null
     where not sampled),
     "tps_median_auto_stock": {"median", "lo", "hi", "conf", "n"} (the
     median of the per-round ratios with its distribution-free interval,
     analyse summarise payoff; null where the folder's summary.json predates it),
     "boots": {"k" (boot folders with the workload), "ratios" (per boot:
     the geometric mean of its rounds' auto/stock, extend-sched
     upstream/measure), "mean", "lo", "hi" (95 % t interval over boots,
     k - 1 df; null below 2 boots), "perm_p" (exact sign-flip permutation
     p over boots), "perm_min" (2 / 2^k, the smallest it can be),
     "stands" (k >= 3, interval excluding 1, every boot on one side of 1),
     "why" (the reasons it does not)} (analysis.boots; null without
     */runs.csv),
     "source" (folder),
     "commit" (of the checkout that ran it), "lock_layer" (lwlock_patch
     commit of the build, where its provenance names one, else null: the
     folder's README says), "patched_sha256" (prefix of the patched
     postgres binary's sha256), "command", "lock_path_current" (true,
     false: older than a @lock-path commit, listed in "lock_path_missing";
     null: unknown commit or no @lock-path line)}, ...],
   "targets": [every target row of the sources' summary.json files, with
     "source" and "lock_path_current"], "sources": [folders],
   "lock_path_commits": [the @lock-path commits],
   "scaling": [{"series" (workload name with a hog count hN written hH:
     the same workload scaled with the vCPUs), "preempt", "points":
     [{"vcpus", "tps_ratio_auto_stock" (or upstream/measure for
     extend-sched), "source"}], "trend": "rises" (lower bound at the most
     vCPUs above the upper bound at the fewest) | "falls" | "flat" (the
     intervals overlap) | null (one point)}]: the rows of parallel guest
     time, by vCPU count,
   "scale_targets": [{"target", "workload", "value", "goal", "met" (over
     rounds), "boots", "met_over_boots" (the goals on the boot-level
     figures, at least 3 boots)}]: on
     the parallel rows, pay-off at 8 vCPUs (auto/stock >= 1.25 with the
     lower 95 % bound > 1.10, deschedules auto/measure <= 0.1, and at
     slice_ext_nsec 5000 grant_yield_fraction >= 0.9) and nothing slower
     (lower bound of auto/stock >= 0.98),
   "preemption_models": [{"workload", "vcpus", "model", "other" (the
     other preemption model: none, full, ...), "stock_lazy_over_other"
     {"mean", "lo", "hi"} (ratio of the stock arm's mean tps with 7.2's lazy
     preemption to that under the other model, 95 % interval on the log
     ratio from each mean's standard error, Welch's degrees of freedom),
     "auto_lazy_over_stock_other" (the same for auto under lazy),
     "auto_other_over_stock_other", "spin_share_stock" {"lazy", OTHER},
     "lwlock_share_stock" {"lazy", OTHER}, "sources"}]: every (workload,
     vCPUs, clock) measured under lazy and another model,
   "preemption_source": [{"workload" (series name, hogs written hH),
     "vcpus", "model", "preempt", "clients", "hogs" (of the row with
     hogs), "stock_tps": {"without", "with"} [transactions/s, means],
     "stock_with_over_without" {"mean", "lo", "hi"} (ratio of the stock
     arm's mean tps with the hogs to that without, 95 % interval from the
     means' standard errors, as "preemption_models"),
     "desched_per_1000_sections": {"without", "with"} (measure arm),
     "lwlock_share_stock", "spin_share_stock": {"without", "with"},
     "same_boot" (true: both rows from the @source folder),
     "sources": {"without", "with"}}]: every row with 0 hogs of an
     @source folder, with the row of the same series, vCPUs, clients, clock
     and preemption model that has hogs (from the same folder if it has
     one, else from the workloads above; "with" fields null if none),
   "time_budget": [{"workload", "vcpus", "model", "preempt", "stock_tps"
     [transactions/s, mean], "stock_tps_cv" (run-to-run),
     "stock_tps_over_fewest" (stock tps over that of the same series and
     preemption model at its fewest vCPUs, "fewest_vcpus"; null on that row),
     "stock_running", "stock_lwlock", "stock_spin" (shares of the stock
     arm's sampled active client backends), "desched_per_s_measure",
     "desched_per_s_auto" [holders descheduled per guest second: per 1000
     transactions times the arm's tps / 1000], "grants_per_s" [kernel
     grants per guest second of the asking arm], "grant_expired_fraction",
     "rounds" (of auto/stock), "rounds_for_2pct" (rounds that auto/stock's
     95 % interval would need for +-2 % at this run's per-round spread,
     analysis.stats.rounds_for; null without scipy)}]: the parallel rows
     with a stock arm}
and OUTDIR/summary.md (the same as tables).

Exit status: 0 written; 1 a folder, its summary.json or a named workload is
missing or unreadable, a @lock-path commit is not a commit of that checkout, a summary.json has another shape, a workload is
named twice, or OUTDIR cannot be written; 2 usage.
Source of the fields: analyse summarise payoff (bench/kernel-lab/analyse summarise payoff
--help), which computes them from runs.csv.
"""
import collections
import json
import math
import os
import re
import shlex
import subprocess
import sys

from .stats import boots_one, rounds_for, welch


def die(msg, code=1):
    print("analyse summarise results: " + msg, file=sys.stderr)
    sys.exit(code)


def ratio(d):
    if not isinstance(d, dict) or d.get("mean") is None:
        return None
    return {"mean": d.get("mean"), "lo": d.get("lo"), "hi": d.get("hi"), "n": d.get("n")}


def first_command(folder):
    """The first command line of commands.log (payoff-lab writes it), or None."""
    p = os.path.join(folder, "commands.log")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        for line in f:
            m = re.match(r"^\S+ host load [0-9. ]+: (.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
            if line.strip():
                return line.strip()
    return None


def provenance(folder):
    """From summary.md's provenance block: the checkout commit (12 hex digits),
    the lock layer named by the build provenance (lwlock_patch X, or None) and
    the patched postgres binary's sha256 prefix; None where missing."""
    out = {"commit": None, "lock_layer": None, "patched_sha256": None}
    p = os.path.join(folder, "summary.md")
    if not os.path.exists(p):
        return out
    with open(p) as f:
        for line in f:
            m = re.search(r"checkout: .*commit ([0-9a-f]{7,40})", line)
            if m and out["commit"] is None:
                out["commit"] = m.group(1)[:12]
            m = re.search(r"build provenance: .*lwlock_patch ([0-9a-f]{7,40})", line)
            if m:
                out["lock_layer"] = m.group(1)
            m = re.search(r"postgres patched: .*sha256 ([0-9a-f]+)", line)
            if m:
                out["patched_sha256"] = m.group(1)
    return out


def read_sources(path):
    base = os.path.dirname(os.path.abspath(path))
    out, lock_path, without = [], [], []
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        die(f"cannot read sources file {path}: {e}")
    for n, line in enumerate(text.splitlines(), 1):
        try:
            parts = shlex.split(line, comments=True)
        except ValueError as e:
            die(f"{path}:{n}: {e} in '{line}'")
        if not parts:
            continue
        if parts[0] == "@lock-path":
            if len(parts) < 2:
                die(f"{path}:{n}: want `@lock-path COMMIT [COMMIT...]`, got '{line}'")
            lock_path += parts[1:]
            continue
        if parts[0] == "@source":
            if len(parts) != 2:
                die(f"{path}:{n}: want `@source FOLDER`, got '{line}'")
            without.append((parts[1], os.path.join(base, parts[1])))
            continue
        if parts[0].startswith("@"):
            die(f"{path}:{n}: unknown directive '{parts[0]}' (want @lock-path or @source)")
        if len(parts) > 2:
            die(f"{path}:{n}: want `FOLDER [WORKLOAD,...]` (quote a folder with spaces), got '{line}'")
        wls = None
        if len(parts) == 2:
            wls = parts[1].split(",")
            if "" in wls:
                die(f"{path}:{n}: an empty workload name in '{parts[1]}'")
            dup = sorted({w for w in wls if wls.count(w) > 1})
            if dup:
                die(f"{path}:{n}: workload {', '.join(dup)} named twice on one line")
        out.append((parts[0], os.path.join(base, parts[0]), wls))
    if not out:
        die(f"{path}: no folders named")
    return out, lock_path, without


def git_known(repo, c):
    """True if c names a commit of the git checkout at repo; None if git
    cannot be run."""
    try:
        return subprocess.run(["git", "-C", repo, "cat-file", "-e", c + "^{commit}"],
                              capture_output=True).returncode == 0
    except OSError:
        return None


def git_ancestor(repo, a, b):
    """True if commit a is an ancestor of (or equal to) b in repo, False if
    not, None if git does not know b (or is missing)."""
    if not git_known(repo, b):
        return None
    return subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", a, b],
                          capture_output=True).returncode == 0


def check_lock_path(repo, commits):
    """Each @lock-path commit must be a commit of the checkout (else exit 1)."""
    for c in commits:
        k = git_known(repo, c)
        if k is None:
            die("@lock-path: cannot run git")
        if not k:
            inside = subprocess.run(["git", "-C", repo, "rev-parse", "--is-inside-work-tree"],
                                    capture_output=True, text=True).returncode == 0
            if not inside:
                die(f"@lock-path: {repo} is not in a git checkout, so the lock path of its rows cannot be "
                    f"checked: run it in the checkout, or with GIT_DIR=<checkout>/.git, or drop the @lock-path line")
            die(f"@lock-path: {c} is not a commit of the checkout at {repo}")


def lock_path_state(repo, commits, row_commit):
    """(current, missing): current True/False/None (see the docstring)."""
    if not commits or not row_commit:
        return None, []
    missing = []
    for c in commits:
        a = git_ancestor(repo, c, row_commit)
        if a is None:
            return None, []
        if not a:
            missing.append(c)
    return not missing, missing


def load_summary(rel, folder):
    """A folder's summary.json, checked for the shape this script reads."""
    if not os.path.isdir(folder):
        die(f"{rel}: no such folder")
    sj = os.path.join(folder, "summary.json")
    if not os.path.isfile(sj):
        die(f"{rel}: no summary.json (run bench/kernel-lab/analyse summarise payoff {rel})")
    try:
        with open(sj) as f:
            d = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        die(f"{rel}/summary.json: cannot read it: {e}")
    if not isinstance(d, dict):
        die(f"{rel}/summary.json: not an object")
    for k in ("workloads", "targets"):
        v = d.get(k, [])
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            die(f"{rel}/summary.json: '{k}' is not a list of objects")
    for w in d.get("workloads", []):
        if not isinstance(w.get("name"), str) or not w["name"]:
            die(f"{rel}/summary.json: a workload without a name")
    return d


def fmt(x, nd=3):
    if x is None:
        return "-"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        die(f"a number was expected in a summary.json, got {x!r}")
    return f"{x:.{nd}f}"


def fmt_ratio(r):
    if not r or r.get("mean") is None:
        return "-"
    return f"{r['mean']:.3f} [{fmt(r.get('lo'))}, {fmt(r.get('hi'))}]"


def fmt_pct(x):
    if x is None:
        return "-"
    fmt(x)   # dies on a non-number
    return fmt(100 * x, 1) + " %"


def fmt_median(m):
    """The summary.md cell of a tps_median_* object ('-' if none)."""
    if not isinstance(m, dict) or m.get("median") is None:
        return "-"
    if m.get("lo") is None:
        return f"{fmt(m['median'])} (n={m.get('n')})"
    return f"{fmt(m['median'])} [{fmt(m['lo'])}, {fmt(m['hi'])}]"


def lock_path_label(current, missing, commits):
    """The summary.md cell for a row's lock path (see @lock-path)."""
    if not commits:
        return "-"
    if current is None:
        return "unknown"
    if current:
        return "current"
    return "older" + (" (no " + ", ".join(missing) + ")" if missing else "")


def model_label(clock, rrq, parq, io_hold=None):
    """The table's short name of a clock model: icount (qemu's own vCPU
    turns), rrN (icount, N-instruction turns), parN (parallel guest time,
    N-instruction rounds), else the clock's name; " (no hold)" added to an
    icount or parallel model whose boots let guest time run during 9p waits
    (io_hold "off", or None from a summary written before run-in-guest
    --io-hold: guest time between runs then depended on the host's load)."""
    if clock == "icount":
        base = "icount" if not rrq else f"rr{rrq}"
    elif clock == "parallel":
        base = f"par{parq}" if parq else "parallel"
    else:
        return str(clock)
    return base if io_hold == "on" else f"{base} (no hold)"


def series_of(name):
    """A workload's name with its hog count written hH (hotlock-h32-5us ->
    hotlock-hH-5us): payoff-lab scales the hogs with the vCPUs, so the rows
    of one series differ only in size; h0 (no hogs) stays."""
    return re.sub(r"-h[1-9][0-9]*-", "-hH-", name)


def waits_of(w, arm):
    x = (w.get("waits") or {}).get(arm)
    if not isinstance(x, dict):
        return None
    return {k: x.get(k) for k in ("cpu", "lwlock", "spin")}


def tps_of(w, arm):
    x = (w.get("tps") or {}).get(arm)
    return x if isinstance(x, dict) and x.get("mean") else None


def mean_ratio(a, b):
    """Ratio of two arms' mean tps ({"mean", "sd", "n"}) from separate boots,
    with a 95 % interval on the log ratio: standard errors of the means
    (sd / mean / sqrt(n) on the log scale), Welch-Satterthwaite degrees of
    freedom, scipy's t quantile (1.96 without scipy). None if either is
    missing."""
    import math
    if not a or not b or not a.get("mean") or not b.get("mean"):
        return None
    r = a["mean"] / b["mean"]
    na, nb = a.get("n") or 0, b.get("n") or 0
    if na < 2 or nb < 2 or a.get("sd") is None or b.get("sd") is None:
        return {"mean": r, "lo": None, "hi": None}
    va = (a["sd"] / a["mean"]) ** 2 / na
    vb = (b["sd"] / b["mean"]) ** 2 / nb
    lo, hi, _, _ = welch(math.log(r), va, na, vb, nb)
    if lo is None:   # no spread: the ratio itself; no scipy: the normal quantile
        se = math.sqrt(va + vb)
        lo, hi = r * math.exp(-1.96 * se), r * math.exp(1.96 * se)
    return {"mean": r, "lo": lo, "hi": hi}


def parallel_series(workloads):
    """The rows of parallel guest time by (series, preemption model), each
    list sorted by vCPU count (the grouping of "scaling" and "time_budget")."""
    groups = collections.OrderedDict()
    for w in workloads:
        if w["clock"] == "parallel":
            groups.setdefault((series_of(w["name"]), w.get("preempt")), []).append(w)
    return collections.OrderedDict((k, sorted(ws, key=lambda x: x["vcpus"] or 0)) for k, ws in groups.items())


def scaling(workloads):
    """The rows of parallel guest time by series and preemption model (see
    "scaling" in the docstring)."""
    out = []
    for (series, pre), ws in parallel_series(workloads).items():
        pts = []
        for w in ws:
            r = w["tps_ratio_auto_stock"] if w["baseline_arm"] == "stock" else w["tps_ratio_auto_measure"]
            pts.append({"vcpus": w["vcpus"], "tps_ratio": r, "ratio": f"{w['asking_arm']}/{w['baseline_arm']}",
                        "source": w["source"]})
        trend = None
        a, b = pts[0]["tps_ratio"], pts[-1]["tps_ratio"]
        if len(pts) > 1 and a and b and None not in (a.get("lo"), a.get("hi"), b.get("lo"), b.get("hi")):
            trend = "rises" if b["lo"] > a["hi"] else ("falls" if b["hi"] < a["lo"] else "flat")
        out.append({"series": series, "preempt": pre, "points": pts, "trend": trend})
    return out


def scale_targets(workloads):
    """The targets at scale on the rows of parallel guest time (see
    "scale_targets" in the docstring)."""
    t = []
    for w in workloads:
        if w["clock"] != "parallel" or w["baseline_arm"] != "stock":
            continue
        r = w["tps_ratio_auto_stock"] or {}
        label = f"{w['name']} ({w['vcpus']} vCPU, {w['model']}{', ' + w['preempt'] if w.get('preempt') else ''})"
        b = w.get("boots") if w["baseline_arm"] == "stock" else None
        if w["vcpus"] == 8:
            d, gy = w["desched_ratio_auto_measure"], w["grant_yield_fraction"]
            need_gy = w["slice_ext_nsec"] == 5000
            ok = (r.get("mean") is not None and r.get("lo") is not None and r["mean"] >= 1.25 and r["lo"] > 1.10
                  and d is not None and d <= 0.1 and (not need_gy or (gy is not None and gy >= 0.9)))
            ok_b = (ok and b is not None and b["k"] >= 3 and b["lo"] is not None and b["mean"] >= 1.25 and b["lo"] > 1.10)
            t.append({"target": "pay-off at 8 vCPUs", "workload": label,
                      "value": {"tps_auto_stock": r.get("mean"), "lo": r.get("lo"), "desched_auto_measure": d,
                                "grant_yield_fraction": gy},
                      "goal": "auto/stock >= 1.25 with lo > 1.10, desched auto/measure <= 0.1"
                              + (", grant_yield_fraction >= 0.9" if need_gy else ""), "met": ok,
                      "boots": b["k"] if b else None, "met_over_boots": ok_b})
        lo = r.get("lo")
        t.append({"target": "nothing slower at scale", "workload": label, "value": lo,
                  "goal": "lower 95 % bound of auto/stock >= 0.98", "met": lo is not None and lo >= 0.98,
                  "boots": b["k"] if b else None,
                  "met_over_boots": bool(b and b["k"] >= 3 and b["lo"] is not None and b["lo"] >= 0.98)})
    return t


def per_second(per_1000_xacts, tps):
    """events per guest second from events per 1000 transactions and tps"""
    if per_1000_xacts is None or not tps:
        return None
    return per_1000_xacts * tps / 1000


def time_budget(workloads):
    """Where the time goes on the rows of parallel guest time (see
    "time_budget" in the docstring)."""
    out = []
    for key, ws in parallel_series(workloads).items():
        # the row with a stock arm at the fewest vCPUs of this series and model
        f = next((w for w in ws if w["baseline_arm"] == "stock" and (w["tps_mean_detail"].get("stock") or {}).get("mean")), None)
        for w in ws:
            if w["baseline_arm"] != "stock":
                continue
            tm = w["tps_mean_detail"]
            st_, me, au = tm.get("stock") or {}, tm.get("measure") or {}, tm.get("auto") or {}
            r = w["tps_ratio_auto_stock"] or {}
            ws_ = w["waits_stock"] or {}
            out.append({
                "workload": w["name"], "vcpus": w["vcpus"], "model": w["model"], "preempt": w.get("preempt"),
                "stock_tps": st_.get("mean"), "stock_tps_cv": st_.get("cv"),
                "stock_tps_over_fewest": (st_["mean"] / f["tps_mean_detail"]["stock"]["mean"]
                                          if f is not None and f is not w and st_.get("mean") else None),
                "fewest_vcpus": f["vcpus"] if f is not None else None,
                "stock_running": ws_.get("cpu"), "stock_lwlock": ws_.get("lwlock"), "stock_spin": ws_.get("spin"),
                "desched_per_s_measure": per_second(w["desched_per_1000_xacts"]["measure"], me.get("mean")),
                "desched_per_s_auto": per_second(w["desched_per_1000_xacts"]["auto"], au.get("mean")),
                "grants_per_s": per_second(w["grants_per_1000_xacts"], au.get("mean")),
                "grant_expired_fraction": w["grant_expired_fraction"],
                "rounds": r.get("n"), "rounds_for_2pct": rounds_for(r.get("lo"), r.get("hi"), r.get("n"))})
    return out


def preemption_models(workloads):
    """Rows measured under lazy and under another preemption model (see
    "preemption_models")."""
    by = {}
    for w in workloads:
        if w["baseline_arm"] == "stock" and w.get("preempt"):
            by.setdefault((w["name"], w["vcpus"], w["model"]), {})[w["preempt"]] = w
    out = []
    for (name, vcpus, model), d in by.items():
        if "lazy" not in d:
            continue
        lz = d["lazy"]
        for other in sorted(m for m in d if m != "lazy"):
            ot = d[other]
            out.append({"workload": name, "vcpus": vcpus, "model": model, "other": other,
                        "stock_lazy_over_other": mean_ratio(lz["tps_mean_detail"].get("stock"), ot["tps_mean_detail"].get("stock")),
                        "auto_lazy_over_stock_other": mean_ratio(lz["tps_mean_detail"].get("auto"), ot["tps_mean_detail"].get("stock")),
                        "auto_other_over_stock_other": mean_ratio(ot["tps_mean_detail"].get("auto"), ot["tps_mean_detail"].get("stock")),
                        "spin_share_stock": {"lazy": (lz["waits_stock"] or {}).get("spin"), other: (ot["waits_stock"] or {}).get("spin")},
                        "lwlock_share_stock": {"lazy": (lz["waits_stock"] or {}).get("lwlock"), other: (ot["waits_stock"] or {}).get("lwlock")},
                        "sources": {"lazy": lz["source"], other: ot["source"]}})
    return out


def family_of(name):
    """A workload's series with any hog count written hH, h0 included
    (hotlock-h0-5us and hotlock-h32-5us -> hotlock-hH-5us): the key that
    sets a run without hogs beside the same workload with them."""
    return re.sub(r"-h[0-9]+-", "-hH-", name)


def preemption_source(without_rows, workloads):
    """Rows without the preemption source beside the same workload with it
    (see "preemption_source" in the docstring)."""
    def key(w):
        return (family_of(w["name"]), w["vcpus"], w["clients"], w["model"], w.get("preempt"))
    out = []
    for w in without_rows:
        if w["hogs"] != 0 or w["baseline_arm"] != "stock":
            continue
        k = key(w)
        same = [x for x in without_rows if x is not w and (x["hogs"] or 0) > 0 and key(x) == k]
        other = [x for x in workloads if (x["hogs"] or 0) > 0 and x["baseline_arm"] == "stock" and key(x) == k]
        h = (same or other or [None])[0]
        ws_, hs_ = w["waits_stock"] or {}, (h or {}).get("waits_stock") or {}
        out.append({"workload": family_of(w["name"]), "vcpus": w["vcpus"], "model": w["model"],
                    "preempt": w.get("preempt"), "clients": w["clients"], "hogs": h["hogs"] if h else None,
                    "stock_tps": {"without": (w["tps_mean_detail"].get("stock") or {}).get("mean"),
                                  "with": ((h["tps_mean_detail"].get("stock") or {}).get("mean") if h else None)},
                    "stock_with_over_without": (mean_ratio(h["tps_mean_detail"].get("stock"), w["tps_mean_detail"].get("stock"))
                                                if h else None),
                    "desched_per_1000_sections": {"without": w["desched_per_1000_sections"]["measure"],
                                                  "with": h["desched_per_1000_sections"]["measure"] if h else None},
                    "lwlock_share_stock": {"without": ws_.get("lwlock"), "with": hs_.get("lwlock")},
                    "spin_share_stock": {"without": ws_.get("spin"), "with": hs_.get("spin")},
                    "same_boot": bool(same),
                    "sources": {"without": w["source"], "with": h["source"] if h else None}})
    return out


def boot_level(folder, name, vcpus, base, ask):
    """auto/stock (ask/base) with the boot as the unit (analysis.boots): the
    per-boot ratios of the folder's boot folders for this workload and the
    figures over boots (see "boots" in the docstring); None when the
    folder has no */runs.csv with the workload"""
    from .boots import boot_rounds, round_values
    try:
        per = boot_rounds(folder)
    except (ValueError, OSError):
        return None
    logs = []
    for wls in per.values():
        vals = round_values(wls.get((name, vcpus), {}), [ask], base)
        if vals:
            logs.append(sum(vals) / len(vals))
    if not logs:
        return None
    o = boots_one(logs)
    r6 = lambda x: None if x is None else round(x, 6)
    return {"k": o["k"], "ratios": [r6(math.exp(x)) for x in logs], "mean": r6(o["ratio"]), "lo": r6(o["lo"]),
            "hi": r6(o["hi"]), "perm_p": r6(o["perm_p"]), "perm_min": r6(o["perm_min"]), "stands": not o["why"],
            "why": o["why"]}


def folder_rows(rel, folder, wls, repo, lock_path):
    """A run folder's summary.json, its workload rows (the fields of
    "workloads" plus "tps_mean_detail", which main drops after use) and
    whether its lock path is current."""
    d = load_summary(rel, folder)
    model = model_label(d.get("clock"), d.get("rr_quantum"), d.get("par_quantum"), d.get("io_hold"))
    cmd, prov = first_command(folder), provenance(folder)
    current, missing = lock_path_state(repo, lock_path, prov["lock_layer"] or prov["commit"])
    names = {w["name"] for w in d.get("workloads", [])}
    if wls:
        for w in wls:
            if w not in names:
                die(f"{rel}: no workload '{w}' in its summary.json (has: {', '.join(sorted(names))})")
    rows = []
    for w in d.get("workloads", []):
        if wls and w["name"] not in wls:
            continue
        # a boot with the servers on huge pages, or with the stock server
        # on the patched server's V2 rseq area, is a workload of its own
        # (payoff summary.json "huge_pages", regress2026* always ran
        # off; "stock_register")
        name, marks = w["name"], []
        if d.get("huge_pages") == "on" and not name.startswith("regress2026"):
            marks.append("huge pages")
        if d.get("stock_register") == "v2":
            marks.append("stock on V2 area")
        if marks:
            name += f" ({', '.join(marks)})"
        base_arm, ask_arm = w.get("baseline_arm", "stock"), w.get("asking_arm", "auto")
        pg = base_arm == "stock"   # extend-sched: measure vs upstream, no stock arm
        rows.append({
            "name": name, "vcpus": w.get("vcpus"),
            "clock": d.get("clock"), "rr_quantum": d.get("rr_quantum"),
            "par_quantum": d.get("par_quantum"), "io_hold": d.get("io_hold"),
            "model": model, "preempt": d.get("preempt"),
            "baseline_arm": base_arm, "asking_arm": ask_arm,
            "slice_ext_nsec": w.get("slice_ext_nsec"),
            "clients": w.get("clients"), "hogs": w.get("hogs"),
            "rounds": w.get("rounds"), "secs": w.get("secs"),
            "desched_per_1000_sections": {
                "measure": (w.get("desched_per_1000_sections") or {}).get("measure"),
                "auto": (w.get("desched_per_1000_sections") or {}).get("auto")},
            "desched_per_1000_xacts": {
                "measure": (w.get("desched_per_1000_xacts") or {}).get("measure"),
                "auto": (w.get("desched_per_1000_xacts") or {}).get("auto")},
            "grants_per_1000_xacts": w.get("grants_per_1000_xacts"),
            "desched_ratio_auto_measure": (w.get("desched_ratio_auto_measure") or {}).get("pooled"),
            "grant_yield_fraction": w.get("grant_yield_fraction"),
            "grant_expired_fraction": w.get("grant_expired_fraction"),
            "tps_ratio_auto_stock": ratio(w.get("tps_ratio_auto_stock")) if pg else None,
            "tps_ratio_auto_measure": ratio(w.get("tps_ratio_auto_measure")),
            "tps_ratio_measure_stock": ratio(w.get("tps_ratio_measure_stock")) if pg else None,
            "tps_median_auto_stock": w.get("tps_median_auto_stock") if pg else None,
            "boots": boot_level(folder, w["name"], w.get("vcpus"), base_arm, ask_arm),
            "tps_mean": {a: (tps_of(w, a) or {}).get("mean") for a in (w.get("tps") or {})},
            "tps_mean_detail": {a: tps_of(w, a) for a in (w.get("tps") or {})},
            "waits_stock": waits_of(w, "stock"), "waits_measure": waits_of(w, "measure"),
            "source": rel, "commit": prov["commit"], "lock_layer": prov["lock_layer"],
            "patched_sha256": prov["patched_sha256"], "command": cmd,
            "lock_path_current": current, "lock_path_missing": missing})
    return d, rows, current


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sources, lock_path, without = read_sources(argv[1])
    repo = os.path.dirname(os.path.abspath(argv[1]))
    check_lock_path(repo, lock_path)
    outdir = argv[2]
    workloads, targets, seen = [], [], {}
    nsecs, clocks = collections.Counter(), collections.Counter()
    for rel, folder, wls in sources:
        d, rows, current = folder_rows(rel, folder, wls, repo, lock_path)
        clocks[d.get("clock")] += 1
        for w in rows:
            key = (w["name"], w["vcpus"], w["model"], w["preempt"])
            if key in seen:
                die(f"workload {w['name']} on {w['vcpus']} vCPUs ({w['model']}"
                    f"{', ' + w['preempt'] if w['preempt'] else ''}) named twice: {seen[key]} and {rel}")
            seen[key] = rel
            nsecs[w["slice_ext_nsec"]] += 1
            workloads.append(w)
        for t in d.get("targets", []):
            wl = t.get("workload", "")
            if wls and not any(wl.startswith(w + " ") for w in wls):
                continue
            targets.append(dict(t, source=rel, lock_path_current=current))
    without_rows = []
    for rel, folder in without:
        without_rows += folder_rows(rel, folder, None, repo, lock_path)[1]
    ps = preemption_source(without_rows, workloads)
    for w in without_rows:
        w.pop("tps_mean_detail")
    scal, st, pm = scaling(workloads), scale_targets(workloads), preemption_models(workloads)
    tb = time_budget(workloads)
    for w in workloads:
        w.pop("tps_mean_detail")
    out = {"clock": "/".join(sorted(str(c) for c in clocks)), "slice_ext_nsec": nsecs.most_common(1)[0][0] if nsecs else None,
           "workloads": workloads, "targets": targets, "sources": [s[0] for s in sources],
           "lock_path_commits": lock_path, "scaling": scal, "scale_targets": st, "preemption_models": pm,
           "time_budget": tb, "preemption_source": ps}
    L = ["# Kernel lab: the pay-off results (consolidated)", "",
         "Generated by `bench/kernel-lab/analyse summarise results " + os.path.basename(argv[1]) +
         " .` from the run folders that `" + os.path.basename(argv[1]) +
         "` names (one run stands for each workload); every row links its folder, whose README has the command and commit. "
         "Clock (`model`): `icount` = 1 ns per guest instruction, one vCPU (qemu's own turns); `rrN` = icount with vCPU turns "
         "of N guest instructions, where N busy vCPUs each run at 1/N instruction per guest ns (the rr2 model); `parN` = parallel "
         "guest time, every busy vCPU at one instruction per guest ns in lock-step rounds of N instructions (the model for 2 to 8 "
         "vCPUs). `preempt` = the preemption model in force in the guest (7.2's default is lazy; `none` needs the lab kernel's "
         "preempt-none-voluntary.patch; `-` = not recorded, the kernel's default). Ratios: geometric means of per-round ratios, 95 % t intervals "
         "(the targets use these); `auto/stock median` = the median of the same per-round ratios with its distribution-free "
         "interval (order statistics, coverage >= 95 %, none below 6 rounds; robust to one slow run in one arm). "
         "Columns: `s x rounds` = seconds per pgbench run x rounds of the arms; `desched/1000 sect` = lock holders "
         "descheduled per 1000 lock sections (deschedules per transaction over the sections per transaction of a "
         "calibration run); `yielded` / `expired` = the kernel's s_yielded / s_expired over s_granted in the asking arm; "
         "`stock in SpinDelay / LWLock` = shares of the stock arm's sampled active backends; the targets are defined in "
         "docs/kernel-lab.md (\"Targets\").", ""]
    if lock_path:
        L += ["Lock path: the commits that changed its instructions are " + ", ".join(lock_path) +
              " (`@lock-path` in the sources file). `current` = the row's lock layer contains them all; "
              "`older (no X)` = measured before X, to be re-measured; `unknown` = a commit this checkout does not have.", ""]
    L += [
         "| workload | vCPUs | model | preempt | nsec | clients | hogs | s x rounds | auto/stock [95 %] | auto/measure [95 %] | measure/stock | "
         "desched/1000 sect measure / auto | desched auto/measure | yielded | expired | stock in SpinDelay / LWLock | auto/stock median [interval] | lock path | source (checkout; patched) |",
         "| --- | ---: | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for w in workloads:
        ds = w["desched_per_1000_sections"]
        ws_ = w["waits_stock"] or {}
        L.append(f"| {w['name']} | {w['vcpus']} | {w['model']} | {w['preempt'] or '-'} | {w['slice_ext_nsec']} | {w['clients']} | {w['hogs']} | "
                 f"{w['secs']} x {w['rounds']} | {fmt_ratio(w['tps_ratio_auto_stock'])} | {fmt_ratio(w['tps_ratio_auto_measure'])}"
                 f"{'' if w['baseline_arm'] == 'stock' else ' (' + w['asking_arm'] + '/' + w['baseline_arm'] + ')'} | "
                 f"{fmt_ratio(w['tps_ratio_measure_stock'])} | {fmt(ds['measure'], 4)} / {fmt(ds['auto'], 4)} | "
                 f"{fmt(w['desched_ratio_auto_measure'])} | {fmt_pct(w['grant_yield_fraction'])} | {fmt_pct(w['grant_expired_fraction'])} | "
                 f"{fmt_pct(ws_.get('spin'))} / {fmt_pct(ws_.get('lwlock'))} | "
                 f"{fmt_median(w['tps_median_auto_stock'])} | "
                 f"{lock_path_label(w['lock_path_current'], w['lock_path_missing'], lock_path)} | "
                 f"[{w['source']}]({w['source']}/README.md) ({(w['commit'] or '-')[:7]}; {w['patched_sha256'] or '-'}) |")
    if scal:
        vs = sorted({p["vcpus"] for g in scal for p in g["points"]})
        L += ["", "## Scaling with the vCPU count (parallel guest time)", "",
              "auto/stock (extend-sched: upstream/measure) by vCPU count, the rows of `par` above; a hog count is written hH "
              "(the hogs and clients scale with the vCPUs). Trend: `rises` / `falls` when the interval at the most vCPUs lies "
              "wholly above / below the one at the fewest, `flat` when they overlap.", "",
              "| series | preempt | " + " | ".join(f"{v} vCPUs" for v in vs) + " | trend |",
              "| --- | --- | " + " | ".join("---" for _ in vs) + " | --- |"]
        for g in scal:
            cell = {p["vcpus"]: fmt_ratio(p["tps_ratio"]) for p in g["points"]}
            L.append(f"| {g['series']} ({g['points'][0]['ratio']}) | {g['preempt'] or '-'} | "
                     + " | ".join(cell.get(v, "-") for v in vs) + f" | {g['trend'] or '-'} |")
    if tb:
        L += ["", "## Where the time goes at scale (parallel guest time)", "",
              "Per row of `par` above: the stock arm's mean tps, its run-to-run CV and its ratio to the same series at the "
              "fewest vCPUs (does the workload itself scale?); the shares of the stock arm's sampled active client backends "
              "running (on CPU or runnable), waiting on an LWLock, in a spin delay; holders descheduled per guest second in "
              "measure and auto (deschedules per transaction times tps); grants per guest second and the share that expired; "
              "the rounds of the run and the rounds that auto/stock's interval would need to shrink to +-2 % at the per-round "
              "spread this run showed (`analysis.stats.rounds_for`).", "",
              "| workload | vCPUs | preempt | stock tps (CV) | stock tps / fewest vCPUs | stock running / LWLock / SpinDelay | "
              "desched/s measure / auto | grants/s (expired) | rounds (for +-2 %) |",
              "| --- | ---: | --- | --- | --- | --- | --- | --- | --- |"]
        for r in tb:
            sc = "-" if r["stock_tps_over_fewest"] is None else f"{r['stock_tps_over_fewest']:.2f} (of {r['fewest_vcpus']})"
            L.append(f"| {r['workload']} | {r['vcpus']} | {r['preempt'] or '-'} | {fmt(r['stock_tps'], 0)} ({fmt_pct(r['stock_tps_cv'])}) | "
                     f"{sc} | {fmt_pct(r['stock_running'])} / {fmt_pct(r['stock_lwlock'])} / {fmt_pct(r['stock_spin'])} | "
                     f"{fmt(r['desched_per_s_measure'], 1)} / {fmt(r['desched_per_s_auto'], 1)} | "
                     f"{fmt(r['grants_per_s'], 1)} ({fmt_pct(r['grant_expired_fraction'])}) | "
                     f"{r['rounds'] if r['rounds'] is not None else '-'} ({r['rounds_for_2pct'] if r['rounds_for_2pct'] is not None else '-'}) |")
    if pm:
        L += ["", "## Lazy preemption (7.2's default) against other models", "",
              "Same workload, vCPUs and clock booted under lazy preemption and under another model (`none`: the model "
              "before 7.0; `full`: a woken task preempts at once); separate boots: ratios of the arms' mean tps, 95 % "
              "intervals from the means' standard errors. SpinDelay / LWLock = shares of the stock arm's sampled active "
              "backends in a spin delay (s_lock, buffer header locks) / an LWLock wait.", "",
              "| workload | vCPUs | model | other | stock lazy / stock other | auto lazy / stock other | auto other / stock other | "
              "stock SpinDelay lazy / other | stock LWLock lazy / other |",
              "| --- | ---: | --- | --- | --- | --- | --- | --- | --- |"]
        for r in pm:
            o = r["other"]
            L.append(f"| {r['workload']} | {r['vcpus']} | {r['model']} | {o} | {fmt_ratio(r['stock_lazy_over_other'])} | "
                     f"{fmt_ratio(r['auto_lazy_over_stock_other'])} | {fmt_ratio(r['auto_other_over_stock_other'])} | "
                     f"{fmt_pct(r['spin_share_stock']['lazy'])} / {fmt_pct(r['spin_share_stock'][o])} | "
                     f"{fmt_pct(r['lwlock_share_stock']['lazy'])} / {fmt_pct(r['lwlock_share_stock'][o])} |")
    if ps:
        L += ["", "## With and without the preemption source", "",
              "Is the workload preemption-bound? The stock arm with and without its CPU hogs (the same clients, vCPUs, clock "
              "and preemption model; `@source` runs in the sources file): mean tps and their ratio (95 % interval from the "
              "means' standard errors), holders descheduled per 1000 lock sections in measure, and the shares of the stock arm's "
              "sampled active backends waiting on an LWLock / in a spin delay. `same boot`: both from one boot, else the row "
              "with hogs is the one above.", "",
              "| workload | vCPUs | model | preempt | clients | hogs | stock tps without / with | with / without [95 %] | "
              "desched/1000 sect without / with | stock LWLock without / with | stock SpinDelay without / with | same boot | sources |",
              "| --- | ---: | --- | --- | ---: | ---: | --- | --- | --- | --- | --- | --- | --- |"]
        for r in ps:
            tp, dsc = r["stock_tps"], r["desched_per_1000_sections"]
            srcs = f"[{r['sources']['without']}]({r['sources']['without']}/README.md)"
            if r["sources"]["with"] and r["sources"]["with"] != r["sources"]["without"]:
                srcs += f", [{r['sources']['with']}]({r['sources']['with']}/README.md)"
            L.append(f"| {r['workload']} | {r['vcpus']} | {r['model']} | {r['preempt'] or '-'} | {r['clients']} | "
                     f"{r['hogs'] if r['hogs'] is not None else '-'} | {fmt(tp['without'], 0)} / {fmt(tp['with'], 0)} | "
                     f"{fmt_ratio(r['stock_with_over_without'])} | {fmt(dsc['without'], 4)} / {fmt(dsc['with'], 4)} | "
                     f"{fmt_pct(r['lwlock_share_stock']['without'])} / {fmt_pct(r['lwlock_share_stock']['with'])} | "
                     f"{fmt_pct(r['spin_share_stock']['without'])} / {fmt_pct(r['spin_share_stock']['with'])} | "
                     f"{'yes' if r['same_boot'] else 'no'} | {srcs} |")
    bl = [w for w in workloads if w.get("boots")]
    if bl:
        L += ["", "## At the level of boots", "",
              "Rounds are nested in boots (each boot folder of a run is one guest boot), so the intervals above show the "
              "spread within a boot. Here the boot is the unit (`bench/kernel-lab/analyse boots FOLDER`): the per-boot "
              "auto/stock (extend-sched: upstream/measure; the geometric mean of the boot's rounds), their geometric mean, a "
              "95 % t interval over boots (k - 1 df; none below 2 boots) and the exact sign-flip permutation p over boots "
              "with the smallest p k boots allow (2 / 2^k: no p <= 0.05 below 6 boots). `stands`: at least 3 boots, the "
              "interval excludes 1 and every boot lies on the same side of 1.", "",
              "| workload | vCPUs | model | preempt | boots | per-boot ratios | over boots [95 %] | permutation p (smallest) | stands | source |",
              "| --- | ---: | --- | --- | ---: | --- | --- | --- | --- | --- |"]
        for w in bl:
            b = w["boots"]
            iv = f"{b['mean']:.3f}" + (f" [{b['lo']:.3f}, {b['hi']:.3f}]" if b["lo"] is not None else "")
            L.append(f"| {w['name']} | {w['vcpus']} | {w['model']} | {w['preempt'] or '-'} | {b['k']} | "
                     f"{', '.join(f'{x:.3f}' for x in b['ratios'])} | {iv} | {b['perm_p']:.3f} ({b['perm_min']:.3g}) | "
                     f"{'yes' if b['stands'] else 'no'} | [{w['source']}]({w['source']}/README.md) |")
    if st:
        L += ["", "## Targets at scale (parallel guest time)", "",
              "`met` over rounds (the paired interval of the run's rounds, which are nested in its boots); `met over boots`: "
              "the same goals on the boot-level figures (at least 3 boots, the t interval over boots; section \"At the level "
              "of boots\"), the test that counts.", "",
              "| target | workload | value | goal | met | boots | met over boots |",
              "| --- | --- | --- | --- | --- | ---: | --- |"]
        for t in st:
            v = t["value"]
            if isinstance(v, dict):
                v = ", ".join(f"{k} {fmt(x, 4) if isinstance(x, float) else x}" for k, x in v.items())
            elif isinstance(v, float):
                v = fmt(v, 4)
            L.append(f"| {t['target']} | {t['workload']} | {v} | {t['goal']} | {'yes' if t['met'] else '**no**'} | "
                     f"{t['boots'] if t['boots'] is not None else '-'} | {'yes' if t['met_over_boots'] else '**no**'} |")
    L += ["", "## Targets, per run", "", "Each run's own targets (analyse summarise payoff), over its rounds: none of them is "
          "a boot-level result (section \"At the level of boots\").", "", "| target | workload | value | goal | met | source |", "| --- | --- | --- | --- | --- | --- |"]
    for t in targets:
        v = t.get("value")
        if isinstance(v, dict):
            v = ", ".join(f"{k} {fmt(x, 4) if isinstance(x, float) else x}" for k, x in v.items())
        elif isinstance(v, float):
            v = fmt(v, 4)
        older = "" if not lock_path or t.get("lock_path_current") else " (lock path: " + lock_path_label(t.get("lock_path_current"), None, lock_path) + ")"
        L.append(f"| {t.get('target')} | {t.get('workload')} | {v} | {t.get('goal')} | {'yes' if t.get('met') else '**no**'} | {t['source']}{older} |")
    try:
        os.makedirs(outdir, exist_ok=True)
        with open(os.path.join(outdir, "summary.json"), "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    except OSError as e:
        die(f"cannot write {outdir}/summary.json: {e}")
    try:
        with open(os.path.join(outdir, "summary.md"), "w") as f:
            f.write("\n".join(L) + "\n")
    except OSError as e:
        die(f"cannot write {outdir}/summary.md: {e}")
    print(f"analyse summarise results: {len(workloads)} workloads from {len(sources)} folders -> {outdir}/summary.md, summary.json")
