#!/usr/bin/env python3
"""Summarize callgrind profiles of the stock and patched servers (bench/callgrind/run).

Usage:
  summarize.py --out DIR [--counters FILE] [--meta FILE] [--command TEXT]
               CONFIG=CALLGRIND_OUT[,CALLGRIND_OUT...] ...

  CONFIG        stock, off, measure, auto (any name; "stock" is the baseline
                and must be present); several files = repetitions of the
                same configuration (totals are averaged, the functions come
                from the first file).
  --counters    key=value lines from the native measure-mode run under gdb
                (lock layer counters: entries_spinlock, entries_bufhdr,
                entries_lwlock, entries_waitlist, sections, nested,
                max_depth, descheduled, mode).
  --meta        key=value lines (machine, versions, settings) for the report.
  --command     the exact command line, for the report.

Reads each callgrind.out file directly (format "callgrind format" v1,
positions line, events Ir): for every function name, the self Ir, the
number of calls made to it (sum of its `calls=` arcs) and the inclusive Ir
of those calls (the cost lines following the arcs).  Inlined code is part
of its caller (callgrind attributes by symbol): only out-of-line functions
have call counts.

Writes to DIR:
  report.md       Markdown report (method, tables, command)
  summary.csv     one line per configuration: Ir, ratio, LWLock call counts,
                  extra Ir per LWLock pair and per section
  functions.csv   per configuration and function of interest: calls, self
                  and inclusive Ir, per call
  delta.csv       per function: self Ir in every configuration (the 40
                  functions with the largest |self Ir(measure) - self Ir(stock)|)
Units: instructions (callgrind Ir), counts.  Exit status 1 on an
unreadable profile or a missing baseline.
"""
import argparse
import csv
import os
import re
import statistics
import sys

# Out-of-line functions whose call counts and per-call cost we report.
LW_ACQUIRE = ['LWLockAcquire', 'LWLockConditionalAcquire', 'LWLockAcquireOrWait']
LW_RELEASE = ['LWLockRelease', 'LWLockReleaseDisowned']
FUNCS = LW_ACQUIRE + LW_RELEASE + [
    'LWLockDisown', 'LWLockReleaseAll', 'LWLockWaitListLock', 'LWLockWakeup',
    'LWLockWaitForVar', 'LWLockUpdateVar',
    'LockBufHdr', 'WaitBufHdrUnlocked', 's_lock', 'PgRseqNoteEvents',
    'PinBuffer', 'UnpinBufferNoOwner', 'StrategyGetBuffer', 'BufferAlloc',
    'ReadBuffer_common', 'StartReadBuffer', 'MarkBufferDirty', 'FlushBuffer',
    'XLogInsertRecord', 'ReserveXLogInsertLocation', 'GetSnapshotData',
    'ProcArrayEndTransaction', 'CommitTransaction',
]

