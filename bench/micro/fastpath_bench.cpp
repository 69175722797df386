// fastpath_bench: cost of the rseq_slice fast path (Google Benchmark).
//
// Benchmarks (names are what bench/micro/summarize.py reads):
//   empty                       the benchmark loop alone
//   pair/<mode>                 rseq_slice_enter + rseq_slice_leave, depth 0->1->0
//   nested3/<mode>              three enters then three leaves (depth 3)
//   tas/bare                    uncontended TAS acquire + release: lock; xchgb
//                               (PostgreSQL's x86_64 tas()) and a plain store
//   tas/wrapped/<mode>          the same inside enter/leave
//   lwlock/bare                 uncontended LWLock-like exclusive acquire +
//                               release: compare-exchange on a uint32 state
//                               (LWLockAttemptLock) + atomic subtract
//                               (LWLockRelease's pg_atomic_sub_fetch_u32)
//   lwlock/wrapped/<mode>       the same inside enter/leave
//   pair/measure-real-area      pair in measure mode on the thread's real,
//                               kernel-registered rseq area (when there is one)
// <mode> is off, measure, upstream, poc.
//
// No kernel involvement: every mode but the *-real-area benchmark runs on a
// fake rseq area (zeroed memory that no kernel registered), so nothing ever
// grants, revokes or clears the marker, and leave() never takes the granted
// branch.  That is the cost of the common case on every kernel: on a real
// Linux 7.x kernel with the slice extension enabled, the upstream path only
// adds something when the kernel actually granted an extension during the
// section, and then it is one rseq_slice_yield system call (syscall 471) in
// the granted branch of rseq_slice_leave (see bench/micro/check-fastpath).
//
// A benchmark::ClobberMemory() (compiler barrier, no instruction) stands
// between enter and leave, as a lock operation would: without it the
// compiler may fold mode off's depth++ / depth-- away.
//
// The rseq_slice_state is thread_local, as in extend-sched (PostgreSQL keeps
// one per backend process in a global; the access costs the same).

#include "rseq_slice.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

thread_local rseq_slice_area_storage tls_real_storage;
thread_local rseq_slice_state tls_state;
thread_local rseq_slice_counters tls_ctr;
rseq_slice_area_storage fake_storage;	// never registered with the kernel

const rseq_slice_mode bench_modes[] = {RSEQ_SLICE_MODE_OFF, RSEQ_SLICE_MODE_MEASURE,
									   RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC};

// Point tls_state at the fake area in `mode` (forced, not resolved: there is
// no kernel behind the fake area).
void init_fake(rseq_slice_mode mode) {
	rseq_slice_probe p;

	rseq_slice_probe_thread(&p);
	memset(&fake_storage, 0, sizeof(fake_storage));
	p.registered = 1;
	p.area = &fake_storage.u.area;
	memset(&tls_ctr, 0, sizeof(tls_ctr));
	rseq_slice_state_init(&tls_state, mode, &p, &tls_ctr);
}

// --- locks -----------------------------------------------------------------
struct alignas(64) TasLock {
	volatile unsigned char v;
};
TasLock tas_lock;

inline int tas(volatile unsigned char *lock) {
	unsigned char res = 1;
	__asm__ __volatile__("lock; xchgb %0,%1" : "+q"(res), "+m"(*lock) : : "memory", "cc");
	return (int) res;
}
inline void tas_acquire(volatile unsigned char *lock) {
	while (tas(lock))
		__asm__ __volatile__("rep; nop" ::: "memory");	// never taken: uncontended
}
inline void tas_release(volatile unsigned char *lock) {
	__asm__ __volatile__("" ::: "memory");
	*lock = 0;
}

// PostgreSQL 18 values: MAX_BACKENDS = 2^18 - 1, LW_VAL_EXCLUSIVE = MAX_BACKENDS + 1.
constexpr uint32_t MAX_BACKENDS = 0x3FFFF;
constexpr uint32_t LW_VAL_EXCLUSIVE = MAX_BACKENDS + 1;
constexpr uint32_t LW_LOCK_MASK = MAX_BACKENDS | LW_VAL_EXCLUSIVE;

struct alignas(64) LwLock {
	std::atomic<uint32_t> state{0};
};
LwLock lw_lock;

// LWLockAttemptLock(LW_EXCLUSIVE): returns true if the lock was taken.
inline bool lw_attempt(LwLock *l) {
	uint32_t old = l->state.load(std::memory_order_relaxed);
	for (;;) {
		bool free_ = (old & LW_LOCK_MASK) == 0;
		uint32_t desired = free_ ? old + LW_VAL_EXCLUSIVE : old;
		if (l->state.compare_exchange_weak(old, desired, std::memory_order_acq_rel,
										   std::memory_order_relaxed))
			return free_;
	}
}
inline void lw_release(LwLock *l) {
	uint32_t v = l->state.fetch_sub(LW_VAL_EXCLUSIVE, std::memory_order_acq_rel) - LW_VAL_EXCLUSIVE;
	benchmark::DoNotOptimize(v);	// LWLockRelease looks at the new state
}

