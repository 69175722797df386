/*
 * pg_rseq_stats.cpp: the lock layer's counters as SQL (pg_stat_rseq,
 * pg_stat_rseq_tranche, pg_stat_rseq_totals) and their reset.
 *
 * Locking: none here.  Each backend's slot is written by its backend only,
 * with plain stores; PgRseqSnapshotBackend/PgRseqSnapshotTotals (in the
 * patched server) copy a slot or the totals under PgRseqShmem->mutex where
 * a copy must be consistent with a reset or a slot hand-over, and subtract
 * the reset baselines.  A value read here may be one event old.  Counters
 * are made consistent once more here (revoked <= grants, yields <=
 * grants, yields_in_grant <= yields), and converted to
 * bigint saturating at 2^63 - 1, so no counter is ever negative.
 *
 * Visibility (like pg_stat_activity): a role with the privileges of
 * pg_read_all_stats (superusers included) sees every backend; other roles
 * see their own backend and backends whose role they have the privileges
 * of.  Rows they may not see are left out whole (pid, backend type and
 * counters), in every SQL version.  Background processes without a role
 * (checkpointer, walwriter, ...) are other roles' backends in this sense.
 * The tranche and totals views are cluster-wide sums with no per-user
 * content: everyone may read them.
 *
 * Resetting is a separate function, pg_stat_rseq_reset(), which is not
 * executable by PUBLIC (superusers, and roles it is GRANTed to).
 *
 * On a stock server the three views are empty and the reset returns NULL.
 *
 * SQL versions (see Api in pg_rseq.hpp).  1.1.0 (entry points *_1_1):
 * the detail counters (sections, spinlock_sections, buffer_header_sections,
 * wait_list_sections, nested_entries, max_depth, requests (a detail counter
 * since lock layer layout 3), and the acquisitions of
 * the spinlock, buffer header and wait list rows of the tranche view) are
 * NULL while this backend does not count them (rseq_slice_detail off):
 * NULL means "not counted", never "zero"; pg_stat_rseq_totals gets a
 * `detail` column, pg_stat_rseq_tranche yields_in_grant and revoked.
 * 1.0.0 (the original entry points): the columns of 1.0.0, every counter
 * as the lock layer has it (detail counters stand still while not counted).
 * 1.2.0 (entry points *_1_2): as 1.1.0, with the outcome counters named
 * for what user space observes: grants_in_place and requests_cleared
 * instead of grants and revoked (see Outcomes).
 *
 * contrib/pg_rseq/src/pg_rseq_stats.cpp
 */
#include "pg_rseq/pg_rseq.hpp"

#include <cstring>

