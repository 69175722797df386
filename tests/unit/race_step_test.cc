/*
 * The kernel acts between any two user instructions.  These tests make it
 * act at EVERY instruction boundary of the compiled exit paths, one at a
 * time: the x86 trap flag (EFLAGS.TF) single-steps the call, and the SIGTRAP
 * handler plays the kernel at the chosen step (grant, revoke, preempt).  So
 * the documented races are not sampled by luck but enumerated:
 *
 *  - upstream close (leave at depth 1 -> 0 and wait_begin): a grant alone is
 *    counted wherever it lands, and so is a grant followed by a revoke: the
 *    close ends the request window with one xor of request
 *    (rseq_slice_request_acted), so no step lies between reading request and
 *    clearing it (the load / store close before it lost the grant of a
 *    (grant, revoke) pair landing there); nothing is ever counted that the
 *    kernel did not do.
 *  - marker: a preemption during a nested leave is counted exactly once
 *    (by this leave or by the next one); one during the outermost leave is
 *    counted by it (before its check of rseq_cs) or by nobody (after it:
 *    the lock was released; the next enter re-arms without counting), and
 *    the marker is left armed unless the kernel cleared it after the check.
 *
 * Both flavours run this: without detail the upstream and measure leaves
 * are the inline fast path, with detail the out-of-line slow path
 * (rseq_slice_leave_slow); both are single-stepped as compiled.
 *  - poc: a kernel bit set between the load and the store of cr_flags is
 *    lost (documented in the header), nowhere else.
 *
 * The "kernel" here never runs inside the yield hook (a system call is
 * atomic for user space).
 */
#include "test_support.h"

#include <csignal>
#include <set>
#include <string>

#include <ucontext.h>

