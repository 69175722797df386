/*-------------------------------------------------------------------------
 *
 * rseq_stats.h
 *	  Shared-memory counters of the rseq slice extension lock layer, and the
 *	  interface the pg_rseq extension reads them through.
 *
 * Locking.  Each backend slot is written by its backend only, with plain
 * 64-bit stores and no lock (like pg_wait_sampling's per-proc arrays); a
 * reader may see a value one event old.  No LWLock is involved anywhere:
 * connection start-up and exit never wait for a reader.
 *
 *	- A backend that exits (PgRseqDetachBackend) adds its slot's raw counts
 *	  to `exited` and `exited_rows` and zeroes the slot; a backend that
 *	  starts (PgRseqAttachBackend) takes a zeroed slot.  Both hold `mutex`
 *	  (a spinlock, a few hundred instructions at most) and bump
 *	  `generation` to an odd value before and to an even one after.
 *	- A reset (PgRseqResetCounters) records the raw sums of that moment in
 *	  `base` and `base_rows` (under `mutex`), and each slot's own counts in
 *	  its `c_base` (for the per-backend view).
 *	- Readers copy `exited` and the bases under `mutex`, sum the slots
 *	  without it, and start again if `generation` moved meanwhile (a slot
 *	  changed hands): totals = exited + live slots - base, exact for
 *	  everything counted since the last reset, exited backends included.
 *
 * Installed with the patched server's headers: an extension built with
 * PGXS against the patched server includes this file; against a stock
 * server it is absent (test with __has_include).
 *
 * src/include/storage/rseq_stats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RSEQ_STATS_H
#define RSEQ_STATS_H

#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "storage/rseq_lock.h"
#include "storage/spin.h"

/*
 * Bumped whenever the layout below or the meaning of a counter changes;
 * the reading functions check the caller's value (ERROR on a mismatch).
 * 3: requests is a detail counter (counted only while rseq_slice_detail is
 * on), rseq_slice_request.  4: no RseqStats LWLock, exited backends'
 * counts in exited/exited_rows, one reset baseline for the rows, 112
 * LWLock tranche rows.
 */
#define PG_RSEQ_LAYOUT_VERSION	4

/* One backend's slot, indexed by its ProcNumber. */
typedef struct PgRseqSlot
{
	/* written by the owning backend only */
	int			pid;			/* 0: free */
	int			backend_type;	/* BackendType */
	uint8		mode;			/* rseq_slice_mode in force */
	TimestampTz start_time;
	rseq_slice_counters c;
	PgRseqRowCounters rows[PG_RSEQ_NROWS];
	/* written by a reset, and zeroed by the owner at attach, under mutex */
	TimestampTz reset_time;		/* last reset seen by this slot, or 0 */
	rseq_slice_counters c_base; /* c at the last reset; entries[LWLOCK]: the
								 * sum of rows[].acquisitions then */
} PgRseqSlot;

typedef struct PgRseqShared
{
	uint32		layout_version; /* PG_RSEQ_LAYOUT_VERSION */
	int			nslots;			/* 0 where the lock layer is compiled out */
	slock_t		mutex;			/* see file header */
	pg_atomic_uint64 generation;	/* odd while a slot changes hands */
	/* under mutex */
	TimestampTz stats_reset;	/* last reset, or server start */
	rseq_slice_counters exited; /* raw counts of exited backends; max_depth:
								 * since the last reset */
	rseq_slice_counters base;	/* raw totals at the last reset */
	PgRseqRowCounters exited_rows[PG_RSEQ_NROWS];
	PgRseqRowCounters base_rows[PG_RSEQ_NROWS];
	/* what the postmaster found at start-up (written once) */
	rseq_slice_probe probe;
	uint8		startup_mode;	/* rseq_slice_mode in force at start */
	char		startup_why[256];
	PgRseqSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} PgRseqShared;

/* A consistent copy of one live backend's counters (baseline subtracted). */
typedef struct PgRseqBackendSnapshot
{
	int			pid;
	int			backend_type;	/* BackendType */
	rseq_slice_mode mode;
	TimestampTz stats_reset;	/* max(backend start, last reset) */
	rseq_slice_counters c;
} PgRseqBackendSnapshot;

/* Shared memory (NULL before it exists, e.g. in a standalone backend early) */
extern PGDLLIMPORT PgRseqShared *PgRseqShmem;

/* The mode setting (GUC rseq_slice_mode), an rseq_slice_mode. */
extern PGDLLIMPORT int rseq_slice_mode_setting;

/* GUC rseq_slice_detail: count entries, sections, nested, max_depth too. */
extern PGDLLIMPORT bool rseq_slice_detail_setting;

/*
 * GUC rseq_slice_request: which outermost sections ask for an extension
 * (rseq_lock.c assign_rseq_slice_request has the meaning of each value).
 */
#define PG_RSEQ_REQUEST_ALL			0
#define PG_RSEQ_REQUEST_SHARED		1
#define PG_RSEQ_REQUEST_SPINNING	2
#define PG_RSEQ_REQUEST_ADAPTIVE	3
extern PGDLLIMPORT int rseq_slice_request_setting;

/* Why the mode in force in this backend was chosen (one line). */
extern PGDLLIMPORT char PgRseqModeWhy[256];

extern Size PgRseqShmemSize(void);
extern void PgRseqShmemInit(void);
extern void PgRseqPostmasterSetup(void);
extern void PgRseqInitChild(bool postmaster_child);
extern void PgRseqAttachBackend(int procno, int backend_type);
extern void PgRseqDetachBackend(void);
extern void PgRseqLibraryLoaded(const char *filename);
extern void PgRseqParallelWorkerReady(void);
extern void PgRseqIdle(void);

/*
 * Reading (for the pg_rseq extension).  All counters are counts since the
 * last reset; they are made consistent (revoked <= grants, yields <=
 * grants, yields_in_grant <= yields) because a reader can race with the
 * owner between two related increments.  The macros pass the layout the
 * caller was compiled with; a module built for another layout gets an
 * ERROR instead of a copy into arrays of the wrong size (and one built
 * against layout 3 or older fails to load: the symbols were renamed).
 */
extern int	PgRseqNumSlots(void);

/* Copy live slot i (0 .. PgRseqNumSlots() - 1); false if free. */
extern bool PgRseqSnapshotBackendV(uint32 layout, int i,
								   PgRseqBackendSnapshot *out);
#define PgRseqSnapshotBackend(i, out) \
	PgRseqSnapshotBackendV(PG_RSEQ_LAYOUT_VERSION, (i), (out))

/*
 * Cluster totals: all backends ever since the last reset.  rows has nrows
 * = PG_RSEQ_NROWS entries; spinlock, buffer header and wait-list rows get
 * their acquisitions from the per-kind entry counts.
 */
extern void PgRseqSnapshotTotalsV(uint32 layout, rseq_slice_counters *c,
								  PgRseqRowCounters *rows, int nrows,
								  TimestampTz *stats_reset);
#define PgRseqSnapshotTotals(c, rows, stats_reset) \
	PgRseqSnapshotTotalsV(PG_RSEQ_LAYOUT_VERSION, (c), (rows), \
						  PG_RSEQ_NROWS, (stats_reset))

/* Reset all counters (every slot and the totals); returns the reset time. */
extern TimestampTz PgRseqResetCounters(void);

/* Row name: tranche name, "spinlock", "buffer header", "wait list", "other". */
extern const char *PgRseqRowName(int row);

#endif							/* RSEQ_STATS_H */
