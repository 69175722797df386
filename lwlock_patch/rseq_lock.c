/*-------------------------------------------------------------------------
 *
 * rseq_lock.c
 *	  Set-up, shared-memory counters and GUC of the rseq time slice
 *	  extension lock layer (see storage/rseq_lock.h for the fast path and
 *	  storage/rseq_stats.h for the shared-memory layout and its locking).
 *
 * Start-up: the postmaster, before forking any child, makes sure it owns an
 * rseq registration able to use the slice extension: on Debian 12's glibc
 * 2.36 every thread has a legacy 32-byte area, which a Linux 7.x kernel
 * refuses for the extension (ENOTSUPP), so the postmaster unregisters it and
 * registers its own V2 area, then enables the extension with the prctl.
 * fork() copies both to every backend (shared/docs/rseq-slice-abi.md,
 * checked on 7.2).  It logs one line saying which mode is in force and why.
 *
 * Counters: each backend counts into its own slot (indexed by ProcNumber)
 * with plain stores.  Before it has a PGPROC, and after it gave its PGPROC
 * back, it counts into process-local counters; those it had before are
 * moved into the slot when it attaches.
 *
 * src/backend/storage/lmgr/rseq_lock.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/rseq_stats.h"
#include "storage/shmem.h"
#include "utils/guc_hooks.h"
#include "utils/timestamp.h"
#include "utils/wait_classes.h"

/* This backend's state: mode off and local counters until set up. */
static rseq_slice_counters PgRseqLocalCounters;
static PgRseqRowCounters PgRseqLocalRows[PG_RSEQ_NROWS];

rseq_slice_state PgRseqState = {
	.depth = 0,
	.mode = RSEQ_SLICE_MODE_OFF,
	.ctr = &PgRseqLocalCounters,
};
PgRseqRowCounters *PgRseqRows = PgRseqLocalRows;
PgRseqShared *PgRseqShmem = NULL;
int			rseq_slice_mode_setting = RSEQ_SLICE_MODE_AUTO;
/* GUC rseq_slice_register (PGC_POSTMASTER), an rseq_slice_register_policy */
int			rseq_slice_register_setting = RSEQ_SLICE_REGISTER_AUTO;
char		PgRseqModeWhy[256] = "not set up yet";

#ifdef USE_ASSERT_CHECKING
int			PgRseqHeld[RSEQ_SLICE_MAX_KINDS];
#endif

/* The postmaster's registration, inherited by every child. */
static rseq_slice_area_storage PgRseqArea;
/* What this process found (postmaster: after set-up; children: inherited). */
static rseq_slice_probe PgRseqProbe;
static bool PgRseqProbed = false;
/* This backend's slot, if attached. */
static PgRseqSlot *PgRseqMySlot = NULL;

#ifdef USE_ASSERT_CHECKING
/*
 * Assertion builds: nesting depth == locks held, by kind.  LWLock counts are
 * also checked against lwlock.c's own list there.
 */
void
PgRseqCheckDepth(void)
{
	Assert(PgRseqState.depth ==
		   (uint32) (PgRseqHeld[PG_RSEQ_KIND_SPINLOCK] +
					 PgRseqHeld[PG_RSEQ_KIND_BUFHDR] +
					 PgRseqHeld[PG_RSEQ_KIND_LWLOCK] +
					 PgRseqHeld[PG_RSEQ_KIND_WAITLIST]));
	Assert(PgRseqHeld[PG_RSEQ_KIND_SPINLOCK] >= 0 &&
		   PgRseqHeld[PG_RSEQ_KIND_BUFHDR] >= 0 &&
		   PgRseqHeld[PG_RSEQ_KIND_LWLOCK] >= 0 &&
		   PgRseqHeld[PG_RSEQ_KIND_WAITLIST] >= 0);
}
#endif

