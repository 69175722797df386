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
bool		rseq_slice_detail_setting = false;
/* GUC rseq_slice_register (PGC_POSTMASTER), an rseq_slice_register_policy */
int			rseq_slice_register_setting = RSEQ_SLICE_REGISTER_AUTO;
/* GUC rseq_slice_request (PGC_SIGHUP), a PG_RSEQ_REQUEST_* value */
int			rseq_slice_request_setting = PG_RSEQ_REQUEST_ALL;
char		PgRseqModeWhy[256] = "not set up yet";

/*
 * The request policy by row (storage/rseq_lock.h): 1 ask, 0 do not.  All
 * rows ask until the setting is applied.  PgRseqAskBase is what the
 * setting says; PgRseqAsk may differ from it only where the adaptive
 * policy paused a row.
 */
PgRseqAskRow PgRseqAskRows[PG_RSEQ_NROWS] = {
	[0 ... PG_RSEQ_NROWS - 1] = {.open_word = RSEQ_SLICE_OPEN_WORD(1)}
};
static uint8 PgRseqAskBase[PG_RSEQ_NROWS] = {[0 ... PG_RSEQ_NROWS - 1] = 1};

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
 * excluded.  A pause and a resume are logged at DEBUG1.  Rare path.
 */
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
	if (after == 0)
		elog(DEBUG1, "rseq slice extension: %s stops asking (%u of %u grants ended inside the extension)",
			 PgRseqRowName(row), yielded, grants);
	else
		elog(DEBUG1, "rseq slice extension: %s asks again (%d deschedules while holding since it stopped)",
			 PgRseqRowName(row), RSEQ_SLICE_ADAPT_DESCHED);
}

/*
 * The tranche IDs of the individually named LWLocks are their positions in
 * lwlocklist.h (lwlock.c); PG_RSEQ_TRANCHE_<name> names them here.
 */
enum
{
#define PG_LWLOCK(id, lockname) PG_RSEQ_TRANCHE_##lockname = (id),
#include "storage/lwlocklist.h"
#undef PG_LWLOCK
};

/*
 * PgRseqApplyRequestPolicy: rewrite PgRseqAsk from the setting (see
 * check_rseq_slice_request); resets the adaptive state.
 *
 * RseqStats never asks, whatever the setting: its shared holders are
 * pg_rseq's own readers (PgRseqSnapshotTotals folds every slot's 195 rows
 * under it), whose section is longer than the longest slice: in the kernel
 * lab every grant on it expired (32 of 32, one per snapshot of the harness,
 * 1 vCPU at 50 us: bench/results/kernel-lab/payoff-20261202-v1-oracle32-rowoff),
 * and the extension then only delays whoever the kernel wanted to run.
 */
