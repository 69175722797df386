/*
 * 4. rseq_slice_wait_begin / rseq_slice_wait_end (the marker stays armed
 *    while waiting; a deschedule while waiting at depth 1 is not counted),
 *    and
 * 5. (first half) mode switches with rseq_slice_set_mode: deferred to depth
 *    0 while a section is open, immediate at depth 0 and from off (which
 *    keeps no depth; rseq_slice_set_mode_open is for open sections there).
 */
#include "test_support.h"

namespace {

using rseq_test::ExpectCounters;
using rseq_test::FakeAreaTest;

class Wait : public FakeAreaTest
{
};

TEST_F(Wait, Depth1WithdrawsRequestWhileWaiting)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 2);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_UPSTREAM));

	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);	/* request still 1: no grant */
	EXPECT_EQ(s.waiting, 1);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW) << "a depth-1 wait takes the slow path";
	EXPECT_EQ(request(), 0) << "request withdrawn while waiting";
	EXPECT_EQ(cs(), marker) << "the marker stays armed while waiting";

	/* the kernel deschedules the waiter: not "descheduled while holding" */
	set_cs(0);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(s.waiting, 0);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_UPSTREAM));
	EXPECT_EQ(request(), 1) << "request raised again once the lock is held";
	EXPECT_EQ(cs(), marker) << "re-armed by wait_end";
	EXPECT_EQ(ctr.descheduled, 0u);

	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), marker);
	want.entries[2] = 1;
	want.sections = 1;
	want.requests = 2;			/* one window before the wait, one after */
	ExpectCounters(ctr, want);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
}

/* A grant that arrived before the wait is settled by wait_begin. */
TEST_F(Wait, GrantBeforeWaitIsClosedByWaitBegin)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_value = 1;
	rseq_slice_enter(&s, 0);
	set_request(0);
	set_granted(1);
	EXPECT_EQ(rseq_slice_wait_begin(&s),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
	EXPECT_EQ(rseq_test::yield_calls, 1u);
	set_granted(0);				/* the yield ended the grant */
	rseq_slice_wait_end(&s);
	EXPECT_EQ(request(), 1);
	/* revoked grant in the second window */
	set_request(0);
	EXPECT_EQ(rseq_slice_leave(&s),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_REVOKED | RSEQ_SLICE_EV_YIELD_CALLED);
	EXPECT_EQ(rseq_test::yield_calls, 2u);
	want.entries[0] = 1;
	want.sections = 1;
	want.requests = 2;
	want.grants = 2;
	want.revoked = 1;
	want.yields = 2;
	want.yields_in_grant = 1;
	ExpectCounters(ctr, want);
}

/* The marker cleared while waiting is not counted. */
TEST_F(Wait, PreemptionWhileWaitingIsNotCounted)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		memset(&ctr, 0, sizeof(ctr));
		Init(m);
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
		EXPECT_EQ(cs(), marker);
		set_cs(0);				/* slept or preempted while waiting */
		rseq_slice_wait_end(&s);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(ctr.descheduled, 0u);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(ctr.descheduled, 0u);
		EXPECT_EQ(cs(), marker);
		/* once the lock is held, a deschedule counts again */
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
		rseq_slice_wait_end(&s);
		set_cs(0);
		EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);
		EXPECT_EQ(ctr.descheduled, 1u);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(request(), 0);
		EXPECT_EQ(cr_flags(), 0u);
		EXPECT_EQ(ctr.requests, rseq_test::Detail(m == RSEQ_SLICE_MODE_MEASURE ? 0u : 4u));
	}
}

TEST_F(Wait, MeasureNeverTouchesRequest)
{
	set_request(0x5a);
	set_granted(0xa5);
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(s.waiting, 1);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(request(), 0x5a);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(request(), 0x5a);
	EXPECT_EQ(granted(), 0xa5);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(ctr.requests, rseq_test::Detail(0u));
	EXPECT_EQ(ctr.grants, 0u);
}

TEST_F(Wait, PocWithdrawsCrFlags)
{
	Init(RSEQ_SLICE_MODE_POC);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(cr_flags(), 1u);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(cr_flags(), 0u);
	EXPECT_EQ(cs(), marker);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(cr_flags(), 1u);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cr_flags(), 0u);
	EXPECT_EQ(ctr.requests, rseq_test::Detail(2u));
}