/*
 * PgRseqNoteEvents: attribute the events of one release (descheduled while
 * holding, grant, yield) to a row of the per-tranche counters.  Called only
 * when rseq_slice_leave() or rseq_slice_wait_begin() reported something.
 */
void
PgRseqNoteEvents(int row, unsigned events)
{
	PgRseqRowCounters *r = &PgRseqRows[row];

	if (events & RSEQ_SLICE_EV_DESCHEDULED)
		r->descheduled++;
	if (events & RSEQ_SLICE_EV_DESCHEDULED_AGAIN)
		r->descheduled++;
	if (events & RSEQ_SLICE_EV_GRANTED)
		r->grants++;
	if (events & RSEQ_SLICE_EV_YIELD_CALLED)
		r->yields++;
}

/* Resolve a mode setting against this process's probe; log if asked. */
static rseq_slice_mode
PgRseqResolve(int setting)
{
	char		why[200];
	rseq_slice_mode mode;

	mode = rseq_slice_resolve((rseq_slice_mode) setting, &PgRseqProbe,
							  why, sizeof(why));
	snprintf(PgRseqModeWhy, sizeof(PgRseqModeWhy), "%s", why);
	return mode;
}

/*
 * PgRseqPostmasterSetup: called once by the postmaster before shared memory
 * is created and before any child is forked (after shared_preload_libraries
 * are loaded, so that their use of rseq can be seen).  Decides under
 * rseq_slice_register whether to replace glibc's rseq area with a V2 one
 * of its own (auto: only if the kernel has the slice field, glibc's area
 * is legacy, the postmaster has one thread and no loaded library uses
 * glibc's area), uses glibc's area as it is otherwise (glibc 2.41+
 * registers a V2 area itself), enables the slice extension, resolves
 * rseq_slice_mode and logs one line: the mode in force, the setting, why,
 * and what the kernel offered (release, who registered rseq, legacy/v2 and
 * length, glibc's __rseq_size, what was decided about glibc's area and why,
 * feature size, slice extension state, the errno that ruled it out,
 * slice_ext_nsec if readable).
 */
void
PgRseqPostmasterSetup(void)
{
	rseq_slice_mode mode;

	(void) rseq_slice_setup_process(&PgRseqProbe, &PgRseqArea,
									(rseq_slice_register_policy) rseq_slice_register_setting);
	PgRseqProbed = true;
	mode = PgRseqResolve(rseq_slice_mode_setting);
	rseq_slice_state_init(&PgRseqState, mode, &PgRseqProbe,
						  &PgRseqLocalCounters);
	ereport(LOG,
			(errmsg("rseq slice extension: mode %s (rseq_slice_mode = %s): %s; %s",
					rseq_slice_mode_names[PgRseqState.mode],
					rseq_slice_mode_names[rseq_slice_mode_setting],
					PgRseqModeWhy, PgRseqProbe.reason)));
}

/*
 * PgRseqInitChild: called in every process right after it starts
 * (InitPostmasterChild, InitStandaloneProcess).  Forgets counts inherited
 * from the postmaster.  A postmaster child keeps the inherited registration
 * and re-checks with one prctl that the slice extension is still enabled; a
 * standalone process (initdb, single-user mode) only probes, it registers
 * nothing.
 */
void
PgRseqInitChild(bool postmaster_child)
{
	rseq_slice_mode mode;

	Assert(PgRseqState.depth == 0);
	MemSet(&PgRseqLocalCounters, 0, sizeof(PgRseqLocalCounters));
	MemSet(PgRseqLocalRows, 0, sizeof(PgRseqLocalRows));
	PgRseqMySlot = NULL;
	PgRseqRows = PgRseqLocalRows;

	if (!postmaster_child || !PgRseqProbed)
	{
		rseq_slice_probe_thread(&PgRseqProbe);
		PgRseqProbed = true;
	}
	else if (PgRseqProbe.slice == RSEQ_SLICE_EXT_ENABLED &&
			 !rseq_slice_thread_enabled())
	{
		PgRseqProbe.slice = RSEQ_SLICE_EXT_AVAILABLE;
		strlcat(PgRseqProbe.reason, "; not inherited by this child",
				sizeof(PgRseqProbe.reason));
	}
	mode = PgRseqResolve(rseq_slice_mode_setting);
	rseq_slice_state_init(&PgRseqState, mode, &PgRseqProbe,
						  &PgRseqLocalCounters);
}

