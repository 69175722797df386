/*-------------------------------------------------------------------------
 *
 * rseq_lock.h
 *	  Nested rseq time slice extension sections around PostgreSQL's locks.
 *
 * Every spinlock (SpinLockAcquire/Release and s_lock's contended path),
 * buffer header lock (LockBufHdr/UnlockBufHdr), LWLock (every acquire path
 * that ends holding the lock, LWLockRelease, LWLockDisown) and LWLock
 * wait-list lock opens a section when taken and closes it when released.
 * Sections nest; the protocol (port/rseq_slice.h, the single source of truth
 * for the kernel interface) asks the kernel for an extension only on depth
 * 0 -> 1 and withdraws the request on 1 -> 0.
 *
 * Invariant, checked in assertion-enabled builds: the nesting depth equals
 * spinlocks held + buffer header locks held + LWLocks held + wait-list
 * locks held.
 *
 * The fast path is inline and uses no atomic instruction, no system call and
 * no out-of-line call: in mode off one load and one branch per enter and per
 * leave; in mode measure the depth and one load of rseq_cs (bench/callgrind
 * has the instruction counts).  PgRseqNoteEvents() is only called when the
 * kernel granted an extension or the holder was descheduled.
 *
 * src/include/storage/rseq_lock.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RSEQ_LOCK_H
#define RSEQ_LOCK_H

/*
 * The protocol's rare calls (a cleared marker, the slow path, a grant) are
 * ordinary C calls (port/rseq_slice.h's default hooks).  They are on
 * branches the fast path almost never takes, but the compiler still has to
 * assume that every caller-saved register, vector registers included, dies
 * there; that costs a few spills in some lock functions and nothing on the
 * common path (bench/callgrind).
 */
#define RSEQ_SLICE_CALL_HOOKS 1
#define RSEQ_SLICE_CALL_ENTER_RARE(s, kind, ask) PgRseqEnterRare((kind), (ask))
#define RSEQ_SLICE_CALL_LEAVE_RARE(s, ctx) rseq_slice_leave_rare(s)
#define RSEQ_SLICE_CALL_GRANTED(s, ctx) rseq_slice_granted_now(s)

/*
 * The rare path of an entry: rseq_slice_enter_rare with the request policy
 * looked up if the fast path passed PG_RSEQ_ASK_OFF (see below).
 */
extern void PgRseqEnterRare(unsigned kind, unsigned ask);

#include "port/rseq_slice.h"

/* Lock kinds: index into rseq_slice_counters.entries and PgRseqHeld */
#define PG_RSEQ_KIND_SPINLOCK	0
#define PG_RSEQ_KIND_BUFHDR		1
#define PG_RSEQ_KIND_LWLOCK		2
#define PG_RSEQ_KIND_WAITLIST	3

/*
 * Rows of the per-tranche counters: LWLock tranche IDs 0 ..
 * PG_RSEQ_TRANCHE_ROWS - 2 map to themselves, larger IDs to the last LWLock
 * row ("other"); three more rows follow for spinlocks, buffer header locks
 * and LWLock wait-list locks.  112 rows cover PostgreSQL 18's built-in
 * tranches (IDs 0-95, LWTRANCHE_FIRST_USER_DEFINED = 96, checked in
 * rseq_lock.c) and the first 15 tranches that extensions register; every
 * backend has a copy (48 bytes a row: 5.4 kB a backend).
 */
#define PG_RSEQ_TRANCHE_ROWS	112
#define PG_RSEQ_ROW_OTHER		(PG_RSEQ_TRANCHE_ROWS - 1)
#define PG_RSEQ_ROW_SPINLOCK	(PG_RSEQ_TRANCHE_ROWS + 0)
#define PG_RSEQ_ROW_BUFHDR		(PG_RSEQ_TRANCHE_ROWS + 1)
#define PG_RSEQ_ROW_WAITLIST	(PG_RSEQ_TRANCHE_ROWS + 2)
#define PG_RSEQ_NROWS			(PG_RSEQ_TRANCHE_ROWS + 3)