/* At depth 2 the thread holds another lock: nothing changes. */
TEST_F(Wait, Depth2ChangesNothing)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 1);
	unsigned char before[64],
				after[64];

	snapshot(before);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(s.waiting, 0);
	EXPECT_EQ(s.in_wait, 2) << "the wait is recorded (a leave ends it)";
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW);
	snapshot(after);
	EXPECT_EQ(memcmp(before, after, 64), 0);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(cs(), marker);
	rseq_slice_wait_end(&s);
	snapshot(after);
	EXPECT_EQ(memcmp(before, after, 64), 0);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(request(), 0);
	want.entries[0] = 1;
	want.entries[1] = 1;
	want.sections = 1;
	want.nested = 1;
	want.max_depth = 2;
	want.requests = 1;
	ExpectCounters(ctr, want);
}

/* wait_begin twice, wait_end twice: the second of each is a no-op. */
TEST_F(Wait, RepeatedCallsAreIdempotent)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	set_request(1);				/* would be seen as a window if closed again */
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(request(), 1);
	set_request(0);
	rseq_slice_wait_end(&s);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(ctr.requests, rseq_test::Detail(2u));
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(ctr.grants, 0u);
}

/* Locking done while waiting (e.g. the wait-list spinlock) nests normally. */
TEST_F(Wait, NestedSectionWhileWaiting)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	rseq_slice_enter(&s, 3);
	EXPECT_EQ(request(), 0) << "no request while waiting";
	EXPECT_EQ(cs(), marker) << "the marker stays armed while waiting";
	EXPECT_EQ(s.depth, 2u);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(s.waiting, 1);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	want.entries[0] = 1;
	want.entries[3] = 1;
	want.sections = 1;
	want.nested = 1;
	want.max_depth = 2;
	want.requests = 2;
	ExpectCounters(ctr, want);
}

/*
 * The acquisition is abandoned while waiting (the section is left without
 * wait_end, e.g. a conditional acquire that gave up): the next section must
 * start clean in every mode.  In measure mode the header used to keep
 * waiting = 1 after such a leave, so the next wait_begin did nothing, and
 * after a switch to upstream the next section's request was never withdrawn
 * (request left 1 at depth 0).
 */
TEST_F(Wait, LeaveWhileWaitingResetsWaitState)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		memset(&ctr, 0, sizeof(ctr));
		Init(m);
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(s.depth, 0u);
		EXPECT_EQ(s.waiting, 0) << "waiting survived the end of the section";
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(m));
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(request(), 0);
		EXPECT_EQ(cr_flags(), 0u);
		EXPECT_EQ(ctr.grants, 0u);

		/* the next contended acquisition behaves like the first */
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
		EXPECT_EQ(s.waiting, 1) << "the second wait_begin did nothing";
		EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW);
		EXPECT_EQ(request(), 0);
		EXPECT_EQ(cr_flags(), 0u);
		rseq_slice_wait_end(&s);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(m));
		EXPECT_EQ(ctr.requests, rseq_test::Detail(m == RSEQ_SLICE_MODE_MEASURE ? 0u : 3u));
	}
}

TEST_F(Wait, AbandonedMeasureWaitThenUpstreamLeavesNoRequest)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);
	rseq_slice_wait_begin(&s);
	rseq_slice_leave(&s);
	ASSERT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_UPSTREAM), 1);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(request(), 0) << "request left set outside any section";
	EXPECT_EQ(s.waiting, 0);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_UPSTREAM));
}

TEST_F(Wait, OffModeWaitIsANoop)
{
	Init(RSEQ_SLICE_MODE_OFF);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(s.waiting, 0);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
	set_cs(0);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(cs(), 0u) << "off: wait_end arms nothing";
	rseq_slice_leave(&s);
	EXPECT_EQ(cs(), 0u);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(request(), 0);
	ExpectCounters(ctr, want);
}

/* ---- rseq_slice_set_mode ---- */

class SetMode : public FakeAreaTest
{
};

TEST_F(SetMode, ImmediateAtDepth0)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC, RSEQ_SLICE_MODE_OFF,
							  RSEQ_SLICE_MODE_MEASURE})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		EXPECT_EQ(rseq_slice_set_mode(&s, m), 1);
		EXPECT_EQ(s.mode, m);
		EXPECT_EQ(s.pending, 0);
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(m));
		/* a section in the new mode, right away */
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(s.depth, m == RSEQ_SLICE_MODE_OFF ? 0u : 1u);
		EXPECT_EQ(cs(), m == RSEQ_SLICE_MODE_OFF ? 0u : marker);
		/* byte 28: upstream's request, poc's cr_flags bit 0 */
		EXPECT_EQ(cr_flags() & 0xff, m == RSEQ_SLICE_MODE_UPSTREAM ? 1u :
				  m == RSEQ_SLICE_MODE_POC ? RSEQ_SLICE_POC_IN_CRITICAL_SECTION : 0u);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(s.depth, 0u);
	}
	/* AUTO is not a mode in force */
	EXPECT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_AUTO), 1);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
	EXPECT_EQ(cs(), 0u) << "the switch to off cleared our marker";
	want.entries[0] = 3;
	want.sections = 3;
	want.requests = 2;
	ExpectCounters(ctr, want);
}