/* Size of the shared counters. */
static int
PgRseqSlotCount(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS;
}

Size
PgRseqShmemSize(void)
{
	return add_size(offsetof(PgRseqShared, slots),
					mul_size(PgRseqSlotCount(), sizeof(PgRseqSlot)));
}

/* Create (postmaster, standalone backend) or attach the shared counters. */
void
PgRseqShmemInit(void)
{
	bool		found;

	PgRseqShmem = (PgRseqShared *)
		ShmemInitStruct("rseq slice extension counters", PgRseqShmemSize(),
						&found);
	if (!found)
	{
		MemSet(PgRseqShmem, 0, PgRseqShmemSize());
		PgRseqShmem->layout_version = PG_RSEQ_LAYOUT_VERSION;
		PgRseqShmem->nslots = PgRseqSlotCount();
		SpinLockInit(&PgRseqShmem->mutex);
		PgRseqShmem->stats_reset = GetCurrentTimestamp();
		if (!PgRseqProbed)
		{
			rseq_slice_probe_thread(&PgRseqProbe);
			PgRseqProbed = true;
		}
		PgRseqShmem->probe = PgRseqProbe;
		PgRseqShmem->probe.area = NULL; /* an address in another process */
		PgRseqShmem->startup_mode = PgRseqState.mode;
		strlcpy(PgRseqShmem->startup_why, PgRseqModeWhy,
				sizeof(PgRseqShmem->startup_why));
	}
}

/* Add the counts of a slot (minus its baseline) to the totals. */
static void
PgRseqFoldSlot(PgRseqSlot *slot)
{
	rseq_slice_counters *t = &PgRseqShmem->totals;
	const rseq_slice_counters *c = &slot->c;
	const rseq_slice_counters *b = &slot->c_base;
	int			i;

	for (i = 0; i < RSEQ_SLICE_MAX_KINDS; i++)
		t->entries[i] += c->entries[i] - b->entries[i];
	t->sections += c->sections - b->sections;
	t->nested += c->nested - b->nested;
	t->max_depth = Max(t->max_depth,
					   c->max_depth > 0 ? c->max_depth : (c->sections > b->sections ? 1 : 0));
	t->requests += c->requests - b->requests;
	t->grants += c->grants - b->grants;
	t->revoked += c->revoked - b->revoked;
	t->yields += c->yields - b->yields;
	t->yields_in_grant += c->yields_in_grant - b->yields_in_grant;
	t->descheduled += c->descheduled - b->descheduled;
	for (i = 0; i < PG_RSEQ_NROWS; i++)
	{
		PgRseqRowCounters *tr = &PgRseqShmem->total_rows[i];

		tr->acquisitions += slot->rows[i].acquisitions - slot->rows_base[i].acquisitions;
		tr->descheduled += slot->rows[i].descheduled - slot->rows_base[i].descheduled;
		tr->grants += slot->rows[i].grants - slot->rows_base[i].grants;
		tr->yields += slot->rows[i].yields - slot->rows_base[i].yields;
	}
}

/*
 * PgRseqAttachBackend: take slot `procno` (the backend's ProcNumber) at the
 * end of InitProcess/InitAuxiliaryProcess.  The previous owner's counts go
 * to the totals; the counts this process gathered so far move into the
 * slot.  Does nothing without shared memory or for an out-of-range procno
 * (the process then keeps counting locally, invisible to the views).
 */