namespace {

using rseq_test::FakeAreaTest;

volatile rseq_slice_area *g_area;
volatile long g_step;
volatile long g_grant_at = -1;	/* upstream grant at this step */
volatile long g_revoke_at = -1;
volatile long g_clear_at = -1;	/* preempt: clear rseq_cs */
volatile long g_poc_at = -1;	/* poc kernel bit */
volatile long g_stop_at = -1;	/* stop single-stepping after this step */
volatile int g_k_granted,
			g_k_revoked,
			g_k_yielded,
			g_k_cleared;
volatile sig_atomic_t g_in_hook;

void trap_handler(int, siginfo_t *, void *ctx)
{
	long		st = g_step + 1;

	g_step = st;
	/* nothing more will happen: run the rest at full speed (traps are slow) */
#if defined(__x86_64__)
	if (g_stop_at > 0 && st >= g_stop_at)
		static_cast<ucontext_t *>(ctx)->uc_mcontext.gregs[REG_EFL] &= ~0x100LL;
#else
	(void) ctx;
#endif
	if (g_in_hook)
		return;
	volatile rseq_slice_area *a = g_area;

	if (st == g_grant_at && a->slice.ctrl.request == 1)
	{
		a->slice.ctrl.request = 0;
		a->slice.ctrl.granted = 1;
		g_k_granted = g_k_granted + 1;
	}
	if (st == g_revoke_at && a->slice.ctrl.granted)
	{
		a->slice.ctrl.granted = 0;
		g_k_revoked = g_k_revoked + 1;
	}
	if (st == g_clear_at && a->rseq_cs != 0)
	{
		a->rseq_cs = 0;
		g_k_cleared = g_k_cleared + 1;
	}
	if (st == g_poc_at && (a->slice.poc_cr_flags & RSEQ_SLICE_POC_IN_CRITICAL_SECTION))
	{
		a->slice.poc_cr_flags = a->slice.poc_cr_flags | RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED;
		g_k_granted = g_k_granted + 1;
	}
}

/* rseq_slice_yield as the kernel does it: 1 and the grant ends if granted. */
long kernel_yield(struct rseq_slice_state *)
{
	long		r = 0;

	g_in_hook = 1;
	if (g_area->slice.ctrl.granted)
	{
		g_area->slice.ctrl.granted = 0;
		g_k_yielded = g_k_yielded + 1;
		r = 1;
	}
	else if (g_area->slice.poc_cr_flags & RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED)
	{
		g_k_yielded = g_k_yielded + 1;	/* poc: the bit was cleared by the user */
		r = 1;
	}
	g_in_hook = 0;
	return r;
}

/*
 * Set / clear EFLAGS.TF.  The asm skips the red zone first: pushfq writes
 * below %rsp.  x86_64 only: see kNoSingleStep.
 */
#if defined(__x86_64__)
inline void tf_on()
{
	__asm__ __volatile__("lea -128(%%rsp), %%rsp\n\t"
						 "pushfq\n\t"
						 "orq $0x100, (%%rsp)\n\t"
						 "popfq\n\t"
						 "lea 128(%%rsp), %%rsp" ::: "memory", "cc");
}

inline void tf_off()
{
	__asm__ __volatile__("lea -128(%%rsp), %%rsp\n\t"
						 "pushfq\n\t"
						 "andq $-257, (%%rsp)\n\t"
						 "popfq\n\t"
						 "lea 128(%%rsp), %%rsp" ::: "memory", "cc");
}
#else
inline void tf_on() {}
inline void tf_off() {}
#endif

/*
 * Why these tests skip on aarch64: a thread cannot single-step itself there
 * (the single-step bit, MDSCR_EL1.SS, is only reachable from the kernel);
 * only a tracer can, with ptrace(PTRACE_SINGLESTEP), which these tests do
 * not use and qemu's user-mode emulator does not implement at all
 * (PTRACE_TRACEME and PTRACE_SINGLESTEP fail with ENOSYS under Debian 12's
 * qemu-aarch64 7.2.22; checked 2026-12-03).  The same races are
 * covered on aarch64 by the emulated kernel (emulated_kernel_test.cc,
 * timer signals only) and on x86_64 by this file.
 */
#if defined(__x86_64__)
constexpr const char *kNoSingleStep = nullptr;
#else
constexpr const char *kNoSingleStep =
	"single-stepping needs the x86 trap flag (EFLAGS.TF); aarch64 user space can only be "
	"single-stepped by a ptrace tracer, which qemu-user does not implement";
#endif

class StepRace : public FakeAreaTest
{
protected:
	struct sigaction old_;

	void SetUp() override
	{
		if (kNoSingleStep != nullptr)
			GTEST_SKIP() << kNoSingleStep;
		FakeAreaTest::SetUp();
		g_area = area;
		rseq_test::yield_fn = kernel_yield;

		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = trap_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		ASSERT_EQ(sigaction(SIGTRAP, &sa, &old_), 0);
	}

	void TearDown() override
	{
		if (kNoSingleStep != nullptr)
			return;
		sigaction(SIGTRAP, &old_, nullptr);
		rseq_test::yield_fn = nullptr;
	}

	/* A fresh section at the given depth in the given mode. */
	void Fresh(rseq_slice_mode m, int depth)
	{
		memset(&storage, 0, sizeof(storage));
		memset(&ctr, 0, sizeof(ctr));
		Init(m);
		for (int i = 0; i < depth; i++)
			rseq_slice_enter(&s, 0);
		g_grant_at = g_revoke_at = g_clear_at = g_poc_at = g_stop_at = -1;
		g_k_granted = g_k_revoked = g_k_yielded = g_k_cleared = 0;
	}

	/* Run f() single-stepped; returns its result, g_step = steps taken. */
	template <typename F>
	unsigned Stepped(F f)
	{
		g_step = 0;
		tf_on();
		unsigned	ev = f();

		tf_off();
		return ev;
	}

	unsigned CloseStepped(bool via_wait)
	{
		if (via_wait)
			return Stepped([this]() { return rseq_slice_wait_begin(&s); });
		return Stepped([this]() { return rseq_slice_leave(&s); });
	}

