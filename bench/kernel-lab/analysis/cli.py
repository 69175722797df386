"""bench/kernel-lab/analyse: the subcommands (see analyse --help)."""
import sys

USAGE = """Usage: bench/kernel-lab/analyse COMMAND [ARGS...]

The kernel lab's analysis: one command, one implementation of the paired-
ratio statistics (analysis/stats.py) behind every summary.

  parse tranche-delta BEFORE AFTER PREFIX
  parse holds TRACE --tsc-mhz MHZ --prefix PREFIX --hist FILE [--lost N]
        the per-run parsers payoff-in-guest calls in the guest between runs
        (pg_stat_rseq_tranche differences; hold times of granted sections
        from an hrtimer trace); `analyse parse --help` for the columns
  summarise lab LABDIR
        Markdown summary of a `lab` folder on stdout (lab writes it to
        LABDIR/summary.md)
  summarise payoff LABDIR [--stdout]
        LABDIR/summary.md and summary.json of a `payoff-lab` folder
  summarise clock LABDIR
        Markdown on stdout and LABDIR/summary.json of a `clock-lab` folder
  summarise procstat RUN_FOLDER [--markdown]
        what each arm of a payoff-lab run cost the guest per transaction
  summarise results SOURCES OUTDIR
        the consolidated OUTDIR/summary.md and summary.json of the run
        folders SOURCES names (bench/results/kernel-lab/summary-sources.txt)
  compare [--base ARM] [--json] LABDIR:ARM[,ARM] ... --vs LABDIR:ARM[,ARM] ...
        per-round ratios of arms to a baseline arm (default stock) pooled
        over payoff-lab folders in two groups, and the ratio of the groups
        (Welch interval and p, permutation p)
  boots [--base ARM] [--arm ARM[,ARM]] [--workload NAME] [--json] LABDIR...
  boots [--base ARM] [--json] LABDIR:ARM[,ARM] ... --vs LABDIR:ARM[,ARM] ...
        the same ratios with the boot as the unit: one ratio per boot
        folder (the geometric mean of its rounds' paired ratios), a t
        interval over boots and an exact permutation test over boots
        (with the smallest p the number of boots allows), and whether the
        claim stands at the level of boots (at least 3 boots, interval
        excluding 1, per-boot ratios on one side of 1)
  plot results SUMMARY_JSON OUT.png
        the auto/stock paired ratios with their 95 % intervals of a
        consolidated summary.json, one row per workload and vCPU count
  plot scaling SUMMARY_JSON OUT.png
        auto/stock against the vCPU count: the "scaling" series of a
        consolidated summary.json (rows of parallel guest time)

`summarize` is accepted for `summarise`. `analyse COMMAND [KIND] --help`
prints the inputs, outputs (with units) and exit statuses of that command.
Exit status: that of the command (0 done, 1 bad or missing input, 2 usage).
"""

def labdir_main(m, argv):
    """the summaries whose main takes one LABDIR: usage (exit 2) otherwise"""
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(m.__doc__, file=sys.stderr)
        return 2
    return m.main(argv[1])


SUMMARIES = {
    "lab": ("lab", labdir_main),
    "payoff": ("payoff", lambda m, argv: m.main(argv)),
    "clock": ("clock", labdir_main),
    "procstat": ("procstat", lambda m, argv: m.main(argv)),
    "results": ("results", lambda m, argv: m.main(argv)),
}


def usage(code=2):
    print(USAGE, file=sys.stderr if code else sys.stdout)
    return code


def main(argv):
    import importlib
    from .files import run_main
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        return usage(0 if len(argv) == 2 else 2)
    cmd, rest = argv[1], argv[2:]
    if cmd == "parse":
        from . import parse
        run_main(parse.main, "analyse parse", ["analyse parse"] + rest)
    if cmd in ("summarise", "summarize"):
        if not rest or rest[0] not in SUMMARIES:
            print(f"analyse summarise: want one of {', '.join(SUMMARIES)}, got {rest[0] if rest else 'nothing'}"
                  " (analyse --help)", file=sys.stderr)
            return 2
        mod, call = SUMMARIES[rest[0]]
        m = importlib.import_module("analysis." + mod)
        name = f"analyse summarise {rest[0]}"
        run_main(lambda a: call(m, a), name, [name] + rest[1:])
    if cmd == "compare":
        from . import compare
        run_main(compare.main, "analyse compare", ["analyse compare"] + rest)
    if cmd == "boots":
        from . import boots
        run_main(boots.main, "analyse boots", ["analyse boots"] + rest)
    if cmd == "plot":
        from . import plot
        run_main(plot.main, "analyse plot", ["analyse plot"] + rest)
    print(f"analyse: unknown command '{cmd}' (analyse --help)", file=sys.stderr)
    return 2
