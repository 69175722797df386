/*
 * 6. An emulated kernel driven by asynchronous signals.
 *
 * A POSIX timer (one shot, CLOCK_MONOTONIC, aimed at this thread) sends
 * SIGALRM 5-35 us after it is armed; the main thread re-arms it every 32
 * sequences once it has fired, and inside the occasional long section the
 * handler re-arms it every 20 us itself (a burst).  Delivering a signal
 * costs 15-50 us of CPU on this project's loaded virtual machines, so a
 * periodic 20 us timer would starve the main thread and make the run's
 * length depend on the load; paced by progress, the run costs about the
 * same CPU everywhere.  The handler plays the kernel at interrupt return,
 * on a fake area (never registered): at random it
 *   - grants   (request == 1 and no live grant: clear request, set granted,
 *              one store; kernel s_granted; with a live grant Linux 7.2.13
 *              revokes it instead, include/linux/rseq_entry.h, and so does
 *              this kernel),
 *   - revokes  (granted set: write the whole word 0; s_revoked; the hrtimer
 *              expired),
 *   - preempts (rseq_cs != 0: clear it, and revoke a grant; reschedule).
 * rseq_slice_yield (the test hook) ends a grant (s_yielded, returns 1) or
 * returns 0 when there is none, and is atomic for the handlers (a system
 * call).  In addition, one outermost close in 4096 is single-stepped (x86 trap
 * flag) with the kernel acting at random instruction boundaries, so that the
 * narrow windows inside the fast path are hit too (timer signals alone
 * almost never land between two given instructions).
 *
 * The main thread runs 10^6 random lock sequences (nesting up to depth 6,
 * random kinds, random wait_begin / wait_end in the outermost section,
 * abandoned waits, nested sections while waiting, mode switches at depth 0
 * and deferred ones inside sections, switches out of off with open
 * sections through rseq_slice_set_mode_open, detail counters switched on
 * and off now and then: mostly in this executable's flavour,
 * RSEQ_TEST_DETAIL) and checks after every call against a model of what
 * the header must do: the path byte, mode, pending, waiting, depth (not
 * kept in plain mode off), desched_levels, the counters (the detail ones
 * only while detail is on), rseq_cs (0 in off, else 0 or our marker, and
 * our marker after every call that looks at it unless the kernel cleared
 * it during that call).
 *
 * Exactness, and the one documented double grant.  The close ends the
 * request window with one xor of request (rseq_slice_request_acted), which
 * the kernel cannot split, so no grant goes unseen (the load / store close
 * before it lost a grant made between its load of request and its clear and
 * revoked before granted was read; this kernel then held such revokes).
 * The xor of a request the kernel already cleared sets it again, for the
 * two instructions before the rare branch clears it: if the first grant was
 * already revoked, the kernel may grant that request too.  pg_rseq then
 * counts one grant (the live one) where the kernel counted two, one
 * revoked; st.regrants counts these windows.  race_step_test.cc shows,
 * instruction by instruction, that no grant is lost.  Every relation below
 * is an equality, per close (events returned) and in total:
 *   counters.grants + regrants == s_granted
 *   counters.yields          == calls of rseq_slice_yield == counters.grants
 *                               (a revoked grant gets its yield call too)
 *   counters.yields_in_grant == s_yielded
 *   s_granted                == s_yielded + s_revoked
 *   s_revoked                == yields - yields_in_grant + regrants
 *                               (revoked before the close saw it, counted in
 *                               counters.revoked, or between its read of
 *                               granted and the yield, which returns 0)
 * The marker cannot be exact in total (a preemption inside the leave that
 * ends the section comes after the lock was released and is not counted;
 * one inside wait_begin is the waiter's), so each look at rseq_cs is
 * checked.  The marker stays armed between sections, and the header looks
 * at it in two ways: checks that count (every leave, every nested entry
 * outside a depth-1 wait, which charges a preemption to the enclosing
 * lock) and silent re-arms (an outermost entry: nothing was held before
 * it; an entry while the depth-1 section waits, and wait_end at depth 1:
 * a waiter holds nothing).  A preemption strictly between the previous
 * look and a counting check must be found by it, and none may be found if
 * no preemption happened since the previous look; a silent re-arm never
 * counts; only preemptions during the calls themselves are left to either
 * side.  A preemption found at a nested entry must be reported by the
 * leave of the enclosing lock (EV_DESCHEDULED, or EV_DESCHEDULED_AGAIN
 * when that leave found one of its own).  Two known deviations of the
 * header are modelled as it behaves and counted in the [ info ] line
 * (see KnownBug.* in new_semantics_test.cc): an abandoned wait counts a
 * preemption while waiting (kAbandonedWaitCounts), and a second find for
 * the same enclosing lock is counted but not reported (desch_unreported).
 */
#include "test_support.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