	static std::string Join(const std::set<long> &v)
	{
		std::string out;

		for (long x : v)
			out += std::to_string(x) + " ";
		return out;
	}

	static bool Contiguous(const std::set<long> &v)
	{
		return v.empty() || (long) v.size() == *v.rbegin() - *v.begin() + 1;
	}

	void GrantSweep(bool via_wait);
	void GrantRevokeSweep(bool via_wait);
};

/* Check the events of one upstream close against what the kernel did. */
#define CHECK_CLOSE_EVENTS(ev)                                                        \
	do {                                                                              \
		bool granted_ = ((ev) & RSEQ_SLICE_EV_GRANTED) != 0;                           \
		bool called_ = ((ev) & RSEQ_SLICE_EV_YIELD_CALLED) != 0;                       \
		bool yielded_ = ((ev) & RSEQ_SLICE_EV_YIELDED) != 0;                           \
		bool revoked_ = ((ev) & RSEQ_SLICE_EV_REVOKED) != 0;                           \
		EXPECT_FALSE(granted_ && !g_k_granted) << "phantom grant";                     \
		EXPECT_EQ(granted_, called_) << "every grant seen ends with one yield call";   \
		EXPECT_FALSE(revoked_ && (!granted_ || yielded_));                             \
		EXPECT_EQ(yielded_ ? 1 : 0, (int) g_k_yielded);                                      \
		EXPECT_EQ(called_ ? 1u : 0u, rseq_test::yield_calls);                          \
		if (granted_)                                                                  \
			EXPECT_EQ((revoked_ || (called_ && !yielded_)) ? 1 : 0, (int) g_k_revoked); \
		else                                                                           \
			EXPECT_EQ((int) g_k_revoked, (int) g_k_granted);                           \
		EXPECT_EQ(ctr.grants, granted_ ? 1u : 0u);                                     \
		EXPECT_EQ(ctr.revoked, revoked_ ? 1u : 0u);                                    \
		EXPECT_EQ(ctr.yields, called_ ? 1u : 0u);                                      \
		EXPECT_EQ(ctr.yields_in_grant, yielded_ ? 1u : 0u);                            \
		EXPECT_EQ(request(), 0);                                                       \
		EXPECT_EQ(granted(), 0);                                                       \
	} while (0)

/* A grant alone, at every step: always counted, always yielded in grant. */
void StepRace::GrantSweep(bool via_wait)
{
	Fresh(RSEQ_SLICE_MODE_UPSTREAM, 1);
	rseq_test::yield_calls = 0;
	CloseStepped(via_wait);
	const long	n = g_step;

	ASSERT_GT(n, 5);
	std::set<long> could_grant;

	for (long i = 1; i <= n; i++)
	{
		SCOPED_TRACE("grant at step " + std::to_string(i) + " of " + std::to_string(n));
		Fresh(RSEQ_SLICE_MODE_UPSTREAM, 1);
		g_grant_at = i;
		g_stop_at = i;
		rseq_test::yield_calls = 0;
		unsigned	ev = CloseStepped(via_wait);

		if (g_k_granted)
		{
			could_grant.insert(i);
			EXPECT_EQ(ev & ~RSEQ_SLICE_EV_DESCHEDULED,
					  RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED | RSEQ_SLICE_EV_YIELDED);
		}
		else
			EXPECT_EQ(ev & RSEQ_SLICE_EV_GRANTED, 0u);
		CHECK_CLOSE_EVENTS(ev);
	}
	/* request is 1 from the start until it is cleared: a prefix of steps */
	ASSERT_FALSE(could_grant.empty());
	EXPECT_EQ(*could_grant.begin(), 1);
	EXPECT_TRUE(Contiguous(could_grant)) << Join(could_grant);
	EXPECT_LT(*could_grant.rbegin(), n);
	RecordProperty("steps", (int) n);
	RecordProperty("request_open_steps", (int) could_grant.size());
}

/*
 * A grant at step i and a revoke at step j > i, for every pair.  With the
 * xor close no pair may lose its grant: the kernel granted, so the user saw
 * it (counted as granted, and as revoked if the revoke came before the
 * yield).  The load / store close it replaced lost the pairs whose grant
 * landed between the load of request and its clear (1-3 steps).
 */
void StepRace::GrantRevokeSweep(bool via_wait)
{
	Fresh(RSEQ_SLICE_MODE_UPSTREAM, 1);
	g_grant_at = 1;
	CloseStepped(via_wait);
	const long	n = g_step;		/* longest path: grant + yield */

	std::set<long> could_grant,
				lost_i;
	long		pairs = 0,
				lost = 0;

	/*
	 * For a given i, a revoke at or after the step where the yield ends the
	 * grant finds granted clear and changes nothing, so j stops at the first
	 * revoke that had no effect; no grant at i (request already clear): one
	 * run is enough.
	 */
	for (long i = 1; i <= n; i++)
		for (long j = i + 1; j <= n + 1; j++)
		{
			SCOPED_TRACE("grant at " + std::to_string(i) + ", revoke at " + std::to_string(j));
			Fresh(RSEQ_SLICE_MODE_UPSTREAM, 1);
			g_grant_at = i;
			g_revoke_at = j;
			g_stop_at = j;
			rseq_test::yield_calls = 0;
			unsigned	ev = CloseStepped(via_wait);

			pairs++;
			if (g_k_granted)
				could_grant.insert(i);
			CHECK_CLOSE_EVENTS(ev);
			if (g_k_granted && !(ev & RSEQ_SLICE_EV_GRANTED))
			{
				lost++;
				lost_i.insert(i);
				EXPECT_EQ((int) g_k_revoked, 1) << "a grant is lost only if revoked before it is seen";
			}
			if (!g_k_granted || !g_k_revoked)
				break;
		}
	ASSERT_FALSE(could_grant.empty());
	/*
	 * No lost grant anywhere: the xor of rseq_slice_request_acted reads and
	 * clears request in one instruction, which the kernel cannot split.  If
	 * this fails, the close has a load / store window again (see the
	 * header's comment on rseq_slice_request_acted).
	 */
	EXPECT_TRUE(lost_i.empty()) << "grant lost (kernel granted, user counted nothing) at step(s) "
								<< Join(lost_i);
	RecordProperty("pairs", (int) pairs);
	RecordProperty("lost_pairs", (int) lost);
	RecordProperty("lost_grant_steps", Join(lost_i));
	printf("[ info ] %s: %ld steps, %ld (grant, revoke) pairs, grant lost in %ld pairs, "
		   "grant steps of those: %s(request open until step %ld)\n",
		   via_wait ? "wait_begin" : "leave", n, pairs, lost, Join(lost_i).c_str(),
		   *could_grant.rbegin());
}

TEST_F(StepRace, LeaveGrantAtEveryStep) { GrantSweep(false); }
TEST_F(StepRace, WaitBeginGrantAtEveryStep) { GrantSweep(true); }
TEST_F(StepRace, LeaveGrantRevokeAtEveryPair) { GrantRevokeSweep(false); }
TEST_F(StepRace, WaitBeginGrantRevokeAtEveryPair) { GrantRevokeSweep(true); }

/*
 * A preemption at any step of a nested leave (depth 2 -> 1) is counted
 * exactly once: by this leave if it landed before the marker was read,
 * else by the next leave (the marker is then still cleared).
 */
TEST_F(StepRace, NestedLeaveNeverLosesAPreemption)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		Fresh(m, 2);
		Stepped([this]() { return rseq_slice_leave(&s); });
		const long	n = g_step;
		std::set<long> here;

