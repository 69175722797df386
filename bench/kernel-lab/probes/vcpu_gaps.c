/*
 * vcpu_gaps: how long does a (virtual) CPU stand still?  One thread pinned
 * per CPU reads CLOCK_MONOTONIC in a tight loop and records every gap
 * between two consecutive readings above a threshold.  On real hardware (or
 * truly parallel vCPUs) a gap means the thread did not run: an interrupt, a
 * preemption, or the vCPU itself was stopped by the host.  Under qemu's
 * instruction-counting clock (-icount, one host thread running every vCPU in
 * turn) guest time advances while *another* vCPU executes, so the gaps of
 * thread i are the turns of the other vCPUs: this probe measures the
 * turn-taking that lock timing sees.
 *
 * Usage:
 *   vcpu_gaps [-t THREADS] [-d SECS] [-g GAP_NS] [-r REPS] [-T TAG]
 *             [-c CSV] [-G GAPCSV] [-q]
 *
 * Options (units in brackets):
 *   -t THREADS  threads [count], thread i pinned to online CPU i mod nCPU;
 *               default: the number of online CPUs
 *   -d SECS     length of each repetition [s, guest CLOCK_MONOTONIC,
 *               fractions allowed, (0, 3600]]; default 2
 *   -g GAP_NS   a reading more than GAP_NS after the previous one is a gap
 *               [ns]; default 2000 (a clock read costs ~30-200 ns in the
 *               lab's guests, see ns_per_iter)
 *   -r REPS     repetitions [count]; default 1
 *   -T TAG      free text for the CSV 'tag' column (no commas); default "-"
 *   -c CSV      append one line per thread per repetition, plus one line with
 *               thread "all", to CSV (header written when new or empty)
 *   -G GAPCSV   append the log2 histogram of the gap lengths, one line per
 *               (repetition, bucket) with gaps, to GAPCSV
 *   -q          no per-thread text on stdout
 *
 * CSV columns (-c): tag, rep, thread (index or "all"), cpu (pinned CPU or
 *   "all"), threads, secs [s, measured window], gap_threshold_ns [ns], iters
 *   [clock reads], ns_per_iter [ns per read, gaps excluded], gaps [count],
 *   gap_overflow [gaps not kept for the percentiles / overlap: more than
 *   MAX_GAPS per thread], gap_total_ns [ns], gap_frac [gap_total / window],
 *   gap_max_ns, gap_p50_ns, gap_p90_ns, gap_p99_ns [ns, over the kept gaps],
 *   gaps_per_s [count / s], all_run_frac (fraction of the window in which
 *   no thread was in a gap: every vCPU progressed at once), none_run_frac
 *   (fraction in which every thread was in a gap), mean_running (threads
 *   progressing on average = sum of (1 - gap_frac): ~nCPU if the vCPUs run
 *   in parallel, ~1 if they take turns).  The last three are only on the
 *   "all" line (NA on the per-thread lines).
 * GAPCSV columns (-G): tag, rep, bucket_lo_ns, bucket_hi_ns, gaps, gap_ns
 *   (gaps of all threads with bucket_lo <= length < bucket_hi, and their sum).
 *
 * Exit status: 0 ok; 1 a run failed (pinning, memory, thread creation,
 * cannot write a CSV); 2 bad options.
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

#define MAX_GAPS (1 << 18) /* per thread and repetition */
#define NBUCKET 48

struct gap {
	uint64_t start, end;
};

struct worker {
	pthread_t th;
	int idx, cpu;
	uint64_t t0, t1; /* common window [t0, t1) */
	uint64_t iters, gaps, overflow, gap_total, gap_max;
	struct gap *g;
	uint64_t bucket_n[NBUCKET], bucket_ns[NBUCKET];
	int err;
};

