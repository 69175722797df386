/*
 * marker_probe: what clears the rseq_cs preemption marker on the running
 * kernel, under whatever rseq area glibc registered (legacy 32 bytes under
 * glibc before 2.41, a larger "V2" area under 2.41 and later, none with
 * GLIBC_TUNABLES=glibc.pthread.rseq=0).  Issue 42, item 1.
 *
 * Usage:  marker_probe [SLEEP_WINDOWS [SPIN_WINDOWS [SPIN_US]]]
 *         (defaults 200, 300, 2000)
 *
 * Two experiments, each window bracketed by getrusage(RUSAGE_THREAD):
 *   sleep  SLEEP_WINDOWS windows each holding usleep(100) with the marker
 *          armed (a voluntary context switch per window, unless the timer
 *          already fired);
 *   spin   SPIN_WINDOWS windows each spinning SPIN_US microseconds of
 *          CLOCK_MONOTONIC with the marker armed, while a forked CPU hog runs
 *          on the same CPU (both pinned to the CPU this process starts on),
 *          so that the scheduler preempts the spinner (involuntary switches).
 * For each window: flagged = the kernel cleared rseq_cs; the oracle is the
 * kernel's own count of the thread's voluntary and involuntary switches in
 * the window.
 *
 * Output (stdout, one "key value" per line, then a summary line):
 *   kernel RELEASE, glibc VERSION, rseq_size N (glibc's __rseq_size: 0 = no
 *   area), registration legacy|v2|none, feature_size N (AT_RSEQ_FEATURE_SIZE)
 *   sleep_windows, sleep_flagged, sleep_switched (windows with >= 1
 *   voluntary switch), sleep_flagged_switched, sleep_flagged_unswitched
 *   spin_windows, spin_flagged, spin_invol (windows with >= 1 involuntary
 *   switch), spin_flagged_invol, spin_invol_switches (their sum)
 * Exit status: 0 ran (whatever the counts), 1 no rseq area (prints
 * registration none and the reason), 2 bad arguments.
 *
 * Where the facts come from: the descriptor layout and the signature word
 * before abort_ip are include/uapi/linux/rseq.h and
 * tools/testing/selftests/rseq/rseq-x86.h / rseq-arm64.h (Linux 7.2.13);
 * up to 6.18 the kernel clears rseq_cs after every context switch and
 * signal, from 6.19 on only after an entry by interrupt or exception from
 * user mode (rseq_update_usr, include/linux/rseq_entry.h, 7.2.13), which is
 * what this program measures rather than assumes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

#if defined(__x86_64__)
#define PROBE_RSEQ_SIG 0x53053053U
#elif defined(__aarch64__)
#define PROBE_RSEQ_SIG 0xd428bc00U
#else
#error "marker_probe: x86_64 and aarch64 only"
#endif

/* The empty-range descriptor: the kernel finds no IP inside [0, 0) and
 * clears rseq_cs instead of aborting.  abort_ip points just past a word
 * holding the signature, which 6.x kernels check before the range. */
struct probe_cs
{
	uint32_t	version;
	uint32_t	flags;
	uint64_t	start_ip;
	uint64_t	post_commit_offset;
	uint64_t	abort_ip;
} __attribute__((aligned(32)));

static const uint32_t probe_sig[2] __attribute__((aligned(8))) = {PROBE_RSEQ_SIG, 0};
static struct probe_cs probe_desc;

static volatile uint64_t *
rseq_cs_word(void)
{
	struct rseq *area = (struct rseq *) ((char *) __builtin_thread_pointer() + __rseq_offset);

	return (volatile uint64_t *) &area->rseq_cs;
}

static void
thread_switches(long *vol, long *invol)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
	{
		perror("marker_probe: getrusage");
		exit(1);
	}
	*vol = ru.ru_nvcsw;
	*invol = ru.ru_nivcsw;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* Arm the marker; returns 0 if rseq_cs was not ours to take (non-zero). */