namespace pg_rseq
{
namespace
{

/*
 * Columns shared by pg_stat_rseq and pg_stat_rseq_totals, in SQL order:
 * the detail counters, then the outcome counters, whose names and order
 * depend on the SQL version (SetOutcomes).
 */
enum CounterColumn : size_t
{
	kSections,
	kSpinlockSections,
	kBufferHeaderSections,
	kLWLockSections,
	kWaitListSections,
	kNestedEntries,
	kMaxDepth,
	kRequests,
	kFirstOutcome,
	kCounterColumns = kFirstOutcome + 5
};

/*
 * The five outcome counters from the lock layer's grants, revoked, yields,
 * yields_in_grant and descheduled, as each SQL version names and orders
 * them (offsets from the first outcome column, or from the first outcome
 * column of pg_stat_rseq_tranche).
 *
 *   1.0.0, 1.1.0: grants, yields, yields_in_grant, revoked, descheduled
 *                 (pg_stat_rseq_tranche: descheduled first, then the
 *                 others; 1.0.0 has no yields_in_grant and revoked there)
 *   1.2.0:        grants_in_place (= grants - revoked), requests_cleared
 *                 (= revoked), yields, yields_in_grant, descheduled
 *                 (pg_stat_rseq_tranche: descheduled first)
 *
 * grants counts sections that left with granted set plus sections whose
 * request the kernel had cleared with granted clear; revoked the latter.
 * User space cannot tell a revoked grant from a request cleared at a
 * context switch or a grant refused, so the lock layer's `grants` is no
 * count of kernel grants: 1.2.0 shows what was observed instead.
 */
struct Outcomes
{
	uint64_t	grants_in_place;
	uint64_t	requests_cleared;
	uint64_t	yields;
	uint64_t	yields_in_grant;
	uint64_t	descheduled;
};
PG_RSEQ_ASSERT_POD(Outcomes);

/*
 * The outcomes of counters already made consistent (revoked <= grants).
 * Unused on a stock server (no counters).
 */
[[maybe_unused]] Outcomes
OutcomesOf(uint64_t grants, uint64_t revoked, uint64_t yields,
		   uint64_t yields_in_grant, uint64_t descheduled)
{
	Outcomes	o;

	o.grants_in_place = grants - revoked;
	o.requests_cleared = revoked;
	o.yields = yields;
	o.yields_in_grant = yields_in_grant;
	o.descheduled = descheduled;
	return o;
}

/*
 * Fill the outcome columns of `row` starting at `first` in the order of
 * `api`; `descheduled_first` for pg_stat_rseq_tranche's order.
 */
template <Api api, size_t N>
void
SetOutcomes(Row<N> &row, size_t first, const Outcomes &o, bool descheduled_first)
{
	size_t		i = first;

	if (descheduled_first)
		row.SetBigint(i++, o.descheduled);
	if constexpr (api == Api::k1_2 || api == Api::k1_4)
	{
		row.SetBigint(i++, o.grants_in_place);
		row.SetBigint(i++, o.requests_cleared);
		row.SetBigint(i++, o.yields);
		row.SetBigint(i++, o.yields_in_grant);
	}
	else
	{
		row.SetBigint(i++, o.grants_in_place + o.requests_cleared);
		row.SetBigint(i++, o.yields);
		row.SetBigint(i++, o.yields_in_grant);
		row.SetBigint(i++, o.requests_cleared);
	}
	if (!descheduled_first)
		row.SetBigint(i++, o.descheduled);
}

/*
 * pg_stat_rseq: pid, backend_type, mode, the counters,
 * slept_while_holding (1.4.0), stats_reset.
 */
constexpr size_t kBackendPid = 0;
constexpr size_t kBackendType = 1;
constexpr size_t kBackendMode = 2;
constexpr size_t kBackendFirstCounter = 3;
constexpr size_t kBackendSlept = kBackendFirstCounter + kCounterColumns;
constexpr size_t kBackendStatsReset = kBackendSlept + 1;
constexpr size_t kBackendColumns = kBackendStatsReset + 1;

/*
 * pg_stat_rseq_totals: the counters, slept_while_holding (1.4.0), detail
 * (1.1.0), stats_reset.
 */
constexpr size_t kTotalsSlept = kCounterColumns;
constexpr size_t kTotalsDetail = kTotalsSlept + 1;
constexpr size_t kTotalsStatsReset = kTotalsDetail + 1;
constexpr size_t kTotalsColumns = kTotalsStatsReset + 1;
/* PutVersionRow drops slept_while_holding and then detail at one index */
static_assert(kTotalsDetail == kTotalsSlept + 1, "detail follows slept_while_holding");

/*
 * pg_stat_rseq_tranche: tranche, lock_kind, acquisitions, then the five
 * outcome columns, descheduled_while_holding first (1.1.0 and 1.2.0;
 * 1.0.0 has the first six columns: no yields_in_grant and revoked).
 */
enum TrancheColumn : size_t
{
	kTrancheName,
	kTrancheKind,
	kTrancheAcquisitions,
	kTrancheFirstOutcome,
	kTrancheColumns = kTrancheFirstOutcome + 5
};
constexpr size_t kTrancheColumns10 = kTrancheColumns - 2;
/* 1.0.0/1.1.0 positions of the columns 1.0.0 does not have */
constexpr size_t kTrancheYieldsInGrant11 = kTrancheFirstOutcome + 3;
constexpr size_t kTrancheRevoked11 = kTrancheFirstOutcome + 4;

/* Number of result columns of each function, per SQL version. */
constexpr size_t
TotalsColumns(Api api)
{
	/* 1.0.0 has neither slept_while_holding nor detail, 1.1.0-1.3.0 no slept */
	return api == Api::k1_0 ? kTotalsColumns - 2
		: api == Api::k1_4 ? kTotalsColumns : kTotalsColumns - 1;
}

constexpr size_t
BackendColumns(Api api)
{
	return api == Api::k1_4 ? kBackendColumns : kBackendColumns - 1;
}

/*
 * Put a row built with 1.4.0's columns: as it is for 1.4.0, without
 * slept_while_holding (column `slept_col`) for older versions and, for
 * 1.0.0's pg_stat_rseq_totals (`with_detail`), without `detail` too, which
 * follows slept_while_holding.
 */
template <Api api, size_t N>
void
PutVersionRow(FunctionCallInfo fcinfo, Row<N> &row, size_t slept_col,
			  bool with_detail = false)
{
	if constexpr (api == Api::k1_4)
		PutRow(fcinfo, row);
	else
	{
		Row<N - 1>	old = WithoutColumn(row, slept_col);

		if (api == Api::k1_0 && with_detail)
		{
			Row<N - 2>	older = WithoutColumn(old, slept_col);

			PutRow(fcinfo, older);
		}
		else
			PutRow(fcinfo, old);
	}
}

constexpr size_t
TrancheColumns(Api api)
{
	return api == Api::k1_0 ? kTrancheColumns10 : kTrancheColumns;
}

/*
 * Are the detail counters shown (not NULL)?  1.0.0 always shows them;
 * 1.1.0 only while this backend counts them.
 */
[[maybe_unused]] bool
ShowDetail(Api api)
{
	return api == Api::k1_0 || DetailCounted();
}

#if PG_RSEQ_PATCHED

/*
 * Enforce the documented relations between counters of one snapshot
 * (revoked <= grants, so grants_in_place >= 0; yields <= grants;
 * yields_in_grant <= yields).
 */
void
MakeConsistent(rseq_slice_counters *c)
{
	/* not grants <= requests: requests is a detail counter (lock layer 3) */
	if (c->revoked > c->grants)
		c->revoked = c->grants;
	if (c->yields > c->grants)
		c->yields = c->grants;
	if (c->yields_in_grant > c->yields)
		c->yields_in_grant = c->yields;
}

/*
 * Fill the counter columns starting at `first` in the order of `api`; the
 * detail counters only if `detail` (else they stay NULL: not counted).
 * `c` must have been made consistent.
 */
template <Api api, size_t N>
void
SetCounters(Row<N> &row, size_t first, const rseq_slice_counters &c, bool detail)
{
	static_assert(N >= kCounterColumns, "row too short");
	/* LWLock entries are the per-tranche acquisitions: always counted */
	row.SetBigint(first + kLWLockSections, c.entries[PG_RSEQ_KIND_LWLOCK]);
	if (detail)
	{
		row.SetBigint(first + kSpinlockSections, c.entries[PG_RSEQ_KIND_SPINLOCK]);
		row.SetBigint(first + kBufferHeaderSections, c.entries[PG_RSEQ_KIND_BUFHDR]);
		row.SetBigint(first + kWaitListSections, c.entries[PG_RSEQ_KIND_WAITLIST]);
		row.SetBigint(first + kSections, c.sections);
		row.SetBigint(first + kNestedEntries, c.nested);
		row.SetBigint(first + kMaxDepth, c.max_depth);
		row.SetBigint(first + kRequests, c.requests);
	}
	SetOutcomes<api>(row, first + kFirstOutcome,
					 OutcomesOf(c.grants, c.revoked, c.yields,
								c.yields_in_grant, c.descheduled),
					 false);
}

#endif							/* PG_RSEQ_PATCHED */

#if PG_RSEQ_PATCHED || PG_RSEQ_CORE
/* May the current user see the backend in slot `procno` with this pid? */
bool
CanSeeBackend(int procno, int pid, bool read_all)
{
	PgBackendStatus *be;

	if (read_all || pid == MyProcPid)
		return true;
	be = pgstat_get_beentry_by_proc_number(procno);
	if (be == nullptr || be->st_procpid != pid || !OidIsValid(be->st_userid))
		return false;
	return has_privs_of_role(GetUserId(), be->st_userid);
}
#endif

#if PG_RSEQ_PATCHED

/* Lock kind of a per-tranche row. */
const char *
RowKind(int row)
{
	switch (row)
	{
		case PG_RSEQ_ROW_SPINLOCK:
			return "spinlock";
		case PG_RSEQ_ROW_BUFHDR:
			return "buffer header";
		case PG_RSEQ_ROW_WAITLIST:
			return "wait list";
		default:
			return "lwlock";
	}
}

/* One output row of pg_stat_rseq_tranche: rows with the same name summed. */
struct TrancheSum
{
	const char *name;
	const char *kind;
	bool		always;			/* shown even when all counters are 0 */
	PgRseqRowCounters c;
};
PG_RSEQ_ASSERT_POD(TrancheSum);

#endif							/* PG_RSEQ_PATCHED */

#if PG_RSEQ_CORE

/* ----------
 * The core series (lwlock_patch/core/).  Its reader, PgRseqReadSlot(),
 * gives each slot's counts cumulative over every process that owned the
 * slot since the server started (pid 0: free), and at_attach, the counts
 * when the current owner took it.  The core never resets them.  Resets
 * live here: a DSM registry segment (no shared_preload_libraries entry
 * needed) holds, per slot, the slot's counts at the last reset (the
 * baseline) and the reset time.  Then
 *
 *   cluster totals since the reset = sum over slots of (c - baseline):
 *       exited backends stay in (their counts stay in the slot);
 *   a backend's counts = c - max(at_attach, baseline), per counter (both
 *       are earlier values of the same only-growing counts, so the larger
 *       one is the later start).
 *
 * The core counts sections (outermost), descheduled (and per row),
 * grants_in_place, requests_cleared and yields_in_grant.  Derived, exact:
 * yields = grants_in_place (the core calls rseq_slice_yield() exactly
 * once for every grant it finds in place, at a release or when a section
 * starts to spin).  Not counted by the core, so NULL: the per-kind entries
 * (spinlock_sections, buffer_header_sections, lwlock_sections,
 * wait_list_sections), nested_entries, max_depth, requests, and on
 * pg_stat_rseq_tranche acquisitions and the per-lock outcomes (the core
 * counts only deschedules per lock).
 *
 * Locking: the baselines are read under the segment's LWLock (shared) and
 * written by the reset (exclusive); PgRseqReadSlot() copies a slot
 * consistently with an owner change (changecount).  A count may be one
 * event old.  A crash restart re-creates shared memory, the core's slots
 * and this segment alike.
 * ----------
 */
constexpr const char *kCoreSegmentName = "pg_rseq_core_baselines";
constexpr const char *kCoreTrancheName = "pg_rseq_reset";

struct CoreBaselines
{
	int			nslots;
	int			tranche_id;
	LWLock		lock;
	TimestampTz stats_reset;	/* last reset; 0: never (counts since the
								 * server's start) */
	PgRseqCounters base[1];		/* nslots entries */
};
PG_RSEQ_ASSERT_POD(CoreBaselines);
PG_RSEQ_ASSERT_POD(PgRseqCounters);

constexpr size_t
CoreBaselinesSize(int nslots)
{
	return offsetof(CoreBaselines, base) + sizeof(PgRseqCounters) * static_cast<size_t>(nslots);
}

CoreBaselines *core_baselines = nullptr;
int			core_init_nslots = 0;

/* DSM registry callback: runs once, in the backend that creates it. */
void
InitCoreBaselines(void *ptr)
{
	CoreBaselines *b = static_cast<CoreBaselines *>(ptr);

	std::memset(b, 0, CoreBaselinesSize(core_init_nslots));
	b->nslots = core_init_nslots;
	b->tranche_id = LWLockNewTrancheId();
	LWLockInitialize(&b->lock, b->tranche_id);
	b->stats_reset = 0;
}

/* Attach to (or create) the baselines segment; NULL if the core has no slots. */
CoreBaselines *
GetCoreBaselines()
{
	bool		found;
	int			nslots = PgRseqNumSlots();

	if (core_baselines != nullptr)
		return core_baselines;
	if (nslots <= 0)
		return nullptr;
	core_init_nslots = nslots;
	core_baselines = static_cast<CoreBaselines *>(
		GetNamedDSMSegment(kCoreSegmentName, CoreBaselinesSize(nslots),
						   InitCoreBaselines, &found));
	LWLockRegisterTranche(core_baselines->tranche_id, kCoreTrancheName);
	if (core_baselines->nslots != nslots)
	{
		int			seg = core_baselines->nslots;

		core_baselines = nullptr;
		throw Error(ERRCODE_INTERNAL_ERROR,
					"pg_rseq's reset segment has %d slots, the server %d", seg, nslots);
	}
	return core_baselines;
}

/* v - from, never negative */
constexpr uint64_t
Since(uint64_t v, uint64_t from)
{
	return v > from ? v - from : 0;
}

/* *out = c - from, per counter */
void
CoreSince(PgRseqCounters *out, const PgRseqCounters &c, const PgRseqCounters &from)
{
	out->sections = Since(c.sections, from.sections);
	out->descheduled = Since(c.descheduled, from.descheduled);
	out->slept = Since(c.slept, from.slept);
	out->grants_in_place = Since(c.grants_in_place, from.grants_in_place);
	out->requests_cleared = Since(c.requests_cleared, from.requests_cleared);
	out->yields_in_grant = Since(c.yields_in_grant, from.yields_in_grant);
	for (int r = 0; r < PG_RSEQ_NROWS; r++)
		out->row_descheduled[r] = Since(c.row_descheduled[r], from.row_descheduled[r]);
}

/* *out = the later start of a and b: max per counter */
void
CoreLater(PgRseqCounters *out, const PgRseqCounters &a, const PgRseqCounters &b)
{
	out->sections = Max(a.sections, b.sections);
	out->descheduled = Max(a.descheduled, b.descheduled);
	out->slept = Max(a.slept, b.slept);
	out->grants_in_place = Max(a.grants_in_place, b.grants_in_place);
	out->requests_cleared = Max(a.requests_cleared, b.requests_cleared);
	out->yields_in_grant = Max(a.yields_in_grant, b.yields_in_grant);
	for (int r = 0; r < PG_RSEQ_NROWS; r++)
		out->row_descheduled[r] = Max(a.row_descheduled[r], b.row_descheduled[r]);
}

/* *sum += c */
void
CoreAdd(PgRseqCounters *sum, const PgRseqCounters &c)
{
	sum->sections += c.sections;
	sum->descheduled += c.descheduled;
	sum->slept += c.slept;
	sum->grants_in_place += c.grants_in_place;
	sum->requests_cleared += c.requests_cleared;
	sum->yields_in_grant += c.yields_in_grant;
	for (int r = 0; r < PG_RSEQ_NROWS; r++)
		sum->row_descheduled[r] += c.row_descheduled[r];
}

/* The outcomes of core counts; yields = grants_in_place (see above). */
Outcomes
CoreOutcomes(const PgRseqCounters &c)
{
	Outcomes	o;

	o.grants_in_place = c.grants_in_place;
	o.requests_cleared = c.requests_cleared;
	o.yields = c.grants_in_place;
	o.yields_in_grant = Min(c.yields_in_grant, c.grants_in_place);
	o.descheduled = c.descheduled;
	return o;
}

/* The counter columns from core counts: sections and the outcomes. */
template <Api api, size_t N>
void
SetCoreCounters(Row<N> &row, size_t first, const PgRseqCounters &c)
{
	static_assert(N >= kCounterColumns, "row too short");
	row.SetBigint(first + kSections, c.sections);
	SetOutcomes<api>(row, first + kFirstOutcome, CoreOutcomes(c), false);
}

/* The cluster's stats_reset: the last reset, else the server's start. */
TimestampTz
CoreStatsReset(const CoreBaselines *b)
{
	return b->stats_reset != 0 ? b->stats_reset : PgStartTime;
}

/*
 * Sum over every slot since the last reset into *sum (zeroed first);
 * returns the cluster's stats_reset.
 */
TimestampTz
CoreTotals(PgRseqCounters *sum)
{
	CoreBaselines *b = GetCoreBaselines();
	static PgRseqCounters c;		/* ~1 kB: static, backends are single-threaded */
	static PgRseqCounters since;
	TimestampTz reset;

	std::memset(sum, 0, sizeof(*sum));
	if (b == nullptr)
		return PgStartTime;
	LWLockAcquire(&b->lock, LW_SHARED);
	for (int i = 0; i < b->nslots; i++)
	{
		int			pid;

		if (!PgRseqReadSlot(i, &pid, &c, nullptr))
			continue;
		CoreSince(&since, c, b->base[i]);
		CoreAdd(sum, since);
	}
	reset = CoreStatsReset(b);
	LWLockRelease(&b->lock);
	return reset;
}

/* Name of a per-lock row (PG_RSEQ_ROW_* or a tranche ID) */
const char *
CoreRowName(int row)
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
			return GetLWLockIdentifier(PG_WAIT_LWLOCK, static_cast<uint16>(row));
	}
}

