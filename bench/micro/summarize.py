#!/usr/bin/env python3
"""Summarize fastpath_bench's Google Benchmark JSON as Markdown.

Usage: summarize.py FASTPATH_JSON [EXTEND_SCHED_CSV] > summary.md

Input: the JSON of `fastpath_bench --benchmark_format=json` (or
--benchmark_out=FILE --benchmark_out_format=json), with or without
--benchmark_repetitions (with repetitions the median aggregate is used).
Optionally the CSV written by `extend-sched --csv`.

Output (stdout): Markdown tables
  - ns per rseq_slice_enter+leave pair per mode (CPU time and wall time),
    and the extra ns over mode off and over the empty benchmark loop;
  - nested pairs (depth 3): ns per 3 enters + 3 leaves;
  - uncontended TAS and LWLock-like acquire/release, bare and wrapped per
    mode: ns, difference wrapped - bare [ns], ratio wrapped / bare;
  - extend-sched runs (when the CSV is given): entries, entries/s, wait per
    entry, rseq counters per (lock, mode).
CPU time is the primary number: on a loaded machine wall time includes time
the benchmark thread was not running.  Exit status 1 if the JSON lacks the
expected benchmarks.
"""
import csv
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    runs = {}
    have_median = any(b.get('aggregate_name') == 'median' for b in data['benchmarks'])
    for b in data['benchmarks']:
        if b.get('error_occurred'):
            runs[b.get('run_name', b['name'])] = None
            continue
        if have_median:
            if b.get('aggregate_name') != 'median':
                continue
            name = b['run_name']
        else:
            if b.get('run_type', 'iteration') != 'iteration':
                continue
            name = b['name']
        unit = {'ns': 1.0, 'us': 1e3, 'ms': 1e6, 's': 1e9}[b.get('time_unit', 'ns')]
        runs[name] = (b['cpu_time'] * unit, b['real_time'] * unit)
    return data.get('context', {}), runs, have_median


def fmt(x, nd=2):
    return '-' if x is None else ('%.*f' % (nd, x))


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    ctx, runs, median = load(sys.argv[1])
    modes = ['off', 'measure', 'upstream', 'poc']
    need = ['empty', 'tas/bare', 'lwlock/bare'] + ['pair/' + m for m in modes]
    missing = [n for n in need if runs.get(n) is None]
    out = []
    p = out.append
    p('# fastpath_bench summary\n')
    p('Host: %s CPUs at %s MHz, load average %s; %s; library build %s.\n' % (
        ctx.get('num_cpus', '?'), ctx.get('mhz_per_cpu', '?'),
        ', '.join('%.2f' % x for x in ctx.get('load_avg', [])) or '?',
        'median of repetitions' if median else 'single run per benchmark',
        ctx.get('library_build_type', '?')))
    p('All modes run on a fake rseq area (no kernel involvement, never granted), except '
      'pair/measure-real-area. CPU time is the primary number (the benchmark thread shares '
      'the CPUs with other work, wall time is shown too); ns per iteration. '
      '"library build" is how Debian built libbenchmark itself; the benchmarked code is -O2.\n')
    empty = runs.get('empty')
    off = runs.get('pair/off')
    p('## rseq_slice_enter + rseq_slice_leave pair\n')
    p('| mode | ns per pair (CPU) | wall ns | extra ns over off | ns over empty loop |')
    p('| --- | ---: | ---: | ---: | ---: |')
    for m in modes + ['measure-real-area']:
        r = runs.get('pair/' + m)
        if r is None:
            p('| %s | - | - | - | - |' % m)
            continue
        p('| %s | %s | %s | %s | %s |' % (
            m, fmt(r[0]), fmt(r[1]), fmt(r[0] - off[0]) if off else '-',
            fmt(r[0] - empty[0]) if empty else '-'))
    p('')
    p('## nested pairs, depth 3 (3 enters + 3 leaves)\n')
    p('| mode | ns per 3 pairs (CPU) | wall ns | ns per pair |')
    p('| --- | ---: | ---: | ---: |')
    for m in modes:
        r = runs.get('nested3/' + m)
        p('| %s | %s | %s | %s |' % (m, fmt(r[0]) if r else '-', fmt(r[1]) if r else '-',
                                     fmt(r[0] / 3) if r else '-'))
    p('')
    for lock, title in (('tas', 'uncontended TAS spin lock (lock xchgb + store), acquire + release'),
                        ('lwlock', 'uncontended LWLock-like lock (CAS on uint32 + atomic sub), acquire + release')):
        bare = runs.get(lock + '/bare')
        p('## %s\n' % title)
        p('| variant | ns (CPU) | wall ns | wrapped - bare [ns] | wrapped / bare |')
        p('| --- | ---: | ---: | ---: | ---: |')
        p('| bare | %s | %s | | |' % (fmt(bare[0]) if bare else '-', fmt(bare[1]) if bare else '-'))
        for m in modes:
            r = runs.get('%s/wrapped/%s' % (lock, m))
            if r is None or bare is None:
                p('| wrapped, %s | - | - | - | - |' % m)
                continue
            p('| wrapped, %s | %s | %s | %+.2f | %.3f |' % (m, fmt(r[0]), fmt(r[1]), r[0] - bare[0],
                                                          r[0] / bare[0]))
        p('')
    if len(sys.argv) == 3:
        p('## extend-sched runs\n')
        p('| lock | mode | entries | entries/s | wait ns/entry | max wait ns | sections | requests | '
          'grants | revoked | yields | descheduled | nivcsw |')
        p('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
        with open(sys.argv[2]) as f:
            for row in csv.DictReader(f):
                mode = row['mode'] if row['mode'] == row['mode_requested'] else \
                    '%s->%s' % (row['mode_requested'], row['mode'])
                p('| %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    row['lock'], mode, row['entries'], float(row['entries_per_s']),
                    row['wait_ns_per_entry'], row['max_wait_ns'], row['sections'], row['requests'],
                    row['grants'], row['revoked'], row['yields'], row['descheduled'], row['nivcsw']))
        p('')
    if missing:
        p('**missing benchmarks: %s**\n' % ', '.join(missing))
    print('\n'.join(out))
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
