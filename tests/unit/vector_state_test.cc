/*
 * Vector registers across a lock section whose rare path runs.
 *
 * Code compiled for AVX (-march=x86-64-v3, the RHEL 10 baseline, or
 * -march=native) keeps 256-bit values in ymm registers across a lock
 * section.  The C calling convention lets every callee clobber all of
 * them, so the rare calls of the inline fast path (a cleared marker, the
 * slow path, a grant) must be ordinary calls, or preserve the whole vector
 * state (port/rseq_slice.h, RSEQ_SLICE_CALL_HOOKS).  A hook that saved
 * only xmm0-15 lost the upper halves as soon as the callee wrote an xmm
 * register with a VEX instruction (a 32-byte memset does): 10 12 14 16 0
 * 0 0 0 instead of 10 12 ... 24.
 *
 * Here the emulated rseq_slice_yield (reached through the out-of-line
 * slow path: rseq_slice_granted_now, rseq_slice_leave_slow) clobbers every
 * ymm register, as any callee may, while the caller holds a 256-bit
 * accumulator across sections that are granted (both flavours) and take
 * the slow path (the detail flavour).  Skipped where the CPU has no AVX2,
 * and on aarch64 (an x86 test: there the rare calls are ordinary calls,
 * which preserve what the AAPCS64 asks of a callee).
 */
#include "test_support.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

#if !defined(__x86_64__)
TEST(VectorState, YmmSurvivesTheRarePath)
{
	GTEST_SKIP() << "an x86_64 test (AVX2 ymm registers)";
}
#else

using rseq_test::FakeAreaTest;

class VectorState : public FakeAreaTest
{
};

/* An emulated yield that returns 1 and leaves no ymm register intact. */
__attribute__((target("avx2"), noinline)) long
ClobberEveryVectorRegister(struct rseq_slice_state *)
{
	__asm__ __volatile__(
		"vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\tvpcmpeqd %%ymm1, %%ymm1, %%ymm1\n\t"
		"vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\tvpcmpeqd %%ymm3, %%ymm3, %%ymm3\n\t"
		"vpcmpeqd %%ymm4, %%ymm4, %%ymm4\n\tvpcmpeqd %%ymm5, %%ymm5, %%ymm5\n\t"
		"vpcmpeqd %%ymm6, %%ymm6, %%ymm6\n\tvpcmpeqd %%ymm7, %%ymm7, %%ymm7\n\t"
		"vpcmpeqd %%ymm8, %%ymm8, %%ymm8\n\tvpcmpeqd %%ymm9, %%ymm9, %%ymm9\n\t"
		"vpcmpeqd %%ymm10, %%ymm10, %%ymm10\n\tvpcmpeqd %%ymm11, %%ymm11, %%ymm11\n\t"
		"vpcmpeqd %%ymm12, %%ymm12, %%ymm12\n\tvpcmpeqd %%ymm13, %%ymm13, %%ymm13\n\t"
		"vpcmpeqd %%ymm14, %%ymm14, %%ymm14\n\tvpcmpeqd %%ymm15, %%ymm15, %%ymm15\n\t"
		::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	return 1;
}

/*
 * Eight lanes 1..8, then `rounds` times: add the round number, open a
 * section, let the kernel grant it, close it (the grant's yield clobbers),
 * double.  Compiled for AVX2 so that the lanes live in a ymm register.
 */
__attribute__((target("avx2"), noinline)) void
GrantedSectionsWithLiveVector(rseq_slice_state *s, volatile rseq_slice_area *a,
							  int rounds, int32_t out[8])
{
	__m256i		acc = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8);

	for (int i = 0; i < rounds; i++)
	{
		acc = _mm256_add_epi32(acc, _mm256_set1_epi32(i));
		rseq_slice_enter(s, 0);
		a->slice.ctrl.request = 0;	/* the kernel grants */
		a->slice.ctrl.granted = 1;
		(void) rseq_slice_leave(s);
		a->slice.ctrl.granted = 0;	/* and ends the grant at the yield */
		acc = _mm256_add_epi32(acc, acc);
	}
	_mm256_storeu_si256((__m256i *) out, acc);
}

TEST_F(VectorState, YmmSurvivesTheRarePath)
{
	if (!__builtin_cpu_supports("avx2"))
		GTEST_SKIP() << "no AVX2 on this CPU";
	Init(RSEQ_SLICE_MODE_UPSTREAM);
	rseq_test::yield_fn = ClobberEveryVectorRegister;

	const int	rounds = 3;
	int32_t		got[8];

	GrantedSectionsWithLiveVector(&s, area, rounds, got);
	for (int lane = 0; lane < 8; lane++)
	{
		int32_t		want = lane + 1;

		for (int i = 0; i < rounds; i++)
			want = 2 * (want + i);
		EXPECT_EQ(got[lane], want) << "lane " << lane;
	}
	EXPECT_EQ(ctr.grants, (uint64_t) rounds);
	EXPECT_EQ(ctr.yields_in_grant, (uint64_t) rounds);
	EXPECT_EQ(s.depth, 0u);
	rseq_test::yield_fn = nullptr;
}
#endif							/* __x86_64__ */

}  // namespace