namespace {

using rseq_test::FakeAreaTest;

/* ---------------- the emulated kernel (signal side) ---------------- */

volatile rseq_slice_area *ek_area;
volatile sig_atomic_t ek_in_close;	/* main thread inside leave()/wait_begin() */
volatile sig_atomic_t ek_in_hook;	/* inside rseq_slice_yield */
volatile sig_atomic_t ek_stepping;	/* trap flag set: act at random steps */
timer_t		ek_timer;
volatile sig_atomic_t ek_armed;	/* a timer expiry is pending */
volatile sig_atomic_t ek_burst;	/* main thread in a long section */
constexpr long kBurstNs = 20000;

/* Arm the one-shot timer ns from now (async-signal-safe). */
void ek_arm(long ns)
{
	struct itimerspec t;

	memset(&t, 0, sizeof(t));
	t.it_value.tv_nsec = ns;
	ek_armed = 1;
	timer_settime(ek_timer, 0, &t, nullptr);
}

/* Kernel-side counters: written by the handlers only (and the hook). */
volatile uint64_t k_signals, k_traps, k_granted, k_revoked, k_yielded, k_cleared, k_hook_calls,
			k_grant_in_close, k_hook_signals;

uint64_t ek_rng = 0x9e3779b97f4a7c15ull;

inline uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Revoke a live grant: Linux 7.2.13 writes the whole slice_ctrl word 0. */
void kernel_revoke()
{
	volatile rseq_slice_area *a = ek_area;

	if (a->slice.ctrl.granted)
	{
		a->slice.ctrl.granted = 0;
		a->slice.ctrl.request = 0;
		k_revoked = k_revoked + 1;
	}
}

void kernel_act(uint64_t r)
{
	volatile rseq_slice_area *a = ek_area;

	switch (r & 7)
	{
		case 0:
		case 1:
		case 2:					/* wants to reschedule, the thread asked: grant */
			if (a->slice.ctrl.granted)
				kernel_revoke();	/* a live grant: revoked, not renewed */
			else if (a->slice.ctrl.request == 1)
			{
				a->slice.ctrl.request = 0;
				a->slice.ctrl.granted = 1;
				k_granted = k_granted + 1;
				if (ek_in_close)
					k_grant_in_close = k_grant_in_close + 1;
			}
			break;
		case 3:
		case 4:					/* the grant's timer expired */
			kernel_revoke();
			break;
		case 5:
		case 6:					/* scheduled out: rseq_cs evaluated, grant ends */
			if (a->rseq_cs != 0)
			{
				a->rseq_cs = 0;
				k_cleared = k_cleared + 1;
			}
			kernel_revoke();
			break;
		default:				/* nothing this time */
			break;
	}
}

void alarm_handler(int)
{
	int			saved = errno;

	k_signals = k_signals + 1;
	if (ek_in_hook)
		k_hook_signals = k_hook_signals + 1;
	else
		kernel_act(xorshift(&ek_rng));
	ek_armed = 0;
	if (ek_burst)
		ek_arm(kBurstNs);
	errno = saved;
}

void trap_handler(int)
{
	k_traps = k_traps + 1;
	if (ek_stepping && !ek_in_hook)
	{
		uint64_t	r = xorshift(&ek_rng);

		if ((r >> 32) % 4 == 0)
			kernel_act(r);
	}
}

long ek_yield(struct rseq_slice_state *)
{
	long		r = 0;

	ek_in_hook = 1;
	std::atomic_signal_fence(std::memory_order_seq_cst);
	k_hook_calls = k_hook_calls + 1;
	if (ek_area->slice.ctrl.granted)
	{
		ek_area->slice.ctrl.granted = 0;
		k_yielded = k_yielded + 1;
		r = 1;
		/* it really schedules: rseq_cs is evaluated */
		if (ek_area->rseq_cs != 0)
		{
			ek_area->rseq_cs = 0;
			k_cleared = k_cleared + 1;
		}
	}
	std::atomic_signal_fence(std::memory_order_seq_cst);
	ek_in_hook = 0;
	return r;
}

/*
 * Single steps: the x86 trap flag.  aarch64 user space cannot single-step
 * itself (only a ptrace tracer can, and qemu-user has no ptrace; see
 * race_step_test.cc): there the "stepped" closes run unstepped, the kernel
 * acts at timer signals only, and the checks that need a kernel action
 * inside a close's narrow windows (kSingleStep) are reported, not asserted.
 */
#if defined(__x86_64__)
constexpr bool kSingleStep = true;

inline void tf_on()
{
	__asm__ __volatile__("lea -128(%%rsp), %%rsp\n\tpushfq\n\torq $0x100, (%%rsp)\n\t"
						 "popfq\n\tlea 128(%%rsp), %%rsp" ::: "memory", "cc");
}

inline void tf_off()
{
	__asm__ __volatile__("lea -128(%%rsp), %%rsp\n\tpushfq\n\tandq $-257, (%%rsp)\n\t"
						 "popfq\n\tlea 128(%%rsp), %%rsp" ::: "memory", "cc");
}
#else
constexpr bool kSingleStep = false;

inline void tf_on() {}
inline void tf_off() {}
#endif

/* ---------------- the main thread: random sequences + model ---------------- */

struct Stats
{
	uint64_t	sequences = 0;
	uint64_t	long_sections = 0;
	uint64_t	calls = 0;
	uint64_t	stepped_closes = 0;
	uint64_t	desch_certain = 0;	/* leaves that had to report */
	uint64_t	desch_ambiguous = 0;	/* preemption inside a call: either side */
	uint64_t	desch_reported = 0;
	uint64_t	desch_at_entry = 0;	/* found at a nested entry, charged outward */
	uint64_t	desch_unreported = 0;	/* a second find for the same enclosing lock */
	uint64_t	silent_rearms = 0;	/* looks at the marker that must not count */
	uint64_t	abandoned_counted = 0;	/* abandoned waits that counted one */
	uint64_t	waits = 0,
				abandoned = 0,
				nested_in_wait = 0;
	uint64_t	mode_switches = 0,
				deferred_switches = 0,
				open_switches = 0,	/* set_mode_open from off, sections open */
				open_switches_done = 0,
				detail_switches = 0;
	uint64_t	closes = 0,
				closes_granted = 0,
				regrants = 0,	/* windows with two kernel grants (see the top) */
				grant_revoke_in_close = 0;	/* both inside one close call, seen */
	uint64_t	ev_revoked = 0,
				ev_yield_called = 0,
				ev_yielded = 0;
};

class EmulatedKernel : public FakeAreaTest
{
protected:
	/* model of the state the header must keep */
	int			m_mode = RSEQ_SLICE_MODE_UPSTREAM;
	bool		m_pending = false;
	int			m_pending_mode = 0;
	unsigned	m_depth = 0;	/* sections open (kept by the model in off too) */
	bool		m_waiting = false;
	unsigned	m_in_wait = 0;	/* depth of the section in a wait, 0: none */
	bool		m_detail = rseq_test::kDetail;
	bool		m_detail_always = rseq_test::kDetail;	/* requests (a detail
														 * counter) counted
														 * the whole time */
	rseq_slice_counters m_ctr;	/* the deterministic counters */
	/*
	 * marker bookkeeping: preemptions since the last call that looked at
	 * rseq_cs (a check that counts, or a silent re-arm)
	 */
	uint64_t	m_clr_start = 0,
				m_prev_in = 0;
	/* m_pend[k]: deschedules found at nested entries, to be reported at the
	 * leave of the lock entered at depth k + 1 (depth <= 6 here) */
	unsigned	m_pend[8] = {};
	/* kernel counters at the opening of the current request window */
	uint64_t	w_granted = 0,
				w_revoked = 0,
				w_yielded = 0,
				w_hook = 0;