		for (long i = 1; i <= n + 1; i++)
		{
			SCOPED_TRACE("preempt at step " + std::to_string(i));
			Fresh(m, 2);
			g_clear_at = i;
			g_stop_at = i;
			unsigned	ev1 = Stepped([this]() { return rseq_slice_leave(&s); });
			unsigned	ev2 = rseq_slice_leave(&s);

			if (g_step < i)
			{
				/* the trap after tf_off's popfq is not always delivered (load) */
				EXPECT_GE(i, n) << "step " << i << " never reached";
				continue;
			}
			EXPECT_EQ((int) g_k_cleared, 1) << "the marker is armed at every step";
			int			counted = ((ev1 & RSEQ_SLICE_EV_DESCHEDULED) ? 1 : 0) +
				((ev2 & RSEQ_SLICE_EV_DESCHEDULED) ? 1 : 0);

			EXPECT_EQ(counted, (int) g_k_cleared);
			EXPECT_EQ(ctr.descheduled, (uint64_t) counted);
			if (ev1 & RSEQ_SLICE_EV_DESCHEDULED)
				here.insert(i);
			EXPECT_EQ(cs(), marker) << "whoever counted it re-armed it";
			EXPECT_EQ(s.depth, 0u);
		}
		/* counted by the first leave for a prefix (before its load) */
		ASSERT_FALSE(here.empty());
		EXPECT_EQ(*here.begin(), 1);
		EXPECT_TRUE(Contiguous(here)) << Join(here);
		EXPECT_LT(*here.rbegin(), n);
	}
}