#define PgRseqTrancheRow(tranche) \
	((tranche) < PG_RSEQ_ROW_OTHER ? (int) (tranche) : PG_RSEQ_ROW_OTHER)

/*
 * Counters of one row; units: counts.  acquisitions is counted on the fast
 * path (LWLock rows, every mode but off); the others only when the kernel
 * acted (out of line, PgRseqNoteEvents).
 *
 * Which row a deschedule lands on: the row of the lock whose release found
 * the marker cleared, or, for a deschedule found at a nested entry, the row
 * of the lock released when the nesting depth next drops back to the depth
 * the deschedule was found at (the lock layer keeps a depth, not a list of
 * locks).  With locks released in reverse order of acquisition, as for
 * spinlocks, buffer header locks and most LWLocks, that is the innermost
 * lock held when the thread was descheduled.  PostgreSQL also releases
 * LWLocks out of order (e.g. a buffer mapping partition lock before the
 * buffer's content lock); such a deschedule is then charged to another lock
 * that was held at the same time.  The per-row counts are "deschedules
 * found while this row's lock was the one released at that depth"; the
 * totals are exact either way.
 */
typedef struct PgRseqRowCounters
{
	uint64		acquisitions;	/* LWLock rows only; see pg_rseq docs */
	uint64		descheduled;	/* descheduled while holding (see below) */
	uint64		grants;			/* grants seen when this lock closed the
								 * outermost section */
	uint64		yields;			/* rseq_slice_yield calls at that point */
	uint64		yields_in_grant;	/* ... that returned 1: released inside
									 * the extension */
	uint64		revoked;		/* request found cleared with granted clear at
								 * that point: a grant that already ended
								 * (expired, or preempted anyway) or a clear
								 * without a grant; the cause is unknown */
} PgRseqRowCounters;

/* This backend's protocol state (depth, mode, area, counters). */
extern PGDLLIMPORT rseq_slice_state PgRseqState;

/* This backend's per-row counters (shared memory once attached). */
extern PGDLLIMPORT PgRseqRowCounters *PgRseqRows;

#ifdef USE_ASSERT_CHECKING
/* Locks held, per kind (assertion builds only). */
extern PGDLLIMPORT int PgRseqHeld[RSEQ_SLICE_MAX_KINDS];
extern void PgRseqCheckDepth(void);
#define PgRseqHeldInc(kind) (PgRseqHeld[kind]++, PgRseqCheckDepth())
#define PgRseqHeldDec(kind) (PgRseqHeld[kind]--, PgRseqCheckDepth())
#else
#define PgRseqHeldInc(kind) ((void) 0)
#define PgRseqHeldDec(kind) ((void) 0)
#endif

/*
 * PG_RSEQ_DISPATCH(off, other): rseq_slice.h's RSEQ_SLICE_DISPATCH on this
 * backend's state.  In the server binary itself (not position-independent
 * shared code, i.e. not an extension) it names PgRseqState directly, so
 * that the compare is `cmpb $1, PgRseqState(%rip)`: through a pointer the
 * compiler keeps &PgRseqState in a callee-saved register across the lock
 * (a push, a pop and a lea in every function with a section; measured with
 * objdump, gcc 12).  The "memory" clobber orders it like the protocol's
 * other compiler barriers.  x86_64 only (RSEQ_SLICE_X86_64): elsewhere the
 * plain dispatch of rseq_slice.h.
 */
#if RSEQ_SLICE_X86_64 && (defined(__PIE__) || !defined(__PIC__))
#define PG_RSEQ_DISPATCH(off, other) \
	__asm__ goto("cmpb %0, PgRseqState(%%rip)\n\tjb %l1\n\tjne %l2" \
				 : : "i"(RSEQ_SLICE_PATH_MEASURE) : "cc", "memory" : off, other)
#else
#define PG_RSEQ_DISPATCH(off, other) RSEQ_SLICE_DISPATCH(&PgRseqState, off, other)
#endif