void
PgRseqAttachBackend(int procno, int backend_type)
{
	PgRseqSlot *slot;

	if (PgRseqShmem == NULL || procno < 0 || procno >= PgRseqShmem->nslots)
		return;
	slot = &PgRseqShmem->slots[procno];

	LWLockAcquire(RseqStatsLock, LW_EXCLUSIVE);
	PgRseqFoldSlot(slot);
	MemSet(&slot->c_base, 0, sizeof(slot->c_base));
	MemSet(slot->rows_base, 0, sizeof(slot->rows_base));
	slot->reset_time = 0;
	slot->c = PgRseqLocalCounters;
	memcpy(slot->rows, PgRseqLocalRows, sizeof(slot->rows));
	slot->pid = MyProcPid;
	slot->backend_type = backend_type;
	slot->mode = PgRseqState.mode;
	slot->start_time = GetCurrentTimestamp();
	/* from here on, count into the slot (the release below included) */
	PgRseqState.ctr = &slot->c;
	PgRseqRows = slot->rows;
	PgRseqMySlot = slot;
	LWLockRelease(RseqStatsLock);
}

/*
 * PgRseqDetachBackend: stop counting into the slot.  Called by
 * ProcKill/AuxiliaryProcKill while holding ProcStructLock, just before the
 * PGPROC (and so the slot) can be handed to a new process.  The slot keeps
 * its counts for the totals.  Sections entered after this point (the
 * release of ProcStructLock and anything later in this process's exit) are
 * not counted.
 */
void
PgRseqDetachBackend(void)
{
	PgRseqSlot *slot = PgRseqMySlot;

	if (slot == NULL)
		return;
	MemSet(&PgRseqLocalCounters, 0, sizeof(PgRseqLocalCounters));
	MemSet(PgRseqLocalRows, 0, sizeof(PgRseqLocalRows));
	PgRseqState.ctr = &PgRseqLocalCounters;
	PgRseqRows = PgRseqLocalRows;
	PgRseqMySlot = NULL;
	slot->pid = 0;
}

/* Make related counters consistent (see rseq_stats.h). */
static void
PgRseqMakeConsistent(rseq_slice_counters *c)
{
	c->grants = Min(c->grants, c->requests);
	c->revoked = Min(c->revoked, c->grants);
	c->yields = Min(c->yields, c->grants);
	c->yields_in_grant = Min(c->yields_in_grant, c->yields);
}

/* c - base, clamped at 0 (a reader may see base newer than c). */
#define PG_RSEQ_DELTA(a, b) ((a) >= (b) ? (a) - (b) : 0)

static void
PgRseqSlotDelta(const PgRseqSlot *slot, rseq_slice_counters *out)
{
	const rseq_slice_counters *c = &slot->c;
	const rseq_slice_counters *b = &slot->c_base;
	int			i;

	/* read the dependent counters first: they only lag behind */
	out->yields_in_grant = PG_RSEQ_DELTA(c->yields_in_grant, b->yields_in_grant);
	out->yields = PG_RSEQ_DELTA(c->yields, b->yields);
	out->revoked = PG_RSEQ_DELTA(c->revoked, b->revoked);
	out->grants = PG_RSEQ_DELTA(c->grants, b->grants);
	out->requests = PG_RSEQ_DELTA(c->requests, b->requests);
	out->descheduled = PG_RSEQ_DELTA(c->descheduled, b->descheduled);
	out->nested = PG_RSEQ_DELTA(c->nested, b->nested);
	out->sections = PG_RSEQ_DELTA(c->sections, b->sections);
	for (i = 0; i < RSEQ_SLICE_MAX_KINDS; i++)
		out->entries[i] = PG_RSEQ_DELTA(c->entries[i], b->entries[i]);
	/* the fast path records depths >= 2 only; one section means depth 1 */
	out->max_depth = c->max_depth > 0 ? c->max_depth : (out->sections > 0 ? 1 : 0);
}

