// extend-sched: contended user-space spin locks with and without the rseq
// time slice extension.
//
// After the 2023 proof of concept's test program (shared/seeds/000_*): 1 +
// nCPU threads loop for a fixed time.  Each thread
//   1. extends (rseq_slice_enter on its own thread_local rseq_slice_state),
//   2. takes a user-space lock living in shared memory (no futex),
//   3. runs a short critical section (bumps the lock's counter, then N
//      increments of shared data and/or a spin of N ns),
//   4. releases the lock, unextends (rseq_slice_leave),
//   5. waits until the lock's counter moves (another thread got the lock)
//      before trying again.
// While an acquisition has to wait, rseq_slice_wait_begin/wait_end withdraw
// the request (as the seed did with unextend() while spinning): a waiter
// neither asks for an extension nor counts as "descheduled while holding".
//
// Lock kinds:
//   tas     test-and-set byte (lock xchgb, like PostgreSQL's x86 tas()), the
//           waiting policy of PostgreSQL's s_lock()/perform_spin_delay()
//           re-implemented: TAS_SPIN with PAUSE, every spins_per_delay tries
//           a sleep starting at 1 ms growing by a random factor in [1, 2)
//           and wrapping back to 1 ms past 1 s; spins_per_delay adapts per
//           thread between 10 and 1000 (+100 after an acquisition without
//           sleeping, -1 after one with).
//   ticket  FIFO ticket lock (fetch-add + now-serving).
//   mcs     queued MCS lock (one queue node per thread).
// Fair locks also suffer from preemption: a waiter next in line that is
// descheduled blocks everybody behind it, and no extension helps it.
//
// Each worker thread starts with glibc's legacy rseq registration; it calls
// rseq_slice_setup_thread() itself (V2 re-registration when the kernel has
// the slice feature) and rseq_slice_resolve() for the mode of the run.
// Everything about the rseq protocol comes from lwlock_patch/rseq_slice.h and
// rseq_slice_kernel.c; nothing of the ABI is defined here.
//
// See --help for options and output.  Exit status: 0 ok, 1 run failed (e.g.
// mutual exclusion violated, thread setup failed), 2 bad options.

#include "rseq_slice.h"

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

// glibc's per-thread rseq area is at thread pointer + __rseq_offset (glibc
// >= 2.35; weak so that an older glibc still links).  Only used to check
// that the probe handed this thread its own area.
extern "C" {
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
}