/*
 * A preemption at any step of a nested entry (depth 1 -> 2, the marker
 * armed since the first section) is counted exactly once and reported
 * exactly once: found by the entry (a prefix of its steps, before its
 * check of rseq_cs) it is charged to the enclosing lock and reported by
 * its leave; found later, by the inner lock's leave.
 */
TEST_F(StepRace, NestedEnterNeverLosesAPreemption)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		Fresh(m, 1);
		Stepped([this]() { rseq_slice_enter(&s, 1); return 0u; });
		const long	n = g_step;
		std::set<long> at_entry;

		ASSERT_GT(n, 3);
		for (long i = 1; i <= n; i++)
		{
			SCOPED_TRACE("preempt at step " + std::to_string(i) + " of " + std::to_string(n));
			Fresh(m, 1);
			g_clear_at = i;
			g_stop_at = i;
			Stepped([this]() { rseq_slice_enter(&s, 1); return 0u; });
			const bool	found = ctr.descheduled == 1;

			if (g_step < i)
			{
				/* the trap after tf_off's popfq is not always delivered (load) */
				EXPECT_GE(i, n) << "step " << i << " never reached";
				continue;
			}
			EXPECT_EQ((int) g_k_cleared, 1) << "the marker is armed at every step";
			EXPECT_EQ(s.depth, 2u);
			if (found)
			{
				at_entry.insert(i);
				EXPECT_EQ(s.desched_levels, 1u);
				EXPECT_EQ(cs(), marker);
			}
			unsigned	inner = rseq_slice_leave(&s);
			unsigned	outer = rseq_slice_leave(&s);

			EXPECT_EQ(ctr.descheduled, 1u);
			EXPECT_EQ(inner & RSEQ_SLICE_EV_DESCHEDULED, found ? 0u : RSEQ_SLICE_EV_DESCHEDULED);
			EXPECT_EQ(outer & RSEQ_SLICE_EV_DESCHEDULED, found ? RSEQ_SLICE_EV_DESCHEDULED : 0u);
			EXPECT_EQ((inner | outer) & RSEQ_SLICE_EV_DESCHEDULED_AGAIN, 0u);
			EXPECT_EQ(s.desched_levels, 0u);
			EXPECT_EQ(cs(), marker);
		}
		ASSERT_FALSE(at_entry.empty());
		EXPECT_EQ(*at_entry.begin(), 1);
		EXPECT_TRUE(Contiguous(at_entry)) << Join(at_entry);
		EXPECT_LT(*at_entry.rbegin(), n);
		printf("[ info ] %s nested enter: %ld steps, found by the entry at steps 1-%ld\n",
			   rseq_slice_mode_names[m], n, *at_entry.rbegin());
	}
}