int
PgRseqNumSlots(void)
{
	return PgRseqShmem ? PgRseqShmem->nslots : 0;
}

/*
 * PgRseqSnapshotBackend: counts of live slot i since the later of its
 * backend's start and the last reset.  Returns false for a free slot or a
 * bad index.  Takes RseqStatsLock in shared mode.
 */
bool
PgRseqSnapshotBackend(int i, PgRseqBackendSnapshot *out)
{
	PgRseqSlot *slot;
	bool		live;

	if (PgRseqShmem == NULL || i < 0 || i >= PgRseqShmem->nslots)
		return false;
	slot = &PgRseqShmem->slots[i];
	LWLockAcquire(RseqStatsLock, LW_SHARED);
	live = slot->pid != 0;
	if (live)
	{
		out->pid = slot->pid;
		out->backend_type = slot->backend_type;
		out->mode = (rseq_slice_mode) slot->mode;
		out->stats_reset = Max(slot->start_time, slot->reset_time);
		PgRseqSlotDelta(slot, &out->c);
	}
	LWLockRelease(RseqStatsLock);
	if (live)
		PgRseqMakeConsistent(&out->c);
	return live;
}

/*
 * PgRseqSnapshotTotals: everything counted since the last reset, by every
 * backend, live or exited.  rows[PG_RSEQ_NROWS]; the spinlock, buffer
 * header and wait-list rows get their acquisitions from the per-kind entry
 * counts.  Takes RseqStatsLock in shared mode.
 */
