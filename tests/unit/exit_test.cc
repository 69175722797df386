/*
 * 3. What the outermost leave does with every state the kernel can leave
 *    behind: slice_ctrl {request, granted} in upstream mode, cr_flags in poc
 *    mode, and the rseq_cs marker (cleared by the kernel, or owned by
 *    someone else; ours stays armed between sections, a cleared one is
 *    re-armed wherever it is found).  The kernel is played by writing the fake area between
 *    enter and leave; rseq_slice_yield is the test hook.
 */
#include "test_support.h"

#include <string>

namespace {

using rseq_test::ExpectCounters;
using rseq_test::FakeAreaTest;

class Exit : public FakeAreaTest
{
protected:
	/* Upstream section at depth 1 whose exit sees {req, gr}. */
	unsigned LeaveWith(uint8_t req, uint8_t gr)
	{
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(request(), 1);
		set_request(req);
		set_granted(gr);
		return rseq_slice_leave(&s);
	}

	void ExpectBase(uint64_t sections)
	{
		want.entries[0] = sections;
		want.sections = sections;
		want.requests = sections;
	}
};

TEST_F(Exit, RequestStillSetNoGrant)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(LeaveWith(1, 0), 0u);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(granted(), 0);
	EXPECT_EQ(cs(), marker) << "the marker stays armed after the section";
	EXPECT_EQ(rseq_test::yield_calls, 0u);
	ExpectBase(1);
	ExpectCounters(ctr, want);
}

TEST_F(Exit, GrantedYieldInsideGrant)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_value = 1;
	EXPECT_EQ(LeaveWith(0, 1),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(rseq_test::yield_calls, 1u);
	ExpectBase(1);
	want.grants = 1;
	want.yields = 1;
	want.yields_in_grant = 1;
	ExpectCounters(ctr, want);
}

TEST_F(Exit, GrantedYieldTooLate)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_value = 0;	/* the grant was gone when yield ran */
	EXPECT_EQ(LeaveWith(0, 1), RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED);
	EXPECT_EQ(rseq_test::yield_calls, 1u);
	ExpectBase(1);
	want.grants = 1;
	want.yields = 1;
	want.yields_in_grant = 0;
	ExpectCounters(ctr, want);
}

/* A negative return (e.g. -ENOSYS from an old kernel) is not "in grant". */
TEST_F(Exit, GrantedYieldFails)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_value = -38;
	EXPECT_EQ(LeaveWith(0, 1), RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED);
	ExpectBase(1);
	want.grants = 1;
	want.yields = 1;
	ExpectCounters(ctr, want);
}

/*
 * Both bytes zero after asking: cause unknown (a revoked grant, a clearing
 * at a V2 rseq update, or a refused grant), counted as granted and
 * revoked.  One rseq_slice_yield is still
 * made (it returns 0; on 7.2 with rseq debugging it clears the kernel's
 * pending system-call check); its result never counts as "in grant".
 */
TEST_F(Exit, GrantedThenRevoked)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	for (long yv : {0L, 1L})
	{
		SCOPED_TRACE("yield returns " + std::to_string(yv));
		rseq_test::yield_value = yv;
		rseq_test::yield_calls = 0;
		EXPECT_EQ(LeaveWith(0, 0),
				  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_REVOKED | RSEQ_SLICE_EV_YIELD_CALLED);
		EXPECT_EQ(rseq_test::yield_calls, 1u);
		EXPECT_EQ(request(), 0);
	}
	ExpectBase(2);
	want.grants = 2;
	want.revoked = 2;
	want.yields = 2;
	want.yields_in_grant = 0;
	ExpectCounters(ctr, want);
}

/*
 * request still 1 and granted 1: the kernel never writes that (Linux 7.2.13
 * clears request in the same store that sets granted; a revoke or a
 * reschedule writes the whole word 0; include/linux/rseq_entry.h).  The xor
 * close (rseq_slice_request_acted) tests request only: it takes the request
 * as its own, counts nothing, calls nothing and clears request; granted is
 * left for the kernel, whose state holds no grant (its next grant of a
 * request overwrites the word).  The one extra test that would catch it
 * costs an instruction on every outermost section.
 */
