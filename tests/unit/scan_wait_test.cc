/*
 * scan_wait_test.cc: a wait inside a scan section (lwlock.c
 * LWLockAcquireInScan on a contended fpInfoLock) calls PgRseqWaitBegin at
 * the scan's depth, then LWLockQueueSelf takes the wait-list lock, a
 * section of its own whose acquisition ends with PgRseqWaitEnd() (which
 * tests only in_wait), and only then sleeps on the semaphore.  The nested
 * wait_end must not end the scan's wait: the request stays withdrawn and
 * the sleep is no deschedule of a holder.  Found by a fresh-clone test of
 * b6acd12 (request re-raised, waiting 0, descheduled 1 before the fix in
 * rseq_slice_wait_end).
 */
#include "test_support.h"

namespace {
using rseq_test::FakeAreaTest;
class ScanWait : public FakeAreaTest {};

/* the server's PgRseqWaitEnd(): if (in_wait) wait_end */
static void PgWaitEnd(rseq_slice_state *s) { if (s->in_wait) rseq_slice_wait_end(s); }

TEST_F(ScanWait, UpstreamRequestStaysWithdrawnWhileScanWaits)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 2);			/* LWLockScanBegin: the scan's section */
	ASSERT_EQ(request(), 1);
	rseq_slice_wait_begin(&s);			/* LWLockAcquireInScan: contended */
	ASSERT_EQ(request(), 0);
	ASSERT_EQ(s.waiting, 1);
	/* LWLockQueueSelf: LWLockWaitListLock (no spin) ... */
	rseq_slice_enter(&s, 3);
	PgWaitEnd(&s);						/* end of LWLockWaitListLock */
	rseq_slice_leave(&s);				/* LWLockWaitListUnlock */
	/* ... now PGSemaphoreLock: the scan still waits for the fpInfoLock */
	EXPECT_EQ(request(), 0) << "the scan's request is re-raised while it still waits (about to sleep)";
	EXPECT_EQ(s.waiting, 1) << "the scan's wait was ended by the nested wait-list lock";
	set_cs(0);							/* the sleep on the semaphore */
	PgWaitEnd(&s);						/* lock acquired */
	rseq_slice_leave(&s);				/* LWLockScanEnd */
	EXPECT_EQ(ctr.descheduled, 0u) << "the sleep while waiting was counted as descheduled while holding";
}

TEST_F(ScanWait, MeasureSleepWhileScanWaitsIsNotAHolderDeschedule)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 2);
	rseq_slice_wait_begin(&s);
	rseq_slice_enter(&s, 3);
	PgWaitEnd(&s);
	rseq_slice_leave(&s);
	set_cs(0);							/* the sleep on the semaphore */
	PgWaitEnd(&s);
	rseq_slice_leave(&s);
	EXPECT_EQ(ctr.descheduled, 0u) << "the sleep while waiting was counted as descheduled while holding";
}

/* control: the same without the nested wait-list lock */
TEST_F(ScanWait, ControlWithoutNestedWaitList)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 2);
	rseq_slice_wait_begin(&s);
	set_cs(0);
	PgWaitEnd(&s);
	rseq_slice_leave(&s);
	EXPECT_EQ(ctr.descheduled, 0u);
}
}
