/*
 * pg_rseq.hpp: declarations shared by the pg_rseq source files.
 *
 * Source files, by area:
 *   pg_rseq.cpp         module magic, _PG_init, error raising, helpers
 *   pg_rseq_kernel.cpp  pg_rseq_kernel(), pg_rseq_backend_state()
 *   pg_rseq_stats.cpp   pg_stat_rseq(), pg_stat_rseq_tranche(),
 *                       pg_stat_rseq_totals(), pg_stat_rseq_reset()
 *                       (on the core series: its reader, with the reset
 *                       baselines in a DSM registry segment)
 *   pg_rseq_test.cpp    pg_rseq_test_error_in_lwlocks(),
 *                       pg_rseq_test_signal_in_lwlocks()
 *
 * contrib/pg_rseq/include/pg_rseq/pg_rseq.hpp
 */
#pragma once

#include "pg_rseq/cpp_wrapper.hpp"

#include <array>
#include <cstdint>

namespace pg_rseq
{

/* ----------
 * The lock layer this module was built for
 * ----------
 */
constexpr bool kPatched = PG_RSEQ_PATCHED != 0;
constexpr bool kCore = PG_RSEQ_CORE != 0;
constexpr const char *kLockLayerName = kPatched ? "patched" : kCore ? "core" : "stock";

/* ----------
 * Conversions to SQL values
 * ----------
 */

/* A counter as bigint: never negative (saturates at INT64_MAX). */
constexpr int64
ToBigint(uint64_t v)
{
	return v > static_cast<uint64_t>(PG_INT64_MAX) ? PG_INT64_MAX
		: static_cast<int64>(v);
}

/* Name of an rseq_slice_mode value, or "unknown". */
const char *ModeName(unsigned mode);

/* Name of an errno value as the probe reports it ("EINVAL", ...). */
const char *ErrnoName(int err, char *buf, size_t buflen);

/* A text Datum (palloc'd in the current memory context). */
inline Datum
TextDatum(const char *s)
{
	return CStringGetTextDatum(s);
}

/*
 * One output row: Datums and null flags for N columns, all NULL until set.
 * Trivially destructible, so it may stay alive across PostgreSQL calls.
 */
template <size_t N>
struct Row
{
	std::array<Datum, N> values;
	std::array<bool, N> nulls;

	Row()
	{
		values.fill(static_cast<Datum>(0));
		nulls.fill(true);
	}
	void Set(size_t col, Datum d)
	{
		values[col] = d;
		nulls[col] = false;
	}
	void SetText(size_t col, const char *s)
	{
		if (s != nullptr)
			Set(col, TextDatum(s));
	}
	void SetBigint(size_t col, uint64_t v) { Set(col, Int64GetDatum(ToBigint(v))); }
	static constexpr size_t Size() { return N; }
};
PG_RSEQ_ASSERT_POD(Row<1>);

/*
 * `row` without column `col`: the result of an older SQL definition that
 * lacks that column (the entry points of extension version 1.0.0 fill the
 * 1.1.0 layout, then drop the columns 1.0.0 does not have).
 */
template <size_t N>
Row<N - 1>
WithoutColumn(const Row<N> &row, size_t col)
{
	static_assert(N >= 2, "nothing left");
	Row<N - 1>	out;

	for (size_t i = 0, j = 0; i < N; i++)
	{
		if (i == col)
			continue;
		out.values[j] = row.values[i];
		out.nulls[j] = row.nulls[i];
		j++;
	}
	return out;
}

/* ----------
 * SQL versions of the extension.  An entry point serves one SQL
 * definition; where 1.1.0 changed a function's result, it has its own
 * entry point (name_1_1) and the 1.0.0 one stays for databases that have
 * not run ALTER EXTENSION pg_rseq UPDATE yet.
 * ----------
 */
enum class Api
{
	k1_0,						/* pg_rseq--1.0.0.sql */
	k1_1,						/* pg_rseq--1.1.0.sql */
	k1_2,						/* pg_rseq--1.2.0.sql (and 1.2.1) */
	k1_3,						/* pg_rseq--1.3.0.sql: pg_rseq_kernel() only */
	k1_4						/* pg_rseq--1.4.0.sql: slept_while_holding in
								 * pg_stat_rseq and pg_stat_rseq_totals */
};

/* ----------
 * Privileges
 * ----------
 */

/*
 * May the current user see other roles' backends in pg_stat_rseq?
 * Superusers and roles with the privileges of pg_read_all_stats, as for
 * PostgreSQL's pg_stat_activity.  Every SQL version's entry points ask
 * this: the rule does not depend on ALTER EXTENSION.
 */
inline bool
MayReadAllStats()
{
	return has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
}

/*
 * May the current user read addresses in the server's memory
 * (pg_rseq_backend_state().rseq_cs and marker, which give away where the
 * postgres binary is mapped)?  Superusers and roles with the privileges of
 * pg_read_server_files: PostgreSQL shows no address in any view, and those
 * are the roles that can read one anyway, with pg_read_file() on
 * /proc/self/maps.  pg_read_all_stats and pg_monitor do not suffice (a
 * monitoring agent gets no address).  Every SQL version asks this.
 */
inline bool
MayReadAddresses()
{
	return has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES);
}