TEST_F(Exit, InconsistentRequestAndGrantedIsNotAGrant)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_value = 1;
#if RSEQ_SLICE_X86_64
	EXPECT_EQ(LeaveWith(1, 1), 0u);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(granted(), 1);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
	ExpectBase(1);
	ExpectCounters(ctr, want);
#else
	/*
	 * The plain-C close (aarch64: a load and a store of request, no xor)
	 * must test granted after its store, since a grant may land between the
	 * two (rseq_slice_request_acted): it takes this impossible state for a
	 * grant and yields once.
	 */
	EXPECT_EQ(LeaveWith(1, 1),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(rseq_test::yield_calls, 1u);
	ExpectBase(1);
	want.grants = 1;
	want.yields = 1;
	want.yields_in_grant = 1;
	ExpectCounters(ctr, want);
	rseq_test::yield_calls = 0;
#endif
	/* the kernel's next grant of a request (word {0, 1}) is seen as usual */
	EXPECT_EQ(LeaveWith(0, 1),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
	EXPECT_EQ(rseq_test::yield_calls, 1u);
	ExpectBase(2);
	want.grants += 1;
	want.yields += 1;
	want.yields_in_grant += 1;
	ExpectCounters(ctr, want);
}

/* The three states the kernel can leave, in a row: the counters add up exactly. */
TEST_F(Exit, AllCombinationsAccumulate)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_value = 1;
	EXPECT_EQ(LeaveWith(1, 0), 0u);
	EXPECT_NE(LeaveWith(0, 1) & RSEQ_SLICE_EV_YIELDED, 0u);
	EXPECT_NE(LeaveWith(0, 0) & RSEQ_SLICE_EV_REVOKED, 0u);
	rseq_test::yield_value = 0;
	EXPECT_EQ(LeaveWith(0, 1), RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED);
	EXPECT_EQ(rseq_test::yield_calls, 3u);
	ExpectBase(4);
	want.grants = 3;
	want.revoked = 1;
	want.yields = 3;			/* every grant ends with one yield call */
	want.yields_in_grant = 1;
	ExpectCounters(ctr, want);
}

/* A grant seen at a nested leave is not acted on: only depth 1 -> 0 closes. */
TEST_F(Exit, GrantIsHandledOnlyAtOutermostLeave)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 1);
	set_request(0);
	set_granted(1);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(granted(), 1);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
	EXPECT_EQ(rseq_slice_leave(&s),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
	EXPECT_EQ(rseq_test::yield_calls, 1u);
	want.entries[0] = 1;
	want.entries[1] = 1;
	want.sections = 1;
	want.nested = 1;
	want.max_depth = 2;
	want.requests = 1;
	want.grants = 1;
	want.yields = 1;
	want.yields_in_grant = 1;
	ExpectCounters(ctr, want);
}

TEST_F(Exit, PocKernelBitMeansYield)
{
	Init(RSEQ_SLICE_MODE_POC);
	rseq_test::yield_value = 1;

	/* bit 1 set by the kernel (bit 0 still ours) */
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(cr_flags(), RSEQ_SLICE_POC_IN_CRITICAL_SECTION);
	area->slice.poc_cr_flags = RSEQ_SLICE_POC_IN_CRITICAL_SECTION | RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED;
	EXPECT_EQ(rseq_slice_leave(&s),
			  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
	EXPECT_EQ(cr_flags(), 0u);
	EXPECT_EQ(rseq_test::yield_calls, 1u);

	/* no kernel bit: nothing */
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cr_flags(), 0u);

	/* bit 1 alone (the kernel also cleared bit 0): still a yield */
	rseq_test::yield_value = 0;
	rseq_slice_enter(&s, 0);
	area->slice.poc_cr_flags = RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED;
	EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED);
	EXPECT_EQ(cr_flags(), 0u);

	/* bit 0 cleared, bit 1 clear: poc has no "revoked" */
	rseq_slice_enter(&s, 0);
	area->slice.poc_cr_flags = 0;
	EXPECT_EQ(rseq_slice_leave(&s), 0u);

	EXPECT_EQ(rseq_test::yield_calls, 2u);
	ExpectBase(4);
	want.grants = 2;
	want.yields = 2;
	want.yields_in_grant = 1;
	ExpectCounters(ctr, want);
}

/* ---- the rseq_cs marker ---- */

