/*
 * pg_rseq_test.cpp: a test-only function that raises an ERROR while
 * holding LWLocks, so that the regression tests can check that the lock
 * layer unwinds its nesting depth, withdraws its request and leaves
 * rseq_cs at 0 when PostgreSQL's abort releases the locks.
 *
 * The locks live in a named DSM segment (the DSM registry), so no
 * shared_preload_libraries entry is needed: the first caller creates the
 * segment, allocates one LWLock tranche ID for it and initializes
 * kMaxTestLocks LWLocks; every backend registers the tranche name
 * "pg_rseq_test" before using them, so they show up under that name in
 * pg_stat_rseq_tranche (for tranche IDs below the lock layer's row limit).
 *
 * Never under a spinlock: only LWLocks are held when the ERROR is raised.
 *
 * pg_rseq_test_signal_in_lwlocks (1.1.0) takes the same locks, has a
 * signal delivered to the backend while holding them and releases them
 * normally: the kernel clears rseq_cs when it delivers a signal that
 * interrupted user space, as it does when it preempts, so the lock layer
 * counts a deschedule while holding whenever an rseq area is registered
 * (any kernel with rseq, legacy or V2 registration, every mode but off).
 *
 * contrib/pg_rseq/src/pg_rseq_test.cpp
 */
#include "pg_rseq/pg_rseq.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <ctime>

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace pg_rseq
{
namespace
{

/* At most this many locks (PostgreSQL allows 200 held LWLocks). */
constexpr int kMaxTestLocks = 64;
constexpr const char *kTestTrancheName = "pg_rseq_test";

struct TestLocks
{
	int			tranche_id;
	LWLock		locks[kMaxTestLocks];
};
PG_RSEQ_ASSERT_POD(TestLocks);

/* This backend's pointer to the segment, once attached. */
TestLocks *test_locks = nullptr;

/* DSM registry callback: runs once, in the backend that creates it. */
void
InitTestLocks(void *ptr)
{
	TestLocks  *t = static_cast<TestLocks *>(ptr);

	t->tranche_id = LWLockNewTrancheId();
	for (LWLock &lock : t->locks)
		LWLockInitialize(&lock, t->tranche_id);
}

/* Attach to (or create) the segment and register the tranche name. */
TestLocks *
GetTestLocks()
{
	bool		found;

	if (test_locks == nullptr)
	{
		TestLocks  *t = static_cast<TestLocks *>(
			GetNamedDSMSegment("pg_rseq_test_locks", sizeof(TestLocks),
							   InitTestLocks, &found));

		LWLockRegisterTranche(t->tranche_id, kTestTrancheName);
		test_locks = t;
	}
	return test_locks;
}

/* Argument checks shared by the test functions; returns n. */
int32
CheckTestArgs(FunctionCallInfo fcinfo, const char *funcname)
{
	int32		n;

	if (!superuser())
		throw Error(ERRCODE_INSUFFICIENT_PRIVILEGE,
					"permission denied for function %s", funcname)
			.Detail("Only superusers may call this test function.");
	if (PG_ARGISNULL(0))
		throw Error(ERRCODE_NULL_VALUE_NOT_ALLOWED,
					"number of LWLocks must not be NULL");
	n = PG_GETARG_INT32(0);
	if (n < 0 || n > kMaxTestLocks)
		throw Error(ERRCODE_INVALID_PARAMETER_VALUE,
					"number of LWLocks must be between 0 and %d, not %d",
					kMaxTestLocks, n);
	return n;
}

/*
 * Have SIGUSR1 (PostgreSQL's procsignal handler: with no reason flagged it
 * only sets the latch) delivered to this thread while it runs in user
 * space, and wait for it without a system call.
 *
 * Why not kill(): a signal a thread sends itself is delivered on the way
 * out of that system call, and with a V2 registration (glibc 2.41 and
 * later) Linux 6.19 and later (every 7.x) look at rseq_cs at delivery only
 * when the thread came from user space through an interrupt or exception
 * (rseq_signal_deliver in include/linux/rseq.h, 7.2.13: event.user_irq;
 * a legacy registration is looked at on every delivery); so kill() clears
 * the marker on a V2 area only on kernels up to 6.18 (measured:
 * pg_regress's detail test on arm64 7.2.13, glibc 2.43's V2 area).  A POSIX timer's signal arrives through the timer
 * interrupt, or the reschedule interrupt of another CPU, while this thread
 * spins, which every kernel with rseq handles like a preemption.
 *
 * Returns 0 once the latch is set (by the timer's signal, or by anything
 * else that sets it meanwhile: a cancel, a timeout); an errno of
 * timer_create or timer_settime (*failed names the call); ETIMEDOUT if the
 * latch is not set within 5 s.
 */
int
SignalFromInterrupt(const char **failed)
{
	timer_t		timer;
	struct sigevent sev;
	struct itimerspec its;
	struct timespec deadline;
	struct timespec now;
	volatile sig_atomic_t *is_set = &MyLatch->is_set;
	int			err = 0;

	std::memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = static_cast<pid_t>(::syscall(SYS_gettid));
	*failed = "timer_create";
	if (::timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0)
		return errno;
	*failed = "timer_settime";
	ResetLatch(MyLatch);
	std::memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 1000 * 1000;	/* 1 ms */
	::clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 5;
	if (::timer_settime(timer, 0, &its, nullptr) != 0)
		err = errno;
	while (err == 0 && !*is_set)
	{
		/*
		 * Spin on the latch flag: 16M loads (several ms even natively, far
		 * more than the 1 ms timer) between two looks at the clock, whose
		 * vDSO read might fall back to a system call on some clocksources
		 */
		for (long i = 0; i < 16 * 1024 * 1024 && !*is_set; i++)
			;
		::clock_gettime(CLOCK_MONOTONIC, &now);
		if (!*is_set && (now.tv_sec > deadline.tv_sec ||
						 (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)))
		{
			*failed = "the wait for its signal";
			err = ETIMEDOUT;
		}
	}
	::timer_delete(timer);
	return err;
}

}								/* namespace */

/*
 * Make this backend know the test tranche's name (PostgreSQL 17 and 18 keep
 * extension tranche names per backend), attaching to (or creating) the test
 * locks' segment; for pg_stat_rseq_tranche on the core series, whose rows
 * are tranche IDs.
 */
void
RegisterTestTranche()
{
	(void) GetTestLocks();
}

}								/* namespace pg_rseq */