namespace {

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------
enum LockKind { LK_TAS = 0, LK_TICKET = 1, LK_MCS = 2, LK_N = 3 };
const char *const lock_names[LK_N] = {"tas", "ticket", "mcs"};
static_assert(LK_N <= RSEQ_SLICE_MAX_KINDS, "lock kinds are rseq_slice kinds");

const int MAX_THREADS = 1024;

struct Options {
	int threads = 0;			// 0: 1 + nCPU
	double duration_s = 5.0;
	std::vector<int> locks;		// LockKind
	std::vector<int> modes;		// rseq_slice_mode, as requested
	bool modes_explicit = false;
	uint64_t cs_iters = 100;
	uint64_t cs_ns = 0;
	int hogs = 0;
	int repeat = 1;
	std::string csv;
	std::string tag;
	bool quiet = false;
};

[[noreturn]] void usage_error(const char *fmt, ...) {
	va_list ap;
	fprintf(stderr, "extend-sched: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'extend-sched --help'.\n");
	exit(2);
}

void print_help(FILE *f) {
	fprintf(f,
		"Usage: extend-sched [OPTION]...\n"
		"Contended user-space spin locks, with and without the rseq time slice\n"
		"extension (lwlock_patch/rseq_slice.h).  For every lock kind and mode, THREADS\n"
		"threads loop for DURATION: extend, lock, critical section, unlock, unextend,\n"
		"then wait until another thread got the lock.\n"
		"\n"
		"Options (units in brackets):\n"
		"  -t, --threads=N        worker threads [threads]; default 1 + number of\n"
		"                         online CPUs (%d here); 1..%d\n"
		"  -d, --duration=SEC     length of each run [seconds, fractions allowed];\n"
		"                         default 5\n"
		"  -l, --locks=LIST       comma-separated lock kinds: tas, ticket, mcs, or all\n"
		"                         [names]; default all\n"
		"                           tas     test-and-set + PostgreSQL s_lock backoff\n"
		"                                   (spin with PAUSE, then sleeps from 1 ms,\n"
		"                                   randomized exponential, wrap at 1 s)\n"
		"                           ticket  FIFO ticket lock\n"
		"                           mcs     queued MCS lock\n"
		"  -m, --modes=LIST       comma-separated rseq_slice modes: off, measure,\n"
		"                         upstream, poc, auto, or all [names]; default all =\n"
		"                         off,measure,upstream,poc, keeping only the modes that\n"
		"                         resolve to themselves on this kernel (a mode that\n"
		"                         falls back is reported and skipped).  A mode named\n"
		"                         explicitly runs even when it falls back, labelled\n"
		"                         requested->resolved.\n"
		"                           off       wrapper does nothing but count depth\n"
		"                           measure   preemption marker only (\"descheduled\n"
		"                                     while holding\"), no requests\n"
		"                           upstream  marker + Linux 7.x slice requests\n"
		"                           poc       marker + 2023 cr_flags requests\n"
		"  -i, --cs-iters=N       critical section work: N increments of shared data\n"
		"                         [iterations]; default 100; 0 allowed\n"
		"  -n, --cs-ns=NS         critical section: additionally spin until NS\n"
		"                         nanoseconds passed since the lock was taken [ns];\n"
		"                         default 0 (off)\n"
		"  -H, --hogs=N           N background busy-loop processes during each run\n"
		"                         [processes]; default 0\n"
		"  -r, --repeat=N         run every (lock, mode) N times [runs]; default 1\n"
		"  -c, --csv=FILE         append one CSV line per run to FILE (header written\n"
		"                         when FILE is new or empty)\n"
		"  -T, --tag=STR          free text copied into the CSV 'tag' column\n"
		"  -q, --quiet            no per-thread table\n"
		"  -h, --help             this text\n"
		"\n"
		"Output per (lock, mode) run, on stdout:\n"
		"  Ran for N times        critical-section entries, all threads [entries]\n"
		"  Total wait time        time from extend to lock held, summed over threads\n"
		"                         [ns and s]\n"
		"  per thread             entries, wait [ns], max wait [ns], backoff sleeps,\n"
		"                         involuntary/voluntary context switches (getrusage)\n"
		"  rseq counters          summed over threads [counts]: sections (outermost\n"
		"                         enters), requests (request windows opened), grants\n"
		"                         (granted at leave + revoked), revoked (request cleared\n"
		"                         by the kernel, no grant left), yields (rseq_slice_yield\n"
		"                         calls; 'in grant' = returned 1), descheduled while\n"
		"                         holding (marker cleared by the kernel)\n"
		"CSV columns: see the header line (one line per run).\n"
		"\n"
		"Exit status: 0 ok, 1 a run failed (mutual exclusion violated, setup error),\n"
		"2 bad options.\n",
		(int) std::thread::hardware_concurrency() + 1, MAX_THREADS);
}

uint64_t parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max) {
	char *end;
	unsigned long long v;

	if (s == nullptr || *s == '\0' || *s == '-' || *s == '+')
		usage_error("%s: expected an integer in [%" PRIu64 ", %" PRIu64 "], got '%s'",
					opt, min, max, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		usage_error("%s: expected an integer in [%" PRIu64 ", %" PRIu64 "], got '%s'",
					opt, min, max, s);
	return v;
}

double parse_seconds(const char *opt, const char *s) {
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || errno != 0 || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 86400)
		usage_error("%s: expected a duration in seconds in (0, 86400], got '%s'", opt, s);
	return v;
}

std::vector<std::string> split_list(const char *s) {
	std::vector<std::string> out;
	std::string cur;

	for (const char *p = s;; p++) {
		if (*p == ',' || *p == '\0') {
			out.push_back(cur);
			cur.clear();
			if (*p == '\0')
				break;
		} else
			cur += *p;
	}
	return out;
}

void parse_locks(Options &o, const char *s) {
	o.locks.clear();
	for (const std::string &w : split_list(s)) {
		if (w == "all") {
			for (int k = 0; k < LK_N; k++)
				o.locks.push_back(k);
			continue;
		}
		int found = -1;
		for (int k = 0; k < LK_N; k++)
			if (strcasecmp(w.c_str(), lock_names[k]) == 0)
				found = k;
		if (found < 0)
			usage_error("--locks: unknown lock kind '%s' (tas, ticket, mcs, all)", w.c_str());
		o.locks.push_back(found);
	}
}