void
PgRseqSnapshotTotals(rseq_slice_counters *c, PgRseqRowCounters *rows,
					 TimestampTz *stats_reset)
{
	int			i,
				r;

	MemSet(c, 0, sizeof(*c));
	MemSet(rows, 0, sizeof(PgRseqRowCounters) * PG_RSEQ_NROWS);
	if (stats_reset)
		*stats_reset = 0;
	if (PgRseqShmem == NULL)
		return;

	LWLockAcquire(RseqStatsLock, LW_SHARED);
	*c = PgRseqShmem->totals;
	memcpy(rows, PgRseqShmem->total_rows,
		   sizeof(PgRseqRowCounters) * PG_RSEQ_NROWS);
	if (stats_reset)
		*stats_reset = PgRseqShmem->stats_reset;
	for (i = 0; i < PgRseqShmem->nslots; i++)
	{
		PgRseqSlot *slot = &PgRseqShmem->slots[i];
		rseq_slice_counters d;
		int			k;

		PgRseqSlotDelta(slot, &d);
		for (k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
			c->entries[k] += d.entries[k];
		c->sections += d.sections;
		c->nested += d.nested;
		c->max_depth = Max(c->max_depth, d.max_depth);
		c->requests += d.requests;
		c->grants += d.grants;
		c->revoked += d.revoked;
		c->yields += d.yields;
		c->yields_in_grant += d.yields_in_grant;
		c->descheduled += d.descheduled;
		for (r = 0; r < PG_RSEQ_NROWS; r++)
		{
			rows[r].acquisitions += PG_RSEQ_DELTA(slot->rows[r].acquisitions,
												  slot->rows_base[r].acquisitions);
			rows[r].descheduled += PG_RSEQ_DELTA(slot->rows[r].descheduled,
												 slot->rows_base[r].descheduled);
			rows[r].grants += PG_RSEQ_DELTA(slot->rows[r].grants,
											slot->rows_base[r].grants);
			rows[r].yields += PG_RSEQ_DELTA(slot->rows[r].yields,
											slot->rows_base[r].yields);
		}
	}
	LWLockRelease(RseqStatsLock);

	rows[PG_RSEQ_ROW_SPINLOCK].acquisitions = c->entries[PG_RSEQ_KIND_SPINLOCK];
	rows[PG_RSEQ_ROW_BUFHDR].acquisitions = c->entries[PG_RSEQ_KIND_BUFHDR];
	rows[PG_RSEQ_ROW_WAITLIST].acquisitions = c->entries[PG_RSEQ_KIND_WAITLIST];
	PgRseqMakeConsistent(c);
}

/*
 * PgRseqResetCounters: every slot's baseline becomes its current counts and
 * the totals go to zero.  Returns the reset time.  Takes RseqStatsLock in
 * exclusive mode.  Privilege checks are the caller's (the extension).
 */
TimestampTz
PgRseqResetCounters(void)
{
	TimestampTz now = GetCurrentTimestamp();
	int			i;

	if (PgRseqShmem == NULL)
		return now;
	LWLockAcquire(RseqStatsLock, LW_EXCLUSIVE);
	for (i = 0; i < PgRseqShmem->nslots; i++)
	{
		PgRseqSlot *slot = &PgRseqShmem->slots[i];

		slot->c_base = slot->c;
		memcpy(slot->rows_base, slot->rows, sizeof(slot->rows_base));
		slot->c_base.max_depth = 0;

		/*
		 * max_depth is a high-water mark, not a sum: restart it.  This is
		 * the one store into a slot by another backend; racing with the
		 * owner it can only keep a depth reached during the reset.
		 */
		slot->c.max_depth = 0;
		slot->reset_time = now;
	}
	MemSet(&PgRseqShmem->totals, 0, sizeof(PgRseqShmem->totals));
	MemSet(PgRseqShmem->total_rows, 0, sizeof(PgRseqShmem->total_rows));
	PgRseqShmem->stats_reset = now;
	LWLockRelease(RseqStatsLock);
	return now;
}

/*
 * PgRseqRowName: name of a counters row: an LWLock tranche name (as in
 * pg_stat_activity.wait_event), "other" for tranche IDs beyond the table,
 * "spinlock", "buffer header" or "wait list".
 */
const char *
PgRseqRowName(int row)
{
	switch (row)
	{
		case PG_RSEQ_ROW_SPINLOCK:
			return "spinlock";
		case PG_RSEQ_ROW_BUFHDR:
			return "buffer header";
		case PG_RSEQ_ROW_WAITLIST:
			return "wait list";
		case PG_RSEQ_ROW_OTHER:
			return "other";
		default:
			if (row < 0 || row >= PG_RSEQ_NROWS)
				return "invalid";
			return GetLWLockIdentifier(PG_WAIT_LWLOCK, (uint16) row);
	}
}

/*
 * GUC rseq_slice_mode: off | measure | upstream | poc | auto (default auto),
 * PGC_SIGHUP.  The enum GUC machinery refuses other values with the usual
 * "invalid value for parameter" error.  A backend switches when it holds no
 * lock (rseq_slice_set_mode defers otherwise).  A setting the kernel cannot
 * honour (upstream without the extension, poc on a 7.x kernel) falls back
 * to measure; the postmaster logs that once per change.
 */
bool
check_rseq_slice_mode(int *newval, void **extra, GucSource source)
{
	return *newval >= RSEQ_SLICE_MODE_OFF && *newval <= RSEQ_SLICE_MODE_AUTO;
}

void
assign_rseq_slice_mode(int newval, void *extra)
{
	rseq_slice_mode mode;

	if (!PgRseqProbed)
		return;					/* applied at set-up */
	mode = PgRseqResolve(newval);
	(void) rseq_slice_set_mode(&PgRseqState, mode);
	if (PgRseqMySlot != NULL)
		PgRseqMySlot->mode = (uint8) mode;
	if (!IsUnderPostmaster && newval != rseq_slice_mode_setting)
		ereport(LOG,
				(errmsg("rseq slice extension: mode %s (rseq_slice_mode = %s): %s",
						rseq_slice_mode_names[mode],
						rseq_slice_mode_names[newval], PgRseqModeWhy)));
}