using namespace pg_rseq;

/*
 * pg_rseq_test_error_in_lwlocks(n integer) returns void: take n (0 .. 64)
 * LWLocks of tranche "pg_rseq_test" in exclusive mode, then raise an ERROR
 * (SQLSTATE P0001) while holding them; never returns normally.  On a
 * patched server the error's DETAIL gives the nesting depth at the error.
 * Superuser only.  NULL or n out of range: ERROR 22004 / 22023.
 */
PG_RSEQ_FUNCTION(pg_rseq_test_error_in_lwlocks)
{
	int32		n = CheckTestArgs(fcinfo, "pg_rseq_test_error_in_lwlocks");
	TestLocks  *t;

	t = GetTestLocks();
	for (int i = 0; i < n; i++)
		LWLockAcquire(&t->locks[i], LW_EXCLUSIVE);

	/*
	 * Raised directly (not through Guard) so that nothing can come between
	 * holding the locks and the ERROR; no C++ object is alive here.
	 */
#if PG_RSEQ_PATCHED
	ereport(ERROR,
			(errcode(ERRCODE_RAISE_EXCEPTION),
			 errmsg_plural("pg_rseq test error while holding %d LWLock",
						   "pg_rseq test error while holding %d LWLocks", n, n),
			 errdetail("rseq nesting depth at the error: %u.",
					   static_cast<unsigned>(PgRseqState.depth))));
#elif PG_RSEQ_CORE
	ereport(ERROR,
			(errcode(ERRCODE_RAISE_EXCEPTION),
			 errmsg_plural("pg_rseq test error while holding %d LWLock",
						   "pg_rseq test error while holding %d LWLocks", n, n),
			 errdetail("rseq nesting depth at the error: %u.",
					   static_cast<unsigned>(CoreDepth()))));
#else
	ereport(ERROR,
			(errcode(ERRCODE_RAISE_EXCEPTION),
			 errmsg_plural("pg_rseq test error while holding %d LWLock",
						   "pg_rseq test error while holding %d LWLocks", n, n)));
#endif
	PG_RETURN_VOID();
}