static uint64_t threshold = 2000;
static pthread_barrier_t bar;
static volatile uint64_t start_at;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "vcpu_gaps: %s%s%s\nTry the header of bench/kernel-lab/probes/vcpu_gaps.c (or -h).\n", msg,
			arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static int bucket_of(uint64_t d)
{
	int b = 0;
	while (d > 1 && b < NBUCKET - 1) {
		d >>= 1;
		b++;
	}
	return b;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "vcpu_gaps: cannot pin thread %d to CPU %d: %s\n", w->idx, w->cpu, strerror(errno));
		w->err = 1;
	}
	pthread_barrier_wait(&bar);
	if (w->idx == 0)
		start_at = now_ns() + 1000000; /* 1 ms from now */
	pthread_barrier_wait(&bar);
	uint64_t t0 = start_at, t1 = w->t1 + t0, prev;
	while ((prev = now_ns()) < t0)
		;
	w->t0 = t0;
	w->t1 = t1;
	uint64_t iters = 0;
	for (;;) {
		uint64_t t = now_ns();
		uint64_t d = t - prev;
		iters++;
		if (d > threshold) {
			uint64_t s = prev < t0 ? t0 : prev, e = t > t1 ? t1 : t;
			if (e > s) {
				int b = bucket_of(e - s);
				w->bucket_n[b]++;
				w->bucket_ns[b] += e - s;
				w->gaps++;
				w->gap_total += e - s;
				if (e - s > w->gap_max)
					w->gap_max = e - s;
				if (w->gaps <= MAX_GAPS)
					w->g[w->gaps - 1] = (struct gap){s, e};
				else
					w->overflow++;
			}
		}
		prev = t;
		if (t >= t1)
			break;
	}
	w->iters = iters;
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	size_t i = (size_t) (p * (double) (n - 1) + 0.5);
	return v[i];
}

struct ev {
	uint64_t t;
	int d;
};
static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d; /* ends (-1) before starts (+1) at the same instant */
}

