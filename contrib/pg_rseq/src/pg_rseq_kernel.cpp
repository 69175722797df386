/*
 * pg_rseq_kernel.cpp: what the kernel offers (pg_rseq_kernel) and this
 * backend's protocol state (pg_rseq_backend_state).
 *
 * On a patched server the kernel facts are the postmaster's start-up probe
 * (PgRseqShmem->probe): the postmaster registered the rseq area and
 * enabled the slice extension before forking, so that probe is what every
 * backend inherited, including errnos a later probe could not see.  On a
 * stock server this backend is probed now with our own copy of
 * lwlock_patch/rseq_slice_kernel.c (nothing is changed by probing); so is
 * a backend of the core series, which registers nothing (glibc's area),
 * and whose mode and reason come from its reader (PgRseqPathInForce,
 * PgRseqStartupReason).
 *
 * contrib/pg_rseq/src/pg_rseq_kernel.cpp
 */
#include "pg_rseq/pg_rseq.hpp"

#include <cstdio>
#include <cstring>

namespace pg_rseq
{
namespace
{

/* Fill *p with the probe pg_rseq_kernel() reports (see file header). */
void
GetProbe(rseq_slice_probe *p)
{
	PG_RSEQ_ASSERT_POD(rseq_slice_probe);
#if PG_RSEQ_PATCHED
	if (PgRseqShmem != nullptr)
	{
		std::memcpy(p, &PgRseqShmem->probe, sizeof(*p));
		return;
	}
#endif
	rseq_slice_probe_thread(p);
}

/* The rseq area this backend uses, or NULL if none is registered. */
volatile rseq_slice_area *
CurrentArea()
{
#if PG_RSEQ_PATCHED
	return PgRseqState.area;
#else
	rseq_slice_probe p;

	rseq_slice_probe_thread(&p);
	return p.registered ? p.area : nullptr;
#endif
}

/* Columns of pg_rseq_kernel(), in the order of the SQL declaration. */
enum KernelColumn : size_t
{
	kKernelRelease,
	kRseqRegistered,
	kRseqRegistration,
	kRseqOwner,
	kRseqLength,
	kFeatureSize,
	kSliceExtension,
	kSliceExtensionErrno,
	kRseqRegisterErrno,
	kSliceExtNsec,
	kPreemption,
	kLockLayer,
	kModeSetting,
	kMode,
	kModeReason,
	kDetail,					/* 1.1.0 */
	kSummary,
	kDescheduledCounts,			/* 1.3.0 */
	kKernelColumns
};
/* 1.1.0 (and 1.2.x) have no descheduled_counts, 1.0.0 no detail either. */
constexpr size_t kKernelColumns11 = kKernelColumns - 1;
constexpr size_t kKernelColumns10 = kKernelColumns - 2;

constexpr size_t
KernelColumns(Api api)
{
	return api == Api::k1_0 ? kKernelColumns10
		: api == Api::k1_3 ? kKernelColumns : kKernelColumns11;
}

/* Columns of pg_rseq_backend_state(). */
enum StateColumn : size_t
{
	kStateDepth,
	kStateMode,
	kStateRequest,
	kStateGranted,
	kStateRseqCs,
	kStateMarker,				/* 1.1.0 */
	kStateRseqCsKind,			/* 1.2.0 */
	kStateColumns
};
/* 1.1.0 has no rseq_cs_kind column, 1.0.0 no marker either. */
constexpr size_t kStateColumns11 = kStateColumns - 1;
constexpr size_t kStateColumns10 = kStateColumns - 2;

constexpr size_t
StateColumns(Api api)
{
	return api == Api::k1_0 ? kStateColumns10
		: api == Api::k1_1 ? kStateColumns11 : kStateColumns;
}


/*
 * pg_rseq_kernel: one row describing the kernel's rseq support as this
 * server uses it; 1.1.0 adds `detail` (GUC rseq_slice_detail).  See the
 * COMMENT in the install script for the columns.
 */
template <Api api>
Datum
RseqKernel(FunctionCallInfo fcinfo)
{
	constexpr size_t ncolumns = KernelColumns(api);
	TupleDesc	tupdesc = ResultTupleDesc(fcinfo, "pg_rseq_kernel", ncolumns);
	Row<kKernelColumns> row;
	rseq_slice_probe p;
	char		eb[32];

	GetProbe(&p);

	row.SetText(kKernelRelease, p.release);
	row.Set(kRseqRegistered, BoolGetDatum(p.registered != 0));
	if (p.registered)
	{
		row.SetText(kRseqRegistration,
					p.reg_len > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy");
		row.Set(kRseqLength, Int32GetDatum(static_cast<int32>(p.reg_len)));
	}
	row.SetText(kRseqOwner,
				static_cast<unsigned>(p.owner) < 3 ? rseq_slice_owner_names[p.owner] : "unknown");
	if (p.feature_size > 0)
		row.Set(kFeatureSize, Int32GetDatum(static_cast<int32>(p.feature_size)));
	row.SetText(kSliceExtension,
				static_cast<unsigned>(p.slice) < 4 ? rseq_slice_ext_names[p.slice] : "unknown");
	if (p.slice_errno != 0)
		row.SetText(kSliceExtensionErrno, ErrnoName(p.slice_errno, eb, sizeof(eb)));
	if (p.register_errno != 0)
		row.SetText(kRseqRegisterErrno, ErrnoName(p.register_errno, eb, sizeof(eb)));
	if (p.slice_ext_nsec >= 0)
		row.Set(kSliceExtNsec, Int64GetDatum(p.slice_ext_nsec));
	if (p.preempt[0] != '\0')
		row.SetText(kPreemption, p.preempt);
	row.SetText(kLockLayer, kLockLayerName);
#if PG_RSEQ_PATCHED
	row.SetText(kModeSetting, ModeName(static_cast<unsigned>(rseq_slice_mode_setting)));
	row.SetText(kMode, ModeName(PgRseqState.mode));
	row.SetText(kModeReason, PgRseqModeWhy);
	row.Set(kDetail, BoolGetDatum(DetailCounted()));
#elif PG_RSEQ_CORE
	{
		const char *setting = GetConfigOption("rseq_slice_mode", true, false);

		row.SetText(kModeSetting, setting);
		row.SetText(kMode, CorePathName(PgRseqPathInForce()));
		row.SetText(kModeReason, PgRseqStartupReason());
		/* the core has no detail counters: never counted */
		row.Set(kDetail, BoolGetDatum(false));
	}
#endif
	row.SetText(kSummary, p.reason);
	if constexpr (kPatched || kCore)
	{
		if (p.registered)
			row.SetText(kDescheduledCounts, DescheduledCounts(p.release));
		else
			row.SetText(kDescheduledCounts,
						"nothing: no rseq area is registered, so no marker can be armed");
	}

	if constexpr (api == Api::k1_0)
	{
		Row<kKernelColumns11> a = WithoutColumn(row, kDescheduledCounts);
		Row<kKernelColumns10> old = WithoutColumn(a, kDetail);

		return RowDatum(tupdesc, old);
	}
	else if constexpr (api != Api::k1_3)
	{
		Row<kKernelColumns11> old = WithoutColumn(row, kDescheduledCounts);

		return RowDatum(tupdesc, old);
	}
	else
		return RowDatum(tupdesc, row);
}

/*
 * What rseq_cs holds, without the address: "none" (0), "marker" (the lock
 * layer's preemption marker) or "other" (another rseq user's descriptor).
 */
const char *
RseqCsKind(uint64_t rseq_cs)
{
	if (rseq_cs == 0)
		return "none";
#if PG_RSEQ_PATCHED
	if (rseq_cs == static_cast<uint64_t>(PgRseqState.marker))
		return "marker";
#elif PG_RSEQ_CORE
	if (CoreMarker() != 0 && rseq_cs == CoreMarker())
		return "marker";
#endif
	return "other";
}

/*
 * pg_rseq_backend_state: this backend's nesting depth and mode in force
 * (NULL on a stock server), and the bytes of its rseq area the protocol
 * writes: slice_ctrl.request, slice_ctrl.granted and rseq_cs (NULL if no
 * rseq area is registered); 1.1.0 adds `marker`, the address of the lock
 * layer's preemption marker, which stays armed in rseq_cs between sections
 * (NULL on a stock server or without an rseq area); 1.2.0 adds
 * `rseq_cs_kind`, what rseq_cs holds without its address.
 *
 * rseq_cs and marker are addresses in the server's memory: they are shown
 * only to superusers and roles with the privileges of pg_read_server_files
 * (MayReadAddresses), NULL for everyone else, in every SQL version;
 * rseq_cs_kind says what rseq_cs holds to everyone.
 */
template <Api api>
Datum
RseqBackendState(FunctionCallInfo fcinfo)
{
	constexpr size_t ncolumns = StateColumns(api);
	TupleDesc	tupdesc = ResultTupleDesc(fcinfo, "pg_rseq_backend_state", ncolumns);
	Row<kStateColumns> row;
	volatile rseq_slice_area *area = CurrentArea();
	bool		addresses = MayReadAddresses();

#if PG_RSEQ_PATCHED
	row.Set(kStateDepth, Int64GetDatum(static_cast<int64>(PgRseqState.depth)));
	row.SetText(kStateMode, ModeName(PgRseqState.mode));
#elif PG_RSEQ_CORE
	row.Set(kStateDepth, Int64GetDatum(CoreDepth()));
	row.SetText(kStateMode, CorePathName(PgRseqPathInForce()));
#endif
	if (area != nullptr)
	{
		uint64_t	rseq_cs = area->rseq_cs;

		row.Set(kStateRequest, Int16GetDatum(static_cast<int16>(area->slice.ctrl.request)));
		row.Set(kStateGranted, Int16GetDatum(static_cast<int16>(area->slice.ctrl.granted)));
		row.SetText(kStateRseqCsKind, RseqCsKind(rseq_cs));
		if (addresses)
		{
			/*
			 * an address (or 0); user addresses are below 2^63 on x86_64
			 * and arm64 (at most 57- and 52-bit virtual addresses), so a
			 * plain bigint
			 */
			row.Set(kStateRseqCs, Int64GetDatum(static_cast<int64>(rseq_cs)));
#if PG_RSEQ_PATCHED
			row.Set(kStateMarker, Int64GetDatum(static_cast<int64>(PgRseqState.marker)));
#elif PG_RSEQ_CORE
			if (CoreMarker() != 0)
				row.Set(kStateMarker, Int64GetDatum(static_cast<int64>(CoreMarker())));
#endif
		}
	}

	if constexpr (api == Api::k1_0)
	{
		Row<kStateColumns11> a = WithoutColumn(row, kStateRseqCsKind);
		Row<kStateColumns10> old = WithoutColumn(a, kStateMarker);

		return RowDatum(tupdesc, old);
	}
	else if constexpr (api == Api::k1_1)
	{
		Row<kStateColumns11> old = WithoutColumn(row, kStateRseqCsKind);

		return RowDatum(tupdesc, old);
	}
	else
		return RowDatum(tupdesc, row);
}

}								/* namespace */

/*
 * DescheduledCounts: what a cleared marker, and so descheduled_while_holding,
 * means on this kernel.  The kernel clears rseq_cs when it evaluates a
 * descriptor whose range does not hold the interrupted instruction (the
 * marker's range is empty).  When it evaluates it depends on the version
 * (Linux 7.2.13, include/linux/rseq_entry.h, rseq_update_usr; 6.18,
 * kernel/rseq.c, rseq_handle_notify_resume):
 *
 *   up to 6.18     after every context switch of the thread (preemptions,
 *                  and voluntary sleeps in system calls: I/O, a wait for
 *                  another lock) and at every signal delivery;
 *   6.19 and later (the rseq rework; x86_64 and arm64, the architectures
 *                  with the generic entry code) only when the thread
 *                  entered the kernel by an interrupt or exception from
 *                  user mode: preemptions from user mode, page faults that
 *                  sleep; for legacy and V2 registrations alike, unless the
 *                  kernel's rseq debugging is on (it then evaluates at every
 *                  return).  Signals: on V2 only those delivered on such a
 *                  return, on a legacy area every delivery
 *                  (rseq_signal_deliver, include/linux/rseq.h of 7.2.13).
 *                  Measured: bench/results/kernel-lab/probes-20261206.
 *
 * On the core series (PG_RSEQ_CORE) a reported wait whose switch cleared
 * the marker is counted in slept_while_holding, not as a deschedule
 * (lwlock_patch/core, PgRseqSleepBegin in storage/rseq_slice.h), and the
 * text says so.
 *
 * Input: the release as uname -r gives it ("6.18.3-amd64").  A release that
 * does not start with "major.minor" is reported as unknown.
 */
const char *
DescheduledCounts(const char *release)
{
	unsigned	major = 0;
	unsigned	minor = 0;

	if (release == nullptr || std::sscanf(release, "%u.%u", &major, &minor) != 2)
		return "unknown: the kernel release does not start with major.minor";
	if (major < 6 || (major == 6 && minor <= 18))
	{
#if PG_RSEQ_CORE
		/* the core counts a wait's switch apart (PgRseqSleepBegin, storage/rseq_slice.h) */
		return "context switches of the holder outside reported waits: preemptions, signal deliveries, "
			"and sleeps in system calls that report no wait event; sleeps in reported waits (I/O, a "
			"wait for another lock) are counted in slept_while_holding instead (Linux up to 6.18 "
			"clears rseq_cs after every context switch)";
#else
		return "every context switch of the holder: preemptions and voluntary sleeps in system calls "
			"(I/O, a wait for another lock), and signal deliveries (Linux up to 6.18 clears rseq_cs "
			"after every context switch)";
#endif
	}
#if defined(__x86_64__) || defined(__aarch64__)
	return "entries from user mode by an interrupt or exception only: preemptions from user mode, "
		"page faults that sleep, and signals (with a V2 registration only those delivered on an "
		"interrupt or exception return, with a legacy one every delivery); not sleeps in system calls "
		"(Linux 6.19 and later on x86_64 and arm64, legacy and V2 registrations alike, unless the "
		"kernel's rseq debugging is on, which counts every context switch; measured on 7.2.13: a "
		"100 us sleep while holding 0 of 200 times on either registration)"
#if PG_RSEQ_CORE
		"; slept_while_holding counts only such switches inside a reported wait"
#endif
		;
#else
	return "unknown on this architecture (Linux 6.19 and later: it depends on the architecture's entry code)";
#endif
}

}								/* namespace pg_rseq */

using namespace pg_rseq;

/* pg_rseq_kernel() returns record: the 1.0.0 columns. */
PG_RSEQ_FUNCTION(pg_rseq_kernel)
{
	return RseqKernel<Api::k1_0>(fcinfo);
}

/* pg_rseq_kernel() of 1.1.0: with `detail`. */
PG_RSEQ_FUNCTION(pg_rseq_kernel_1_1)
{
	return RseqKernel<Api::k1_1>(fcinfo);
}

/*
 * pg_rseq_kernel() of 1.3.0 returns record: no input; the 1.1.0 columns
 * plus descheduled_counts (text: what descheduled_while_holding counts on
 * this kernel, from its release, DescheduledCounts(); NULL on stock).
 * Facts: the postmaster's start-up probe on the research layer, a probe of
 * this backend on the core and on stock (uname, getauxval, prctl GET,
 * glibc's __rseq_size, debugfs where readable); mode, mode_reason from the
 * lock layer.  Units: rseq_length and feature_size bytes, slice_ext_nsec
 * ns.  Everyone may call it; never fails but for a script/module column
 * mismatch (ERROR XX000 with a hint to update).
 */
PG_RSEQ_FUNCTION(pg_rseq_kernel_1_3)
{
	return RseqKernel<Api::k1_3>(fcinfo);
}

/* pg_rseq_backend_state() returns record: the 1.0.0 columns. */
PG_RSEQ_FUNCTION(pg_rseq_backend_state)
{
	return RseqBackendState<Api::k1_0>(fcinfo);
}

/* pg_rseq_backend_state() of 1.1.0: with `marker`. */
PG_RSEQ_FUNCTION(pg_rseq_backend_state_1_1)
{
	return RseqBackendState<Api::k1_1>(fcinfo);
}

/* pg_rseq_backend_state() of 1.2.0: with `rseq_cs_kind`. */
PG_RSEQ_FUNCTION(pg_rseq_backend_state_1_2)
{
	return RseqBackendState<Api::k1_2>(fcinfo);
}