#endif							/* PG_RSEQ_CORE */

/*
 * pg_stat_rseq: one row per live backend (that the current user may see),
 * counters since the later of the backend's start and the last reset.
 */
template <Api api>
Datum
StatRseq(FunctionCallInfo fcinfo)
{
	StartMaterializedSRF(fcinfo, "pg_stat_rseq", BackendColumns(api));
#if PG_RSEQ_PATCHED
	{
		bool		read_all = MayReadAllStats();
		bool		detail = ShowDetail(api);
		int			nslots = PgRseqNumSlots();

		for (int i = 0; i < nslots; i++)
		{
			PgRseqBackendSnapshot snap;
			Row<kBackendColumns> row;

			PG_RSEQ_ASSERT_POD(PgRseqBackendSnapshot);
			if (!PgRseqSnapshotBackend(i, &snap) || snap.pid <= 0)
				continue;
			if (!CanSeeBackend(i, snap.pid, read_all))
				continue;
			MakeConsistent(&snap.c);
			row.Set(kBackendPid, Int32GetDatum(snap.pid));
			row.SetText(kBackendType,
						GetBackendTypeDesc(static_cast<BackendType>(snap.backend_type)));
			row.SetText(kBackendMode, ModeName(snap.mode));
			SetCounters<api>(row, kBackendFirstCounter, snap.c, detail);
			if (snap.stats_reset != 0)
				row.Set(kBackendStatsReset, TimestampTzGetDatum(snap.stats_reset));
			/* slept_while_holding: not counted by the research layer */
			PutVersionRow<api>(fcinfo, row, kBackendSlept);
		}
	}
#elif PG_RSEQ_CORE
	{
		CoreBaselines *b = GetCoreBaselines();
		bool		read_all = MayReadAllStats();
		const char *mode = CorePathName(PgRseqPathInForce());
		static PgRseqCounters c;
		static PgRseqCounters at_attach;
		static PgRseqCounters from;
		static PgRseqCounters own;

		if (b != nullptr)
		{
			TimestampTz reset;

			LWLockAcquire(&b->lock, LW_SHARED);
			reset = CoreStatsReset(b);
			for (int i = 0; i < b->nslots; i++)
			{
				Row<kBackendColumns> row;
				int			pid;
				PgBackendStatus *be;
				TimestampTz start = reset;

				if (!PgRseqReadSlot(i, &pid, &c, &at_attach) || pid <= 0)
					continue;
				if (!CanSeeBackend(i, pid, read_all))
					continue;
				CoreLater(&from, at_attach, b->base[i]);
				CoreSince(&own, c, from);
				be = pgstat_get_beentry_by_proc_number(i);
				row.Set(kBackendPid, Int32GetDatum(pid));
				if (be != nullptr && be->st_procpid == pid)
				{
					const char *bgw = be->st_backendType == B_BG_WORKER ?
						GetBackgroundWorkerTypeByPid(pid) : nullptr;

					/* as pg_stat_activity: a background worker's type */
					row.SetText(kBackendType, bgw != nullptr ? bgw : GetBackendTypeDesc(be->st_backendType));
					if (be->st_proc_start_timestamp > start)
						start = be->st_proc_start_timestamp;
				}
				/* every process inherits the postmaster's path */
				row.SetText(kBackendMode, mode);
				SetCoreCounters<api>(row, kBackendFirstCounter, own);
				row.Set(kBackendStatsReset, TimestampTzGetDatum(start));
				row.SetBigint(kBackendSlept, own.slept);
				PutVersionRow<api>(fcinfo, row, kBackendSlept);
			}
			LWLockRelease(&b->lock);
		}
	}
#endif
	return static_cast<Datum>(0);
}

