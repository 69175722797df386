/*
 * cpp_wrapper.hpp: the boundary between C++ and PostgreSQL.  Every
 * SQL-callable function of pg_rseq is declared with PG_RSEQ_FUNCTION here;
 * nothing else in the module is called by PostgreSQL except _PG_init.
 *
 * Two directions, two rules:
 *
 * 1. C++ -> PostgreSQL.  A C++ exception must never unwind into
 *    PostgreSQL's C frames.  PG_RSEQ_FUNCTION(name) defines the extern "C"
 *    entry point `name`, which runs the C++ body `name_body` inside
 *    pg_rseq::Guard().  Guard catches everything, copies what it needs
 *    (SQLSTATE, message, detail, hint) into fixed-size buffers on its own
 *    stack (no allocation, so the handlers cannot fail or raise a
 *    PostgreSQL ERROR themselves), lets the catch block end (which
 *    destroys the exception object) and only then calls ereport(ERROR).
 *    Bodies report expected errors (bad arguments, missing privileges) by
 *    throwing pg_rseq::Error, which carries its SQLSTATE.
 *
 * 2. PostgreSQL -> C++.  ereport(ERROR) longjmps: it would skip the
 *    destructors of any C++ object alive between the erroring call and the
 *    enclosing sigsetjmp.  pg_rseq never calls a PostgreSQL function that
 *    may ERROR (palloc, tuplestore_putvalues, LWLockAcquire,
 *    GetNamedDSMSegment, ...) while such an object is alive.  It holds this
 *    by construction: the bodies and everything they call use only
 *    trivially destructible types (scalars, C structs, plain arrays,
 *    std::array of those, string literals); no std::string, container,
 *    smart pointer or RAII guard exists in the module.  The types that are
 *    passed around are checked with static_assert (PG_RSEQ_ASSERT_POD).
 *    The one exception type, Error (not trivially destructible: it derives
 *    from std::exception), only ever exists inside a throw expression and
 *    the catch handlers below, which call nothing but vsnprintf.  Hence no
 *    reverse guard (sigsetjmp around PostgreSQL calls) is needed.
 *
 * contrib/pg_rseq/include/pg_rseq/cpp_wrapper.hpp
 */
#pragma once

#include "pg_rseq/pg.hpp"

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>
#include <type_traits>

/* Types that may be alive across PostgreSQL calls must pass this. */
#define PG_RSEQ_ASSERT_POD(T) \
	static_assert(std::is_trivially_destructible_v<T>, \
				  #T " must be trivially destructible (see cpp_wrapper.hpp)")

namespace pg_rseq
{

/* Size of each text field of an error report, including the NUL. */
constexpr size_t kErrorTextSize = 512;

/*
 * An error for the client: SQLSTATE (from ERRCODE_*), message, optional
 * detail and hint, all printf-formatted into fixed buffers.  Throw it from
 * a function body; Guard turns it into ereport(ERROR).
 */
class Error final : public std::exception
{
public:
	Error(int sqlstate, const char *fmt, ...) pg_attribute_printf(3, 4)
		: sqlstate_(sqlstate), message_{}, detail_{}, hint_{}
	{
		va_list		ap;

		va_start(ap, fmt);
		std::vsnprintf(message_, sizeof(message_), fmt, ap);
		va_end(ap);
	}

	/* Add a DETAIL line; returns *this so that it chains into throw. */
	Error &Detail(const char *fmt, ...) pg_attribute_printf(2, 3)
	{
		va_list		ap;

		va_start(ap, fmt);
		std::vsnprintf(detail_, sizeof(detail_), fmt, ap);
		va_end(ap);
		return *this;
	}

	/* Add a HINT line. */
	Error &Hint(const char *fmt, ...) pg_attribute_printf(2, 3)
	{
		va_list		ap;

		va_start(ap, fmt);
		std::vsnprintf(hint_, sizeof(hint_), fmt, ap);
		va_end(ap);
		return *this;
	}

	const char *what() const noexcept override { return message_; }
	int SqlState() const noexcept { return sqlstate_; }
	const char *DetailText() const noexcept { return detail_; }
	const char *HintText() const noexcept { return hint_; }

private:
	int			sqlstate_;
	char		message_[kErrorTextSize];
	char		detail_[kErrorTextSize];
	char		hint_[kErrorTextSize];
};

/*
 * What Guard keeps of a caught exception: plain bytes on Guard's stack,
 * filled inside the handler without allocating, read after it.
 */
struct ErrorReport
{
	int			sqlstate;
	char		message[kErrorTextSize];
	char		detail[kErrorTextSize];
	char		hint[kErrorTextSize];

	void Set(int code, const char *msg, const char *det, const char *hnt) noexcept
	{
		sqlstate = code;
		std::snprintf(message, sizeof(message), "%s", msg ? msg : "");
		std::snprintf(detail, sizeof(detail), "%s", det ? det : "");
		std::snprintf(hint, sizeof(hint), "%s", hnt ? hnt : "");
	}
};
PG_RSEQ_ASSERT_POD(ErrorReport);

/* Raise *r as a PostgreSQL ERROR; never returns.  Call outside any catch. */
[[noreturn]] void RaiseErrorReport(const ErrorReport *r);

/*
 * Run a function body; turn any C++ exception into a PostgreSQL ERROR
 * raised after the catch block has ended.
 */
template <Datum (*Body)(FunctionCallInfo)>
Datum
Guard(const char *funcname, FunctionCallInfo fcinfo)
{
	ErrorReport report;

	try
	{
		return Body(fcinfo);
	}
	catch (const Error &e)
	{
		report.Set(e.SqlState(), e.what(), e.DetailText(), e.HintText());
	}
	catch (const std::bad_alloc &)
	{
		report.Set(ERRCODE_OUT_OF_MEMORY, "out of memory", nullptr, nullptr);
	}
	catch (const std::exception &e)
	{
		report.Set(ERRCODE_INTERNAL_ERROR, "C++ exception", nullptr, nullptr);
		std::snprintf(report.message, sizeof(report.message),
					  "C++ exception in %s: %s", funcname, e.what());
	}
	catch (...)
	{
		report.Set(ERRCODE_INTERNAL_ERROR, "C++ exception", nullptr, nullptr);
		std::snprintf(report.message, sizeof(report.message),
					  "unknown C++ exception in %s", funcname);
	}
	/* The exception object is gone: now it is safe to longjmp. */
	RaiseErrorReport(&report);
}

}								/* namespace pg_rseq */

/*
 * PG_RSEQ_FUNCTION(name) { body }: define the SQL-callable function `name`
 * (version-1 calling convention, extern "C") whose C++ body follows.
 */
#define PG_RSEQ_FUNCTION(name) \
	extern "C" { PG_FUNCTION_INFO_V1(name); } \
	static Datum name##_body(FunctionCallInfo fcinfo); \
	extern "C" Datum \
	name(PG_FUNCTION_ARGS) \
	{ \
		return ::pg_rseq::Guard<name##_body>(#name, fcinfo); \
	} \
	static Datum name##_body([[maybe_unused]] FunctionCallInfo fcinfo)