void parse_modes(Options &o, const char *s) {
	o.modes.clear();
	o.modes_explicit = true;
	for (const std::string &w : split_list(s)) {
		if (w == "all") {
			o.modes_explicit = false;
			for (int m = RSEQ_SLICE_MODE_OFF; m <= RSEQ_SLICE_MODE_POC; m++)
				o.modes.push_back(m);
			continue;
		}
		int m = rseq_slice_mode_from_name(w.c_str());
		if (m < 0)
			usage_error("--modes: unknown mode '%s' (off, measure, upstream, poc, auto, all)",
						w.c_str());
		o.modes.push_back(m);
	}
}

Options parse_options(int argc, char **argv) {
	Options o;
	static const struct option longopts[] = {
		{"threads", required_argument, nullptr, 't'},
		{"duration", required_argument, nullptr, 'd'},
		{"locks", required_argument, nullptr, 'l'},
		{"modes", required_argument, nullptr, 'm'},
		{"cs-iters", required_argument, nullptr, 'i'},
		{"cs-ns", required_argument, nullptr, 'n'},
		{"hogs", required_argument, nullptr, 'H'},
		{"repeat", required_argument, nullptr, 'r'},
		{"csv", required_argument, nullptr, 'c'},
		{"tag", required_argument, nullptr, 'T'},
		{"quiet", no_argument, nullptr, 'q'},
		{"help", no_argument, nullptr, 'h'},
		{nullptr, 0, nullptr, 0},
	};
	int c;

	parse_locks(o, "all");
	parse_modes(o, "all");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:d:l:m:i:n:H:r:c:T:qh", longopts, nullptr)) != -1) {
		switch (c) {
		case 't': o.threads = (int) parse_u64("--threads", optarg, 1, MAX_THREADS); break;
		case 'd': o.duration_s = parse_seconds("--duration", optarg); break;
		case 'l': parse_locks(o, optarg); break;
		case 'm': parse_modes(o, optarg); break;
		case 'i': o.cs_iters = parse_u64("--cs-iters", optarg, 0, 100000000); break;
		case 'n': o.cs_ns = parse_u64("--cs-ns", optarg, 0, 1000000000); break;
		case 'H': o.hogs = (int) parse_u64("--hogs", optarg, 0, 4096); break;
		case 'r': o.repeat = (int) parse_u64("--repeat", optarg, 1, 100000); break;
		case 'c':
			if (*optarg == '\0')
				usage_error("--csv: empty file name");
			o.csv = optarg;
			break;
		case 'T':
			if (strpbrk(optarg, ",\"\n") != nullptr)
				usage_error("--tag: must not contain commas, quotes or newlines");
			o.tag = optarg;
			break;
		case 'q': o.quiet = true; break;
		case 'h': print_help(stdout); exit(0);
		case ':': usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt != 0)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (o.threads == 0)
		o.threads = std::min(MAX_THREADS, (int) std::thread::hardware_concurrency() + 1);
	return o;
}