/*
 * pg_stat_rseq_totals: one row, the cluster totals since the last reset
 * (live backends and every backend that has exited); 1.1.0 adds `detail`.
 */
template <Api api>
Datum
StatRseqTotals(FunctionCallInfo fcinfo)
{
	StartMaterializedSRF(fcinfo, "pg_stat_rseq_totals", TotalsColumns(api));
#if PG_RSEQ_PATCHED
	if (PgRseqShmem != nullptr)
	{
		static PgRseqRowCounters rows[PG_RSEQ_NROWS];
		rseq_slice_counters c;
		TimestampTz reset = 0;
		Row<kTotalsColumns> row;

		PgRseqSnapshotTotals(&c, rows, &reset);
		MakeConsistent(&c);
		SetCounters<api>(row, 0, c, ShowDetail(api));
		row.Set(kTotalsDetail, BoolGetDatum(DetailCounted()));
		if (reset != 0)
			row.Set(kTotalsStatsReset, TimestampTzGetDatum(reset));
		/* slept_while_holding: not counted by the research layer */
		PutVersionRow<api>(fcinfo, row, kTotalsSlept, true);
	}
#elif PG_RSEQ_CORE
	if (PgRseqNumSlots() > 0)
	{
		static PgRseqCounters sum;
		Row<kTotalsColumns> row;
		TimestampTz reset = CoreTotals(&sum);

		SetCoreCounters<api>(row, 0, sum);
		/* the core has no detail counters */
		row.Set(kTotalsDetail, BoolGetDatum(false));
		row.Set(kTotalsStatsReset, TimestampTzGetDatum(reset));
		row.SetBigint(kTotalsSlept, sum.slept);
		PutVersionRow<api>(fcinfo, row, kTotalsSlept, true);
	}
#endif
	return static_cast<Datum>(0);
}