/*
 * Outermost entry (depth 0 -> 1, the marker armed by an earlier section):
 * a preemption before its check of rseq_cs happened while nothing was held
 * and is re-armed without counting (a prefix of the steps); one after it
 * happened while holding and is counted by the leave.  Never both, never
 * twice.
 */
TEST_F(StepRace, OutermostEnterPreemptionIsNotCountedBeforeTheCheck)
{
	for (rseq_slice_mode m : {RSEQ_SLICE_MODE_MEASURE, RSEQ_SLICE_MODE_UPSTREAM})
	{
		SCOPED_TRACE(rseq_slice_mode_names[m]);
		auto		armed_fresh = [&]() {
			Fresh(m, 1);
			rseq_test::yield_calls = 0;
			EXPECT_EQ(rseq_slice_leave(&s), 0u);
			ASSERT_EQ(cs(), marker);
		};

		armed_fresh();
		Stepped([this]() { rseq_slice_enter(&s, 0); return 0u; });
		const long	n = g_step;
		std::set<long> silent,
					by_leave;

		ASSERT_GT(n, 3);
		for (long i = 1; i <= n; i++)
		{
			SCOPED_TRACE("preempt at step " + std::to_string(i) + " of " + std::to_string(n));
			armed_fresh();
			g_clear_at = i;
			g_stop_at = i;
			Stepped([this]() { rseq_slice_enter(&s, 0); return 0u; });
			if (g_step < i)
			{
				/*
				 * The traps of the last instructions (the jump back from the
				 * request block and the return) are sometimes not seen.
				 */
				EXPECT_GE(i, n - 2) << "step " << i << " never reached";
				continue;
			}
			EXPECT_EQ((int) g_k_cleared, 1) << "the marker is armed at every step";
			EXPECT_EQ(ctr.descheduled, 0u) << "nothing was held before the entry";
			EXPECT_EQ(s.desched_levels, 0u);
			const bool	rearmed = cs() == marker;
			unsigned	ev = rseq_slice_leave(&s);

			if (rearmed)
			{
				silent.insert(i);
				EXPECT_EQ(ev & RSEQ_SLICE_EV_DESCHEDULED, 0u);
				EXPECT_EQ(ctr.descheduled, 0u);
			}
			else
			{
				by_leave.insert(i);
				EXPECT_EQ(ev & RSEQ_SLICE_EV_DESCHEDULED, RSEQ_SLICE_EV_DESCHEDULED);
				EXPECT_EQ(ctr.descheduled, 1u);
			}
			EXPECT_EQ(cs(), marker);
		}
		ASSERT_FALSE(silent.empty());
		ASSERT_FALSE(by_leave.empty());
		EXPECT_EQ(*silent.begin(), 1);
		EXPECT_TRUE(Contiguous(silent)) << Join(silent);
		EXPECT_TRUE(Contiguous(by_leave)) << Join(by_leave);
		EXPECT_EQ(*by_leave.begin(), *silent.rbegin() + 1);
		printf("[ info ] %s outermost enter: %ld steps, re-armed silently at steps 1-%ld, "
			   "counted by the leave after\n", rseq_slice_mode_names[m], n, *silent.rbegin());
	}
}

/*
 * Outermost leave: counted for a prefix of steps; after the marker was read
 * the preemption happened after the lock was released anyway, and it is
 * not counted later either (the next enter finds the marker cleared with
 * nothing held: re-armed, not counted).  Never a phantom; the marker is
 * left armed unless the kernel cleared it after the check.
 */