// ---------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------
inline uint64_t now_ns() {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

inline void cpu_relax() { __asm__ __volatile__("rep; nop" ::: "memory"); }

// ---------------------------------------------------------------------------
// Shared memory: the locks, the lock's counter, the critical-section data
// ---------------------------------------------------------------------------
struct alignas(64) McsNode {
	std::atomic<McsNode *> next;
	std::atomic<uint32_t> locked;
};

struct Shared {
	alignas(64) volatile unsigned char tas;			// slock_t
	alignas(64) std::atomic<uint32_t> next_ticket;	// one line, as a ticket
	std::atomic<uint32_t> now_serving;				// lock usually is
	alignas(64) std::atomic<McsNode *> mcs_tail;
	// The lock's counter: written only by the holder, read by everybody.
	alignas(64) std::atomic<uint64_t> counter;
	alignas(64) volatile uint64_t data[8];		// critical-section work
	McsNode nodes[MAX_THREADS];
};

// ---------------------------------------------------------------------------
// Per-thread state and results
// ---------------------------------------------------------------------------
thread_local rseq_slice_area_storage tls_rseq_storage;
thread_local rseq_slice_state tls_slice;

struct alignas(64) ThreadResult {
	uint64_t entries = 0;
	uint64_t wait_ns = 0;
	uint64_t max_wait_ns = 0;
	uint64_t sleeps = 0;			// tas backoff sleeps
	long nivcsw = 0, nvcsw = 0;		// getrusage(RUSAGE_THREAD) deltas
	rseq_slice_counters ctr;
	int mode = -1;					// resolved rseq_slice_mode
	char why[160] = "";
	char probe_reason[256] = "";
	char error[200] = "";			// setup failure
	int final_depth = 0;
};

struct Run {
	const Options *opt;
	Shared *sh;
	int lock;
	int mode_requested;
	std::atomic<int> ready{0};
	std::atomic<int> go{0};
	std::atomic<int> stop{0};
	std::vector<ThreadResult> res;
};

// PostgreSQL's tas() on x86_64: lock; xchgb.  Returns nonzero if it was held.
inline int tas(volatile unsigned char *lock) {
	unsigned char res = 1;
	__asm__ __volatile__("lock; xchgb %0,%1" : "+q"(res), "+m"(*lock) : : "memory", "cc");
	return (int) res;
}
// TAS_SPIN on x86_64: a plain read before the locked exchange.
inline int tas_spin(volatile unsigned char *lock) { return *lock ? 1 : tas(lock); }
inline void s_unlock(volatile unsigned char *lock) {
	__asm__ __volatile__("" ::: "memory");
	*lock = 0;
}

// The waiting policy of PostgreSQL's s_lock.c, re-implemented (constants as
// there: 10..1000 spins per delay, 1 ms .. 1 s sleeps).
const int MIN_SPINS_PER_DELAY = 10;
const int MAX_SPINS_PER_DELAY = 1000;
const int DEFAULT_SPINS_PER_DELAY = 100;
const long MIN_DELAY_USEC = 1000;
const long MAX_DELAY_USEC = 1000000;

struct Backoff {
	int spins_per_delay = DEFAULT_SPINS_PER_DELAY;	// adapts per thread
	uint64_t rng;
	uint64_t sleeps = 0;

	double next_double() {	// xorshift64*, in [0, 1)
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		return (double) ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
	}
};

struct SpinDelay {
	int spins = 0;
	long cur_delay_us = 0;	// 0 until the first sleep
};

void perform_spin_delay(SpinDelay &d, Backoff &b) {
	cpu_relax();
	if (++d.spins < b.spins_per_delay)
		return;
	if (d.cur_delay_us == 0)
		d.cur_delay_us = MIN_DELAY_USEC;
	struct timespec ts = {d.cur_delay_us / 1000000, (d.cur_delay_us % 1000000) * 1000};
	nanosleep(&ts, nullptr);
	b.sleeps++;
	// grow by a random factor in [1, 2), back to the minimum past the maximum
	d.cur_delay_us += (long) (d.cur_delay_us * b.next_double() + 0.5);
	if (d.cur_delay_us > MAX_DELAY_USEC)
		d.cur_delay_us = MIN_DELAY_USEC;
	d.spins = 0;
}

void finish_spin_delay(const SpinDelay &d, Backoff &b) {
	if (d.cur_delay_us == 0)
		b.spins_per_delay = std::min(b.spins_per_delay + 100, MAX_SPINS_PER_DELAY);
	else
		b.spins_per_delay = std::max(b.spins_per_delay - 1, MIN_SPINS_PER_DELAY);
}

// The critical section: bump the counter, do the work.  Returns the counter
// value this entry wrote.
inline uint64_t critical_section(Shared *sh, uint64_t iters, uint64_t cs_ns, uint64_t t_acq) {
	uint64_t c = sh->counter.load(std::memory_order_relaxed) + 1;
	sh->counter.store(c, std::memory_order_relaxed);
	for (uint64_t i = 0; i < iters; i++)
		sh->data[i & 7] = sh->data[i & 7] + 1;
	if (cs_ns != 0)
		while (now_ns() - t_acq < cs_ns)
			cpu_relax();
	return c;
}

// Is `a` this thread's own rseq area (ours or glibc's)?
bool area_is_this_threads(volatile rseq_slice_area *a) {
	if (a == nullptr)
		return true;
	if ((const void *) a == (const void *) &tls_rseq_storage.u.area)
		return true;
	if (&__rseq_offset != nullptr) {
		char *tp;
		__asm__("mov %%fs:0, %0" : "=r"(tp));
		if ((const void *) a == (const void *) (tp + __rseq_offset))
			return true;
	}
	return false;
}

void worker(Run *run, int id) {
	const Options &o = *run->opt;
	Shared *sh = run->sh;
	ThreadResult &r = run->res[id];
	rseq_slice_probe probe;
	McsNode *me = &sh->nodes[id];
	Backoff bo;
	const bool alone = o.threads == 1;
	const unsigned kind = (unsigned) run->lock;

	// Each thread registers for itself (threads start with glibc's legacy
	// registration), then resolves the requested mode.
	rseq_slice_setup_thread(&probe, &tls_rseq_storage);
	rseq_slice_mode mode = rseq_slice_resolve((rseq_slice_mode) run->mode_requested, &probe,
											  r.why, sizeof(r.why));
	snprintf(r.probe_reason, sizeof(r.probe_reason), "%s", probe.reason);
	if (!area_is_this_threads(probe.area)) {
		// Writing another thread's rseq area would corrupt its protocol state.
		snprintf(r.error, sizeof(r.error),
				 "probe returned an rseq area that is not this thread's (%p)",
				 (const void *) probe.area);
		mode = RSEQ_SLICE_MODE_OFF;
	}
	memset(&r.ctr, 0, sizeof(r.ctr));
	rseq_slice_state_init(&tls_slice, mode, &probe, &r.ctr);
	r.mode = tls_slice.mode;
	bo.rng = 0x9e3779b97f4a7c15ull * (uint64_t) (id + 1) ^ now_ns();
	if (bo.rng == 0)
		bo.rng = 1;

	run->ready.fetch_add(1);
	while (!run->go.load(std::memory_order_acquire))
		sched_yield();

	struct rusage ru0, ru1;
	getrusage(RUSAGE_THREAD, &ru0);
	rseq_slice_state *st = &tls_slice;

	while (!run->stop.load(std::memory_order_relaxed)) {
		uint64_t t0 = now_ns(), t1, mine;

		rseq_slice_enter(st, kind);
		switch (run->lock) {
		case LK_TAS:
			if (tas(&sh->tas)) {
				SpinDelay d;

				rseq_slice_wait_begin(st);
				while (tas_spin(&sh->tas))
					perform_spin_delay(d, bo);
				finish_spin_delay(d, bo);
				rseq_slice_wait_end(st);
			}
			t1 = now_ns();
			mine = critical_section(sh, o.cs_iters, o.cs_ns, t1);
			s_unlock(&sh->tas);
			break;
		case LK_TICKET: {
			uint32_t t = sh->next_ticket.fetch_add(1, std::memory_order_acquire);

			if (sh->now_serving.load(std::memory_order_acquire) != t) {
				rseq_slice_wait_begin(st);
				while (sh->now_serving.load(std::memory_order_acquire) != t)
					cpu_relax();
				rseq_slice_wait_end(st);
			}
			t1 = now_ns();
			mine = critical_section(sh, o.cs_iters, o.cs_ns, t1);
			sh->now_serving.store(t + 1, std::memory_order_release);
			break;
		}
		default: {	// LK_MCS
			me->next.store(nullptr, std::memory_order_relaxed);
			me->locked.store(1, std::memory_order_relaxed);
			McsNode *prev = sh->mcs_tail.exchange(me, std::memory_order_acq_rel);
			if (prev != nullptr) {
				prev->next.store(me, std::memory_order_release);
				rseq_slice_wait_begin(st);
				while (me->locked.load(std::memory_order_acquire))
					cpu_relax();
				rseq_slice_wait_end(st);
			}
			t1 = now_ns();
			mine = critical_section(sh, o.cs_iters, o.cs_ns, t1);
			McsNode *succ = me->next.load(std::memory_order_acquire);
			if (succ == nullptr) {
				McsNode *expected = me;
				if (!sh->mcs_tail.compare_exchange_strong(expected, nullptr,
														  std::memory_order_release,
														  std::memory_order_relaxed)) {
					// a successor is between its exchange and its link
					while ((succ = me->next.load(std::memory_order_acquire)) == nullptr)
						cpu_relax();
				}
			}
			if (succ != nullptr)
				succ->locked.store(0, std::memory_order_release);
			break;
		}
		}
		rseq_slice_leave(st);

		uint64_t w = t1 - t0;
		r.entries++;
		r.wait_ns += w;
		if (w > r.max_wait_ns)
			r.max_wait_ns = w;

		// Let another thread have it before trying again.
		if (!alone)
			while (sh->counter.load(std::memory_order_relaxed) == mine &&
				   !run->stop.load(std::memory_order_relaxed))
				cpu_relax();
	}
	getrusage(RUSAGE_THREAD, &ru1);
	r.nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
	r.nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	r.sleeps = bo.sleeps;
	r.final_depth = (int) st->depth;
}

// ---------------------------------------------------------------------------
// Hogs: busy-loop processes, killed at the end of each run
// ---------------------------------------------------------------------------
std::vector<pid_t> start_hogs(int n) {
	std::vector<pid_t> pids;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				__asm__ __volatile__("" ::: "memory");
		}
		if (p < 0) {
			perror("extend-sched: fork (hog)");
			break;
		}
		pids.push_back(p);
	}
	return pids;
}