static FILE *open_csv(const char *path, const char *header)
{
	struct stat st;
	int fresh = stat(path, &st) != 0 || st.st_size == 0;
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "vcpu_gaps: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (fresh)
		fprintf(f, "%s\n", header);
	return f;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = (int) ncpu, reps = 1, quiet = 0, c;
	double secs = 2.0;
	const char *tag = "-", *csv = NULL, *gapcsv = NULL;
	char *end;

	while ((c = getopt(argc, argv, ":t:d:g:r:T:c:G:qh")) != -1) {
		switch (c) {
		case 't':
			errno = 0;
			threads = (int) strtol(optarg, &end, 10);
			if (errno || *end || threads < 1 || threads > 64)
				usage_error("-t wants a thread count in 1..64", optarg);
			break;
		case 'd':
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || *end || !(secs > 0) || secs > 3600)
				usage_error("-d wants seconds in (0, 3600]", optarg);
			break;
		case 'g':
			errno = 0;
			threshold = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-' || threshold < 1)
				usage_error("-g wants a gap threshold in ns (>= 1)", optarg);
			break;
		case 'r':
			errno = 0;
			reps = (int) strtol(optarg, &end, 10);
			if (errno || *end || reps < 1 || reps > 10000)
				usage_error("-r wants a repetition count in 1..10000", optarg);
			break;
		case 'T':
			if (strpbrk(optarg, ",\"\n"))
				usage_error("-T must not contain commas, quotes or newlines", optarg);
			tag = optarg;
			break;
		case 'c': csv = optarg; break;
		case 'G': gapcsv = optarg; break;
		case 'q': quiet = 1; break;
		case 'h':
			printf("Usage: vcpu_gaps [-t THREADS] [-d SECS] [-g GAP_NS] [-r REPS] [-T TAG] [-c CSV] [-G GAPCSV] [-q]\n"
				   "One thread pinned per CPU reads CLOCK_MONOTONIC in a loop and records gaps above\n"
				   "GAP_NS (default 2000 ns); see the header of probes/vcpu_gaps.c for the CSV columns.\n");
			return 0;
		case ':': usage_error("option needs a value", argv[optind - 1]); break;
		default: usage_error("unknown option", argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		usage_error("unexpected argument", argv[optind]);

	FILE *fc = csv ? open_csv(csv, "tag,rep,thread,cpu,threads,secs,gap_threshold_ns,iters,ns_per_iter,gaps,gap_overflow,"
									"gap_total_ns,gap_frac,gap_max_ns,gap_p50_ns,gap_p90_ns,gap_p99_ns,gaps_per_s,"
									"all_run_frac,none_run_frac,mean_running")
				   : NULL;
	FILE *fg = gapcsv ? open_csv(gapcsv, "tag,rep,bucket_lo_ns,bucket_hi_ns,gaps,gap_ns") : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct worker *w = calloc((size_t) threads, sizeof(*w));
	if (!w) {
		perror("vcpu_gaps: calloc");
		return 1;
	}
	for (int i = 0; i < threads; i++) {
		w[i].g = malloc(sizeof(struct gap) * MAX_GAPS);
		if (!w[i].g) {
			perror("vcpu_gaps: malloc");
			return 1;
		}
	}
	uint64_t win = (uint64_t) (secs * 1e9);
	int status = 0;
	for (int rep = 1; rep <= reps; rep++) {
		pthread_barrier_init(&bar, NULL, (unsigned) threads);
		for (int i = 0; i < threads; i++) {
			struct gap *g = w[i].g;
			memset(&w[i], 0, sizeof(w[i]));
			w[i].g = g;
			w[i].idx = i;
			w[i].cpu = (int) (i % ncpu);
			w[i].t1 = win; /* length; run() turns it into the end time */
			if (pthread_create(&w[i].th, NULL, run, &w[i]) != 0) {
				perror("vcpu_gaps: pthread_create");
				return 1;
			}
		}
		for (int i = 0; i < threads; i++)
			pthread_join(w[i].th, NULL);
		pthread_barrier_destroy(&bar);
		for (int i = 0; i < threads; i++)
			if (w[i].err)
				status = 1;

		double wsec = (double) win / 1e9;
		uint64_t tot_gaps = 0, tot_ns = 0, tot_over = 0, tot_iters = 0, gmax = 0, kept = 0;
		double sum_run = 0;
		for (int i = 0; i < threads; i++) {
			struct worker *x = &w[i];
			size_t n = x->gaps < MAX_GAPS ? x->gaps : MAX_GAPS;
			uint64_t *len = malloc(sizeof(uint64_t) * (n ? n : 1));
			for (size_t k = 0; k < n; k++)
				len[k] = x->g[k].end - x->g[k].start;
			qsort(len, n, sizeof(uint64_t), cmp_u64);
			double frac = (double) x->gap_total / (double) win;
			double npi = x->iters > x->gaps ? (double) (win - x->gap_total) / (double) (x->iters - x->gaps) : 0;
			sum_run += 1.0 - frac;
			tot_gaps += x->gaps;
			tot_ns += x->gap_total;
			tot_over += x->overflow;
			tot_iters += x->iters;
			kept += n;
			if (x->gap_max > gmax)
				gmax = x->gap_max;
			if (!quiet)
				printf("rep %d thread %d cpu %d: %llu reads, %.1f ns/read, %llu gaps > %llu ns (%.2f %% of %.3f s), "
					   "max %llu ns, p50 %llu, p90 %llu, p99 %llu ns\n",
					   rep, i, x->cpu, (unsigned long long) x->iters, npi, (unsigned long long) x->gaps,
					   (unsigned long long) threshold, 100 * frac, wsec, (unsigned long long) x->gap_max,
					   (unsigned long long) pct(len, n, .5), (unsigned long long) pct(len, n, .9),
					   (unsigned long long) pct(len, n, .99));
			if (fc)
				fprintf(fc, "%s,%d,%d,%d,%d,%.6f,%llu,%llu,%.2f,%llu,%llu,%llu,%.6f,%llu,%llu,%llu,%llu,%.1f,NA,NA,NA\n",
						tag, rep, i, x->cpu, threads, wsec, (unsigned long long) threshold,
						(unsigned long long) x->iters, npi, (unsigned long long) x->gaps,
						(unsigned long long) x->overflow, (unsigned long long) x->gap_total, frac,
						(unsigned long long) x->gap_max, (unsigned long long) pct(len, n, .5),
						(unsigned long long) pct(len, n, .9), (unsigned long long) pct(len, n, .99),
						(double) x->gaps / wsec);
			free(len);
		}
		/* pooled percentiles and the overlap of the gaps of all threads */
		uint64_t *len = malloc(sizeof(uint64_t) * (kept ? kept : 1));
		struct ev *ev = malloc(sizeof(struct ev) * (2 * kept + 1));
		size_t m = 0, ne = 0;
		for (int i = 0; i < threads; i++) {
			size_t n = w[i].gaps < MAX_GAPS ? w[i].gaps : MAX_GAPS;
			for (size_t k = 0; k < n; k++) {
				len[m++] = w[i].g[k].end - w[i].g[k].start;
				ev[ne++] = (struct ev){w[i].g[k].start, +1};
				ev[ne++] = (struct ev){w[i].g[k].end, -1};
			}
		}
		qsort(len, m, sizeof(uint64_t), cmp_u64);
		qsort(ev, ne, sizeof(struct ev), cmp_ev);
		uint64_t t0 = w[0].t0, t1 = w[0].t0 + win, prev = t0, none = 0, all = 0;
		int depth = 0;
		for (size_t k = 0; k <= ne; k++) {
			uint64_t t = k < ne ? ev[k].t : t1;
			if (t > t1)
				t = t1;
			if (t > prev) {
				if (depth == 0)
					all += t - prev;
				if (depth >= threads)
					none += t - prev;
				prev = t;
			}
			if (k < ne)
				depth += ev[k].d;
		}
		double allf = (double) all / (double) (t1 - t0), nonef = (double) none / (double) (t1 - t0);
		double npi = tot_iters > tot_gaps ? ((double) win * threads - (double) tot_ns) / (double) (tot_iters - tot_gaps) : 0;
		if (!quiet)
			printf("rep %d all %d threads: all progressing %.3f, none %.3f, mean running %.3f (overlap from %zu of %llu gaps)\n",
				   rep, threads, allf, nonef, sum_run, m, (unsigned long long) tot_gaps);
		if (fc) {
			fprintf(fc, "%s,%d,all,all,%d,%.6f,%llu,%llu,%.2f,%llu,%llu,%llu,%.6f,%llu,%llu,%llu,%llu,%.1f,%.6f,%.6f,%.4f\n", tag,
					rep, threads, wsec, (unsigned long long) threshold, (unsigned long long) tot_iters, npi,
					(unsigned long long) tot_gaps, (unsigned long long) tot_over, (unsigned long long) tot_ns,
					(double) tot_ns / ((double) win * threads), (unsigned long long) gmax,
					(unsigned long long) pct(len, m, .5), (unsigned long long) pct(len, m, .9),
					(unsigned long long) pct(len, m, .99), (double) tot_gaps / wsec / threads, allf, nonef, sum_run);
			fflush(fc);
		}
		if (fg) {
			for (int b = 0; b < NBUCKET; b++) {
				uint64_t n = 0, ns = 0;
				for (int i = 0; i < threads; i++) {
					n += w[i].bucket_n[b];
					ns += w[i].bucket_ns[b];
				}
				if (n)
					fprintf(fg, "%s,%d,%llu,%llu,%llu,%llu\n", tag, rep, 1ull << b, 1ull << (b + 1),
							(unsigned long long) n, (unsigned long long) ns);
			}
			fflush(fg);
		}
		free(len);
		free(ev);
	}
	if (fc && fclose(fc) != 0)
		status = 1;
	if (fg && fclose(fg) != 0)
		status = 1;
	return status;
}