/*
 * pg_rseq_test_signal_in_lwlocks(n integer) returns void (1.1.0): take n
 * (0 .. 64) LWLocks of tranche "pg_rseq_test" in exclusive mode, have
 * SIGUSR1 delivered to this backend from a 1 ms POSIX timer while holding
 * them (SignalFromInterrupt), then release them, innermost first.  The
 * kernel clears rseq_cs on that delivery, so with an rseq area registered
 * and a mode that counts, the release of the innermost lock counts one
 * "descheduled while holding" against tranche pg_rseq_test (n >= 1).
 * Superuser only; argument errors as pg_rseq_test_error_in_lwlocks; ERROR
 * 58000 if the timer cannot be made or its signal does not come within 5 s.
 */
PG_RSEQ_FUNCTION(pg_rseq_test_signal_in_lwlocks)
{
	int32		n = CheckTestArgs(fcinfo, "pg_rseq_test_signal_in_lwlocks");
	TestLocks  *t = GetTestLocks();
	const char *failed = "";
	int			err = 0;

	for (int i = 0; i < n; i++)
		LWLockAcquire(&t->locks[i], LW_EXCLUSIVE);
	err = SignalFromInterrupt(&failed);
	for (int i = n - 1; i >= 0; i--)
		LWLockRelease(&t->locks[i]);
	if (err != 0)
		throw Error(ERRCODE_SYSTEM_ERROR, "could not have SIGUSR1 delivered to process %d by a timer: %s: %s",
					MyProcPid, failed, std::strerror(err));
	PG_RETURN_VOID();
}

/*
 * pg_rseq_test_sleep_in_lwlocks(n integer, sleeps integer) returns void
 * (1.4.0): take n (0 .. 64) LWLocks of tranche "pg_rseq_test" in exclusive
 * mode, sleep `sleeps` (1 .. 1000) times 1 ms while holding them, each
 * sleep inside a reported wait (WAIT_EVENT_PG_SLEEP, as pg_sleep()
 * reports it), and release them, innermost first.  On the core series
 * with a mode that counts, n >= 1 and a kernel that clears rseq_cs at
 * voluntary context switches (Linux up to 6.18), each sleep adds 1 to this
 * backend's slept_while_holding and none to descheduled_while_holding
 * (unless the kernel also preempts it while it holds them); from 6.19 on
 * neither grows, unless the kernel's rseq debugging is on.  Superuser
 * only; n's errors as pg_rseq_test_error_in_lwlocks; sleeps NULL (22004)
 * or outside 1..1000 (22023).  pg_usleep() cannot raise an error, and neither can the wait
 * reporting, so nothing unwinds while the locks are held.
 */
PG_RSEQ_FUNCTION(pg_rseq_test_sleep_in_lwlocks)
{
	int32		n = CheckTestArgs(fcinfo, "pg_rseq_test_sleep_in_lwlocks");
	int32		sleeps;
	TestLocks  *t;

	if (PG_ARGISNULL(1))
		throw Error(ERRCODE_NULL_VALUE_NOT_ALLOWED,
					"number of sleeps must not be NULL");
	sleeps = PG_GETARG_INT32(1);
	if (sleeps < 1 || sleeps > 1000)
		throw Error(ERRCODE_INVALID_PARAMETER_VALUE,
					"number of sleeps must be between 1 and 1000, not %d", sleeps);
	t = GetTestLocks();
	for (int i = 0; i < n; i++)
		LWLockAcquire(&t->locks[i], LW_EXCLUSIVE);
	for (int s = 0; s < sleeps; s++)
	{
		pgstat_report_wait_start(WAIT_EVENT_PG_SLEEP);
		pg_usleep(1000L);
		pgstat_report_wait_end();
	}
	for (int i = n - 1; i >= 0; i--)
		LWLockRelease(&t->locks[i]);
	PG_RETURN_VOID();
}