void stop_hogs(const std::vector<pid_t> &pids) {
	for (pid_t p : pids)
		kill(p, SIGKILL);
	for (pid_t p : pids)
		waitpid(p, nullptr, 0);
}

// ---------------------------------------------------------------------------
// Mode resolution on the main thread (to decide what to run; each worker
// resolves again for itself)
// ---------------------------------------------------------------------------
struct Resolution {
	int requested;
	int resolved;
	char why[160];
};

std::vector<Resolution> resolve_modes(const std::vector<int> &modes, std::string &probe_reason) {
	std::vector<Resolution> out;
	rseq_slice_probe p;

	rseq_slice_setup_thread(&p, &tls_rseq_storage);
	probe_reason = p.reason;
	for (int m : modes) {
		Resolution r;
		r.requested = m;
		r.resolved = rseq_slice_resolve((rseq_slice_mode) m, &p, r.why, sizeof(r.why));
		out.push_back(r);
	}
	return out;
}

// Uncontended duration of one critical section, for the report [ns].
double calibrate_cs_ns(Shared *sh, const Options &o) {
	const int n = 20000;
	uint64_t t0 = now_ns();
	for (int i = 0; i < n; i++)
		critical_section(sh, o.cs_iters, o.cs_ns, now_ns());
	double ns = (double) (now_ns() - t0) / n;
	sh->counter.store(0);
	for (auto &d : sh->data)
		d = 0;
	return ns;
}

