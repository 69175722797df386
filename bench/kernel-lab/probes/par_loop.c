/*
 * par_loop: how fast does each busy (virtual) CPU run, how does an
 * embarrassingly parallel loop scale with the CPUs, and how stale does one
 * CPU's progress look from another?  Made for the kernel lab's clock models
 * (issue 26 item 1, "parallel guest time"): under qemu's plain -icount all
 * vCPUs share one instruction count, so N busy vCPUs each run at 1/N
 * instruction per guest ns; under the lab's parallel guest time
 * (run-in-guest --clock parallel) each should run at about 1.
 *
 * One thread per CPU (thread i pinned to online CPU i mod nCPU), all
 * starting at the same CLOCK_MONOTONIC instant, each repetition in two
 * phases:
 *   rate   for -d SECS every thread runs an exactly counted loop (x86-64:
 *          `1: dec %reg; jnz 1b`, 2 instructions per iteration; elsewhere
 *          a C loop, and loop_insns is then 2 x iterations as well, only
 *          approximately the executed count) in chunks of -C iterations,
 *          reading the clock between chunks; its rate is loop instructions
 *          per guest ns over its own window (first to last reading).  The
 *          loop is all the thread executes, so the rate is the vCPU's
 *          instruction rate minus what the guest kernel runs on that vCPU
 *          meanwhile (the tick's interrupt, about 0.3-0.5 % at 1 kHz).
 *   stale  for -s SECS (0: no stale phase) every thread runs chunks of -c
 *          iterations and after each chunk publishes its clock reading in
 *          its own cache line and reads the published reading of thread
 *          (i + 1) mod T: staleness = own reading - the other's published
 *          reading, i.e. how long ago (in the observer's clock) the other
 *          thread was last seen to progress.  On parallel hardware that is
 *          about one chunk (plus the other's interrupts); when the vCPUs
 *          take turns it is the length of a turn or round.
 *
 * Usage:
 *   par_loop [-t THREADS] [-d SECS] [-s SECS] [-r REPS] [-C ITERS]
 *            [-c ITERS] [-T TAG] [-o CSV] [-q]
 *
 * Options (units in brackets):
 *   -t THREADS  threads [count, 1..64]; default: the online CPUs
 *   -d SECS     rate phase per repetition [guest s, (0, 3600]]; default 1
 *   -s SECS     stale phase per repetition [guest s, [0, 3600]]; default 0.2
 *   -r REPS     repetitions [1..10000]; default 1
 *   -C ITERS    rate phase chunk [loop iterations, >= 1000]; default 1048576
 *               (about 2 ms at one instruction per ns)
 *   -c ITERS    stale phase chunk [loop iterations, >= 1]; default 64
 *               (128 loop instructions between two publications)
 *   -T TAG      free text for the CSV tag column (no commas); default "-"
 *   -o CSV      append one line per thread per repetition, plus one line
 *               with thread "all" (header written when new or empty)
 *   -q          no per-thread text on stdout
 *
 * CSV columns (-o): tag, rep, threads, thread (index or "all"), cpu (pinned
 *   CPU or "all"), secs [s, the rate phase's window], iters [loop
 *   iterations], loop_insns [2 x iters], elapsed_ns [ns, the thread's
 *   window: last minus first clock reading, SECS plus up to one chunk;
 *   "all": SECS], insn_per_ns [loop_insns / elapsed_ns; "all": the sum of
 *   the threads' rates = aggregate throughput], stale_samples [count],
 *   stale_p50_ns, stale_p90_ns, stale_p99_ns, stale_p999_ns [ns, from a
 *   histogram of 32-ns buckets up to 131 us, upper bucket edge],
 *   stale_max_ns [ns, exact], stale_over_ns [count of stale samples above
 *   131 us], min_insn_per_ns and max_insn_per_ns ("all" line only: the
 *   slowest and fastest thread; NA on thread lines).  With -t 1 there is no
 *   other thread: the stale columns are NA.
 *
 * Exit status: 0 ok; 1 a run failed (pinning, threads, memory, CSV); 2 bad
 * options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NBUCKET 4096 /* stale histogram: 32-ns buckets up to 131,072 ns */
