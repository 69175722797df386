/*-------------------------------------------------------------------------
 *
 * rseq_stats.h
 *	  Shared-memory counters of the rseq slice extension lock layer, and the
 *	  interface the pg_rseq extension reads them through.
 *
 * Locking: each backend slot is written only by its backend, with plain
 * 64-bit stores and no lock (like pg_wait_sampling's per-proc arrays); a
 * reader may see a value one event old.  PgRseqShared->mutex protects the
 * cluster totals, the per-slot baselines written by a reset, and slot
 * hand-over: a backend that takes a slot adds what the slot's previous
 * owner counted (minus its baseline) to the totals, then zeroes the slot.
 * So totals + the live slots = everything counted since the last reset,
 * including backends that have exited.
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
#include "storage/rseq_lock.h"
#include "storage/spin.h"

/*
 * Bumped whenever the layout below or the meaning of a counter changes;
 * extensions check it.  3: requests is a detail counter (counted only
 * while rseq_slice_detail is on), rseq_slice_request.
 */
#define PG_RSEQ_LAYOUT_VERSION	3

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
	/* written under PgRseqShared->mutex by reset and slot hand-over */
	TimestampTz reset_time;		/* last reset seen by this slot, or 0 */
	rseq_slice_counters c_base;
	PgRseqRowCounters rows_base[PG_RSEQ_NROWS];
} PgRseqSlot;

typedef struct PgRseqShared
{
	uint32		layout_version; /* PG_RSEQ_LAYOUT_VERSION */
	int			nslots;
	slock_t		mutex;			/* see file header */
	TimestampTz stats_reset;	/* last reset, or server start */
	rseq_slice_counters totals; /* of slots handed over since reset */
	PgRseqRowCounters total_rows[PG_RSEQ_NROWS];
	/* what the postmaster found at start-up */
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

/*
 * Reading (for the pg_rseq extension).  All counters are counts since the
 * last reset; they are made consistent (revoked <=
 * grants, yields <= grants, yields_in_grant <= yields) because a reader can
 * race with the owner between two related increments.
 */
extern int	PgRseqNumSlots(void);
/* Copy live slot i (0 .. PgRseqNumSlots() - 1); false if free. */
extern bool PgRseqSnapshotBackend(int i, PgRseqBackendSnapshot *out);
/*
 * Cluster totals: all backends ever since the last reset.  rows has
 * PG_RSEQ_NROWS entries; spinlock, buffer header and wait-list rows get
 * their acquisitions from the per-kind entry counts.
 */
extern void PgRseqSnapshotTotals(rseq_slice_counters *c,
								 PgRseqRowCounters *rows,
								 TimestampTz *stats_reset);
/* Reset all counters (every slot and the totals); returns the reset time. */
extern TimestampTz PgRseqResetCounters(void);
/* Row name: tranche name, "spinlock", "buffer header", "wait list", "other". */
extern const char *PgRseqRowName(int row);

#endif							/* RSEQ_STATS_H */