std::string csv_header() {
	return "date,tag,kernel,preempt,lock,mode_requested,mode,threads,hogs,duration_s,"
		   "cs_iters,cs_ns,entries,entries_per_s,wait_ns,wait_ns_per_entry,max_wait_ns,"
		   "min_thread_entries,max_thread_entries,backoff_sleeps,sections,requests,grants,"
		   "revoked,yields,yields_in_grant,descheduled,nivcsw,nvcsw";
}

}  // namespace

int main(int argc, char **argv) {
	Options o = parse_options(argc, argv);
	struct utsname u;
	char date[32];
	time_t now = time(nullptr);
	int failures = 0;

	uname(&u);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	setvbuf(stdout, nullptr, _IOLBF, 0);

	void *mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("extend-sched: mmap");
		return 1;
	}
	Shared *sh = new (mem) Shared();

	FILE *csv = nullptr;
	if (!o.csv.empty()) {
		struct stat stt;
		bool fresh = stat(o.csv.c_str(), &stt) != 0 || stt.st_size == 0;
		csv = fopen(o.csv.c_str(), "a");
		if (csv == nullptr) {
			fprintf(stderr, "extend-sched: cannot open %s: %s\n", o.csv.c_str(), strerror(errno));
			return 1;
		}
		if (fresh)
			fprintf(csv, "%s\n", csv_header().c_str());
	}

	std::string probe_reason;
	std::vector<Resolution> res = resolve_modes(o.modes, probe_reason);
	rseq_slice_probe pp;
	rseq_slice_probe_thread(&pp);	// main thread, after its setup

	printf("extend-sched: %d threads (%u CPUs online), %.3f s per run, critical section %" PRIu64
		   " iterations%s",
		   o.threads, std::thread::hardware_concurrency(), o.duration_s, o.cs_iters,
		   o.cs_ns ? "" : "\n");
	if (o.cs_ns)
		printf(" + %" PRIu64 " ns spin\n", o.cs_ns);
	printf("critical section uncontended: %.1f ns\n", calibrate_cs_ns(sh, o));
	printf("hogs: %d busy processes\n", o.hogs);
	printf("kernel: %s %s, preemption %s\n", u.release, u.version, pp.preempt[0] ? pp.preempt : "unknown");
	printf("rseq (main thread): %s\n", probe_reason.c_str());

	std::vector<int> run_modes;
	for (const Resolution &r : res) {
		const char *req = rseq_slice_mode_names[r.requested];
		const char *got = rseq_slice_mode_names[r.resolved];
		if (r.requested == r.resolved) {
			printf("mode %s: runs as %s (%s)\n", req, got, r.why);
			run_modes.push_back(r.requested);
		} else if (o.modes_explicit) {
			printf("mode %s -> %s: %s (runs as %s, requested explicitly)\n", req, got, r.why, got);
			run_modes.push_back(r.requested);
		} else {
			printf("mode %s -> %s: %s (skipped: it would repeat the %s run)\n", req, got, r.why, got);
		}
	}

	struct Summary {
		int lock, req, mode;
		uint64_t entries, wait, desched, grants;
	};
	std::vector<Summary> summary;

	for (int rep = 0; rep < o.repeat; rep++)
		for (int lock : o.locks)
			for (int mreq : run_modes) {
				Run run;
				run.opt = &o;
				run.sh = sh;
				run.lock = lock;
				run.mode_requested = mreq;
				run.res.resize(o.threads);
				sh->tas = 0;
				sh->next_ticket.store(0);
				sh->now_serving.store(0);
				sh->mcs_tail.store(nullptr);
				sh->counter.store(0);
				for (auto &d : sh->data)
					d = 0;

				std::vector<pid_t> hogs = start_hogs(o.hogs);
				std::vector<std::thread> ths;
				for (int i = 0; i < o.threads; i++)
					ths.emplace_back(worker, &run, i);
				while (run.ready.load() < o.threads)
					usleep(1000);
				uint64_t t_start = now_ns();
				run.go.store(1, std::memory_order_release);
				struct timespec ts;
				ts.tv_sec = (time_t) o.duration_s;
				ts.tv_nsec = (long) ((o.duration_s - (double) ts.tv_sec) * 1e9);
				while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
				}
				run.stop.store(1);
				for (auto &t : ths)
					t.join();
				double elapsed = (double) (now_ns() - t_start) / 1e9;
				stop_hogs(hogs);

				// Totals
				ThreadResult tot;
				memset(&tot.ctr, 0, sizeof(tot.ctr));
				uint64_t minent = UINT64_MAX, maxent = 0;
				bool mixed = false, bad = false;
				for (ThreadResult &r : run.res) {
					tot.entries += r.entries;
					tot.wait_ns += r.wait_ns;
					tot.max_wait_ns = std::max(tot.max_wait_ns, r.max_wait_ns);
					tot.sleeps += r.sleeps;
					tot.nivcsw += r.nivcsw;
					tot.nvcsw += r.nvcsw;
					minent = std::min(minent, r.entries);
					maxent = std::max(maxent, r.entries);
					tot.ctr.sections += r.ctr.sections;
					tot.ctr.requests += r.ctr.requests;
					tot.ctr.grants += r.ctr.grants;
					tot.ctr.revoked += r.ctr.revoked;
					tot.ctr.yields += r.ctr.yields;
					tot.ctr.yields_in_grant += r.ctr.yields_in_grant;
					tot.ctr.descheduled += r.ctr.descheduled;
					if (r.mode != run.res[0].mode)
						mixed = true;
					if (r.error[0] || r.final_depth != 0)
						bad = true;
				}
				int mode = run.res[0].mode;
				uint64_t expect_data = o.cs_iters * tot.entries, got_data = 0;
				for (auto &d : sh->data)
					got_data += d;

				printf("\n=== lock %s, mode %s", lock_names[lock], rseq_slice_mode_names[mode]);
				if (mode != mreq)
					printf(" (requested %s)", rseq_slice_mode_names[mreq]);
				printf(", run %d/%d ===\n", rep + 1, o.repeat);
				printf("resolved: %s: %s\n", rseq_slice_mode_names[mode], run.res[0].why);
				printf("worker rseq (thread 0): %s\n", run.res[0].probe_reason);
				printf("Ran for %" PRIu64 " times\n", tot.entries);
				printf("Total wait time: %.6f s (%" PRIu64 " ns)\n", tot.wait_ns / 1e9, tot.wait_ns);
				printf("elapsed %.3f s, %.0f entries/s, mean wait %.1f ns/entry, max wait %" PRIu64
					   " ns, backoff sleeps %" PRIu64 "\n",
					   elapsed, tot.entries / elapsed,
					   tot.entries ? (double) tot.wait_ns / tot.entries : 0.0, tot.max_wait_ns, tot.sleeps);
				printf("rseq counters (sum over threads): sections %" PRIu64 ", requests %" PRIu64
					   ", grants %" PRIu64 ", revoked %" PRIu64 ", yields %" PRIu64 " (in grant %" PRIu64
					   "), descheduled while holding %" PRIu64 "\n",
					   tot.ctr.sections, tot.ctr.requests, tot.ctr.grants, tot.ctr.revoked,
					   tot.ctr.yields, tot.ctr.yields_in_grant, tot.ctr.descheduled);
				printf("context switches (getrusage, sum): involuntary %ld, voluntary %ld\n",
					   tot.nivcsw, tot.nvcsw);
				if (!o.quiet) {
					printf("%6s %12s %16s %14s %8s %8s %8s %12s %s\n", "thread", "entries", "wait_ns",
						   "max_wait_ns", "sleeps", "nivcsw", "nvcsw", "descheduled", "mode");
					for (int i = 0; i < o.threads; i++) {
						ThreadResult &r = run.res[i];
						printf("%6d %12" PRIu64 " %16" PRIu64 " %14" PRIu64 " %8" PRIu64 " %8ld %8ld %12" PRIu64
							   " %s\n",
							   i, r.entries, r.wait_ns, r.max_wait_ns, r.sleeps, r.nivcsw, r.nvcsw,
							   r.ctr.descheduled, rseq_slice_mode_names[r.mode]);
					}
				}
				if (mixed) {
					printf("ERROR: threads resolved different modes\n");
					failures++;
				}
				for (int i = 0; i < o.threads; i++)
					if (run.res[i].error[0] || run.res[i].final_depth != 0)
						printf("ERROR: thread %d: %s%s\n", i, run.res[i].error,
							   run.res[i].final_depth ? " (nesting depth not 0 at exit)" : "");
				if (bad)
					failures++;
				if (sh->counter.load() != tot.entries || got_data != expect_data) {
					printf("ERROR: mutual exclusion violated: counter %" PRIu64 " data %" PRIu64
						   ", expected %" PRIu64 " and %" PRIu64 "\n",
						   sh->counter.load(), got_data, tot.entries, expect_data);
					failures++;
				}
				if (csv) {
					fprintf(csv,
							"%s,%s,%s,%s,%s,%s,%s,%d,%d,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64
							",%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
							",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%ld,%ld\n",
							date, o.tag.c_str(), u.release, pp.preempt[0] ? pp.preempt : "unknown",
							lock_names[lock], rseq_slice_mode_names[mreq], rseq_slice_mode_names[mode],
							o.threads, o.hogs, elapsed, o.cs_iters, o.cs_ns, tot.entries, tot.entries / elapsed,
							tot.wait_ns, tot.entries ? (double) tot.wait_ns / tot.entries : 0.0,
							tot.max_wait_ns, minent, maxent, tot.sleeps, tot.ctr.sections, tot.ctr.requests,
							tot.ctr.grants, tot.ctr.revoked, tot.ctr.yields, tot.ctr.yields_in_grant,
							tot.ctr.descheduled, tot.nivcsw, tot.nvcsw);
					fflush(csv);
				}
				summary.push_back({lock, mreq, mode, tot.entries, tot.wait_ns, tot.ctr.descheduled,
								   tot.ctr.grants});
			}

	printf("\n=== summary ===\n");
	printf("%-7s %-18s %12s %14s %12s %8s\n", "lock", "mode", "entries", "wait_ns/entry", "descheduled",
		   "grants");
	for (const Summary &s : summary) {
		std::string m = rseq_slice_mode_names[s.mode];
		if (s.mode != s.req)
			m = std::string(rseq_slice_mode_names[s.req]) + "->" + m;
		printf("%-7s %-18s %12" PRIu64 " %14.1f %12" PRIu64 " %8" PRIu64 "\n", lock_names[s.lock], m.c_str(),
			   s.entries, s.entries ? (double) s.wait / s.entries : 0.0, s.desched, s.grants);
	}
	if (csv)
		fclose(csv);
	if (failures) {
		fprintf(stderr, "extend-sched: %d run(s) failed\n", failures);
		return 1;
	}
	return 0;
}