/*
 * pg_stat_rseq_tranche: per LWLock tranche name (rows with the same name
 * summed), plus one row each for spinlocks, buffer header locks and LWLock
 * wait-list locks: cluster totals since the last reset.  LWLock tranches
 * with all counters 0 are left out.  1.1.0 adds yields_in_grant and
 * revoked, and shows the acquisitions of the spinlock, buffer header and
 * wait list rows (the detail counters' per-kind entries) as NULL while
 * they are not counted.
 */
template <Api api>
Datum
StatRseqTranche(FunctionCallInfo fcinfo)
{
	StartMaterializedSRF(fcinfo, "pg_stat_rseq_tranche", TrancheColumns(api));
#if PG_RSEQ_PATCHED
	if (PgRseqShmem != nullptr)
	{
		/* static: ~10 kB each, not worth palloc; backends are single-threaded */
		static PgRseqRowCounters rows[PG_RSEQ_NROWS];
		static TrancheSum sums[PG_RSEQ_NROWS];
		rseq_slice_counters c;
		TimestampTz reset;
		bool		detail = ShowDetail(api);
		int			nsums = 0;

		PgRseqSnapshotTotals(&c, rows, &reset);
		for (int r = 0; r < PG_RSEQ_NROWS; r++)
		{
			const char *name = PgRseqRowName(r);
			const char *kind = RowKind(r);
			int			s;

			if (name == nullptr)
				name = "unknown";
			for (s = 0; s < nsums; s++)
				if (std::strcmp(sums[s].name, name) == 0 &&
					std::strcmp(sums[s].kind, kind) == 0)
					break;
			if (s == nsums)
			{
				sums[s].name = name;
				sums[s].kind = kind;
				sums[s].always = r >= PG_RSEQ_TRANCHE_ROWS;
				std::memset(&sums[s].c, 0, sizeof(sums[s].c));
				nsums++;
			}
			sums[s].c.acquisitions += rows[r].acquisitions;
			sums[s].c.descheduled += rows[r].descheduled;
			sums[s].c.grants += rows[r].grants;
			sums[s].c.yields += rows[r].yields;
			sums[s].c.yields_in_grant += rows[r].yields_in_grant;
			sums[s].c.revoked += rows[r].revoked;
		}
		for (int s = 0; s < nsums; s++)
		{
			PgRseqRowCounters *t = &sums[s].c;
			Row<kTrancheColumns> row;

			if (!sums[s].always && t->acquisitions == 0 && t->descheduled == 0 &&
				t->grants == 0 && t->yields == 0 && t->yields_in_grant == 0 &&
				t->revoked == 0)
				continue;
			/* the documented relations (a reader can race with the owner) */
			if (t->revoked > t->grants)
				t->revoked = t->grants;
			if (t->yields > t->grants)
				t->yields = t->grants;
			if (t->yields_in_grant > t->yields)
				t->yields_in_grant = t->yields;
			row.SetText(kTrancheName, sums[s].name);
			row.SetText(kTrancheKind, sums[s].kind);
			/* LWLock acquisitions are always counted, the other kinds' with detail */
			if (!sums[s].always || detail)
				row.SetBigint(kTrancheAcquisitions, t->acquisitions);
			SetOutcomes<api>(row, kTrancheFirstOutcome,
							 OutcomesOf(t->grants, t->revoked, t->yields,
										t->yields_in_grant, t->descheduled),
							 true);
			if constexpr (api == Api::k1_0)
			{
				Row<kTrancheColumns - 1> a = WithoutColumn(row, kTrancheRevoked11);
				Row<kTrancheColumns10> old = WithoutColumn(a, kTrancheYieldsInGrant11);

				PutRow(fcinfo, old);
			}
			else
				PutRow(fcinfo, row);
		}
	}
#elif PG_RSEQ_CORE
	if (PgRseqNumSlots() > 0)
	{
		static PgRseqCounters sum;
		static const char *names[PG_RSEQ_NROWS];
		static uint64_t desched[PG_RSEQ_NROWS];
		int			nsums = 0;

		/* the test tranche's name, which this backend may not know yet */
		RegisterTestTranche();
		(void) CoreTotals(&sum);
		/* LWLock rows first (by tranche ID), then the three other kinds */
		for (int r = 0; r < PG_RSEQ_NROWS; r++)
		{
			bool		always = r >= PG_RSEQ_TRANCHE_ROWS;
			const char *name;
			int			s;

			if (!always && sum.row_descheduled[r] == 0)
				continue;
			name = CoreRowName(r);
			if (name == nullptr)
				name = "unknown";
			for (s = 0; s < nsums; s++)
				if (std::strcmp(names[s], name) == 0)
					break;
			if (s == nsums)
			{
				names[s] = name;
				desched[s] = 0;
				nsums++;
			}
			desched[s] += sum.row_descheduled[r];
		}
		for (int s = 0; s < nsums; s++)
		{
			Row<kTrancheColumns> row;
			bool		lwlock = std::strcmp(names[s], "spinlock") != 0 &&
				std::strcmp(names[s], "buffer header") != 0 &&
				std::strcmp(names[s], "wait list") != 0;

			row.SetText(kTrancheName, names[s]);
			row.SetText(kTrancheKind, lwlock ? "lwlock" : names[s]);
			/* the core counts only deschedules per lock: the rest is NULL */
			row.SetBigint(kTrancheFirstOutcome, desched[s]);
			if constexpr (api == Api::k1_0)
			{
				Row<kTrancheColumns - 1> a = WithoutColumn(row, kTrancheRevoked11);
				Row<kTrancheColumns10> old = WithoutColumn(a, kTrancheYieldsInGrant11);

				PutRow(fcinfo, old);
			}
			else
				PutRow(fcinfo, row);
		}
	}
#endif
	return static_cast<Datum>(0);
}

}								/* namespace */
}								/* namespace pg_rseq */

