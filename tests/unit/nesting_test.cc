/*
 * 2. Nesting on a fake area (not registered with the kernel), in every mode:
 *    the request is written only on depth 0 -> 1 and cleared on 1 -> 0,
 *    depth and counters are exact, off touches nothing (not even the
 *    depth), measure arms the marker (and leaves it armed between sections)
 *    and never touches the request, upstream uses slice_ctrl.request, poc
 *    uses cr_flags bit 0.  The detail counters (entries, sections, nested,
 *    max_depth) are exact in rseq_slice_unit_detail and 0 in
 *    rseq_slice_unit (ExpectCounters).
 */
#include "test_support.h"

namespace {

using rseq_test::ExpectCounters;
using rseq_test::FakeAreaTest;

class Nesting : public FakeAreaTest
{
};

TEST_F(Nesting, StateInitFromProbe)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(s.detail, RSEQ_TEST_DETAIL);
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_UPSTREAM));
	EXPECT_EQ(s.waiting, 0);
	EXPECT_EQ(s.pending, 0);
	EXPECT_EQ(s.desched_levels, 0u);
	EXPECT_EQ(s.area, area);
	EXPECT_EQ(s.marker, rseq_slice_marker_address());
	EXPECT_EQ(s.ctr, &ctr);
	EXPECT_EQ(cs(), 0u) << "init arms nothing: the first enter does";

	/* AUTO is a setting, never a mode in force; no area means off. */
	Init(RSEQ_SLICE_MODE_AUTO);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);

	rseq_slice_probe p;

	memset(&p, 0, sizeof(p));
	rseq_slice_state_init(&s, RSEQ_SLICE_MODE_MEASURE, &p, &ctr);
	EXPECT_EQ(s.mode, RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
	EXPECT_EQ(s.area, nullptr);
}

TEST_F(Nesting, OffTouchesNothing)
{
	/* Junk in every byte, including rseq_cs = 0 so that arming would show. */
	for (int i = 0; i < 64; i++)
		storage.u.bytes[i] = (unsigned char) (0x5a ^ i);
	set_cs(0);
	set_request(1);
	set_granted(1);				/* would make upstream call yield */

	unsigned char before[64],
				after[64];

	Init(RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
	snapshot(before);
	for (unsigned d = 1; d <= 3; d++)
	{
		rseq_slice_enter(&s, d - 1);
		EXPECT_EQ(s.depth, 0u) << "mode off keeps no depth";
		EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
		snapshot(after);
		EXPECT_EQ(memcmp(before, after, 64), 0) << "enter to depth " << d;
	}
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	EXPECT_EQ(s.waiting, 0);
	rseq_slice_wait_end(&s);
	for (unsigned d = 3; d >= 1; d--)
	{
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(s.depth, 0u);
		snapshot(after);
		EXPECT_EQ(memcmp(before, after, 64), 0) << "leave to depth " << d - 1;
	}
	/* depth-1 section with a wait */
	rseq_slice_enter(&s, 0);
	EXPECT_EQ(rseq_slice_wait_begin(&s), 0u);
	rseq_slice_wait_end(&s);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	snapshot(after);
	EXPECT_EQ(memcmp(before, after, 64), 0);
	EXPECT_EQ(cs(), 0u);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_OFF);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
	ExpectCounters(ctr, want);	/* all zero */
	for (int k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
		EXPECT_EQ(ctr.entries[k], 0u) << "off counts nothing, not even with detail";
	EXPECT_EQ(ctr.sections, 0u);
}

/* Enter to depth 3 and back, checking the area after every step. */
TEST_F(Nesting, MeasureArmsMarkerAndNeverTouchesRequest)
{
	/* values a kernel would never leave, so any write to them shows */
	set_request(0x5a);
	set_granted(0xa5);
	Init(RSEQ_SLICE_MODE_MEASURE);

	const unsigned kinds[3] = {2, 0, 2};

	for (unsigned d = 1; d <= 3; d++)
	{
		rseq_slice_enter(&s, kinds[d - 1]);
		EXPECT_EQ(s.depth, d);
		EXPECT_EQ(cs(), marker) << "depth " << d;
		EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_MEASURE));
		EXPECT_EQ(request(), 0x5a);
		EXPECT_EQ(granted(), 0xa5);
	}
	for (unsigned d = 3; d >= 1; d--)
	{
		EXPECT_EQ(rseq_slice_leave(&s), 0u) << "leave to " << d - 1;
		EXPECT_EQ(s.depth, d - 1);
		EXPECT_EQ(cs(), marker) << "after leave to " << d - 1 << ": the marker stays armed";
		EXPECT_EQ(request(), 0x5a);
		EXPECT_EQ(granted(), 0xa5);
	}
	EXPECT_EQ(rseq_slice_path(&s), QuietPath(RSEQ_SLICE_MODE_MEASURE));
	EXPECT_EQ(ctr.descheduled, 0u);
	want.entries[0] = 1;
	want.entries[2] = 2;
	want.sections = 1;
	want.nested = 2;
	want.max_depth = 3;
	want.requests = 0;
	ExpectCounters(ctr, want);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
}

