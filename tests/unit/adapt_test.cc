/*
 * 9. rseq_slice_adapt_step: the adaptive request policy's rule
 *    (lwlock_patch/rseq_slice.h), event by event:
 *    - while asking, only grants count; after RSEQ_SLICE_ADAPT_GRANTS
 *      grants the group keeps asking iff at least half of them were
 *      followed by a yield inside the extension, and a new window starts;
 *    - while not asking, deschedules count (DESCHEDULED, _AGAIN and the
 *      EV_MORE count); after RSEQ_SLICE_ADAPT_DESCHED it asks again;
 *    - events of the other state are ignored.
 */
#include "test_support.h"

namespace {

constexpr unsigned kGrantYielded =
	RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED;
constexpr unsigned kGrantExpired =
	RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED;
constexpr unsigned kGrantRevoked =
	RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_REVOKED | RSEQ_SLICE_EV_YIELD_CALLED;

/* feed `n` grants, `yielded` of them inside the extension; return the ask */
unsigned Window(rseq_slice_adapt *a, unsigned n, unsigned yielded)
{
	unsigned ask = 1;

	for (unsigned i = 0; i < n; i++)
		ask = rseq_slice_adapt_step(a, ask, i < yielded ? kGrantYielded :
									(i % 2 ? kGrantExpired : kGrantRevoked));
	return ask;
}

TEST(Adapt, KeepsAskingWhileHalfTheGrantsPayOff)
{
	rseq_slice_adapt a = {};

	EXPECT_EQ(Window(&a, RSEQ_SLICE_ADAPT_GRANTS, RSEQ_SLICE_ADAPT_GRANTS / 2), 1u);
	EXPECT_EQ(a.grants, 0u) << "a new window";
	EXPECT_EQ(a.yielded, 0u);
	EXPECT_EQ(Window(&a, RSEQ_SLICE_ADAPT_GRANTS, RSEQ_SLICE_ADAPT_GRANTS), 1u);
}

TEST(Adapt, StopsWhenMostGrantsEndOutside)
{
	rseq_slice_adapt a = {};

	/* one grant short of the window: still asking whatever the yields */
	EXPECT_EQ(Window(&a, RSEQ_SLICE_ADAPT_GRANTS - 1, 0), 1u);
	EXPECT_EQ(a.grants, RSEQ_SLICE_ADAPT_GRANTS - 1);
	EXPECT_EQ(rseq_slice_adapt_step(&a, 1, kGrantExpired), 0u);
	a = {};
	EXPECT_EQ(Window(&a, RSEQ_SLICE_ADAPT_GRANTS, RSEQ_SLICE_ADAPT_GRANTS / 2 - 1), 0u);
}

TEST(Adapt, WhileAskingOnlyGrantsCount)
{
	rseq_slice_adapt a = {};

	for (int i = 0; i < 1000; i++)
		EXPECT_EQ(rseq_slice_adapt_step(&a, 1, RSEQ_SLICE_EV_DESCHEDULED), 1u);
	EXPECT_EQ(rseq_slice_adapt_step(&a, 1, 0), 1u);
	EXPECT_EQ(a.grants, 0u);
	EXPECT_EQ(a.desched, 0u);
}

TEST(Adapt, AsksAgainAfterEnoughDeschedules)
{
	rseq_slice_adapt a = {};

	ASSERT_EQ(Window(&a, RSEQ_SLICE_ADAPT_GRANTS, 0), 0u);
	/* grants cannot happen while not asking; they are ignored anyway */
	EXPECT_EQ(rseq_slice_adapt_step(&a, 0, kGrantYielded), 0u);
	unsigned ask = 0;
	unsigned n = 0;
	while (ask == 0 && n < 1000)
	{
		ask = rseq_slice_adapt_step(&a, 0, RSEQ_SLICE_EV_DESCHEDULED);
		n++;
	}
	EXPECT_EQ(ask, 1u);
	EXPECT_EQ(n, (unsigned) RSEQ_SLICE_ADAPT_DESCHED);
	EXPECT_EQ(a.desched, 0u) << "a fresh window once asking again";
	EXPECT_EQ(a.grants, 0u);
}

TEST(Adapt, EveryDescheduleInTheEventsCounts)
{
	rseq_slice_adapt a = {};

	/* DESCHEDULED + DESCHEDULED_AGAIN + 5 more = 7 at once */
	const unsigned ev = RSEQ_SLICE_EV_DESCHEDULED | RSEQ_SLICE_EV_DESCHEDULED_AGAIN |
		(5u << RSEQ_SLICE_EV_MORE_SHIFT);
	EXPECT_EQ(rseq_slice_adapt_step(&a, 0, ev), 0u);
	EXPECT_EQ(a.desched, 7u);
	EXPECT_EQ(rseq_slice_adapt_step(&a, 0, 0), 0u) << "nothing happened";
	EXPECT_EQ(a.desched, 7u);
	/* 9 such releases: 63; the 10th crosses 64 */
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(rseq_slice_adapt_step(&a, 0, ev), 0u);
	EXPECT_EQ(a.desched, 63u);
	EXPECT_EQ(rseq_slice_adapt_step(&a, 0, ev), 1u);
}

}  // namespace