using namespace pg_rseq;

/* pg_stat_rseq() returns setof record (1.0.0: detail counters as counted). */
PG_RSEQ_FUNCTION(pg_stat_rseq)
{
	return StatRseq<Api::k1_0>(fcinfo);
}

/* pg_stat_rseq() of 1.1.0: detail counters NULL while not counted. */
PG_RSEQ_FUNCTION(pg_stat_rseq_1_1)
{
	return StatRseq<Api::k1_1>(fcinfo);
}

/* pg_stat_rseq_totals() returns setof record: 1.0.0 columns. */
PG_RSEQ_FUNCTION(pg_stat_rseq_totals)
{
	return StatRseqTotals<Api::k1_0>(fcinfo);
}

/* pg_stat_rseq_totals() of 1.1.0: detail column, NULL detail counters. */
PG_RSEQ_FUNCTION(pg_stat_rseq_totals_1_1)
{
	return StatRseqTotals<Api::k1_1>(fcinfo);
}

/* pg_stat_rseq_tranche() returns setof record: 1.0.0 columns. */
PG_RSEQ_FUNCTION(pg_stat_rseq_tranche)
{
	return StatRseqTranche<Api::k1_0>(fcinfo);
}

/* pg_stat_rseq_tranche() of 1.1.0: yields_in_grant, revoked. */
PG_RSEQ_FUNCTION(pg_stat_rseq_tranche_1_1)
{
	return StatRseqTranche<Api::k1_1>(fcinfo);
}