static int
arm(volatile uint64_t *cs)
{
	if (*cs != 0)
		return 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*cs = (uint64_t) (uintptr_t) &probe_desc;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

/* Read and disarm; returns 1 if the kernel had cleared it. */
static int
disarm(volatile uint64_t *cs)
{
	uint64_t	v;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	v = *cs;
	*cs = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return v == 0;
}

static long
parse_count(const char *s, const char *what, long max)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > max)
	{
		fprintf(stderr, "marker_probe: %s must be an integer in 1..%ld, got '%s'\n", what, max, s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	long		sleeps = 200,
				spins = 300,
				spin_us = 2000;
	struct utsname u;
	volatile uint64_t *cs;
	const char *reg;
	long		s_flag = 0,
				s_sw = 0,
				s_flag_sw = 0,
				s_flag_unsw = 0;
	long		p_flag = 0,
				p_inv = 0,
				p_flag_inv = 0,
				p_inv_sum = 0;
	int			cpu;
	cpu_set_t	set;
	pid_t		hog;

	if (argc > 4)
	{
		fprintf(stderr, "usage: marker_probe [SLEEP_WINDOWS [SPIN_WINDOWS [SPIN_US]]]\n");
		return 2;
	}
	if (argc > 1)
		sleeps = parse_count(argv[1], "SLEEP_WINDOWS", 1000000);
	if (argc > 2)
		spins = parse_count(argv[2], "SPIN_WINDOWS", 1000000);
	if (argc > 3)
		spin_us = parse_count(argv[3], "SPIN_US", 1000000);

	uname(&u);
	reg = __rseq_size == 0 ? "none" : (__rseq_size <= 32 ? "legacy" : "v2");
	printf("kernel %s\nglibc %s\nrseq_size %u\nregistration %s\nfeature_size %lu\n",
		   u.release, gnu_get_libc_version(), (unsigned) __rseq_size, reg,
		   getauxval(AT_RSEQ_FEATURE_SIZE));
	if (__rseq_size == 0)
	{
		printf("reason glibc registered no rseq area (GLIBC_TUNABLES=glibc.pthread.rseq=0, or a kernel without rseq)\n");
		return 1;
	}
	probe_desc.abort_ip = (uint64_t) (uintptr_t) &probe_sig[1];
	cs = rseq_cs_word();

	for (long i = 0; i < sleeps; i++)
	{
		long		v0, n0, v1, n1;
		int			flagged;

		thread_switches(&v0, &n0);
		if (!arm(cs))
		{
			fprintf(stderr, "marker_probe: rseq_cs holds a foreign descriptor\n");
			return 1;
		}
		usleep(100);
		flagged = disarm(cs);
		thread_switches(&v1, &n1);
		s_flag += flagged;
		if (v1 + n1 > v0 + n0)
		{
			s_sw++;
			s_flag_sw += flagged;
		}
		else
			s_flag_unsw += flagged;
	}

	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
	{
		perror("marker_probe: sched_setaffinity");
		return 1;
	}
	fflush(stdout);
	hog = fork();
	if (hog < 0)
	{
		perror("marker_probe: fork");
		return 1;
	}
	if (hog == 0)
	{
		volatile unsigned long x = 0;

		for (;;)
			x++;
	}
	for (long i = 0; i < spins; i++)
	{
		long		v0, n0, v1, n1;
		int			flagged;
		uint64_t	end;

		thread_switches(&v0, &n0);
		arm(cs);
		end = now_ns() + (uint64_t) spin_us * 1000;
		while (now_ns() < end)
			;
		flagged = disarm(cs);
		thread_switches(&v1, &n1);
		p_flag += flagged;
		if (n1 > n0)
		{
			p_inv++;
			p_flag_inv += flagged;
			p_inv_sum += n1 - n0;
		}
	}
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);

	printf("sleep_windows %ld\nsleep_flagged %ld\nsleep_switched %ld\n"
		   "sleep_flagged_switched %ld\nsleep_flagged_unswitched %ld\n",
		   sleeps, s_flag, s_sw, s_flag_sw, s_flag_unsw);
	printf("spin_windows %ld\nspin_us %ld\nspin_flagged %ld\nspin_invol %ld\n"
		   "spin_flagged_invol %ld\nspin_invol_switches %ld\n",
		   spins, spin_us, p_flag, p_inv, p_flag_inv, p_inv_sum);
	printf("summary: %s on %s (%s area): sleeps flagged %ld of %ld (%ld switched); "
		   "preempted spins flagged %ld of %ld windows with an involuntary switch (%ld flagged in all)\n",
		   reg, u.release, gnu_get_libc_version(), s_flag, sleeps, s_sw, p_flag_inv, p_inv, p_flag);
	return 0;
}