static void
PgRseqApplyRequestPolicy(int policy)
{
	for (int row = 0; row < PG_RSEQ_NROWS; row++)
	{
		uint8		ask = 1;

		if (row < PG_RSEQ_TRANCHE_ROWS)
		{
			if (policy == PG_RSEQ_REQUEST_SPINNING ||
				row == PG_RSEQ_TRANCHE_RseqStats)
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

#if PG_RSEQ_THUNKS
/*
 * The rare calls of the fast path (storage/rseq_lock.h PG_RSEQ_THUNK): C
 * functions behind register-preserving thunks.  Only reached when the
 * kernel cleared the marker, when a grant was seen, or on the slow path.
 */
extern void pg_rseq_rare_enter_rare(long kind, long ask);
extern void pg_rseq_rare_leave_rare(long ctx);
extern void pg_rseq_rare_granted(long ctx);

void
pg_rseq_rare_enter_rare(long kind, long ask)
{
	rseq_slice_enter_rare(&PgRseqState, (unsigned) kind,
						  PgRseqAskOf((unsigned) ask));
}

void
pg_rseq_rare_leave_rare(long ctx)
{
	unsigned	ev = rseq_slice_leave_rare(&PgRseqState);

	if (ev != 0)
		PgRseqNoteEventsCtx(ctx, ev);
}

void
pg_rseq_rare_granted(long ctx)
{
	unsigned	ev = rseq_slice_granted_now(&PgRseqState);

	if (ev != 0)
		PgRseqNoteEventsCtx(ctx, ev);
}

/*
 * pg_rseq_thunk_<name>: save every register the C calling convention lets
 * a callee clobber (rax, rcx, rdx, rsi, rdi, r8-r11, xmm0-15), align the
 * stack, call pg_rseq_rare_<name> with the caller's rdi/rsi/rdx, restore,
 * return.  The call site has already stepped over its red zone.  The
 * flags are the only state not preserved (the call site declares "cc").
 */
#define PG_RSEQ_DEFINE_THUNK(name) \
	__asm__(".text\n" \
			".p2align 4\n" \
			".globl pg_rseq_thunk_" #name "\n" \
			".type pg_rseq_thunk_" #name ", @function\n" \
			"pg_rseq_thunk_" #name ":\n" \
			"\tpush %rax\n\tpush %rcx\n\tpush %rdx\n\tpush %rsi\n\tpush %rdi\n" \
			"\tpush %r8\n\tpush %r9\n\tpush %r10\n\tpush %r11\n" \
			"\tpush %rbp\n\tmov %rsp, %rbp\n\tand $-16, %rsp\n\tsub $256, %rsp\n" \
			"\tmovdqu %xmm0, 0(%rsp)\n\tmovdqu %xmm1, 16(%rsp)\n" \
			"\tmovdqu %xmm2, 32(%rsp)\n\tmovdqu %xmm3, 48(%rsp)\n" \
			"\tmovdqu %xmm4, 64(%rsp)\n\tmovdqu %xmm5, 80(%rsp)\n" \
			"\tmovdqu %xmm6, 96(%rsp)\n\tmovdqu %xmm7, 112(%rsp)\n" \
			"\tmovdqu %xmm8, 128(%rsp)\n\tmovdqu %xmm9, 144(%rsp)\n" \
			"\tmovdqu %xmm10, 160(%rsp)\n\tmovdqu %xmm11, 176(%rsp)\n" \
			"\tmovdqu %xmm12, 192(%rsp)\n\tmovdqu %xmm13, 208(%rsp)\n" \
			"\tmovdqu %xmm14, 224(%rsp)\n\tmovdqu %xmm15, 240(%rsp)\n" \
			"\tcall pg_rseq_rare_" #name "\n" \
			"\tmovdqu 0(%rsp), %xmm0\n\tmovdqu 16(%rsp), %xmm1\n" \
			"\tmovdqu 32(%rsp), %xmm2\n\tmovdqu 48(%rsp), %xmm3\n" \
			"\tmovdqu 64(%rsp), %xmm4\n\tmovdqu 80(%rsp), %xmm5\n" \
			"\tmovdqu 96(%rsp), %xmm6\n\tmovdqu 112(%rsp), %xmm7\n" \
			"\tmovdqu 128(%rsp), %xmm8\n\tmovdqu 144(%rsp), %xmm9\n" \
			"\tmovdqu 160(%rsp), %xmm10\n\tmovdqu 176(%rsp), %xmm11\n" \
			"\tmovdqu 192(%rsp), %xmm12\n\tmovdqu 208(%rsp), %xmm13\n" \
			"\tmovdqu 224(%rsp), %xmm14\n\tmovdqu 240(%rsp), %xmm15\n" \
			"\tmov %rbp, %rsp\n\tpop %rbp\n" \
			"\tpop %r11\n\tpop %r10\n\tpop %r9\n\tpop %r8\n" \
			"\tpop %rdi\n\tpop %rsi\n\tpop %rdx\n\tpop %rcx\n\tpop %rax\n" \
			"\tret\n" \
			".size pg_rseq_thunk_" #name ", .-pg_rseq_thunk_" #name "\n")

PG_RSEQ_DEFINE_THUNK(enter_rare);
PG_RSEQ_DEFINE_THUNK(leave_rare);
PG_RSEQ_DEFINE_THUNK(granted);
#endif							/* PG_RSEQ_THUNKS */

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
	rseq_slice_set_detail(&PgRseqState, rseq_slice_detail_setting);
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
		/*
		 * Shared memory starts zeroed (an anonymous mapping, or a new System
		 * V segment); only the header is set explicitly.  Zeroing the slots
		 * again would cost every server start (and the instruction counts in
		 * bench/callgrind) a pass over about 2.5 MB.
		 */
#ifdef USE_ASSERT_CHECKING
		for (Size off = 0; off < PgRseqShmemSize(); off += sizeof(uint64))
			Assert(((uint64 *) PgRseqShmem)[off / sizeof(uint64)] == 0);
#endif
		MemSet(PgRseqShmem, 0, offsetof(PgRseqShared, slots));
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
		tr->yields_in_grant += slot->rows[i].yields_in_grant - slot->rows_base[i].yields_in_grant;
		tr->revoked += slot->rows[i].revoked - slot->rows_base[i].revoked;
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
 * PgRseqDetachBackend: stop counting into the slot and stop asking the
 * kernel.  Called by ProcKill/AuxiliaryProcKill just before they take
 * ProcStructLock to hand the PGPROC (and so the slot) to a new process.  No
 * lock is held there, so the switch to off is immediate (asserted), and no
 * section of the rest of this process's exit asks: a grant the kernel
 * counts (s_granted) but no slot does would leave pg_rseq's totals below
 * the kernel's.  Until 2026-12-02 the call sat inside ProcStructLock's
 * section, which then still asked and was counted nowhere: measured in the
 * kernel lab, one kernel yield of 1,092 lost that way
 * (bench/results/kernel-lab/probe-20261202-yields, lock layer b0b9ad7).
 * The slot keeps its counts for the totals.  From here on a reload of
 * rseq_slice_mode no longer switches this process (assign_rseq_slice_mode).
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
	slot->pid = 0;
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
		/* LWLock entries: the per-tranche acquisitions (see rseq_stats.h) */
		out->c.entries[PG_RSEQ_KIND_LWLOCK] = 0;
		for (int r = 0; r < PG_RSEQ_TRANCHE_ROWS; r++)
			out->c.entries[PG_RSEQ_KIND_LWLOCK] +=
				PG_RSEQ_DELTA(slot->rows[r].acquisitions,
							  slot->rows_base[r].acquisitions);
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
			rows[r].yields_in_grant += PG_RSEQ_DELTA(slot->rows[r].yields_in_grant,
													 slot->rows_base[r].yields_in_grant);
			rows[r].revoked += PG_RSEQ_DELTA(slot->rows[r].revoked,
											 slot->rows_base[r].revoked);
		}
	}
	LWLockRelease(RseqStatsLock);

	/*
	 * LWLock entries are the per-tranche acquisitions (counted in every mode
	 * but off); the other kinds' entries only with rseq_slice_detail.
	 */
	c->entries[PG_RSEQ_KIND_LWLOCK] = 0;
	for (r = 0; r < PG_RSEQ_TRANCHE_ROWS; r++)
		c->entries[PG_RSEQ_KIND_LWLOCK] += rows[r].acquisitions;
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

	if (!PgRseqProbed || PgRseqDetached)
		return;					/* applied at set-up; off after detach */
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
 * PgRseqAdapt).  Under every value RseqStats never asks (its readers hold
 * it longer than a slice: PgRseqApplyRequestPolicy).  Sections that do not
 * ask still count deschedules.  The
 * enum machinery refuses other values.  Takes effect at a backend's next
 * lock; costs nothing in modes off and measure, one load per outermost
 * LWLock section in upstream (bench/results/callgrind).
 */
void
assign_rseq_slice_request(int newval, void *extra)
{
	PgRseqApplyRequestPolicy(newval);
}