TEST_F(Nesting, UpstreamRequestOnlyOnOutermostTransitions)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);

	rseq_slice_enter(&s, 1);
	EXPECT_EQ(request(), 1);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(granted(), 0);

	/*
	 * Put a value in request that the code never writes: nested enter and
	 * leave must not store to it (a store of 1 would overwrite a grant the
	 * kernel made in between).
	 */
	set_request(7);
	rseq_slice_enter(&s, 1);
	EXPECT_EQ(s.depth, 2u);
	EXPECT_EQ(request(), 7) << "depth 1 -> 2 wrote request";
	rseq_slice_enter(&s, 3);
	EXPECT_EQ(s.depth, 3u);
	EXPECT_EQ(request(), 7) << "depth 2 -> 3 wrote request";
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(s.depth, 2u);
	EXPECT_EQ(request(), 7) << "depth 3 -> 2 wrote request";
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(s.depth, 1u);
	EXPECT_EQ(request(), 7) << "depth 2 -> 1 wrote request";
	EXPECT_EQ(cs(), marker);

	set_request(1);				/* what the kernel left: no grant */
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(granted(), 0);
	EXPECT_EQ(cs(), marker) << "the marker stays armed between sections";

	want.entries[1] = 2;
	want.entries[3] = 1;
	want.sections = 1;
	want.nested = 2;
	want.max_depth = 3;
	want.requests = 1;
	ExpectCounters(ctr, want);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
}

TEST_F(Nesting, UpstreamRequestByteAtEachDepth)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	for (unsigned d = 1; d <= 3; d++)
	{
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(request(), 1) << "depth " << d;
		EXPECT_EQ(cs(), marker);
	}
	for (unsigned d = 3; d >= 1; d--)
	{
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(request(), d - 1 > 0 ? 1 : 0) << "after leave to " << d - 1;
		EXPECT_EQ(cs(), marker);
	}
	want.entries[0] = 3;
	want.sections = 1;
	want.nested = 2;
	want.max_depth = 3;
	want.requests = 1;
	ExpectCounters(ctr, want);
}

TEST_F(Nesting, PocSetsCrFlagsBit0)
{
	Init(RSEQ_SLICE_MODE_POC);
	for (unsigned d = 1; d <= 3; d++)
	{
		rseq_slice_enter(&s, 3);
		/* after depth 1, a value the code never writes: must survive */
		EXPECT_EQ(cr_flags(), d == 1 ? RSEQ_SLICE_POC_IN_CRITICAL_SECTION : 0x101u) << "depth " << d;
		EXPECT_EQ(cs(), marker);
		if (d == 1)
			area->slice.poc_cr_flags = 0x100 | RSEQ_SLICE_POC_IN_CRITICAL_SECTION;
	}
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cr_flags(), 0x101u) << "nested leave rewrote cr_flags";
	EXPECT_EQ(s.depth, 1u);
	area->slice.poc_cr_flags = RSEQ_SLICE_POC_IN_CRITICAL_SECTION;
	EXPECT_EQ(rseq_slice_leave(&s), 0u);
	EXPECT_EQ(cr_flags(), 0u);
	EXPECT_EQ(cs(), marker);
	EXPECT_EQ(rseq_slice_path(&s), RSEQ_SLICE_PATH_SLOW) << "poc is always the slow path";
	want.entries[3] = 3;
	want.sections = 1;
	want.nested = 2;
	want.max_depth = 3;
	want.requests = 1;
	ExpectCounters(ctr, want);
	EXPECT_EQ(rseq_test::yield_calls, 0u);
}

/*
 * Counters over several sections: sections, nested, max_depth (tracked on
 * nested entries only: 0 means "never nested"), requests per section.
 */
TEST_F(Nesting, CountersAcrossSectionsAndModes)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		memset(&ctr, 0, sizeof(ctr));
		memset(&want, 0, sizeof(want));
		Init(m);

		/* five single-level sections */
		for (int i = 0; i < 5; i++)
		{
			rseq_slice_enter(&s, (unsigned) i % 2);
			rseq_slice_leave(&s);
		}
		want.entries[0] = 3;
		want.entries[1] = 2;
		want.sections = 5;
		want.requests = m == RSEQ_SLICE_MODE_MEASURE ? 0 : 5;
		want.max_depth = 0;
		ExpectCounters(ctr, want);

		/* depth 4 */
		for (int i = 0; i < 4; i++)
			rseq_slice_enter(&s, 2);
		EXPECT_EQ(s.depth, 4u);
		for (int i = 0; i < 4; i++)
			rseq_slice_leave(&s);
		/* depth 2: max_depth stays 4 */
		rseq_slice_enter(&s, 3);
		rseq_slice_enter(&s, 3);
		rseq_slice_leave(&s);
		rseq_slice_leave(&s);
		EXPECT_EQ(s.depth, 0u);
		want.entries[2] += 4;
		want.entries[3] += 2;
		want.sections += 2;
		want.nested += 3 + 1;
		want.max_depth = 4;
		want.requests += m == RSEQ_SLICE_MODE_MEASURE ? 0 : 2;
		ExpectCounters(ctr, want);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(cr_flags(), 0u);
		EXPECT_EQ(request(), 0);
		EXPECT_EQ(ctr.descheduled, 0u);
	}
}

/* A deep stack (well past any real lock nesting). */
TEST_F(Nesting, DeepNestingUpstream)
{
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	const unsigned N = 200;

	for (unsigned i = 0; i < N; i++)
		rseq_slice_enter(&s, i % RSEQ_SLICE_MAX_KINDS);
	EXPECT_EQ(s.depth, N);
	EXPECT_EQ(request(), 1);
	for (unsigned i = 0; i < N; i++)
		rseq_slice_leave(&s);
	EXPECT_EQ(s.depth, 0u);
	EXPECT_EQ(request(), 0);
	EXPECT_EQ(cs(), marker);
	for (int k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
		want.entries[k] = N / RSEQ_SLICE_MAX_KINDS;
	want.sections = 1;
	want.nested = N - 1;
	want.max_depth = N;
	want.requests = 1;
	ExpectCounters(ctr, want);
}

}  // namespace