/*
 * Is this backend counting the detail counters (GUC rseq_slice_detail:
 * per-kind entries of spinlocks, buffer header and wait-list locks,
 * sections, nested entries, max_depth)?  Always false on a stock server.
 * This is the setting as this backend has applied it; other backends apply
 * a change when they process the configuration reload.
 */
inline bool
DetailCounted()
{
#if PG_RSEQ_PATCHED
	return rseq_slice_detail_setting;
#else
	return false;
#endif
}

#if PG_RSEQ_CORE
/*
 * The core series: this process's nesting depth (sections open, locks) and
 * the address of its preemption marker (0 where the sections are compiled
 * out).
 */
inline int64
CoreDepth()
{
#ifdef USE_RSEQ_SLICE
	return static_cast<int64>(PgRseq.level) + 1;
#else
	return 0;
#endif
}

inline uint64_t
CoreMarker()
{
#ifdef USE_RSEQ_SLICE
	return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&PgRseqMarker));
#else
	return 0;
#endif
}

/* Name of a core path (PG_RSEQ_PATH_*), as its start-up line says it. */
inline const char *
CorePathName(int path)
{
	switch (path)
	{
		case PG_RSEQ_PATH_OFF:
			return "off";
		case PG_RSEQ_PATH_MEASURE:
			return "measure";
		case PG_RSEQ_PATH_REQUEST:
			return "request";
		default:
			return "unknown";
	}
}
#endif

/* Register the name of the test functions' LWLock tranche in this backend. */
void RegisterTestTranche();

/*
 * What descheduled_while_holding counts on the running kernel, from its
 * release (uname -r) and architecture: one sentence, never NULL.  See
 * pg_rseq_kernel.cpp.
 */
const char *DescheduledCounts(const char *release);

/*
 * The tuple descriptor of a function's declared result, checked against
 * the number of columns the C++ code fills (a mismatch means the SQL
 * script and the module disagree).
 */
TupleDesc ResultTupleDesc(FunctionCallInfo fcinfo, const char *funcname,
						  size_t ncolumns);

/* Start a materialized set-returning function; checks the column count. */
void StartMaterializedSRF(FunctionCallInfo fcinfo, const char *funcname,
						  size_t ncolumns);

/* Append one row to the set started by StartMaterializedSRF. */
template <size_t N>
void
PutRow(FunctionCallInfo fcinfo, Row<N> &row)
{
	ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
						 row.values.data(), row.nulls.data());
}

/* Form a composite Datum from one row (single-row functions). */
template <size_t N>
Datum
RowDatum(TupleDesc tupdesc, Row<N> &row)
{
	HeapTuple	tuple = heap_form_tuple(tupdesc, row.values.data(), row.nulls.data());

	return HeapTupleGetDatum(tuple);
}

}								/* namespace pg_rseq */