#define BUCKET_NS 32

struct slot {
	volatile uint64_t t;
	char pad[56];
} __attribute__((aligned(64)));

struct worker {
	pthread_t th;
	int idx, cpu, err;
	uint64_t iters, first, last;
	uint64_t stale_n, stale_max, stale_over;
	uint32_t *hist;
};

static int nthreads;
static double rate_secs = 1.0, stale_secs = 0.2;
static uint64_t chunk_rate = 1048576, chunk_stale = 64;
static pthread_barrier_t bar;
static volatile uint64_t start_at, stale_at;
static struct slot *slots;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* n iterations of exactly 2 instructions each (x86-64) */
static inline void spin(uint64_t n)
{
#if defined(__x86_64__)
	if (n)
		__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
	for (volatile uint64_t i = 0; i < n; i++)
		;
#endif
}

static void usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "par_loop: %s%s%s\nSee the header of bench/kernel-lab/probes/par_loop.c (or -h).\n", msg,
			arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "par_loop: cannot pin thread %d to CPU %d: %s\n", w->idx, w->cpu, strerror(errno));
		w->err = 1;
	}
	pthread_barrier_wait(&bar);
	if (w->idx == 0) {
		start_at = now_ns() + 1000000; /* 1 ms from now */
		stale_at = start_at + (uint64_t) (rate_secs * 1e9) + 1000000;
	}
	pthread_barrier_wait(&bar);
	uint64_t t0 = start_at, t1 = t0 + (uint64_t) (rate_secs * 1e9), t;
	while ((t = now_ns()) < t0)
		;
	/* rate phase */
	w->first = t;
	uint64_t iters = 0;
	do {
		spin(chunk_rate);
		iters += chunk_rate;
		t = now_ns();
	} while (t < t1);
	w->last = t;
	w->iters = iters;
	if (stale_secs <= 0 || nthreads < 2)
		return NULL;
	/* stale phase: a common start again, then publish and observe */
	uint64_t s0 = stale_at, s1 = s0 + (uint64_t) (stale_secs * 1e9);
	while ((t = now_ns()) < s0)
		;
	struct slot *mine = &slots[w->idx], *other = &slots[(w->idx + 1) % nthreads];
	mine->t = t;
	/* the other thread's first publication: wait for it (its own start) */
	while (other->t < s0 && (t = now_ns()) < s1)
		;
	do {
		spin(chunk_stale);
		t = now_ns();
		mine->t = t;
		uint64_t o = other->t;
		if (t >= s1)
			break;
		uint64_t d = t > o ? t - o : 0;
		w->stale_n++;
		if (d > w->stale_max)
			w->stale_max = d;
		if (d / BUCKET_NS < NBUCKET)
			w->hist[d / BUCKET_NS]++;
		else
			w->stale_over++;
	} while (1);
	return NULL;
}

/* upper edge [ns] of the bucket holding the p-quantile of hist (n samples) */
static uint64_t hist_pct(const uint64_t *hist, uint64_t over, uint64_t n, double p)
{
	(void) over;
	if (n == 0)
		return 0;
	uint64_t want = (uint64_t) (p * (double) n + 0.5), c = 0;
	if (want < 1)
		want = 1;
	for (int b = 0; b < NBUCKET; b++) {
		c += hist[b];
		if (c >= want)
			return (uint64_t) (b + 1) * BUCKET_NS;
	}
	return (uint64_t) NBUCKET * BUCKET_NS; /* in the overflow: at least this */
}

static FILE *open_csv(const char *path, const char *header)
{
	struct stat st;
	int fresh = stat(path, &st) != 0 || st.st_size == 0;
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "par_loop: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (fresh)
		fprintf(f, "%s\n", header);
	return f;
}

static double parse_secs(const char *a, int allow_zero, const char *msg)
{
	char *end;
	errno = 0;
	double s = strtod(a, &end);
	if (errno || *end || end == a || !(allow_zero ? s >= 0 : s > 0) || s > 3600)
		usage_error(msg, a);
	return s;
}