TEST_F(SetMode, NoAreaMeansOff)
{
	rseq_slice_probe p;

	memset(&p, 0, sizeof(p));
	rseq_slice_state_init(&s, RSEQ_SLICE_MODE_OFF, &p, &ctr);
	EXPECT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_UPSTREAM), 1);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF);
	/* and that really touches nothing: s.area is NULL, would crash */
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	ExpectCounters(ctr, want);
}

/* upstream -> measure while nested: the open window is closed by the old mode. */
TEST_F(SetMode, DeferredUntilDepth0)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_MEASURE), 0);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(s.pending, 1);
	EXPECT_EQ(s.pending_mode, RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW) << "a pending switch takes the slow path";
	rseq_slice_enter(&s, 0);	/* still the old mode */
	EXPECT_EQ(ctr.entries[0], rseq_test::Detail(3));
	rseq_slice_leave(&s);
	rseq_slice_leave(&s);
	EXPECT_EQ(s.depth, 1u);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_UPSTREAM) << "switched before depth 0";
	EXPECT_EQ(request(), 1);
	set_request(0);
	set_granted(1);
	EXPECT_NE(rseq_slice_leave(&s) & RSEQ_SLICE_EV_YIELD_CALLED, 0u)
		<< "the window opened in upstream mode is closed in upstream mode";
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(s.pending, 0);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_MEASURE));
	EXPECT_EQ(request(), 0);
	set_granted(0);

	/* next section: measure */
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), marker);
	rseq_slice_leave(&s);
	EXPECT_EQ(ctr.requests, rseq_test::Detail(1u));
	EXPECT_EQ(ctr.grants, 1u);
}

/*
 * off -> upstream while in a section entered in off mode: off keeps no
 * depth, so the caller says how many sections are open
 * (rseq_slice_set_mode_open); the switch waits until they are left.
 */
TEST_F(SetMode, OffToUpstreamDeferred)
{
	Init(RSEQ_SLICE_MODE_OFF);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(rseq_slice_set_mode_open(&s, RSEQ_SLICE_MODE_UPSTREAM, 1), 0);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(s.pending, 1);
	EXPECT_EQ(s.depth, 1u);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW) << "off with a switch waiting counts the depth";
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(s.depth, 2u);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), 0u);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(s.waiting, 0);
	rseq_slice_wait_end(&s);
	rseq_slice_leave(&s);
	EXPECT_EQ(s.depth, 1u);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF) << "switched before depth 0";
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), 0u);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(s.pending, 0);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_UPSTREAM));
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), 0u);
	ExpectCounters(ctr, want);	/* nothing counted in off mode */
	rseq_slice_enter(&s, 1);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(ctr.descheduled, 0u) << "the first arming is not a deschedule";
	rseq_slice_leave(&s);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), marker);
	want.entries[1] = 1;
	want.sections = 1;
	want.requests = 1;
	ExpectCounters(ctr, want);
}

/* upstream -> off while nested: cleaned up by the old mode, then untouched. */
TEST_F(SetMode, UpstreamToOffDeferred)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_OFF), 0);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW);
	EXPECT_EQ(cs(), marker);
	rseq_slice_leave(&s);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), 0u) << "the switch to off clears our marker";
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), 0u);
	EXPECT_EQ(s.depth, 0u);
	rseq_slice_leave(&s);
	EXPECT_EQ(ctr.sections, rseq_test::Detail(1));
	EXPECT_EQ(ctr.requests, rseq_test::Detail(1u));
}

/* The last request before depth 0 wins; none of them applies early. */
TEST_F(SetMode, LastPendingWins)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_POC), 0);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_set_mode(&s, RSEQ_SLICE_MODE_UPSTREAM), 0);
	rseq_slice_leave(&s);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_leave(&s);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(s.pending, 0);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_UPSTREAM));
	EXPECT_EQ(cr_flags(), 0u);
	EXPECT_EQ(ctr.requests, rseq_test::Detail(0u)) << "measure opened no window";
}

}  // namespace