	uint64_t	rng = 0x2545f4914f6cdd1dull;
	Stats		st;
	uint64_t	failures = 0;
	std::vector<std::string> first_failures;

	struct sigaction old_alrm, old_trap;
	bool		timer_ok = false;

	uint64_t rnd() { return xorshift(&rng); }

	void Fail(int line, const char *what)
	{
		failures++;
		if (first_failures.size() < 20)
			first_failures.push_back("line " + std::to_string(line) + ", sequence " +
									 std::to_string(st.sequences) + ", depth " +
									 std::to_string(m_depth) + ", mode " +
									 rseq_slice_mode_names[m_mode] + ": " + what);
	}

	/*
	 * The header's behaviour at an abandoned wait (a depth-1 section left
	 * between wait_begin and wait_end) when the marker was cleared while
	 * waiting: the protocol says a waiter holds nothing, so that must not
	 * count; rseq_slice_leave_slow counts it anyway (see
	 * KnownBug.AbandonedWaitCountsDescheduleWhileWaiting in
	 * new_semantics_test.cc).  true = model what the header does today (a
	 * counting check), false = what it should do (a silent re-arm).
	 */
	static constexpr bool kAbandonedWaitCounts = false;

	/* The path byte the header must have derived (rseq_slice_repath). */
	uint8_t PathModel() const
	{
		if (m_mode == RSEQ_SLICE_MODE_OFF)
			return m_pending ? RSEQ_SLICE_PATH_SLOW : RSEQ_SLICE_PATH_OFF;
		if (m_detail || m_waiting || m_in_wait || m_pending || PendMask() != 0 ||
			m_mode == RSEQ_SLICE_MODE_POC)
			return RSEQ_SLICE_PATH_SLOW;
		return m_mode == RSEQ_SLICE_MODE_UPSTREAM ? RSEQ_SLICE_PATH_REQUEST : RSEQ_SLICE_PATH_MEASURE;
	}

	/* Does the header keep the depth now (not in plain mode off)? */
	bool DepthKept() const { return m_mode != RSEQ_SLICE_MODE_OFF || m_pending; }

	void SetUp() override
	{
		FakeAreaTest::SetUp();
		memset(&m_ctr, 0, sizeof(m_ctr));
		ek_area = area;
		ek_in_close = ek_in_hook = ek_stepping = 0;
		k_signals = k_traps = k_granted = k_revoked = k_yielded = k_cleared = k_hook_calls = 0;
		k_grant_in_close = k_hook_signals = 0;
		rseq_test::yield_fn = ek_yield;
		Init((rseq_slice_mode) m_mode);

		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		/* the two handlers must not interrupt each other (shared counters) */
		sigaddset(&sa.sa_mask, SIGALRM);
		sigaddset(&sa.sa_mask, SIGTRAP);
		sa.sa_flags = SA_RESTART;
		sa.sa_handler = alarm_handler;
		ASSERT_EQ(sigaction(SIGALRM, &sa, &old_alrm), 0);
		sa.sa_handler = trap_handler;
		ASSERT_EQ(sigaction(SIGTRAP, &sa, &old_trap), 0);
	}

	void StartTimer()
	{
		struct sigevent sev;

		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGALRM;
		sev._sigev_un._tid = gettid();	/* this thread, not the process */
		ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &sev, &ek_timer), 0) << strerror(errno);
		timer_ok = true;
		ek_armed = 0;
		ek_burst = 0;

		struct itimerspec t;

