/*-------------------------------------------------------------------------
 *
 * rseq_lock.c
 *	  Set-up, shared-memory counters and GUC of the rseq time slice
 *	  extension lock layer (see storage/rseq_lock.h for the fast path and
 *	  storage/rseq_stats.h for the shared-memory layout and its locking).
 *
 * Start-up: the postmaster, before forking any child, makes sure the
 * process has an rseq registration able to use the slice extension where
 * that is allowed: glibc 2.41 and later register a V2 area themselves,
 * which is kept; Debian 12's glibc 2.36 registers a legacy 32-byte area,
 * which a Linux 7.x kernel refuses for the extension (ENOTSUPP), and the
 * postmaster replaces it with its own V2 area only as rseq_slice_register
 * allows (auto: only when nothing else in the process is seen to use
 * glibc's area).  Then it enables the extension with the prctl.  fork()
 * copies both to every backend (shared/docs/rseq-slice-abi.md, checked on
 * 7.2).  It logs one line saying which mode is in force and why.
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

#include "access/parallel.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/rseq_stats.h"
#include "storage/shmem.h"
#include "utils/guc_hooks.h"
#include "utils/timestamp.h"
/* PG_WAIT_LWLOCK: utils/wait_classes.h from PostgreSQL 18 on */
#if PG_VERSION_NUM >= 180000
#include "utils/wait_classes.h"
#else
#include "utils/wait_event.h"
#endif

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
bool		rseq_slice_detail_setting = false;

/* GUC rseq_slice_register (PGC_POSTMASTER), an rseq_slice_register_policy */
int			rseq_slice_register_setting = RSEQ_SLICE_REGISTER_NEVER;

/* GUC rseq_slice_request (PGC_SIGHUP), a PG_RSEQ_REQUEST_* value */
int			rseq_slice_request_setting = PG_RSEQ_REQUEST_ALL;
char		PgRseqModeWhy[256] = "not set up yet";

/*
 * The request policy by row (storage/rseq_lock.h): 1 ask, 0 do not.
 * Written by PgRseqApplyRequestPolicy (the setting's assign hook, and the
 * process set-up) before any section can ask.  PgRseqAskBase is what the
 * setting says; PgRseqAsk may differ from it only where the adaptive
 * policy paused a row.
 */
PgRseqAskRow PgRseqAskRows[PG_RSEQ_NROWS];
static uint8 PgRseqAskBase[PG_RSEQ_NROWS];

/* Adaptive policy state, per row, this backend only (rseq_slice_adapt_step) */
static rseq_slice_adapt PgRseqAdaptState[PG_RSEQ_NROWS];

#ifdef USE_ASSERT_CHECKING
int			PgRseqHeld[RSEQ_SLICE_MAX_KINDS];
#endif

/* The postmaster's registration, inherited by every child. */
static rseq_slice_area_storage PgRseqArea;

/* What this process found (postmaster: after set-up; children: inherited). */
static rseq_slice_probe PgRseqProbe;
static bool PgRseqProbed = false;
/* a parallel worker got a setting while restoring the leader's: apply it later */
static bool PgRseqSettingsDeferred = false;

/* This backend's slot, if attached. */
static PgRseqSlot *PgRseqMySlot = NULL;

/* set by PgRseqDetachBackend: the process is exiting and asks no more */
static bool PgRseqDetached = false;

#ifdef USE_ASSERT_CHECKING
/*
 * Assertion builds: nesting depth == locks held, by kind.  LWLock counts are
 * also checked against lwlock.c's own list there.
 */