static uint64_t parse_u64(const char *a, uint64_t lo, uint64_t hi, const char *msg)
{
	char *end;
	errno = 0;
	if (a[0] == '-')
		usage_error(msg, a);
	unsigned long long v = strtoull(a, &end, 10);
	if (errno || *end || end == a || v < lo || v > hi)
		usage_error(msg, a);
	return v;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int reps = 1, quiet = 0, c;
	const char *tag = "-", *csv = NULL;

	nthreads = (int) ncpu;
	while ((c = getopt(argc, argv, ":t:d:s:r:C:c:T:o:qh")) != -1) {
		switch (c) {
		case 't': nthreads = (int) parse_u64(optarg, 1, 64, "-t wants a thread count in 1..64"); break;
		case 'd': rate_secs = parse_secs(optarg, 0, "-d wants seconds in (0, 3600]"); break;
		case 's': stale_secs = parse_secs(optarg, 1, "-s wants seconds in [0, 3600]"); break;
		case 'r': reps = (int) parse_u64(optarg, 1, 10000, "-r wants a repetition count in 1..10000"); break;
		case 'C': chunk_rate = parse_u64(optarg, 1000, 1ull << 40, "-C wants loop iterations >= 1000"); break;
		case 'c': chunk_stale = parse_u64(optarg, 1, 1ull << 40, "-c wants loop iterations >= 1"); break;
		case 'T':
			if (strpbrk(optarg, ",\"\n"))
				usage_error("-T must not contain commas, quotes or newlines", optarg);
			tag = optarg;
			break;
		case 'o': csv = optarg; break;
		case 'q': quiet = 1; break;
		case 'h':
			printf("Usage: par_loop [-t THREADS] [-d SECS] [-s SECS] [-r REPS] [-C ITERS] [-c ITERS] [-T TAG] [-o CSV] [-q]\n"
				   "Per pinned thread: loop instructions per guest ns, and how stale the next thread's\n"
				   "progress looks; see the header of probes/par_loop.c for the CSV columns.\n");
			return 0;
		case ':': usage_error("option needs a value", argv[optind - 1]); break;
		default: usage_error("unknown option", argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		usage_error("unexpected argument", argv[optind]);

	FILE *fc = csv ? open_csv(csv, "tag,rep,threads,thread,cpu,secs,iters,loop_insns,elapsed_ns,insn_per_ns,"
									"stale_samples,stale_p50_ns,stale_p90_ns,stale_p99_ns,stale_p999_ns,stale_max_ns,"
									"stale_over_ns,min_insn_per_ns,max_insn_per_ns")
				   : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct worker *w = calloc((size_t) nthreads, sizeof(*w));
	slots = aligned_alloc(64, sizeof(struct slot) * (size_t) nthreads);
	uint64_t *hall = calloc(NBUCKET, sizeof(uint64_t)), *h1 = calloc(NBUCKET, sizeof(uint64_t));
	if (!w || !slots || !hall || !h1) {
		perror("par_loop: memory");
		return 1;
	}
	for (int i = 0; i < nthreads; i++) {
		w[i].hist = calloc(NBUCKET, sizeof(uint32_t));
		if (!w[i].hist) {
			perror("par_loop: memory");
			return 1;
		}
	}
	int status = 0;
	for (int rep = 1; rep <= reps; rep++) {
		memset(slots, 0, sizeof(struct slot) * (size_t) nthreads);
		pthread_barrier_init(&bar, NULL, (unsigned) nthreads);
		for (int i = 0; i < nthreads; i++) {
			uint32_t *h = w[i].hist;
			memset(&w[i], 0, sizeof(w[i]));
			memset(h, 0, NBUCKET * sizeof(uint32_t));
			w[i].hist = h;
			w[i].idx = i;
			w[i].cpu = (int) (i % ncpu);
			if (pthread_create(&w[i].th, NULL, run, &w[i]) != 0) {
				perror("par_loop: pthread_create");
				return 1;
			}
		}
		for (int i = 0; i < nthreads; i++)
			pthread_join(w[i].th, NULL);
		pthread_barrier_destroy(&bar);
		double sum_ipn = 0, mn = 1e300, mx = 0;
		uint64_t all_iters = 0, all_n = 0, all_max = 0, all_over = 0;
		memset(hall, 0, NBUCKET * sizeof(uint64_t));
		for (int i = 0; i < nthreads; i++) {
			struct worker *x = &w[i];
			if (x->err)
				status = 1;
			uint64_t el = x->last - x->first;
			double ipn = el ? 2.0 * (double) x->iters / (double) el : 0;
			sum_ipn += ipn;
			if (ipn < mn)
				mn = ipn;
			if (ipn > mx)
				mx = ipn;
			all_iters += x->iters;
			for (int b = 0; b < NBUCKET; b++) {
				h1[b] = x->hist[b];
				hall[b] += x->hist[b];
			}
			all_n += x->stale_n;
			all_over += x->stale_over;
			if (x->stale_max > all_max)
				all_max = x->stale_max;
			int st = nthreads > 1 && stale_secs > 0;
			if (!quiet)
				printf("rep %d thread %d cpu %d: %.4f loop instructions per ns (%llu in %llu ns)%s",
					   rep, i, x->cpu, ipn, (unsigned long long) (2 * x->iters), (unsigned long long) el,
					   st ? "" : "\n");
			if (!quiet && st)
				printf("; thread %d seen stale p50 %llu p99 %llu max %llu ns\n", (i + 1) % nthreads,
					   (unsigned long long) hist_pct(h1, x->stale_over, x->stale_n, .5),
					   (unsigned long long) hist_pct(h1, x->stale_over, x->stale_n, .99),
					   (unsigned long long) x->stale_max);
			if (fc) {
				fprintf(fc, "%s,%d,%d,%d,%d,%.6f,%llu,%llu,%llu,%.6f,", tag, rep, nthreads, i, x->cpu, rate_secs,
						(unsigned long long) x->iters, (unsigned long long) (2 * x->iters), (unsigned long long) el,
						ipn);
				if (st)
					fprintf(fc, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,NA,NA\n", (unsigned long long) x->stale_n,
							(unsigned long long) hist_pct(h1, 0, x->stale_n, .5),
							(unsigned long long) hist_pct(h1, 0, x->stale_n, .9),
							(unsigned long long) hist_pct(h1, 0, x->stale_n, .99),
							(unsigned long long) hist_pct(h1, 0, x->stale_n, .999), (unsigned long long) x->stale_max,
							(unsigned long long) x->stale_over);
				else
					fprintf(fc, "NA,NA,NA,NA,NA,NA,NA,NA,NA\n");
			}
		}
		double agg = sum_ipn;
		int st = nthreads > 1 && stale_secs > 0;
		if (!quiet)
			printf("rep %d all %d threads: aggregate %.4f loop instructions per ns (slowest thread %.4f, fastest %.4f)%s\n",
				   rep, nthreads, agg, mn, mx, st ? "" : "");
		if (fc) {
			fprintf(fc, "%s,%d,%d,all,all,%.6f,%llu,%llu,%llu,%.6f,", tag, rep, nthreads, rate_secs,
					(unsigned long long) all_iters, (unsigned long long) (2 * all_iters),
					(unsigned long long) (rate_secs * 1e9), agg);
			if (st)
				fprintf(fc, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%.6f\n", (unsigned long long) all_n,
						(unsigned long long) hist_pct(hall, 0, all_n, .5),
						(unsigned long long) hist_pct(hall, 0, all_n, .9),
						(unsigned long long) hist_pct(hall, 0, all_n, .99),
						(unsigned long long) hist_pct(hall, 0, all_n, .999), (unsigned long long) all_max,
						(unsigned long long) all_over, mn, mx);
			else
				fprintf(fc, "NA,NA,NA,NA,NA,NA,NA,%.6f,%.6f\n", mn, mx);
			fflush(fc);
		}
	}
	if (fc && fclose(fc) != 0)
		status = 1;
	return status;
}