		memset(&t, 0, sizeof(t));
		t.it_value.tv_nsec = kBurstNs;
		ek_armed = 1;
		ASSERT_EQ(timer_settime(ek_timer, 0, &t, nullptr), 0) << strerror(errno);
	}

	/* Every 32 sequences: a signal 5-35 us from now, unless one is pending. */
	void Pace()
	{
		if (!ek_armed)
			ek_arm(5000 + (long) (rnd() % 30000));
	}

	void StopTimer()
	{
		ek_burst = 0;
		if (timer_ok)
		{
			timer_delete(ek_timer);
			timer_ok = false;
		}
	}

	void TearDown() override
	{
		StopTimer();
		sigaction(SIGALRM, &old_alrm, nullptr);
		sigaction(SIGTRAP, &old_trap, nullptr);
		rseq_test::yield_fn = nullptr;
	}

#define CHECK(cond) do { if (!(cond)) Fail(__LINE__, #cond); } while (0)

	void OpenWindowSnapshot()
	{
		w_granted = k_granted;
		w_revoked = k_revoked;
		w_yielded = k_yielded;
		w_hook = k_hook_calls;
	}

	/* One upstream request window closed by this call: exact accounting. */
	void CheckWindow(unsigned ev)
	{
		uint64_t	g = k_granted - w_granted;
		uint64_t	rv = k_revoked - w_revoked;
		uint64_t	y = k_yielded - w_yielded;
		uint64_t	h = k_hook_calls - w_hook;
		bool		G = ev & RSEQ_SLICE_EV_GRANTED;
		bool		R = ev & RSEQ_SLICE_EV_REVOKED;
		bool		C = ev & RSEQ_SLICE_EV_YIELD_CALLED;
		bool		Y = ev & RSEQ_SLICE_EV_YIELDED;

		st.closes++;
		st.closes_granted += G;
		st.ev_revoked += R;
		st.ev_yield_called += C;
		st.ev_yielded += Y;
		CHECK(g <= 2);
		CHECK(G == (g >= 1));	/* no grant goes unseen */
		st.regrants += (g == 2);
		CHECK(C == (h == 1));
		CHECK(Y == (y == 1));
		CHECK(!Y || C);
		CHECK(G == C);			/* every grant seen ends with one yield call */
		CHECK(!R || (G && !Y));
		CHECK(rv == ((R || (C && !Y)) ? 1u : 0u) + (g == 2 ? 1u : 0u));
		CHECK(request() == 0);
		CHECK(granted() == 0);
		OpenWindowSnapshot();	/* nothing may happen until the next open */
	}

	/* Run a closing call, optionally single-stepped with a random kernel. */
	template <typename F>
	unsigned CloseCall(F f, bool stepped)
	{
		unsigned	ev;
		const uint64_t g0 = k_granted,
					r0 = k_revoked;

		ek_in_close = 1;
		std::atomic_signal_fence(std::memory_order_seq_cst);
		if (stepped)
		{
			st.stepped_closes++;
			ek_stepping = 1;
			tf_on();
			ev = f();
			tf_off();
			ek_stepping = 0;
		}
		else
			ev = f();
		std::atomic_signal_fence(std::memory_order_seq_cst);
		ek_in_close = 0;
		if (k_granted != g0 && k_revoked != r0 && (ev & RSEQ_SLICE_EV_REVOKED))
			st.grant_revoke_in_close++;
		return ev;
	}

	/* The state after every call: what the model can say exactly. */
	void CheckState()
	{
		CHECK(rseq_slice_path(&s) == PathModel());
		CHECK(s.mode == m_mode);
		CHECK(s.pending == (m_pending ? 1 : 0));
		CHECK(s.waiting == (m_waiting ? 1 : 0));
		CHECK(s.detail == (m_detail ? 1 : 0));
		CHECK(s.desched_levels == PendMask());
		if (DepthKept())
			CHECK(s.depth == m_depth);
		uint64_t	c = cs();

		/* the kernel only clears; off leaves rseq_cs 0 (the switch cleared ours) */
		if (m_mode == RSEQ_SLICE_MODE_OFF)
			CHECK(c == 0);
		else
			CHECK(c == 0 || c == marker);
	}

	void CheckDepth0()
	{
		CHECK(m_depth == 0);
		if (DepthKept())
			CHECK(s.depth == 0);
		CHECK(s.waiting == 0);
		CHECK(s.pending == 0);
		CHECK(s.mode == m_mode);
		CHECK(request() == 0);
		CHECK(granted() == 0);
		CHECK(s.desched_levels == 0);
		CheckState();
	}

	uint32_t PendMask() const
	{
		uint32_t	m = 0;

		for (unsigned k = 0; k < 8; k++)
			m |= m_pend[k] ? 1u << k : 0;
		return m;
	}

	/*
	 * One marker check by the header that counts (a leave, a nested entry
	 * outside a depth-1 wait) and found `found` deschedules (0 or 1) while
	 * preemptions went from c_before to c_after during the call: a
	 * preemption strictly since the previous look at rseq_cs must be found,
	 * none may be found if no preemption happened since then, preemptions
	 * during the calls go either way.
	 */
	void MarkerCheck(uint64_t c_before, uint64_t c_after, uint64_t found)
	{
		uint64_t	pre = c_before - m_clr_start;
		uint64_t	in = c_after - c_before;

		CHECK(found <= 1);
		if (pre > 0)
		{
			st.desch_certain++;
			CHECK(found == 1);
		}
		else if (m_prev_in == 0 && in == 0)
			CHECK(found == 0);
		else
			st.desch_ambiguous++;
		m_clr_start = c_after;
		m_prev_in = in;
	}

	/*
	 * A look at rseq_cs that re-arms without counting (an outermost entry,
	 * an entry while the depth-1 section waits, wait_end at depth 1): never
	 * counts; the marker is armed afterwards unless the kernel cleared it
	 * during the call.
	 */
	void SilentRearm(uint64_t c_before, uint64_t c_after, uint64_t found)
	{
		st.silent_rearms++;
		CHECK(found == 0);
		uint64_t	c = cs();	/* before k_cleared: a signal may come between */

		if (c_before == c_after && k_cleared == c_after)
			CHECK(c == marker);
		m_clr_start = c_after;
		m_prev_in = c_after - c_before;
	}

	void Enter(unsigned kind)
	{
		bool		outer = m_depth == 0;
		uint64_t	c_before = k_cleared,
					d_before = ctr.descheduled;
		rseq_slice_counters before = ctr;

		st.calls++;
		if (m_mode == RSEQ_SLICE_MODE_OFF)
		{
			/* off: touches nothing; the depth only while a switch waits */
			rseq_slice_enter(&s, kind);
			m_depth++;
			CHECK(memcmp(&before, &ctr, sizeof(ctr)) == 0);
			CheckState();
			return;
		}
		if (outer)
			OpenWindowSnapshot();
		rseq_slice_enter(&s, kind);

		uint64_t	c_after = k_cleared;
		uint64_t	found = ctr.descheduled - d_before;

		/* nothing held: outermost, or the first entry in a depth-1 wait */
		if (outer || (m_waiting && m_depth == 1))
			SilentRearm(c_before, c_after, found);
		else
		{
			/* a nested entry checks the marker for the enclosing lock */
			MarkerCheck(c_before, c_after, found);
			if (found)
			{
				m_pend[m_depth - 1]++;
				st.desch_at_entry++;
			}
		}
		m_depth++;
		if (m_detail)
		{
			m_ctr.entries[kind]++;
			if (outer)
				m_ctr.sections++;
			else
			{
				m_ctr.nested++;
				m_ctr.max_depth = std::max<uint64_t>(m_ctr.max_depth, m_depth);
			}
		}
		if (outer && m_mode != RSEQ_SLICE_MODE_MEASURE && m_detail)
			m_ctr.requests++;		/* a detail counter */
		CHECK(ctr.requests == m_ctr.requests);
		CHECK(ctr.sections == m_ctr.sections);
		CHECK(ctr.nested == m_ctr.nested);
		CHECK(ctr.entries[kind] == m_ctr.entries[kind]);
		CheckState();
		if (outer)
		{
			/* read the area between two reads of the kernel counters */
			uint64_t	g1 = k_granted;
			uint8_t		r = request();
			uint32_t	f = cr_flags();
			uint64_t	g2 = k_granted;

			if (m_mode == RSEQ_SLICE_MODE_UPSTREAM && g1 == g2)
				CHECK(r == (g1 == w_granted ? 1 : 0));
			if (m_mode == RSEQ_SLICE_MODE_MEASURE)
				CHECK(r == 0 && f == 0);
			if (m_mode == RSEQ_SLICE_MODE_POC)
				CHECK(f == RSEQ_SLICE_POC_IN_CRITICAL_SECTION);
		}
	}

	void Leave(bool stepped = false)
	{
		uint64_t	c_before = k_cleared,
					d_before = ctr.descheduled;
		unsigned	ev;

		st.calls++;
		if (m_mode == RSEQ_SLICE_MODE_OFF)
		{
			ev = rseq_slice_leave(&s);
			CHECK(ev == 0);
			CHECK(ctr.descheduled == d_before);
			m_depth--;
			if (m_depth == 0 && m_pending)
			{
				/* the switch out of off waited for the open sections */
				st.open_switches_done++;
				m_mode = m_pending_mode;
				m_pending = false;
				m_waiting = false;
				CHECK(cs() == 0);
			}
			if (m_depth == 0)
				CheckDepth0();
			else
				CheckState();
			return;
		}
		ev = CloseCall([this]() { return rseq_slice_leave(&s); }, stepped && m_depth == 1);

		uint64_t	c_after = k_cleared;
		uint64_t	own = ctr.descheduled - d_before;
		bool		D = ev & RSEQ_SLICE_EV_DESCHEDULED;
		bool		again = ev & RSEQ_SLICE_EV_DESCHEDULED_AGAIN;
		unsigned	pend = m_pend[m_depth - 1];
		bool		abandoned = m_depth == 1 && m_waiting;

		unsigned	more = RSEQ_SLICE_EV_MORE(ev);

		m_pend[m_depth - 1] = 0;
		m_depth--;
		if (m_in_wait > m_depth)
			m_in_wait = 0;		/* the waiting section was left */
		st.desch_reported += D + again + more;
		/* further finds for the same lock are reported with the first */
		CHECK(more == (pend > 1 ? pend - 1 : 0));
		ev &= ~(0xffu << RSEQ_SLICE_EV_MORE_SHIFT);
		if (abandoned && !kAbandonedWaitCounts)
			SilentRearm(c_before, c_after, own);
		else
			MarkerCheck(c_before, c_after, own);
		if (abandoned && own)
			st.abandoned_counted++;
		/* its own deschedule and/or one found at a nested entry */
		CHECK(D == (own == 1 || pend > 0));
		CHECK(again == (own == 1 && pend > 0));
		ev &= ~RSEQ_SLICE_EV_DESCHEDULED_AGAIN;

		if (m_depth == 0)
		{
			if (m_mode == RSEQ_SLICE_MODE_UPSTREAM && !m_waiting)
				CheckWindow(ev);
			else if (m_mode == RSEQ_SLICE_MODE_POC && !m_waiting)
			{
				/* the emulated kernel never sets the poc bit: nothing to yield */
				CHECK((ev & ~RSEQ_SLICE_EV_DESCHEDULED) == 0);
				CHECK(cr_flags() == 0);
			}
			else
			{
				CHECK((ev & ~RSEQ_SLICE_EV_DESCHEDULED) == 0);
				CHECK(k_granted == w_granted);
			}
			m_waiting = false;
			if (m_pending)
			{
				m_mode = m_pending_mode;
				m_pending = false;
				if (m_mode == RSEQ_SLICE_MODE_OFF)
					CHECK(cs() == 0);	/* the switch to off cleared our marker */
			}
			CheckDepth0();
		}
		else
		{
			CHECK((ev & ~RSEQ_SLICE_EV_DESCHEDULED) == 0);
			CheckState();
		}
		uint64_t	c = cs();	/* before k_cleared: a signal may come between */

		if (m_mode != RSEQ_SLICE_MODE_OFF && c_before == c_after && k_cleared == c_after)
			CHECK(c == marker);	/* every leave re-arms */
	}

	void WaitBegin(bool stepped)
	{
		st.calls++;
		st.waits++;
		uint64_t	d_before = ctr.descheduled;
		unsigned	ev = CloseCall([this]() { return rseq_slice_wait_begin(&s); },
								   stepped);

		CHECK(ctr.descheduled == d_before);
		CHECK(!(ev & RSEQ_SLICE_EV_DESCHEDULED));
		if (m_mode == RSEQ_SLICE_MODE_OFF)
		{
			CHECK(ev == 0);
			CheckState();
			return;
		}
		if (m_mode == RSEQ_SLICE_MODE_UPSTREAM)
			CheckWindow(ev);
		else
			CHECK(ev == 0);
		/* not a look at the marker: it stays as it is (armed, or cleared) */
		if (!m_in_wait)
			m_in_wait = m_depth;
		m_waiting = true;
		CHECK(request() == 0);
		CHECK(granted() == 0);
		CHECK(cr_flags() == 0);
		CheckState();
	}

	void WaitEnd()
	{
		st.calls++;
		uint64_t	c_before = k_cleared,
					d_before = ctr.descheduled;

		if (m_waiting)
			OpenWindowSnapshot();
		rseq_slice_wait_end(&s);
		if (m_mode != RSEQ_SLICE_MODE_OFF)
			m_in_wait = 0;
		if (m_waiting)
		{
			/* a deschedule while waiting held nothing: re-armed silently */
			SilentRearm(c_before, k_cleared, ctr.descheduled - d_before);
			m_waiting = false;
			if (m_mode != RSEQ_SLICE_MODE_MEASURE && m_detail)
				m_ctr.requests++;
		}
		else
			CHECK(ctr.descheduled == d_before);
		CHECK(ctr.requests == m_ctr.requests);
		CheckState();
	}

	int RandomMode()
	{
		uint64_t	r = rnd() % 20;

		/* not poc: the emulated kernel speaks the upstream slice_ctrl only */
		return r < 10 ? RSEQ_SLICE_MODE_UPSTREAM : r < 17 ? RSEQ_SLICE_MODE_MEASURE : RSEQ_SLICE_MODE_OFF;
	}

	void SetMode(int mode)
	{
		bool		open_call = (rnd() & 1) != 0;
		int			now;

		if (m_mode == RSEQ_SLICE_MODE_OFF && m_depth > 0)
		{
			/*
			 * Off keeps no depth: the caller says how many sections are open
			 * (rseq_slice_set_mode would switch now).  A switch already
			 * waiting may also be changed with rseq_slice_set_mode.
			 */
			if (m_pending && !open_call)
				now = rseq_slice_set_mode(&s, (rseq_slice_mode) mode);
			else
				now = rseq_slice_set_mode_open(&s, (rseq_slice_mode) mode, m_depth);
			if (mode == RSEQ_SLICE_MODE_OFF)
			{
				CHECK(now == 1);	/* nothing to switch: a waiting one is forgotten */
				m_pending = false;
			}
			else
			{
				st.open_switches++;
				CHECK(now == 0);
				m_pending = true;
				m_pending_mode = mode;
			}
		}
		else
		{
			if (open_call)
				now = rseq_slice_set_mode_open(&s, (rseq_slice_mode) mode,
											   m_mode == RSEQ_SLICE_MODE_OFF ? 0 : m_depth);
			else
				now = rseq_slice_set_mode(&s, (rseq_slice_mode) mode);
			if (m_depth == 0)
			{
				st.mode_switches++;
				CHECK(now == 1);
				m_mode = mode;
				m_pending = false;
				if (mode == RSEQ_SLICE_MODE_OFF)
					CHECK(cs() == 0);
			}
			else
			{
				st.deferred_switches++;
				CHECK(now == 0);
				m_pending = true;
				m_pending_mode = mode;
			}
		}
		CheckState();
	}

	/* Detail counters on or off (takes effect at the next enter). */
	void SetDetail(bool on)
	{
		st.detail_switches++;
		rseq_slice_set_detail(&s, on ? 1 : 0);
		m_detail = on;
		if (!on)
			m_detail_always = false;
		CheckState();
	}

	void Work(unsigned n)
	{
		for (volatile unsigned i = 0; i < n; i = i + 1)
		{
		}
	}

	void Nest()
	{
		/* 0, 1 or 2 children (mean 5/8): a few locks, sometimes depth 6 */
		uint64_t	r = rnd() % 8;
		unsigned	children = r < 3 ? 0 : r < 7 ? 1 : 2;

		for (unsigned i = 0; i < children && m_depth < 6; i++)
		{
			Enter((unsigned) (rnd() % RSEQ_SLICE_MAX_KINDS));
			if (rnd() % 128 == 0)
				SetMode(RandomMode());
			if (rnd() % 256 == 0)
				SetDetail(!m_detail);
			Work((unsigned) (rnd() % 8));
			Nest();
			Leave();
		}
	}

	void Sequence()
	{
		uint64_t	r = rnd();
		bool		stepped = (r & 4095) == 0;	/* single steps are slow */

		if (((r >> 6) & 15) == 0)
			SetMode(RandomMode());
		/* mostly this executable's flavour, now and then the other one */
		if (m_detail != rseq_test::kDetail && ((r >> 45) & 7) == 0)
			SetDetail(rseq_test::kDetail);
		Enter((unsigned) ((r >> 10) % RSEQ_SLICE_MAX_KINDS));
		if (((r >> 12) & 3) == 0)
		{
			/* contended acquisition: the section was entered before the attempt */
			WaitBegin(stepped);
			stepped = false;
			Work((unsigned) ((r >> 14) % 16));
			if (((r >> 18) & 3) == 0)
			{
				st.nested_in_wait++;
				Enter((unsigned) ((r >> 20) % RSEQ_SLICE_MAX_KINDS));	/* wait-list lock */
				Leave();
			}
			if (((r >> 22) % 5) == 0)
			{
				st.abandoned++;
				Leave();		/* gave up without the lock */
				return;
			}
			WaitEnd();
		}
		/*
		 * Sections are far shorter than the interval between signals, so a
		 * grant is nearly always settled by the yield before the next
		 * signal: one section in 1024 holds the lock for a few hundred us
		 * under a burst of signals, so that the kernel also revokes grants
		 * and preempts holders of granted sections.
		 */
		if (((r >> 25) & 1023) == 0)
		{
			st.long_sections++;
			ek_burst = 1;
			if (!ek_armed)
				ek_arm(kBurstNs);
			Work(150000);
			ek_burst = 0;
		}
		else
			Work((unsigned) ((r >> 35) % 16));
		Nest();
		Leave(stepped);
	}

	void CheckTotals()
	{
		rseq_slice_counters c = ctr;

		for (int k = 0; k < RSEQ_SLICE_MAX_KINDS; k++)
			CHECK(c.entries[k] == m_ctr.entries[k]);
		CHECK(c.sections == m_ctr.sections);
		CHECK(c.nested == m_ctr.nested);
		CHECK(c.max_depth == m_ctr.max_depth);
		CHECK(c.requests == m_ctr.requests);
		CHECK(!m_detail_always || c.grants <= c.requests);
		CHECK(c.yields <= c.grants);
		CHECK(c.yields_in_grant <= c.yields);
		CHECK(c.revoked <= c.grants);
		CHECK(c.yields == c.grants);	/* revoked grants get one yield too */
		CHECK(c.grants + st.regrants == k_granted);
		CHECK(c.yields == k_hook_calls);
		CHECK(c.yields_in_grant == k_yielded);
		CHECK(k_granted == k_yielded + k_revoked);
		CHECK(k_revoked == c.yields - c.yields_in_grant + st.regrants);
		CHECK(c.revoked <= k_revoked);
		CHECK(c.descheduled == st.desch_reported + st.desch_unreported);
		CHECK(c.descheduled >= st.desch_certain);
		CHECK(c.descheduled <= st.desch_certain + st.desch_ambiguous);
		CHECK(c.descheduled <= k_cleared);
	}