TEST_F(Exit, MarkerClearedAtDepth1CountsDescheduled)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		memset(&ctr, 0, sizeof(ctr));
		Init(m);
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(cs(), marker);
		set_cs(0);				/* the kernel preempted us */
		EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);
		EXPECT_EQ(cs(), marker) << "re-armed at depth 0 too";
		EXPECT_EQ(ctr.descheduled, 1u);
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(m));

		/* the next section finds it armed and is not counted */
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(ctr.descheduled, 1u);
		EXPECT_EQ(ctr.sections, rseq_test::Detail(2));
	}
}

TEST_F(Exit, MarkerClearedAtDepth3IsRearmedAndCountedPerLeave)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 0);
	set_cs(0);
	EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);	/* 3 -> 2 */
	EXPECT_EQ(cs(), marker) << "re-armed while sections remain";
	EXPECT_EQ(rseq_slice_leave(&s), 0u);	/* 2 -> 1, not cleared again */
	EXPECT_EQ(cs(), marker);
	set_cs(0);
	EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);	/* 1 -> 0 */
	EXPECT_EQ(cs(), marker) << "re-armed at depth 0 too";
	EXPECT_EQ(ctr.descheduled, 2u);
	EXPECT_EQ(s.desched_levels, 0u);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_MEASURE));
}

/*
 * A preemption found at a nested entry is counted once, there, and charged
 * to the enclosing lock (the innermost one held when it happened): that
 * lock's leave reports it, the inner lock's does not.
 */
TEST_F(Exit, PreemptionBeforeNestedEntryIsChargedToEnclosingLock)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		memset(&ctr, 0, sizeof(ctr));
		Init(m);
		rseq_slice_enter(&s, 0);
		rseq_slice_enter(&s, 0);
		set_cs(0);				/* preempted holding two locks */
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(m));
		rseq_slice_enter(&s, 0);	/* depth 3: counts and re-arms */
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(ctr.descheduled, 1u);
		EXPECT_EQ(s.desched_levels, 1u << 1);
		EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW) << "the report needs the slow leave";
		EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED, 0u);	/* 3 -> 2 */
		EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW) << "report still due";
		EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED,
				  RSEQ_SLICE_EV_DESCHEDULED);	/* 2 -> 1: the lock entered at depth 2 */
		EXPECT_EQ(s.desched_levels, 0u);
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(m)) << "back on the fast path once reported";
		EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED, 0u);	/* 1 -> 0 */
		EXPECT_EQ(ctr.descheduled, 1u);
		EXPECT_EQ(s.desched_levels, 0u);
		EXPECT_EQ(cs(), marker);
	}
}

/* Two preemptions at different depths: each charged to its own lock. */
TEST_F(Exit, PreemptionsAtTwoDepthsChargedSeparately)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);	/* A, depth 1 */
	set_cs(0);					/* preempted holding A */
	rseq_slice_enter(&s, 0);	/* B, depth 2 */
	set_cs(0);					/* preempted holding A, B */
	rseq_slice_enter(&s, 0);	/* C, depth 3 */
	set_cs(0);					/* preempted holding A, B, C */
	EXPECT_EQ(ctr.descheduled, 2u);
	EXPECT_EQ(s.desched_levels, (1u << 0) | (1u << 1));
	EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);	/* C: its own */
	EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);	/* B: found at C's entry */
	EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);	/* A: found at B's entry */
	EXPECT_EQ(ctr.descheduled, 3u);
	EXPECT_EQ(s.desched_levels, 0u);
}

/* A preemption while waiting for a nested lock belongs to the enclosing one. */
TEST_F(Exit, PreemptionWhileWaitingNestedIsChargedToEnclosingLock)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);	/* A held */
	rseq_slice_enter(&s, 1);	/* B: section entered before the attempt */
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);	/* depth 2: stays armed */
	set_cs(0);					/* slept or preempted while waiting for B */
	rseq_slice_wait_end(&s);	/* B acquired */
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(ctr.descheduled, 1u);
	EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED, 0u);	/* B */
	EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED,
			  RSEQ_SLICE_EV_DESCHEDULED);	/* A */
	EXPECT_EQ(ctr.descheduled, 1u);
}

