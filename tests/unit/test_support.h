/*
 * Shared by every test file: the yield hook and the fake-area fixture.
 *
 * RSEQ_SLICE_YIELD_HOOK must be defined before rseq_slice.h is included;
 * each test file includes this header instead of rseq_slice.h directly, so
 * that no test can reach the real rseq_slice_yield system call through the
 * inline fast path (real_kernel_test.cc does that on purpose, separately).
 */
#ifndef PG_RSEQ_TEST_SUPPORT_H
#define PG_RSEQ_TEST_SUPPORT_H

#include <cstdint>
#include <cstring>

struct rseq_slice_state;

namespace rseq_test {
/* What the emulated rseq_slice_yield does; nullptr: return yield_value. */
using YieldFn = long (*)(struct rseq_slice_state *);
extern YieldFn yield_fn;
extern long yield_value;
/* Calls of the hook since the last reset (every caller, every mode). */
extern uint64_t yield_calls;
long yield_hook(struct rseq_slice_state *s);
}  // namespace rseq_test

#define RSEQ_SLICE_YIELD_HOOK(s) (::rseq_test::yield_hook(s))
#include "rseq_slice.h"

#include <gtest/gtest.h>

/*
 * The flavour of this executable (CMakeLists.txt): 0 = rseq_slice_unit,
 * detail counters off (FakeAreaTest::Init calls rseq_slice_set_detail(&s,
 * 0)); 1 = rseq_slice_unit_detail, detail counters on (every section takes
 * the out-of-line slow path).
 */
#ifndef RSEQ_TEST_DETAIL
#error "RSEQ_TEST_DETAIL must be defined (0 or 1) by the build"
#endif

namespace rseq_test {

constexpr bool kDetail = RSEQ_TEST_DETAIL != 0;

/* A detail counter's expected value in this flavour: v, or 0 without detail. */
constexpr uint64_t Detail(uint64_t v) { return kDetail ? v : 0; }

/*
 * want holds the values of every counter as if detail were on; without
 * detail the detail counters (entries, sections, nested, max_depth) must be
 * 0 whatever want says, the others exact in both flavours.
 */
inline void ExpectCounters(const rseq_slice_counters &got, const rseq_slice_counters &want)
{
	for (int k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
		EXPECT_EQ(got.entries[k], Detail(want.entries[k])) << "entries[" << k << "]";
	EXPECT_EQ(got.sections, Detail(want.sections)) << "sections";
	EXPECT_EQ(got.nested, Detail(want.nested)) << "nested";
	EXPECT_EQ(got.max_depth, Detail(want.max_depth)) << "max_depth";
	EXPECT_EQ(got.requests, Detail(want.requests)) << "requests (a detail counter)";
	EXPECT_EQ(got.grants, want.grants) << "grants";
	EXPECT_EQ(got.revoked, want.revoked) << "revoked";
	EXPECT_EQ(got.yields, want.yields) << "yields";
	EXPECT_EQ(got.yields_in_grant, want.yields_in_grant) << "yields_in_grant";
	EXPECT_EQ(got.descheduled, want.descheduled) << "descheduled";
}

/*
 * A plain rseq_slice_area in memory, never registered with the kernel: the
 * tests play the kernel by writing its bytes.  The kernel-owned fields get
 * recognisable values so that a stray write shows up.
 */
class FakeAreaTest : public ::testing::Test
{
protected:
	rseq_slice_area_storage storage;
	volatile rseq_slice_area *area = nullptr;
	rseq_slice_counters ctr;
	rseq_slice_counters want;	/* what ctr must be; tests update it */
	rseq_slice_state s;
	uint64_t marker = 0;

	void SetUp() override
	{
		memset(&storage, 0, sizeof(storage));
		memset(&ctr, 0, sizeof(ctr));
		memset(&want, 0, sizeof(want));
		memset(&s, 0, sizeof(s));
		area = &storage.u.area;
		area->cpu_id_start = 1;
		area->cpu_id = 1;
		area->node_id = 0;
		area->mm_cid = 7;
		area->flags = 0;
		marker = rseq_slice_marker_address();
		yield_fn = nullptr;
		yield_value = 1;
		yield_calls = 0;
	}

	void Init(rseq_slice_mode m)
	{
		rseq_slice_probe p;

		memset(&p, 0, sizeof(p));
		p.registered = 1;
		p.owner = RSEQ_SLICE_OWNER_SELF;
		p.area = area;
		p.feature_size = 33;
		p.reg_len = 64;
		rseq_slice_state_init(&s, m, &p, &ctr);
		rseq_slice_set_detail(&s, RSEQ_TEST_DETAIL);
	}

	/*
	 * The path byte rseq_slice_repath must derive for mode m with nothing
	 * pending, not waiting, no deschedule report due, in this flavour.
	 */
	static uint8_t QuietPath(rseq_slice_mode m)
	{
		if (m == RSEQ_SLICE_MODE_OFF)
			return RSEQ_SLICE_PATH_OFF;
		if (kDetail || m == RSEQ_SLICE_MODE_POC)
			return RSEQ_SLICE_PATH_SLOW;
		return m == RSEQ_SLICE_MODE_UPSTREAM ? RSEQ_SLICE_PATH_REQUEST : RSEQ_SLICE_PATH_MEASURE;
	}

	uint8_t request() const { return area->slice.ctrl.request; }
	uint8_t granted() const { return area->slice.ctrl.granted; }
	uint32_t cr_flags() const { return area->slice.poc_cr_flags; }
	uint64_t cs() const { return area->rseq_cs; }
	void set_request(uint8_t v) { area->slice.ctrl.request = v; }
	void set_granted(uint8_t v) { area->slice.ctrl.granted = v; }
	void set_cs(uint64_t v) { area->rseq_cs = v; }
	/* our marker is in rseq_cs */
	bool marked() const { return area->rseq_cs == marker; }

	/* Copy of the area's bytes (the first 64). */
	void snapshot(unsigned char out[64]) const
	{
		const volatile unsigned char *b = storage.u.bytes;

		for (int i = 0; i < 64; i++)
			out[i] = b[i];
	}
};

}  // namespace rseq_test

#endif