/*
 * The 1.2.0 entry points: grants_in_place and requests_cleared instead of
 * grants and revoked (see Outcomes).
 */
PG_RSEQ_FUNCTION(pg_stat_rseq_1_2)
{
	return StatRseq<Api::k1_2>(fcinfo);
}

PG_RSEQ_FUNCTION(pg_stat_rseq_totals_1_2)
{
	return StatRseqTotals<Api::k1_2>(fcinfo);
}

PG_RSEQ_FUNCTION(pg_stat_rseq_tranche_1_2)
{
	return StatRseqTranche<Api::k1_2>(fcinfo);
}

/*
 * The 1.4.0 entry points: the 1.2.0 columns plus slept_while_holding
 * (reported waits inside a lock hold whose context switch the kernel
 * flagged; counted by the core series only, NULL elsewhere).
 */
PG_RSEQ_FUNCTION(pg_stat_rseq_1_4)
{
	return StatRseq<Api::k1_4>(fcinfo);
}

PG_RSEQ_FUNCTION(pg_stat_rseq_totals_1_4)
{
	return StatRseqTotals<Api::k1_4>(fcinfo);
}

/*
 * pg_stat_rseq_reset() returns timestamptz: zero every counter (all
 * backends and the cluster totals) and return the reset time; NULL on a
 * stock server, which has no counters.  On the research layer the lock
 * layer resets (PgRseqResetCounters); on the core series the counters
 * never reset, so every slot's counts are copied into the baselines of the
 * DSM registry segment (under its LWLock, exclusive) with the time, and
 * the views subtract them.  No input.  EXECUTE is revoked from PUBLIC
 * (ERROR 42501 from PostgreSQL); ERROR 55000 where no counters exist in
 * this process.
 */
PG_RSEQ_FUNCTION(pg_stat_rseq_reset)
{
#if PG_RSEQ_PATCHED
	if (PgRseqShmem == nullptr)
		throw Error(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
					"rseq statistics are not available in this process");
	PG_RETURN_TIMESTAMPTZ(PgRseqResetCounters());
#elif PG_RSEQ_CORE
	{
		CoreBaselines *b = GetCoreBaselines();
		TimestampTz now = GetCurrentTimestamp();
		int			pid;

		if (b == nullptr)
			throw Error(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
						"rseq statistics are not available in this process");
		LWLockAcquire(&b->lock, LW_EXCLUSIVE);
		for (int i = 0; i < b->nslots; i++)
			(void) PgRseqReadSlot(i, &pid, &b->base[i], nullptr);
		b->stats_reset = now;
		LWLockRelease(&b->lock);
		PG_RETURN_TIMESTAMPTZ(now);
	}
#else
	PG_RETURN_NULL();
#endif
}