/* Beyond depth 32 the levels share one bit, reported at the lock at depth 32. */
TEST_F(Exit, DeepNestingSharesTheLastLevel)
{
	Init(RSEQ_SLICE_MODE_MEASURE);
	for (int i = 0; i < 40; i++)
		rseq_slice_enter(&s, 0);
	set_cs(0);					/* preempted at depth 40 */
	rseq_slice_enter(&s, 0);	/* depth 41 */
	EXPECT_EQ(ctr.descheduled, 1u);
	EXPECT_EQ(s.desched_levels, 1u << 31);
	int			reported_at = -1;

	for (int depth = 41; depth >= 1; depth--)
	{
		unsigned	ev = rseq_slice_leave(&s);

		if (ev & RSEQ_SLICE_EV_DESCHEDULED)
		{
			EXPECT_EQ(reported_at, -1) << "reported twice";
			reported_at = depth;
		}
	}
	EXPECT_EQ(reported_at, 32);
	EXPECT_EQ(ctr.descheduled, 1u);
	EXPECT_EQ(s.desched_levels, 0u);
}

/* Descheduled and granted together: both events reported. */
TEST_F(Exit, DescheduledAndGrantTogether)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_slice_enter(&s, 0);
	set_cs(0);
	set_request(0);
	set_granted(0);
	EXPECT_EQ(rseq_slice_leave(&s),
			  RSEQ_SLICE_EV_DESCHEDULED | RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_REVOKED |
			  RSEQ_SLICE_EV_YIELD_CALLED);
	EXPECT_EQ(ctr.descheduled, 1u);
	EXPECT_EQ(ctr.grants, 1u);
	EXPECT_EQ(ctr.revoked, 1u);
	EXPECT_EQ(ctr.yields, 1u);
}

/*
 * rseq_cs owned by another library at entry: never overwritten; once the
 * kernel clears it (it clears any rseq_cs it evaluates), it has acted as
 * our marker: the clear is counted like ours and our marker takes over.
 */
TEST_F(Exit, ForeignRseqCsIsLeftAlone)
{
	const uint64_t foreign = 0x00007f0000001000ull;

	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		memset(&ctr, 0, sizeof(ctr));
		Init(m);
		set_cs(foreign);
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(cs(), foreign);
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(cs(), foreign);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(cs(), foreign);
		EXPECT_EQ(ctr.descheduled, 0u);
		/* the kernel clears the foreign descriptor while we hold two locks */
		rseq_slice_enter(&s, 0);
		set_cs(0);
		EXPECT_EQ(rseq_slice_leave(&s), RSEQ_SLICE_EV_DESCHEDULED);
		EXPECT_EQ(cs(), marker) << "ours takes over once the kernel cleared it";
		EXPECT_EQ(ctr.descheduled, 1u);
		/* another owner stores its descriptor again: left alone, not counted */
		set_cs(foreign);
		EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED, 0u);
		EXPECT_EQ(cs(), foreign);
		EXPECT_EQ(ctr.descheduled, 1u);
		EXPECT_EQ(s.depth, 0u);
		/* the request side still works */
		if (m == RSEQ_SLICE_MODE_MEASURE)
			EXPECT_EQ(ctr.requests, 0u);
		else
			EXPECT_EQ(ctr.requests, rseq_test::Detail(1u));
		EXPECT_EQ(cr_flags(), 0u);
		/* sections over a foreign rseq_cs that stays: never written, never counted */
		for (int i = 0; i < 3; i++)
		{
			rseq_slice_enter(&s, 1);
			EXPECT_EQ(rseq_slice_leave(&s) & RSEQ_SLICE_EV_DESCHEDULED, 0u);
		}
		EXPECT_EQ(cs(), foreign);
		EXPECT_EQ(ctr.descheduled, 1u);
	}
}

/* Someone overwrites our marker mid-section: no count, theirs is kept. */
TEST_F(Exit, MarkerReplacedBySomeoneElse)
{
	const uint64_t foreign = 0x00007f0000002000ull;

	Init(RSEQ_SLICE_MODE_MEASURE);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(cs(), marker);
	set_cs(foreign);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cs(), foreign) << "a nested leave must not re-arm over another owner";
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cs(), foreign) << "the outermost leave never writes over another owner";
	EXPECT_EQ(ctr.descheduled, 0u);
	/* the next section does not take it over either */
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(cs(), foreign);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cs(), foreign);
	EXPECT_EQ(ctr.descheduled, 0u);
}

}  // namespace