TEST_F(StepRace, OutermostLeavePreemptionPrefix)
{
	Fresh(RSEQ_SLICE_MODE_MEASURE, 1);
	Stepped([this]() { return rseq_slice_leave(&s); });
	const long	n = g_step;
	std::set<long> counted,
				cleared;

	for (long i = 1; i <= n + 1; i++)
	{
		SCOPED_TRACE("preempt at step " + std::to_string(i));
		Fresh(RSEQ_SLICE_MODE_MEASURE, 1);
		g_clear_at = i;
		g_stop_at = i;
		unsigned	ev = Stepped([this]() { return rseq_slice_leave(&s); });

		if (g_k_cleared)
			cleared.insert(i);
		if (ev & RSEQ_SLICE_EV_DESCHEDULED)
		{
			counted.insert(i);
			EXPECT_EQ((int) g_k_cleared, 1) << "phantom";
			EXPECT_EQ(cs(), marker) << "counted and re-armed";
		}
		else if (g_k_cleared)
			EXPECT_EQ(cs(), 0u) << "cleared after the check: left for the next enter";
		else
			EXPECT_EQ(cs(), marker) << "the marker stays armed after the section";
		EXPECT_EQ(ctr.descheduled, (ev & RSEQ_SLICE_EV_DESCHEDULED) ? 1u : 0u);
		/* the next section re-arms a cleared marker without counting it */
		rseq_slice_enter(&s, 0);
		EXPECT_EQ(cs(), marker);
		EXPECT_EQ(rseq_slice_leave(&s), 0u);
		EXPECT_EQ(ctr.descheduled, (ev & RSEQ_SLICE_EV_DESCHEDULED) ? 1u : 0u);
	}
	ASSERT_FALSE(counted.empty());
	EXPECT_EQ(*counted.begin(), 1);
	EXPECT_TRUE(Contiguous(counted)) << Join(counted);
	EXPECT_TRUE(Contiguous(cleared)) << Join(cleared);
	/*
	 * counted: every step up to the check of rseq_cs; cleared: the marker is
	 * armed at every step of the leave (it is no longer cleared at depth 0)
	 */
	EXPECT_EQ(*cleared.begin(), 1);
	EXPECT_GE(*cleared.rbegin(), n - 1) << Join(cleared);	/* the last trap may be lost */
	EXPECT_GT(cleared.size(), counted.size()) << "a preemption after the check exists";
	EXPECT_LT(*counted.rbegin(), n);
	printf("[ info ] outermost leave: %ld steps, preemption counted at steps 1-%ld, "
		   "marker armed until step %ld\n", n, *counted.rbegin(), *cleared.rbegin());
}

/* poc: the kernel bit at every step; lost only between load and store. */
TEST_F(StepRace, PocKernelBitAtEveryStep)
{
	Fresh(RSEQ_SLICE_MODE_POC, 1);
	Stepped([this]() { return rseq_slice_leave(&s); });
	const long	n = g_step;
	std::set<long> set_ok,
				lost_i;

	for (long i = 1; i <= n + 1; i++)
	{
		SCOPED_TRACE("kernel bit at step " + std::to_string(i));
		Fresh(RSEQ_SLICE_MODE_POC, 1);
		g_poc_at = i;
		g_stop_at = i;
		rseq_test::yield_calls = 0;
		unsigned	ev = Stepped([this]() { return rseq_slice_leave(&s); });

		if (g_k_granted)
			set_ok.insert(i);
		if (ev & RSEQ_SLICE_EV_GRANTED)
		{
			EXPECT_EQ((int) g_k_granted, 1) << "phantom";
			EXPECT_EQ(rseq_test::yield_calls, 1u);
		}
		else if (g_k_granted)
			lost_i.insert(i);
		EXPECT_EQ(cr_flags(), 0u);
	}
	ASSERT_FALSE(set_ok.empty());
	EXPECT_TRUE(Contiguous(set_ok));
	EXPECT_FALSE(lost_i.empty()) << "the documented poc race";
	EXPECT_TRUE(Contiguous(lost_i)) << Join(lost_i);
	EXPECT_LE(lost_i.size(), 3u) << Join(lost_i);
	if (!lost_i.empty())
	{
		EXPECT_EQ(*lost_i.rbegin(), *set_ok.rbegin());
	}
	printf("[ info ] poc leave: %ld steps, kernel bit lost at step(s) %s\n", n,
		   Join(lost_i).c_str());
}

}  // namespace