// --- benchmarks --------------------------------------------------------------
void BM_empty(benchmark::State &state) {
	for (auto _ : state)
		benchmark::ClobberMemory();
}

void BM_pair(benchmark::State &state, rseq_slice_mode mode) {
	init_fake(mode);
	rseq_slice_state *s = &tls_state;
	for (auto _ : state) {
		rseq_slice_enter(s, 0);
		benchmark::ClobberMemory();
		rseq_slice_leave(s);
	}
	state.counters["sections"] = (double) tls_ctr.sections;
}

void BM_nested3(benchmark::State &state, rseq_slice_mode mode) {
	init_fake(mode);
	rseq_slice_state *s = &tls_state;
	for (auto _ : state) {
		rseq_slice_enter(s, 0);
		benchmark::ClobberMemory();
		rseq_slice_enter(s, 1);
		benchmark::ClobberMemory();
		rseq_slice_enter(s, 2);
		benchmark::ClobberMemory();
		rseq_slice_leave(s);
		benchmark::ClobberMemory();
		rseq_slice_leave(s);
		benchmark::ClobberMemory();
		rseq_slice_leave(s);
	}
	if (tls_state.depth != 0)
		state.SkipWithError("depth not 0");
}

void BM_tas_bare(benchmark::State &state) {
	for (auto _ : state) {
		tas_acquire(&tas_lock.v);
		tas_release(&tas_lock.v);
	}
}

void BM_tas_wrapped(benchmark::State &state, rseq_slice_mode mode) {
	init_fake(mode);
	rseq_slice_state *s = &tls_state;
	for (auto _ : state) {
		rseq_slice_enter(s, 0);
		tas_acquire(&tas_lock.v);
		tas_release(&tas_lock.v);
		rseq_slice_leave(s);
	}
}

void BM_lwlock_bare(benchmark::State &state) {
	for (auto _ : state) {
		if (!lw_attempt(&lw_lock))
			state.SkipWithError("lock not free");
		lw_release(&lw_lock);
	}
}

void BM_lwlock_wrapped(benchmark::State &state, rseq_slice_mode mode) {
	init_fake(mode);
	rseq_slice_state *s = &tls_state;
	for (auto _ : state) {
		rseq_slice_enter(s, 0);
		if (!lw_attempt(&lw_lock))
			state.SkipWithError("lock not free");
		lw_release(&lw_lock);
		rseq_slice_leave(s);
	}
}

// Measure mode on the area the kernel really has registered for this thread
// (glibc's legacy one on 6.x, our V2 one on 7.x).  The kernel may clear the
// marker when it preempts the thread: counted as descheduled.
void BM_pair_real(benchmark::State &state) {
	rseq_slice_probe p;
	char why[160];

	rseq_slice_setup_thread(&p, &tls_real_storage);
	rseq_slice_mode m = rseq_slice_resolve(RSEQ_SLICE_MODE_MEASURE, &p, why, sizeof(why));
	if (m != RSEQ_SLICE_MODE_MEASURE) {
		state.SkipWithError(why);
		for (auto _ : state) {
		}
		return;
	}
	memset(&tls_ctr, 0, sizeof(tls_ctr));
	rseq_slice_state_init(&tls_state, m, &p, &tls_ctr);
	rseq_slice_state *s = &tls_state;
	for (auto _ : state) {
		rseq_slice_enter(s, 0);
		benchmark::ClobberMemory();
		rseq_slice_leave(s);
	}
	state.counters["descheduled"] = (double) tls_ctr.descheduled;
	state.SetLabel(p.reason);
}

}  // namespace

int main(int argc, char **argv) {
	benchmark::RegisterBenchmark("empty", BM_empty);
	for (rseq_slice_mode m : bench_modes) {
		std::string n = rseq_slice_mode_names[m];
		benchmark::RegisterBenchmark(("pair/" + n).c_str(), BM_pair, m);
	}
	benchmark::RegisterBenchmark("pair/measure-real-area", BM_pair_real);
	for (rseq_slice_mode m : bench_modes)
		benchmark::RegisterBenchmark((std::string("nested3/") + rseq_slice_mode_names[m]).c_str(),
									 BM_nested3, m);
	benchmark::RegisterBenchmark("tas/bare", BM_tas_bare);
	for (rseq_slice_mode m : bench_modes)
		benchmark::RegisterBenchmark((std::string("tas/wrapped/") + rseq_slice_mode_names[m]).c_str(),
									 BM_tas_wrapped, m);
	benchmark::RegisterBenchmark("lwlock/bare", BM_lwlock_bare);
	for (rseq_slice_mode m : bench_modes)
		benchmark::RegisterBenchmark((std::string("lwlock/wrapped/") + rseq_slice_mode_names[m]).c_str(),
									 BM_lwlock_wrapped, m);
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 2;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