#undef CHECK
};

TEST_F(EmulatedKernel, RandomSequencesUnderTimerSignals)
{
	const uint64_t sequences = 1000000;
	const auto t0 = std::chrono::steady_clock::now();
	struct rusage ru0,
				ru1;

	getrusage(RUSAGE_THREAD, &ru0);
	StartTimer();
	if (HasFatalFailure())
		return;
	CheckDepth0();
	while (st.sequences < sequences)
	{
		Sequence();
		st.sequences++;
		if ((st.sequences & 31) == 0)
			Pace();
		if ((st.sequences & 4095) == 0)
		{
			CheckTotals();
			if (failures > 1000)
				break;
		}
	}
	StopTimer();
	const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	getrusage(RUSAGE_THREAD, &ru1);
	auto		tv = [](const struct timeval &a, const struct timeval &b) {
		return (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_usec - a.tv_usec) / 1e6;
	};
	const double user = tv(ru0.ru_utime, ru1.ru_utime);
	const double sys = tv(ru0.ru_stime, ru1.ru_stime);

	CheckDepth0();
	CheckTotals();
	for (const auto &f : first_failures)
		ADD_FAILURE() << f;
	EXPECT_EQ(failures, 0u);
	EXPECT_EQ(st.sequences, sequences);
	EXPECT_EQ(s.depth, 0u);

	/* exact relations, once more as test assertions with values */
	EXPECT_EQ(ctr.grants + st.regrants, (uint64_t) k_granted);
	EXPECT_EQ(ctr.yields, (uint64_t) k_hook_calls);
	EXPECT_EQ(ctr.yields_in_grant, (uint64_t) k_yielded);
	EXPECT_EQ((uint64_t) k_granted, k_yielded + k_revoked);
	EXPECT_LE(ctr.descheduled, (uint64_t) k_cleared);
	EXPECT_GE(ctr.descheduled, st.desch_certain);

	/* the run must have exercised every kernel action, or it proves nothing */
	EXPECT_GT((uint64_t) k_signals, 1000u);
	EXPECT_GT((uint64_t) k_granted, 100u);
	EXPECT_GT((uint64_t) k_revoked, 10u);
	EXPECT_GT((uint64_t) k_yielded, 10u);
	EXPECT_GT((uint64_t) k_cleared, 100u);
	EXPECT_GT(ctr.revoked, 0u);
	if (kSingleStep)
	{
		/* narrow windows: only single steps put the kernel there reliably */
		EXPECT_GT(st.grant_revoke_in_close, 0u) << "no grant made and revoked inside one close";
		EXPECT_GT(st.regrants, 0u) << "the rare branch's re-set request was never granted";
	}
	EXPECT_GT(ctr.descheduled, 0u);
	EXPECT_GT(st.desch_at_entry, 0u) << "no deschedule was charged to an enclosing lock";
	EXPECT_GT(st.desch_certain, 0u);
	EXPECT_GT(st.abandoned, 0u);
	EXPECT_GT(st.deferred_switches, 0u);
	EXPECT_GT(st.silent_rearms, 0u);
	EXPECT_GT(st.open_switches_done, 0u) << "no switch out of off waited for open sections";
	EXPECT_GT(st.detail_switches, 0u);

	printf("[ info ] %.2f s (cpu %.2f user + %.2f sys), %llu sequences, %llu calls, %llu long sections, "
		   "%llu timer signals, %llu single steps in %llu closes\n",
		   secs, user, sys, (unsigned long long) st.sequences, (unsigned long long) st.calls,
		   (unsigned long long) st.long_sections, (unsigned long long) k_signals,
		   (unsigned long long) k_traps, (unsigned long long) st.stepped_closes);
	printf("[ info ] kernel: s_granted %llu, s_revoked %llu, s_yielded %llu, yield calls %llu, "
		   "rseq_cs cleared %llu, grants inside a close call %llu (%llu also revoked in it and "
		   "seen as revoked), windows granted twice %llu\n",
		   (unsigned long long) k_granted, (unsigned long long) k_revoked,
		   (unsigned long long) k_yielded, (unsigned long long) k_hook_calls,
		   (unsigned long long) k_cleared, (unsigned long long) k_grant_in_close,
		   (unsigned long long) st.grant_revoke_in_close, (unsigned long long) st.regrants);
	printf("[ info ] counters: sections %llu, nested %llu, max_depth %llu, requests %llu, grants %llu, "
		   "revoked %llu, yields %llu, yields_in_grant %llu, descheduled %llu\n",
		   (unsigned long long) ctr.sections, (unsigned long long) ctr.nested,
		   (unsigned long long) ctr.max_depth, (unsigned long long) ctr.requests,
		   (unsigned long long) ctr.grants, (unsigned long long) ctr.revoked,
		   (unsigned long long) ctr.yields, (unsigned long long) ctr.yields_in_grant,
		   (unsigned long long) ctr.descheduled);
	printf("[ info ] marker checks: %llu must-report, %llu either way, %llu found at a nested entry; "
		   "waits %llu (abandoned %llu, nested while waiting %llu); mode switches %llu now, %llu deferred\n",
		   (unsigned long long) st.desch_certain, (unsigned long long) st.desch_ambiguous,
		   (unsigned long long) st.desch_at_entry,
		   (unsigned long long) st.waits, (unsigned long long) st.abandoned,
		   (unsigned long long) st.nested_in_wait, (unsigned long long) st.mode_switches,
		   (unsigned long long) st.deferred_switches);
	printf("[ info ] flavour detail=%d: %llu silent re-arms, %llu switches out of off with open "
		   "sections (%llu done), %llu detail switches, %llu deschedules counted but not "
		   "reported (a second find for one lock), %llu abandoned waits counted one\n",
		   RSEQ_TEST_DETAIL, (unsigned long long) st.silent_rearms,
		   (unsigned long long) st.open_switches, (unsigned long long) st.open_switches_done,
		   (unsigned long long) st.detail_switches, (unsigned long long) st.desch_unreported,
		   (unsigned long long) st.abandoned_counted);
	RecordProperty("sequences", std::to_string(st.sequences));
	RecordProperty("s_granted", std::to_string(k_granted));
	RecordProperty("s_revoked", std::to_string(k_revoked));
	RecordProperty("s_yielded", std::to_string(k_yielded));
}

}  // namespace