METHOD = """\
- **Workload** (`bench/callgrind/workload.sql`): one backend, no concurrency:
  create a 20000-row table with a primary key and a second index, 20000
  primary-key lookups in a fixed scattered order (PL/pgSQL loop), 5000
  updates in one transaction, 500 committed transactions (procedure with
  `COMMIT`), two aggregates over the table, `VACUUM`. shared_buffers is
  smaller than the table and its indexes, so lookups also evict buffers
  (clock sweep: buffer header locks).
- **Runs**: `postgres --single -j` (single-user mode: the only process is the
  backend, deterministic, no postmaster, no background workers) under
  `valgrind --tool=callgrind`, reading the workload on stdin. One initdb per
  installation (stock, patched); every run starts from a fresh copy of it.
  Stock = `build/pg/stock`; off/measure/auto = `build/pg/patched` with
  `-c rseq_slice_mode=off|measure|auto` (auto resolves to measure on a kernel
  without the slice extension, like 6.18; its Ir matching measure's shows it).
  The patched server logs the mode in force for off and measure; the script
  checks that line.
- **Valgrind and rseq**: valgrind does not pass the rseq system call through,
  so glibc's registration fails and the lock layer would find no rseq area
  and resolve every mode to off. `fake_rseq.so` (LD_PRELOAD, in every
  configuration, stock included) turns exactly that failed state into what
  glibc 2.36 leaves natively (`__rseq_size` = 20, cpu_id = 0). The lock layer
  then runs its measure-mode fast path (arm the marker in `rseq_cs`, check it
  at every release) instruction for instruction; the kernel never clears the
  marker under valgrind, so the rare "descheduled while holding" path is not
  taken: these are uncontended, not-preempted costs.
- **Counting**: Ir = instructions executed (callgrind's only event here), for
  the whole process: start-up, workload, shutdown checkpoint. Calls and
  inclusive Ir per function come from the call arcs in the callgrind.out
  files (`calls=` lines and the cost line after each). Inlined code belongs to
  its caller, so the spinlock sections (`SpinLockAcquire`/`Release` are
  macros) and `UnlockBufHdr` (static inline) have no call counts; the number
  of sections of each kind comes from the lock layer's own counters in a
  native run of the same workload (patched, mode measure) under gdb.
- **Extra instructions per LWLock pair** = (Ir(config) - Ir(stock)) / calls
  of `LWLockRelease` (+ `LWLockReleaseDisowned`): every lock release is one
  acquire+release pair (single backend: conditional acquires practically
  never fail). This charges all of the patch's cost to LWLock pairs; the
  per-call table isolates the LWLock functions themselves, and the residual
  estimate spreads the rest over the other sections."""

COST_RE = re.compile(r'^[0-9+\-*]')
NAME_RE = re.compile(r'^\((\d+)\)(?: (.*))?$')


class Profile:
    def __init__(self, path):
        self.path = path
        self.total = None
        self.self_ir = {}
        self.calls = {}
        self.incl_in = {}
        self.arc_calls = {}
        self._parse()

    def _parse(self):
        names = {}

        def resolve(spec):
            m = NAME_RE.match(spec)
            if not m:
                return spec
            if m.group(2) is not None:
                names[m.group(1)] = m.group(2)
            return names.get(m.group(1), '(' + m.group(1) + ')')

        fn = None
        cfn = None
        pending_call = None
        header_ok = False
        summary = None
        with open(self.path, errors='replace') as f:
            for line in f:
                line = line.rstrip('\n')
                if not header_ok:
                    if line.startswith('# callgrind format') or line.startswith('events:'):
                        header_ok = True
                    if line.startswith('events:') and line.split()[1:] != ['Ir']:
                        raise ValueError('%s: expected events: Ir, got %s' % (self.path, line))
                if pending_call is not None:
                    # the cost line of a call arc: position + inclusive Ir
                    parts = line.split()
                    ir = int(parts[1]) if len(parts) > 1 else 0
                    self.incl_in[cfn] = self.incl_in.get(cfn, 0) + ir
                    self.calls[cfn] = self.calls.get(cfn, 0) + pending_call
                    self.arc_calls[(fn, cfn)] = self.arc_calls.get((fn, cfn), 0) + pending_call
                    pending_call = None
                    continue
                if not line:
                    continue
                if COST_RE.match(line):
                    parts = line.split()
                    if len(parts) > 1 and fn is not None:
                        self.self_ir[fn] = self.self_ir.get(fn, 0) + int(parts[1])
                    continue
                if line.startswith('fn='):
                    fn = resolve(line[3:])
                elif line.startswith('cfn='):
                    cfn = resolve(line[4:])
                elif line.startswith('calls='):
                    pending_call = int(line[6:].split()[0])
                elif line.startswith('totals:'):
                    self.total = int(line.split()[1])
                elif line.startswith('summary:'):
                    summary = int(line.split()[1])
        if not header_ok:
            raise ValueError('%s: not a callgrind profile' % self.path)
        if self.total is None:
            self.total = summary
        if self.total is None:
            raise ValueError('%s: no totals line' % self.path)

    def ncalls(self, name):
        return self.calls.get(name, 0)

    def incl(self, name):
        return self.incl_in.get(name, 0)

    def selfc(self, name):
        return self.self_ir.get(name, 0)

    def arc(self, caller, callee):
        return self.arc_calls.get((caller, callee), 0)