/* Out of line, rare: attribute events of a release to a row. */
extern void PgRseqNoteEvents(int row, unsigned events);

/*
 * The same for a leave's context: a row number (spinlock, buffer header,
 * wait list: < PG_RSEQ_NROWS) or an LWLock pointer (its tranche's row).
 */
extern void PgRseqNoteEventsCtx(long ctx, unsigned events);

/*
 * Byte offset of a row in PgRseqRows and in PgRseqAskRows (both have the
 * stride sizeof(PgRseqRowCounters)).  LWLockInitialize caches it in the
 * lock (LWLock.rseq_row_off), so that an LWLock entry finds its row with one
 * load of the lock's own first bytes instead of loading the tranche,
 * clamping it and multiplying by 48: 5 instructions less per LWLock entry
 * (objdump of LWLockAcquire, gcc 12; bench/results/callgrind/README.md).
 */
#define PgRseqRowOffset(tranche) \
	((uint16) (PgRseqTrancheRow(tranche) * sizeof(PgRseqRowCounters)))
StaticAssertDecl(PG_RSEQ_NROWS * sizeof(PgRseqRowCounters) <= PG_UINT16_MAX,
				 "a row offset must fit in LWLock.rseq_row_off (uint16)");

/*
 * The request policy (GUC rseq_slice_request, rseq_lock.c): PgRseqAsk(row)
 * is 1 if an outermost section of that row asks the kernel for an
 * extension, 0 if not (process-local, rewritten when the setting changes
 * with PgRseqSetAsk; the adaptive policy also clears and sets entries at
 * run time).  Spinlock, buffer header and wait-list sections always ask:
 * their waiters spin.  Each row holds the open word of port/rseq_slice.h
 * (RSEQ_SLICE_OPEN_WORD(ask): the low byte is ask), with the stride of
 * PgRseqRows, so that the LWLock entry reads it at the lock's row offset
 * (PgRseqRowOffset) and opens its section with one store
 * (rseq_slice_enter_request_word).
 */
typedef struct PgRseqAskRow
{
	uint64		open_word;		/* RSEQ_SLICE_OPEN_WORD(ask) */
	uint8		pad[sizeof(PgRseqRowCounters) - sizeof(uint64)];
} PgRseqAskRow;

extern PGDLLIMPORT PgRseqAskRow PgRseqAskRows[PG_RSEQ_NROWS];
#define PgRseqAsk(row) ((uint8) PgRseqAskRows[row].open_word)
#define PgRseqSetAsk(row, ask) \
	(PgRseqAskRows[row].open_word = RSEQ_SLICE_OPEN_WORD(ask))
/* the open word of the row at byte offset `off` */
#define PgRseqOpenWordAtOffset(off) \
	((const volatile uint64 *) ((const char *) PgRseqAskRows + (off)))

/*
 * On the measure path the policy is only needed if the rare path runs (the
 * slow path of upstream with detail, or poc): PgRseqEnterLWLockAt passes
 * PG_RSEQ_ASK_OFF(off) instead of the policy there, and the rare path looks
 * it up (PgRseqAskOf), so that the fast path does not load it (gcc 12
 * hoisted that load above the branch: 2 instructions per LWLock entry in
 * mode measure, objdump).
 */
#define PG_RSEQ_ASK_OFF_FLAG	0x10000u
#define PG_RSEQ_ASK_OFF(off)	(PG_RSEQ_ASK_OFF_FLAG | (unsigned) (off))
#define PgRseqAskOf(ask) \
	((ask) >= PG_RSEQ_ASK_OFF_FLAG ? \
	 (unsigned) (uint8) *PgRseqOpenWordAtOffset((ask) - PG_RSEQ_ASK_OFF_FLAG) : \
	 (unsigned) (ask))

