/*
 * pg_rseq.cpp: module magic, _PG_init and the helpers shared by the SQL
 * functions (error raising, result descriptors, names).
 *
 * contrib/pg_rseq/src/pg_rseq.cpp
 */
#include "pg_rseq/pg_rseq.hpp"

extern "C" {
PG_MODULE_MAGIC_EXT(.name = "pg_rseq", .version = PG_RSEQ_VERSION);

PGDLLEXPORT void _PG_init(void);
}

/* pg_rseq has no GUCs yet; reserve its prefix for future ones. */
extern "C" void
_PG_init(void)
{
	MarkGUCPrefixReserved("pg_rseq");
}

namespace pg_rseq
{

void
RaiseErrorReport(const ErrorReport *r)
{
	ereport(ERROR,
			(errcode(r->sqlstate),
			 errmsg_internal("%s", r->message),
			 r->detail[0] != '\0' ? errdetail_internal("%s", r->detail) : 0,
			 r->hint[0] != '\0' ? errhint("%s", r->hint) : 0));
	pg_unreachable();
}

const char *
ModeName(unsigned mode)
{
	return mode < RSEQ_SLICE_NMODES ? rseq_slice_mode_names[mode] : "unknown";
}

const char *
ErrnoName(int err, char *buf, size_t buflen)
{
	return rseq_slice_errno_name(err, buf, buflen);
}

TupleDesc
ResultTupleDesc(FunctionCallInfo fcinfo, const char *funcname, size_t ncolumns)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		throw Error(ERRCODE_FEATURE_NOT_SUPPORTED,
					"function %s must be called in a context that accepts a record",
					funcname);
	if (static_cast<size_t>(tupdesc->natts) != ncolumns)
		throw Error(ERRCODE_INTERNAL_ERROR,
					"function %s returns %d columns, the module fills %zu",
					funcname, tupdesc->natts, ncolumns)
			.Hint("The installed SQL script and the pg_rseq module differ: "
				  "reinstall the module or ALTER EXTENSION pg_rseq UPDATE.");
	return BlessTupleDesc(tupdesc);
}

void
StartMaterializedSRF(FunctionCallInfo fcinfo, const char *funcname, size_t ncolumns)
{
	ReturnSetInfo *rsinfo;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	if (static_cast<size_t>(rsinfo->setDesc->natts) != ncolumns)
		throw Error(ERRCODE_INTERNAL_ERROR,
					"function %s returns %d columns, the module fills %zu",
					funcname, rsinfo->setDesc->natts, ncolumns)
			.Hint("The installed SQL script and the pg_rseq module differ: "
				  "reinstall the module or ALTER EXTENSION pg_rseq UPDATE.");
}

}								/* namespace pg_rseq */