def read_kv(path):
    out = {}
    if not path:
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#') or '=' not in line:
                continue
            k, v = line.split('=', 1)
            out[k.strip()] = v.strip()
    return out


def fmt_int(x):
    return '{:,}'.format(int(round(x)))


def fmt_f(x, nd=2):
    if x is None:
        return 'n/a'
    return ('{:,.%df}' % nd).format(x)


def per(a, b):
    return (a / b) if b else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--counters')
    ap.add_argument('--meta')
    ap.add_argument('--command', default='')
    ap.add_argument('configs', nargs='+')
    a = ap.parse_args()

    order = []
    profiles = {}
    for spec in a.configs:
        if '=' not in spec:
            sys.exit('summarize.py: bad CONFIG=FILE argument: %s' % spec)
        name, files = spec.split('=', 1)
        try:
            profiles[name] = [Profile(p) for p in files.split(',') if p]
        except (OSError, ValueError) as e:
            sys.exit('summarize.py: %s' % e)
        if not profiles[name]:
            sys.exit('summarize.py: no profile for %s' % name)
        order.append(name)
    if 'stock' not in profiles:
        sys.exit('summarize.py: the baseline configuration "stock" is missing')
    counters = read_kv(a.counters)
    meta = read_kv(a.meta)
    os.makedirs(a.out, exist_ok=True)

    def total(name):
        return statistics.mean(p.total for p in profiles[name])

    def first(name):
        return profiles[name][0]

    base = total('stock')
    sections = None
    kinds = {}
    if counters:
        for k in ('spinlock', 'bufhdr', 'lwlock', 'waitlist'):
            kinds[k] = int(counters.get('entries_' + k, 0))
        sections = sum(kinds.values())

    # ---- summary per configuration
    rows = []
    for name in order:
        p = first(name)
        acq = sum(p.ncalls(f) for f in LW_ACQUIRE)
        rel = sum(p.ncalls(f) for f in LW_RELEASE)
        d = total(name) - base
        reps = [q.total for q in profiles[name]]
        rows.append({
            'config': name,
            'reps': len(reps),
            'ir': total(name),
            'ir_min': min(reps),
            'ir_max': max(reps),
            'ratio': total(name) / base,
            'delta_ir': d,
            'lw_acquire_calls': acq,
            'lw_release_calls': rel,
            'lockbufhdr_calls': p.ncalls('LockBufHdr'),
            'delta_per_lw_pair': per(d, rel) if name != 'stock' else 0.0,
            'delta_per_section': per(d, sections) if (sections and name != 'stock') else None,
        })
    with open(os.path.join(a.out, 'summary.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow(r)

    # ---- functions of interest
    frows = []
    for name in order:
        p = first(name)
        for fn in FUNCS:
            n = p.ncalls(fn)
            if n == 0 and p.selfc(fn) == 0:
                continue
            frows.append({
                'config': name, 'function': fn, 'calls': n,
                'self_ir': p.selfc(fn), 'incl_ir': p.incl(fn),
                'self_per_call': per(p.selfc(fn), n),
                'incl_per_call': per(p.incl(fn), n),
            })
    with open(os.path.join(a.out, 'functions.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=['config', 'function', 'calls', 'self_ir',
                                          'incl_ir', 'self_per_call', 'incl_per_call'])
        w.writeheader()
        for r in frows:
            w.writerow({k: (('%.3f' % v) if isinstance(v, float) else v) for k, v in r.items()})

    # ---- where the extra instructions are (self Ir by function)
    ref = 'measure' if 'measure' in profiles else order[-1]
    allf = set()
    for name in order:
        allf |= set(first(name).self_ir)
    deltas = sorted(allf, key=lambda fn: -abs(first(ref).selfc(fn) - first('stock').selfc(fn)))[:40]
    with open(os.path.join(a.out, 'delta.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['function'] + ['self_ir_' + n for n in order] +
                   ['delta_%s_minus_stock' % n for n in order if n != 'stock'])
        for fn in deltas:
            w.writerow([fn] + [first(n).selfc(fn) for n in order] +
                       [first(n).selfc(fn) - first('stock').selfc(fn) for n in order if n != 'stock'])

    # ---- report
    L = []
    L.append('# Fast-path cost in instructions: callgrind, stock vs patched PostgreSQL')
    L.append('')
    if meta:
        L.append('| | |')
        L.append('| --- | --- |')
        for k, v in meta.items():
            L.append('| %s | %s |' % (k, v.replace('|', '\\|')))
        L.append('')
    L.append('## Method')
    L.append('')
    L.append(METHOD)
    L.append('')
    L.append('## Total instructions per configuration')
    L.append('')
    L.append('One `postgres --single` run of the workload per repetition; Ir = instructions executed by the '
             'whole backend process (start-up, workload, shutdown checkpoint). '
             'Extra = Ir(config) - Ir(stock).')
    L.append('')
    L.append('| configuration | runs | Ir (mean) | spread (max-min) | ratio / stock | extra Ir | '
             'LWLock acquire calls | LWLockRelease calls | extra Ir per LWLock pair | '
             'extra Ir per section (all kinds) |')
    L.append('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for r in rows:
        L.append('| %s | %d | %s | %s | %.5f | %s | %s | %s | %s | %s |' % (
            r['config'], r['reps'], fmt_int(r['ir']), fmt_int(r['ir_max'] - r['ir_min']),
            r['ratio'], fmt_int(r['delta_ir']), fmt_int(r['lw_acquire_calls']),
            fmt_int(r['lw_release_calls']),
            fmt_f(r['delta_per_lw_pair']) if r['config'] != 'stock' else '-',
            fmt_f(r['delta_per_section']) if r['config'] != 'stock' else '-'))
    L.append('')
    if all(n in profiles for n in ('auto', 'off', 'measure')):
        da = abs(total('auto') - total('measure'))
        do = abs(total('auto') - total('off'))
        L.append('Mode auto behaved like **%s**: |Ir(auto) - Ir(measure)| = %s, |Ir(auto) - Ir(off)| = %s.' % (
            'measure' if da < do else 'off', fmt_int(da), fmt_int(do)))
        L.append('')
    L.append('"extra Ir per LWLock pair" charges everything the patch adds (LWLock, spinlock, buffer header '
             'and wait-list sections, and any code-layout side effect) to the LWLock acquire+release pairs; '
             'pairs = calls of LWLockRelease (+ LWLockReleaseDisowned) in that run. "extra Ir per section" '
             'divides by all sections of every kind counted by the lock layer itself (below).')
    L.append('')

    if counters:
        L.append('## Sections the lock layer counted (patched, mode measure, native run)')
        L.append('')
        L.append('The same workload on a fresh copy of the same cluster, run natively under gdb; at exit '
                 '(breakpoint in `PgRseqDetachBackend`) the backend\'s counters (`*PgRseqState.ctr`) are printed. '
                 'Natively glibc registers rseq, so measure mode is real here.')
        L.append('')
        L.append('| counter | count |')
        L.append('| --- | ---: |')
        for k in ('mode', 'entries_spinlock', 'entries_bufhdr', 'entries_lwlock', 'entries_waitlist',
                  'sections', 'nested', 'max_depth', 'descheduled'):
            if k in counters:
                v = counters[k]
                L.append('| %s | %s |' % (k, fmt_int(int(v)) if v.lstrip('-').isdigit() else v))
        L.append('| all entries (sum of the four kinds) | %s |' % fmt_int(sections))
        L.append('')
        if 'measure' in profiles:
            lwc = first('measure').ncalls('LWLockRelease') + first('measure').ncalls('LWLockReleaseDisowned')
            L.append('Cross-check: LWLock entries counted natively = %s, LWLockRelease calls under callgrind '
                     '(measure) = %s.' % (fmt_int(kinds['lwlock']), fmt_int(lwc)))
            L.append('')

    L.append('## Per call: LWLock and buffer header functions')
    L.append('')
    L.append('Inclusive Ir per call = Ir of the function and everything it calls, divided by its calls '
             '(callgrind call arcs). Self = the function\'s own instructions (inlined helpers included).')
    L.append('')
    hdr = '| function | ' + ' | '.join('%s calls | %s incl/call | %s self/call' % (n, n, n) for n in order) + ' |'
    L.append(hdr)
    L.append('| --- |' + ' ---: | ---: | ---: |' * len(order))
    for fn in FUNCS:
        if all(first(n).ncalls(fn) == 0 for n in order):
            continue
        cells = []
        for n in order:
            p = first(n)
            c = p.ncalls(fn)
            cells.append('%s | %s | %s' % (fmt_int(c), fmt_f(per(p.incl(fn), c)), fmt_f(per(p.selfc(fn), c))))
        L.append('| %s | %s |' % (fn, ' | '.join(cells)))
    L.append('')

    # extra per call vs stock for the key functions
    L.append('### Extra inclusive Ir per call over stock')
    L.append('')
    keyf = ['LWLockAcquire', 'LWLockConditionalAcquire', 'LWLockAcquireOrWait', 'LWLockRelease', 'LockBufHdr']
    others = [n for n in order if n != 'stock']
    L.append('| function | ' + ' | '.join(others) + ' |')
    L.append('| --- |' + ' ---: |' * len(others))
    s = first('stock')
    for fn in keyf:
        if s.ncalls(fn) == 0:
            continue
        sp = per(s.incl(fn), s.ncalls(fn))
        cells = []
        for n in others:
            p = first(n)
            pp = per(p.incl(fn), p.ncalls(fn))
            cells.append(fmt_f(pp - sp) if (pp is not None and sp is not None) else 'n/a')
        L.append('| %s | %s |' % (fn, ' | '.join(cells)))
    # LWLock pair = LWLockAcquire + LWLockRelease
    if s.ncalls('LWLockAcquire') and s.ncalls('LWLockRelease'):
        sp = per(s.incl('LWLockAcquire'), s.ncalls('LWLockAcquire')) + per(s.incl('LWLockRelease'), s.ncalls('LWLockRelease'))
        cells = []
        for n in others:
            p = first(n)
            if p.ncalls('LWLockAcquire') and p.ncalls('LWLockRelease'):
                pp = per(p.incl('LWLockAcquire'), p.ncalls('LWLockAcquire')) + per(p.incl('LWLockRelease'), p.ncalls('LWLockRelease'))
                cells.append(fmt_f(pp - sp))
            else:
                cells.append('n/a')
        L.append('| LWLockAcquire + LWLockRelease (one pair) | %s |' % ' | '.join(cells))
    L.append('')

    # residual: extra Ir not explained by LWLock pairs, per non-LWLock section
    if counters and s.ncalls('LWLockAcquire') and s.ncalls('LWLockRelease'):
        nonlw = kinds['spinlock'] + kinds['bufhdr'] + kinds['waitlist']
        L.append('### Other sections (spinlock, buffer header, wait list): residual estimate')
        L.append('')
        L.append('extra Ir - (LWLock pairs x extra Ir per LWLockAcquire+LWLockRelease pair), divided by the '
                 'spinlock + buffer header + wait-list sections counted natively (%s). An estimate: it '
                 'also absorbs code-layout differences elsewhere in the binary.' % fmt_int(nonlw))
        L.append('')
        L.append('| configuration | extra Ir per LWLock pair (per-call) | LWLock pairs | residual extra Ir | '
                 'residual per other section |')
        L.append('| --- | ---: | ---: | ---: | ---: |')
        spair = per(s.incl('LWLockAcquire'), s.ncalls('LWLockAcquire')) + per(s.incl('LWLockRelease'), s.ncalls('LWLockRelease'))
        for n in others:
            p = first(n)
            if not (p.ncalls('LWLockAcquire') and p.ncalls('LWLockRelease')):
                continue
            ppair = per(p.incl('LWLockAcquire'), p.ncalls('LWLockAcquire')) + per(p.incl('LWLockRelease'), p.ncalls('LWLockRelease'))
            pairs = p.ncalls('LWLockRelease') + p.ncalls('LWLockReleaseDisowned')
            resid = (total(n) - base) - pairs * (ppair - spair)
            L.append('| %s | %s | %s | %s | %s |' % (n, fmt_f(ppair - spair), fmt_int(pairs), fmt_int(resid),
                                                  fmt_f(per(resid, nonlw))))
        L.append('')

    # spinlock / buffer header sections attributed in functions that take them
    attrib = []

    def unit_xlog(p):
        return p.selfc('XLogInsertRecord'), p.ncalls('XLogInsertRecord')

    def unit_lockbufhdr(p):
        return p.incl('LockBufHdr'), p.ncalls('LockBufHdr')

    def unit_sweep(p):
        return p.selfc('StrategyGetBuffer'), p.arc('StrategyGetBuffer', 'LockBufHdr')

    attrib.append(('spinlock section (insertpos_lck; info_lck at WAL page crossings)',
                   'XLogInsertRecord self Ir per call', unit_xlog))
    attrib.append(('buffer header section, enter side',
                   'LockBufHdr inclusive Ir per call', unit_lockbufhdr))
    attrib.append(('buffer header section, leave side (inline UnlockBufHdr) + sweep step',
                   'StrategyGetBuffer self Ir per LockBufHdr call it makes', unit_sweep))
    L.append('### Spinlock and buffer header sections, attributed where they are taken')
    L.append('')
    L.append('Spinlock sections are inline macros: their cost is part of the caller\'s self Ir. '
             '`XLogInsertRecord` takes one spinlock section per call (`insertpos_lck` in the inlined '
             '`ReserveXLogInsertLocation`) plus `info_lck` when a record crosses a WAL page; its LWLock '
             '(WAL insertion lock) is out of line and not part of its self Ir. A buffer header section '
             'is `LockBufHdr` (out of line, enter side) + `UnlockBufHdr` (inline, leave side); the clock '
             'sweep in `StrategyGetBuffer` locks and unlocks one buffer header per step. Differences in '
             'these per-unit figures are the section costs plus any register-allocation change in the '
             'same function.')
    L.append('')
    L.append('| section | measured as | stock | ' + ' | '.join(others) + ' | ' +
             ' | '.join('extra (%s)' % n for n in others) + ' |')
    L.append('| --- | --- | ---: |' + ' ---: |' * (2 * len(others)))
    for what, how, fnu in attrib:
        ir, n = fnu(s)
        sv = per(ir, n)
        if sv is None:
            continue
        vals = []
        for n2 in others:
            ir2, c2 = fnu(first(n2))
            vals.append(per(ir2, c2))
        L.append('| %s | %s | %s | %s | %s |' % (
            what, how, fmt_f(sv), ' | '.join(fmt_f(v) for v in vals),
            ' | '.join(fmt_f(v - sv) if v is not None else 'n/a' for v in vals)))
    L.append('')

    L.append('## Where the extra instructions are')
    L.append('')
    L.append('Self Ir by function, the 15 largest |%s - stock| (all 40 in `delta.csv`). Spinlock and buffer '
             'header sections are inline, so their cost shows up in the functions that take them.' % ref)
    L.append('')
    L.append('| function | ' + ' | '.join(order) + ' | ' + ' | '.join('%s - stock' % n for n in others) + ' |')
    L.append('| --- |' + ' ---: |' * (len(order) + len(others)))
    for fn in deltas[:15]:
        L.append('| %s | %s | %s |' % (
            fn, ' | '.join(fmt_int(first(n).selfc(fn)) for n in order),
            ' | '.join(fmt_int(first(n).selfc(fn) - s.selfc(fn)) for n in others)))
    L.append('')
    if a.command:
        L.append('## Command')
        L.append('')
        L.append('```')
        L.append(a.command)
        L.append('```')
        L.append('')
    with open(os.path.join(a.out, 'report.md'), 'w') as f:
        f.write('\n'.join(L))


if __name__ == '__main__':
    main()