/* Enter a section for a lock of `kind` (before or right after taking it). */
static pg_attribute_always_inline void
PgRseqEnter(unsigned kind)
{
	PG_RSEQ_DISPATCH(off, other);
	rseq_slice_enter_measure_ask(&PgRseqState, kind, 1);
	goto off;
other:
	rseq_slice_enter_other_ask(&PgRseqState, kind, 1);
off:
	PgRseqHeldInc(kind);
}

/*
 * PgRseqLeaveCtx: leave the innermost section, right after the lock was
 * released, and attribute what happened to `ctx`: a row number, or for an
 * LWLock the lock's address (its tranche is only looked at when something
 * happened).
 */
static pg_attribute_always_inline void
PgRseqLeaveCtx(unsigned kind, long ctx)
{
	unsigned	ev;

	RSEQ_SLICE_BARRIER();
	PG_RSEQ_DISPATCH(off, other);
	ev = rseq_slice_leave_measure(&PgRseqState, ctx);
	goto done;
other:
	ev = rseq_slice_leave_other(&PgRseqState, ctx);
done:
	if (unlikely(ev != 0))
		PgRseqNoteEventsCtx(ctx, ev);
off:
	PgRseqHeldDec(kind);
}

/* Leave the innermost section of a spinlock-like lock counted on `row`. */
static pg_attribute_always_inline void
PgRseqLeave(unsigned kind, int row)
{
	PgRseqLeaveCtx(kind, (long) row);
}

/*
 * LWLocks: also count the acquisition against the lock's tranche (every
 * mode but off; this is also the LWLock entry count, see rseq_stats.h).
 * `off` is the tranche's row offset (PgRseqRowOffset), cached in the lock:
 * the measure path is then 2 instructions for the count (load PgRseqRows,
 * add to memory), and the request path opens an outermost section with
 * one load of the policy's open word and one store.
 */
static pg_attribute_always_inline void
PgRseqEnterLWLockAt(uint16 row_off)
{
	size_t		off = row_off;	/* widened before the dispatch: on 16 bits gcc
								 * 12 adds a movzwl (objdump) */

	PG_RSEQ_DISPATCH(off_path, other);
	rseq_slice_enter_measure_ask(&PgRseqState, PG_RSEQ_KIND_LWLOCK,
								 PG_RSEQ_ASK_OFF(off));
	goto count;
other:
	/* the rare path of the request path never needs ask: pass 0 */
	rseq_slice_enter_request_word(&PgRseqState, PG_RSEQ_KIND_LWLOCK,
								  PgRseqAskRows, off, 0);
count:
	((PgRseqRowCounters *) ((char *) PgRseqRows + off))->acquisitions++;
off_path:
	PgRseqHeldInc(PG_RSEQ_KIND_LWLOCK);
}

/* The same from a tranche ID (LWLockScanBegin: not the fast path). */
static pg_attribute_always_inline void
PgRseqEnterLWLock(uint16 tranche)
{
	PgRseqEnterLWLockAt(PgRseqRowOffset(tranche));
}

/*
 * Contended acquisition: withdraw the request of a section that holds
 * nothing yet (see rseq_slice_wait_begin), re-request once the lock is
 * held.
 */
extern void PgRseqWaitBeginSlow(int row);
extern void PgRseqWaitEndSlow(void);

/*
 * Contended path only: call PgRseqWaitBegin before each spin delay (it
 * acts once), PgRseqWaitEnd once the lock is held.  The work is out of
 * line; what stays inline is one compare each, so that the uncontended
 * acquisition keeps no extra state (PgRseqWaitEnd tests the state's
 * in_wait byte, set only by a wait in this acquisition).
 */
static pg_attribute_always_inline void
PgRseqWaitBegin(int row)
{
	if (PgRseqState.path != RSEQ_SLICE_PATH_OFF && !PgRseqState.in_wait)
		PgRseqWaitBeginSlow(row);
}

static pg_attribute_always_inline void
PgRseqWaitEnd(void)
{
	if (unlikely(PgRseqState.in_wait))
		PgRseqWaitEndSlow();
}

#endif							/* RSEQ_LOCK_H */