void
PgRseqCheckDepth(void)
{
	/* mode off keeps no depth (a waiting switch out of off does) */
	if (PgRseqState.mode == RSEQ_SLICE_MODE_OFF && !PgRseqState.pending)
		return;
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
/*
 * The adaptive part of rseq_slice_request = adaptive, called with the
 * events of a release of `row` (port/rseq_slice.h rseq_slice_adapt_step has
 * the rule: a row whose grants in this backend mostly end outside the
 * extension stops asking until its holders were descheduled
 * RSEQ_SLICE_ADAPT_DESCHED times since).  Rows the setting excludes stay
 * excluded.  Rare path.
 *
 * A pause or a resume is logged at DEBUG1, but not from here: this runs
 * while enclosing locks may still be held with a request window open, and
 * writing a log line is a system call, which ends a live grant.  The last
 * change is kept and logged by PgRseqNoteEvents once no section is open.
 */
static struct
{
	int			row;			/* -1: nothing to log */
	unsigned	after;			/* the new ask */
	unsigned	yielded;		/* pause: grants that ended inside */
	unsigned	grants;			/* pause: grants in the window */
	unsigned	dropped;		/* changes replaced before they were logged */
}			PgRseqAdaptLog = {.row = -1};

static void
PgRseqAdapt(int row, unsigned events)
{
	rseq_slice_adapt *a = &PgRseqAdaptState[row];
	unsigned	before = PgRseqAsk(row);
	unsigned	grants = a->grants + 1,
				yielded = a->yielded + ((events & RSEQ_SLICE_EV_YIELDED) ? 1 : 0);
	unsigned	after;

	if (PgRseqAskBase[row] == 0)
		return;
	after = rseq_slice_adapt_step(a, before, events);
	if (after == before)
		return;
	PgRseqSetAsk(row, after);
	if (PgRseqAdaptLog.row >= 0)
		PgRseqAdaptLog.dropped++;
	PgRseqAdaptLog.row = row;
	PgRseqAdaptLog.after = after;
	PgRseqAdaptLog.yielded = yielded;
	PgRseqAdaptLog.grants = grants;
}

/* Log the adaptive policy's last change; only with no section open. */
static void
PgRseqAdaptLogFlush(void)
{
	int			row = PgRseqAdaptLog.row;
	unsigned	dropped = PgRseqAdaptLog.dropped;

	PgRseqAdaptLog.row = -1;
	PgRseqAdaptLog.dropped = 0;
	if (PgRseqAdaptLog.after == 0)
		elog(DEBUG1, "rseq slice extension: %s stops asking (%u of %u grants ended inside the extension; %u earlier changes not logged)",
			 PgRseqRowName(row), PgRseqAdaptLog.yielded,
			 PgRseqAdaptLog.grants, dropped);
	else
		elog(DEBUG1, "rseq slice extension: %s asks again (%d deschedules while holding since it stopped; %u earlier changes not logged)",
			 PgRseqRowName(row), RSEQ_SLICE_ADAPT_DESCHED, dropped);
}

/* The tranche rows must hold every built-in tranche (storage/rseq_lock.h). */
StaticAssertDecl(LWTRANCHE_FIRST_USER_DEFINED + 8 <= PG_RSEQ_ROW_OTHER,
				 "PG_RSEQ_TRANCHE_ROWS too small for the built-in LWLock tranches");

/*
 * PgRseqApplyRequestPolicy: rewrite PgRseqAsk from the setting (see
 * assign_rseq_slice_request); resets the adaptive state.
 */
static void
PgRseqApplyRequestPolicy(int policy)
{
	for (int row = 0; row < PG_RSEQ_NROWS; row++)
	{
		uint8		ask = 1;

		if (row < PG_RSEQ_TRANCHE_ROWS)
		{
			if (policy == PG_RSEQ_REQUEST_SPINNING)
				ask = 0;
			else if (policy != PG_RSEQ_REQUEST_ALL &&
					 row == LWTRANCHE_LOCK_FASTPATH)
				ask = 0;
		}
		PgRseqAskBase[row] = ask;
		PgRseqSetAsk(row, ask);
		memset(&PgRseqAdaptState[row], 0, sizeof(PgRseqAdaptState[row]));
	}
}

void
PgRseqNoteEvents(int row, unsigned events)
{
	PgRseqRowCounters *r = &PgRseqRows[row];

	if (rseq_slice_request_setting == PG_RSEQ_REQUEST_ADAPTIVE)
		PgRseqAdapt(row, events);

	if (events & RSEQ_SLICE_EV_DESCHEDULED)
		r->descheduled++;
	if (events & RSEQ_SLICE_EV_DESCHEDULED_AGAIN)
		r->descheduled++;
	r->descheduled += RSEQ_SLICE_EV_MORE(events);
	if (events & RSEQ_SLICE_EV_GRANTED)
		r->grants++;
	if (events & RSEQ_SLICE_EV_YIELD_CALLED)
		r->yields++;
	if (events & RSEQ_SLICE_EV_YIELDED)
		r->yields_in_grant++;
	if (events & RSEQ_SLICE_EV_REVOKED)
		r->revoked++;

	if (unlikely(PgRseqAdaptLog.row >= 0) && PgRseqState.depth == 0 &&
		PgRseqState.mode != RSEQ_SLICE_MODE_OFF)
		PgRseqAdaptLogFlush();
}

/*
 * PgRseqWaitBeginSlow / PgRseqWaitEndSlow: the contended part of an
 * acquisition (storage/rseq_lock.h PgRseqWaitBegin/End): withdraw the
 * request of a depth-1 section while it waits, re-request once held.
 */
void
PgRseqWaitBeginSlow(int row)
{
	unsigned	ev = rseq_slice_wait_begin(&PgRseqState);

	if (ev != 0)
		PgRseqNoteEvents(row, ev);
}

void
PgRseqWaitEndSlow(void)
{
	rseq_slice_wait_end(&PgRseqState);
}

void
PgRseqNoteEventsCtx(long ctx, unsigned events)
{
	int			row;

	if (ctx >= 0 && ctx < PG_RSEQ_NROWS)
		row = (int) ctx;
	else
		row = PgRseqTrancheRow(((LWLock *) ctx)->tranche);
	PgRseqNoteEvents(row, events);
}


/*
 * PgRseqEnterRare: the rare path of an entry (storage/rseq_lock.h): a
 * cleared marker or the slow path.  `ask` is 0, 1 or PG_RSEQ_ASK_OFF(row
 * offset), which is looked up here.
 */
void
PgRseqEnterRare(unsigned kind, unsigned ask)
{
	rseq_slice_enter_rare(&PgRseqState, kind, PgRseqAskOf(ask));
}

/*
 * Where the slice extension is enabled, find out whether the kernel
 * validates slice_ctrl (rseq debug mode: at the first system call after a
 * grant not ended by rseq_slice_yield, not at every one); only then does a
 * request cleared without a visible grant need a rseq_slice_yield
 * (port/rseq_slice.h rseq_slice_kernel_validates).  Two system calls, once
 * per process start.  When the kernel cannot be asked, keep yielding.
 */
static void
PgRseqCheckValidation(void)
{
	PgRseqState.no_clear_yield = 0;
	if (PgRseqProbe.slice == RSEQ_SLICE_EXT_ENABLED &&
		rseq_slice_kernel_validates(PgRseqProbe.area,
									rseq_slice_marker_address()) == 0)
		PgRseqState.no_clear_yield = 1;
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

	/*
	 * Mode off leaves the process as it found it: no registration replaced,
	 * no prctl.  A later switch out of off (a reload) then works with what
	 * glibc registered: the preemption marker everywhere, the slice extension
	 * only where glibc's area is already V2 (glibc 2.41+).
	 */
	if (rseq_slice_mode_setting == RSEQ_SLICE_MODE_OFF)
	{
		rseq_slice_probe_thread(&PgRseqProbe);
		strlcat(PgRseqProbe.reason,
				"; rseq_slice_mode = off at start: registration left as found",
				sizeof(PgRseqProbe.reason));
	}
	else
		(void) rseq_slice_setup_process(&PgRseqProbe, &PgRseqArea,
										(rseq_slice_register_policy) rseq_slice_register_setting);
	PgRseqProbed = true;
	mode = PgRseqResolve(rseq_slice_mode_setting);
	rseq_slice_state_init(&PgRseqState, mode, &PgRseqProbe,
						  &PgRseqLocalCounters);
	PgRseqCheckValidation();
	PgRseqApplyRequestPolicy(rseq_slice_request_setting);
	rseq_slice_set_detail(&PgRseqState, rseq_slice_detail_setting);
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
	PgRseqDetached = false;
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
	PgRseqCheckValidation();
	PgRseqApplyRequestPolicy(rseq_slice_request_setting);
	rseq_slice_set_detail(&PgRseqState, rseq_slice_detail_setting);
}

/*
 * PgRseqLibraryLoaded: called by internal_load_library (dfmgr.c) after a
 * library was loaded into this process (LOAD, session_preload_libraries,
 * a function's library).  Where the postmaster replaced glibc's rseq
 * registration (rseq_slice_register = auto or always), glibc's area in
 * this process is no longer updated by the kernel: a library that uses it
 * (TCMalloc, librseq, lttng-ust, anything that references __rseq_offset)
 * reads cpu_id -1 and its rseq critical sections are never aborted.  The
 * postmaster's check at start-up cannot see libraries loaded later, so
 * each is looked for here (rseq_slice_find_rseq_user, a walk over the
 * loaded objects): a WARNING names it, once per process.  What cannot be
 * seen: a library that reaches the area without referencing
 * __rseq_offset or __rseq_size and without a known name.
 */
void
PgRseqLibraryLoaded(const char *filename)
{
	static bool warned = false;
	char		user[128];

	if (warned || !PgRseqProbed ||
		PgRseqProbe.owner != RSEQ_SLICE_OWNER_SELF || PgRseqProbe.glibc_size == 0)
		return;
	if (!rseq_slice_find_rseq_user(user, sizeof(user)))
		return;
	warned = true;
	ereport(WARNING,
			(errmsg("library \"%s\" was loaded, and %s uses glibc's rseq area, which the kernel no longer updates in this server",
					filename, user),
			 errdetail("The postmaster replaced glibc's rseq registration with its own (rseq_slice_register = %s).",
					   rseq_slice_register_setting == RSEQ_SLICE_REGISTER_ALWAYS ? "always" : "auto"),
			 errhint("Set rseq_slice_register = never and restart the server to keep glibc's rseq area.")));
}

/*
 * PgRseqIdle: a backend is about to wait for its client (PostgresMain,
 * before ReadCommand) and holds no lock: take the preemption marker out of
 * rseq_cs, so that while the backend is idle rseq_cs is 0 (as another rseq
 * user may expect between its own critical sections) and the kernel has no
 * descriptor to read at the backend's context switches (a legacy
 * registration evaluates rseq_cs at every one).  The first section of the
 * next statement finds rseq_cs 0 and re-arms the marker on the rare path
 * (rseq_slice_cleared_at_enter: nothing held, nothing counted).  Cost: one
 * store here and one rare entry per statement, instead of an arm and a
 * disarm in every outermost section (bench/results/callgrind/README.md,
 * "The marker between sections").
 */
void
PgRseqIdle(void)
{
	volatile rseq_slice_area *a = PgRseqState.area;

	if (a != NULL && PgRseqState.depth == 0 &&
		PgRseqState.mode != RSEQ_SLICE_MODE_OFF && a->rseq_cs == PgRseqState.marker)
		a->rseq_cs = 0;
}

/*
 * Slots of the shared counters: one per PGPROC.  None where the lock layer
 * is compiled out (RSEQ_SLICE_SUPPORTED is 0: every platform but x86_64
 * and aarch64 Linux), where the views are then empty.
 */
static int
PgRseqSlotCount(void)
{
#if RSEQ_SLICE_SUPPORTED
	return MaxBackends + NUM_AUXILIARY_PROCS;
#else
	return 0;
#endif
}

/*
 * PgRseqShmemSize: bytes of shared memory for the counters: a header of
 * about 11 kB and 5.6 kB per slot (sizeof(PgRseqSlot)): 0.6 MB at
 * max_connections = 100, 28 MB at 5000.
 */
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
		/*
		 * Shared memory starts zeroed (an anonymous mapping, or a new System
		 * V segment); only the header is set explicitly.
		 */
#ifdef USE_ASSERT_CHECKING
		for (Size off = 0; off < PgRseqShmemSize(); off += sizeof(uint64))
			Assert(((uint64 *) PgRseqShmem)[off / sizeof(uint64)] == 0);
#endif
		MemSet(PgRseqShmem, 0, offsetof(PgRseqShared, slots));
		PgRseqShmem->layout_version = PG_RSEQ_LAYOUT_VERSION;
		PgRseqShmem->nslots = PgRseqSlotCount();
		SpinLockInit(&PgRseqShmem->mutex);
		pg_atomic_init_u64(&PgRseqShmem->generation, 0);
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

/*
 * Bracket a change of slot ownership (caller holds mutex): readers that
 * overlap it start again.
 */
static inline void
PgRseqGenerationBump(void)
{
	pg_atomic_write_u64(&PgRseqShmem->generation,
						pg_atomic_read_u64(&PgRseqShmem->generation) + 1);
	pg_write_barrier();
}

/* a += b, field by field, for counters and rows (max_depth: the larger) */
static void
PgRseqAddCounters(rseq_slice_counters *a, const rseq_slice_counters *b)
{
	for (int k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
		a->entries[k] += b->entries[k];
	a->sections += b->sections;
	a->nested += b->nested;
	a->max_depth = Max(a->max_depth, b->max_depth);
	a->requests += b->requests;
	a->grants += b->grants;
	a->revoked += b->revoked;
	a->yields += b->yields;
	a->yields_in_grant += b->yields_in_grant;
	a->descheduled += b->descheduled;
}

static void
PgRseqAddRows(PgRseqRowCounters *a, const PgRseqRowCounters *b)
{
	for (int r = 0; r < PG_RSEQ_NROWS; r++)
	{
		a[r].acquisitions += b[r].acquisitions;
		a[r].descheduled += b[r].descheduled;
		a[r].grants += b[r].grants;
		a[r].yields += b[r].yields;
		a[r].yields_in_grant += b[r].yields_in_grant;
		a[r].revoked += b[r].revoked;
	}
}

/* c - base, clamped at 0 (a reader may see base newer than c). */
#define PG_RSEQ_DELTA(a, b) ((a) >= (b) ? (a) - (b) : 0)

/* a -= b, clamped at 0 (max_depth is kept: it is no sum) */
static void
PgRseqSubCounters(rseq_slice_counters *a, const rseq_slice_counters *b)
{
	for (int k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
		a->entries[k] = PG_RSEQ_DELTA(a->entries[k], b->entries[k]);
	a->sections = PG_RSEQ_DELTA(a->sections, b->sections);
	a->nested = PG_RSEQ_DELTA(a->nested, b->nested);
	a->requests = PG_RSEQ_DELTA(a->requests, b->requests);
	a->grants = PG_RSEQ_DELTA(a->grants, b->grants);
	a->revoked = PG_RSEQ_DELTA(a->revoked, b->revoked);
	a->yields = PG_RSEQ_DELTA(a->yields, b->yields);
	a->yields_in_grant = PG_RSEQ_DELTA(a->yields_in_grant, b->yields_in_grant);
	a->descheduled = PG_RSEQ_DELTA(a->descheduled, b->descheduled);
}

static void
PgRseqSubRows(PgRseqRowCounters *a, const PgRseqRowCounters *b)
{
	for (int r = 0; r < PG_RSEQ_NROWS; r++)
	{
		a[r].acquisitions = PG_RSEQ_DELTA(a[r].acquisitions, b[r].acquisitions);
		a[r].descheduled = PG_RSEQ_DELTA(a[r].descheduled, b[r].descheduled);
		a[r].grants = PG_RSEQ_DELTA(a[r].grants, b[r].grants);
		a[r].yields = PG_RSEQ_DELTA(a[r].yields, b[r].yields);
		a[r].yields_in_grant = PG_RSEQ_DELTA(a[r].yields_in_grant, b[r].yields_in_grant);
		a[r].revoked = PG_RSEQ_DELTA(a[r].revoked, b[r].revoked);
	}
}

/*
 * PgRseqAttachBackend: take slot `procno` (the backend's ProcNumber) at the
 * end of InitProcess/InitAuxiliaryProcess.  The slot is zero (its last
 * owner folded it into the exited totals); the counts this process gathered
 * so far move into it.  Holds the spinlock for a few dozen stores; waits
 * for no reader.  Does nothing without shared memory or for an
 * out-of-range procno (the process then keeps counting locally, invisible
 * to the views).
 */
void
PgRseqAttachBackend(int procno, int backend_type)
{
	PgRseqSlot *slot;

	if (PgRseqShmem == NULL || procno < 0 || procno >= PgRseqShmem->nslots)
		return;
	slot = &PgRseqShmem->slots[procno];

	slot->start_time = GetCurrentTimestamp();
	SpinLockAcquire(&PgRseqShmem->mutex);
	PgRseqGenerationBump();
	MemSet(&slot->c_base, 0, sizeof(slot->c_base));
	slot->reset_time = 0;
	slot->c = PgRseqLocalCounters;
	PgRseqAddRows(slot->rows, PgRseqLocalRows);
	slot->pid = MyProcPid;
	slot->backend_type = backend_type;
	slot->mode = PgRseqState.mode;
	/* from here on, count into the slot (the release below included) */
	PgRseqState.ctr = &slot->c;
	PgRseqRows = slot->rows;
	PgRseqMySlot = slot;
	PgRseqGenerationBump();
	SpinLockRelease(&PgRseqShmem->mutex);
}

/*
 * PgRseqDetachBackend: stop counting into the slot and stop asking the
 * kernel.  Called by ProcKill/AuxiliaryProcKill just before they take
 * ProcStructLock to hand the PGPROC (and so the slot) to a new process.  No
 * lock is held there, so the switch to off is immediate (asserted), and no
 * section of the rest of this process's exit asks: a grant the kernel
 * counts (s_granted) but no slot does would leave pg_rseq's totals below
 * the kernel's (measured in the kernel lab: one kernel yield of 1,092 lost
 * when this ran inside ProcStructLock's section,
 * bench/results/kernel-lab/probe-20261202-yields).  The slot's counts go
 * to the exited totals and the slot is zeroed for its next owner, under
 * the spinlock (a fold of 115 rows: a few hundred instructions).  From
 * here on a reload of rseq_slice_mode no longer switches this process
 * (assign_rseq_slice_mode).
 */
void
PgRseqDetachBackend(void)
{
	PgRseqSlot *slot = PgRseqMySlot;
	int			now PG_USED_FOR_ASSERTS_ONLY;

	if (slot == NULL)
		return;
	PgRseqDetached = true;
	/* attached implies probed: PgRseqInitChild ran first */
	now = rseq_slice_set_mode(&PgRseqState, RSEQ_SLICE_MODE_OFF);
	Assert(now == 1);
	MemSet(&PgRseqLocalCounters, 0, sizeof(PgRseqLocalCounters));
	MemSet(PgRseqLocalRows, 0, sizeof(PgRseqLocalRows));
	PgRseqState.ctr = &PgRseqLocalCounters;
	PgRseqRows = PgRseqLocalRows;
	PgRseqMySlot = NULL;

	/* mode off: nothing counts any more, not even the spinlock below */
	SpinLockAcquire(&PgRseqShmem->mutex);
	PgRseqGenerationBump();
	PgRseqAddCounters(&PgRseqShmem->exited, &slot->c);
	PgRseqAddRows(PgRseqShmem->exited_rows, slot->rows);
	MemSet(&slot->c, 0, sizeof(slot->c));
	MemSet(slot->rows, 0, sizeof(slot->rows));
	MemSet(&slot->c_base, 0, sizeof(slot->c_base));
	slot->pid = 0;
	PgRseqGenerationBump();
	SpinLockRelease(&PgRseqShmem->mutex);
}

/* Make related counters consistent (see rseq_stats.h). */
static void
PgRseqMakeConsistent(rseq_slice_counters *c)
{
	/* not grants <= requests: requests is a detail counter */
	c->revoked = Min(c->revoked, c->grants);
	c->yields = Min(c->yields, c->grants);
	c->yields_in_grant = Min(c->yields_in_grant, c->yields);
}

/* The LWLock acquisitions of rows (the tranche rows only). */
static uint64
PgRseqLWLockEntries(const PgRseqRowCounters *rows)
{
	uint64		n = 0;

	for (int r = 0; r < PG_RSEQ_TRANCHE_ROWS; r++)
		n += rows[r].acquisitions;
	return n;
}

/* A module built for another layout must not read this one. */
static void
PgRseqCheckLayout(uint32 layout, int nrows)
{
	if (layout != PG_RSEQ_LAYOUT_VERSION || nrows != PG_RSEQ_NROWS)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("rseq slice extension counters: caller built for layout %u with %d rows, server has layout %u with %d rows",
						layout, nrows, PG_RSEQ_LAYOUT_VERSION, PG_RSEQ_NROWS),
				 errhint("Rebuild the module against this server's headers.")));
}

/*
 * Wait until no slot changes hands; returns the (even) generation.  A
 * change takes a few hundred instructions under the spinlock.
 */
static uint64
PgRseqStableGeneration(void)
{
	uint64		g;

	while ((g = pg_atomic_read_u64(&PgRseqShmem->generation)) & 1)
		pg_spin_delay();
	pg_read_barrier();
	return g;
}

/* Did a slot change hands since generation g? */
static bool
PgRseqGenerationMoved(uint64 g)
{
	pg_read_barrier();
	return pg_atomic_read_u64(&PgRseqShmem->generation) != g;
}

int
PgRseqNumSlots(void)
{
	return PgRseqShmem ? PgRseqShmem->nslots : 0;
}

/*
 * PgRseqSnapshotBackendV: counts of live slot i since the later of its
 * backend's start and the last reset.  Returns false for a free slot or a
 * bad index.  Takes no lock: copies again if the slot changed hands.
 * ERROR if the caller was built for another layout.
 */
bool
PgRseqSnapshotBackendV(uint32 layout, int i, PgRseqBackendSnapshot *out)
{
	PgRseqSlot *slot;

	PgRseqCheckLayout(layout, PG_RSEQ_NROWS);
	if (PgRseqShmem == NULL || i < 0 || i >= PgRseqShmem->nslots)
		return false;
	slot = &PgRseqShmem->slots[i];
	for (;;)
	{
		uint64		g = PgRseqStableGeneration();
		rseq_slice_counters base;

		out->pid = slot->pid;
		if (out->pid == 0)
		{
			if (PgRseqGenerationMoved(g))
				continue;
			return false;
		}
		out->backend_type = slot->backend_type;
		out->mode = (rseq_slice_mode) slot->mode;
		out->stats_reset = Max(slot->start_time, slot->reset_time);
		base = slot->c_base;
		/* the dependent counters first: they only lag behind */
		out->c.yields_in_grant = slot->c.yields_in_grant;
		out->c.yields = slot->c.yields;
		out->c.revoked = slot->c.revoked;
		out->c.grants = slot->c.grants;
		out->c.requests = slot->c.requests;
		out->c.descheduled = slot->c.descheduled;
		out->c.nested = slot->c.nested;
		out->c.sections = slot->c.sections;
		memcpy(out->c.entries, (const void *) slot->c.entries,
			   sizeof(out->c.entries));
		out->c.max_depth = slot->c.max_depth;
		/* LWLock entries: the per-tranche acquisitions (see rseq_stats.h) */
		out->c.entries[PG_RSEQ_KIND_LWLOCK] = PgRseqLWLockEntries(slot->rows);
		if (PgRseqGenerationMoved(g))
			continue;
		PgRseqSubCounters(&out->c, &base);
		/* the fast path records depths >= 2 only; one section means 1 */
		if (out->c.max_depth == 0 && out->c.sections > 0)
			out->c.max_depth = 1;
		PgRseqMakeConsistent(&out->c);
		return true;
	}
}

/*
 * The raw sums (exited backends + every slot, nothing subtracted) and the
 * reset baselines, consistent with each other.
 */
static void
PgRseqSumRaw(rseq_slice_counters *c, PgRseqRowCounters *rows,
			 rseq_slice_counters *base, PgRseqRowCounters *base_rows,
			 TimestampTz *stats_reset)
{
	for (;;)
	{
		uint64		g = PgRseqStableGeneration();

		SpinLockAcquire(&PgRseqShmem->mutex);
		*c = PgRseqShmem->exited;
		memcpy(rows, PgRseqShmem->exited_rows,
			   sizeof(PgRseqRowCounters) * PG_RSEQ_NROWS);
		if (base)
		{
			*base = PgRseqShmem->base;
			memcpy(base_rows, PgRseqShmem->base_rows,
				   sizeof(PgRseqRowCounters) * PG_RSEQ_NROWS);
		}
		if (stats_reset)
			*stats_reset = PgRseqShmem->stats_reset;
		SpinLockRelease(&PgRseqShmem->mutex);

		for (int i = 0; i < PgRseqShmem->nslots; i++)
		{
			PgRseqSlot *slot = &PgRseqShmem->slots[i];
			rseq_slice_counters sc = slot->c;

			/* max_depth of a live slot counts from the last reset */
			PgRseqAddCounters(c, &sc);
			PgRseqAddRows(rows, slot->rows);
		}
		if (!PgRseqGenerationMoved(g))
			return;
	}
}

/*
 * PgRseqSnapshotTotalsV: everything counted since the last reset, by every
 * backend, live or exited.  rows[nrows]; the spinlock, buffer header and
 * wait-list rows get their acquisitions from the per-kind entry counts.
 * Holds the spinlock only to copy the exited totals and the baselines
 * (about 11 kB).  ERROR if the caller was built for another layout.
 */
void
PgRseqSnapshotTotalsV(uint32 layout, rseq_slice_counters *c,
					  PgRseqRowCounters *rows, int nrows,
					  TimestampTz *stats_reset)
{
	static rseq_slice_counters base;
	static PgRseqRowCounters base_rows[PG_RSEQ_NROWS];

	PgRseqCheckLayout(layout, nrows);
	MemSet(c, 0, sizeof(*c));
	MemSet(rows, 0, sizeof(PgRseqRowCounters) * PG_RSEQ_NROWS);
	if (stats_reset)
		*stats_reset = 0;
	if (PgRseqShmem == NULL)
		return;

	PgRseqSumRaw(c, rows, &base, base_rows, stats_reset);
	PgRseqSubCounters(c, &base);
	PgRseqSubRows(rows, base_rows);

	/*
	 * LWLock entries are the per-tranche acquisitions (counted in every mode
	 * but off); the other kinds' entries only with rseq_slice_detail.
	 */
	c->entries[PG_RSEQ_KIND_LWLOCK] = PgRseqLWLockEntries(rows);
	rows[PG_RSEQ_ROW_SPINLOCK].acquisitions = c->entries[PG_RSEQ_KIND_SPINLOCK];
	rows[PG_RSEQ_ROW_BUFHDR].acquisitions = c->entries[PG_RSEQ_KIND_BUFHDR];
	rows[PG_RSEQ_ROW_WAITLIST].acquisitions = c->entries[PG_RSEQ_KIND_WAITLIST];
	if (c->max_depth == 0 && c->sections > 0)
		c->max_depth = 1;
	PgRseqMakeConsistent(c);
}

/*
 * PgRseqResetCounters: the totals and every live backend's counts start
 * again from zero.  Returns the reset time.  Takes no LWLock: the raw sums
 * of this moment become the baseline (under the spinlock, a copy of about
 * 11 kB), and each live slot's own counts its per-backend baseline.  A
 * reset that races with a backend's counting may leave that backend's
 * last increments inside the baseline.  Privilege checks are the caller's
 * (the extension).
 */
TimestampTz
PgRseqResetCounters(void)
{
	static rseq_slice_counters raw;
	static PgRseqRowCounters raw_rows[PG_RSEQ_NROWS];
	TimestampTz now = GetCurrentTimestamp();

	if (PgRseqShmem == NULL)
		return now;

	PgRseqSumRaw(&raw, raw_rows, NULL, NULL, NULL);
	SpinLockAcquire(&PgRseqShmem->mutex);
	PgRseqShmem->base = raw;
	memcpy(PgRseqShmem->base_rows, raw_rows, sizeof(raw_rows));
	PgRseqShmem->exited.max_depth = 0;
	PgRseqShmem->stats_reset = now;
	SpinLockRelease(&PgRseqShmem->mutex);

	for (int i = 0; i < PgRseqShmem->nslots; i++)
	{
		PgRseqSlot *slot = &PgRseqShmem->slots[i];

		SpinLockAcquire(&PgRseqShmem->mutex);
		if (slot->pid != 0)
		{
			slot->c_base = slot->c;
			slot->c_base.entries[PG_RSEQ_KIND_LWLOCK] =
				PgRseqLWLockEntries(slot->rows);
			slot->c_base.max_depth = 0;

			/*
			 * max_depth is a high-water mark, not a sum: restart it.  This is
			 * the one store into a slot's counters by another backend; racing
			 * with the owner it can only keep a depth reached during the
			 * reset.
			 */
			slot->c.max_depth = 0;
			slot->reset_time = now;
		}
		SpinLockRelease(&PgRseqShmem->mutex);
	}
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
 * PgRseqDeferSetting: true in a parallel worker that is still restoring the
 * leader's settings (InitializingParallelWorker); the assign hooks below
 * then leave the setting to PgRseqParallelWorkerReady.
 */
static bool
PgRseqDeferSetting(void)
{
	if (!InitializingParallelWorker)
		return false;
	PgRseqSettingsDeferred = true;
	return true;
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

	if (!PgRseqProbed || PgRseqDetached)
		return;					/* applied at set-up; off after detach */
	if (PgRseqDeferSetting())
		return;
	mode = PgRseqResolve(newval);
	if (PgRseqState.mode == RSEQ_SLICE_MODE_OFF)
	{
		/*
		 * Mode off keeps no depth.  GUC assignment never runs inside a
		 * spinlock or buffer header lock section (those hold no function
		 * calls that can reach it), but it may under an LWLock: count the
		 * LWLock sections open (lwlock.c), so that the switch waits until
		 * they are closed.
		 */
		(void) rseq_slice_set_mode_open(&PgRseqState, mode,
										(uint32) LWLockSectionsHeld());
	}
	else
		(void) rseq_slice_set_mode(&PgRseqState, mode);
	if (PgRseqMySlot != NULL)
		PgRseqMySlot->mode = (uint8) mode;
	if (!IsUnderPostmaster && newval != rseq_slice_mode_setting)
		ereport(LOG,
				(errmsg("rseq slice extension: mode %s (rseq_slice_mode = %s): %s",
						rseq_slice_mode_names[mode],
						rseq_slice_mode_names[newval], PgRseqModeWhy)));
}

/*
 * GUC rseq_slice_detail (bool, default off, PGC_SIGHUP): also count, per
 * backend, the entries of every lock kind, the outermost sections, the
 * nested entries and the maximum nesting depth.  Off, those counters stand
 * still (LWLock entries are still counted, per tranche): they would cost
 * every section the out-of-line slow path (bench/results/callgrind: about 210
 * instructions per section); on, every section takes the slow path.
 * Takes effect at a backend's next lock.
 */
void
assign_rseq_slice_detail(bool newval, void *extra)
{
	if (PgRseqDeferSetting())
		return;
	rseq_slice_set_detail(&PgRseqState, newval ? 1 : 0);
}

/*
 * GUC rseq_slice_request (enum, default all, PGC_SIGHUP): which outermost
 * lock sections ask the kernel for a slice extension in mode upstream (and
 * poc).  all: every one.  shared: all but LockFastPath (each backend's own
 * fast-path lock, rarely waited for: 55 % of the grants and 14 % yielded
 * in the 2-vCPU lab of issue 9, fe081bb).  spinning: only spinlocks,
 * buffer header locks and LWLock wait-list locks, whose waiters spin; no
 * LWLock.  adaptive: shared, and a tranche whose grants in this backend
 * mostly end outside the extension (fewer than half of 32 yield inside it)
 * stops asking until its holders were descheduled 64 times (see
 * PgRseqAdapt).  Sections that do not ask still count deschedules.  The
 * enum machinery refuses other values.  Takes effect at a backend's next
 * lock; costs nothing in modes off and measure, one load per outermost
 * LWLock section in upstream (bench/results/callgrind).
 */
void
assign_rseq_slice_request(int newval, void *extra)
{
	if (PgRseqDeferSetting())
		return;
	PgRseqApplyRequestPolicy(newval);
}

/*
 * PgRseqParallelWorkerReady: called once by ParallelWorkerMain (parallel.c)
 * when the leader's settings are in and InitializingParallelWorker is
 * false.  RestoreGUCState first resets every setting that is not at its
 * default to the built-in value and only then applies the leader's; had
 * the assign hooks above switched at once, the worker's lock sections in
 * between (the catalog lookups of the other settings it restores: 16
 * LWLock sections in a worker of a count(*), measured) would run in mode
 * auto with detail off whatever the configuration says: mode off would
 * count them, and with detail on the entry counters would no longer add
 * up to sections + nested entries.  So while InitializingParallelWorker
 * the hooks only note that something changed, the worker keeps the
 * settings it started with (the postmaster's, normally the leader's too),
 * and the final values are applied here, where the worker holds no lock.
 * No input, no output, no error.
 */
void
PgRseqParallelWorkerReady(void)
{
	if (!PgRseqSettingsDeferred)
		return;
	PgRseqSettingsDeferred = false;
	assign_rseq_slice_mode(rseq_slice_mode_setting, NULL);
	assign_rseq_slice_detail(rseq_slice_detail_setting, NULL);
	assign_rseq_slice_request(rseq_slice_request_setting, NULL);
}
