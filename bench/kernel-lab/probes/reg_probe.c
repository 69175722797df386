/*
 * reg_probe: what an rseq registration costs the kernel per event (issue 42,
 * item 2, step 1).  One arm per run:
 *   N   no rseq area (run it with GLIBC_TUNABLES=glibc.pthread.rseq=0; the
 *       probe checks that glibc registered nothing)
 *   L   glibc's own registration, as it is (legacy 32 bytes under glibc
 *       before 2.41)
 *   L'  (spelled Lp) glibc's area unregistered, a 32-byte area of ours
 *       registered: what a re-registering preload does, without the size
 *   V   glibc's area unregistered, an area of ours of the kernel's feature
 *       size rounded up to its alignment (V2 where the feature size is >= 33,
 *       Linux 7.x), the slice extension not enabled
 *   VE  V with the slice extension enabled (prctl PR_RSEQ_SLICE_EXTENSION
 *       SET ENABLE, read back with GET), as bench/micro's preload does
 *
 * Usage:  reg_probe ARM [SYSCALLS [PINGPONGS [WORK]]]
 *         (defaults 200000 getppid calls, 20000 futex round trips,
 *         200000000 loop iterations of CPU work)
 *
 * Measurements, on CLOCK_MONOTONIC (under the lab's icount clock guest ns
 * count guest instructions, so they are kernel and user work, not host
 * speed):
 *   getppid_ns        ns per getppid() system call
 *   pingpong_ns       ns per futex round trip between this process and a
 *                     forked child (both on this CPU: every handoff is a
 *                     voluntary context switch); the child inherits the
 *                     registration (fork copies it)
 *   alone_ns          thread CPU time of WORK iterations with the CPU alone
 *   hog_ns, hog_invol thread CPU time of the same work beside a forked CPU
 *                     hog pinned to the same CPU, and the involuntary
 *                     switches meanwhile (getrusage RUSAGE_THREAD)
 *   preempt_ns        (hog_ns - alone_ns) / hog_invol: CPU time charged to
 *                     the thread per preemption
 * Output: "key value" lines (arm, kernel, glibc, rseq_size, reg_len,
 * feature_size, slice_enabled, the measurements), then a summary line.
 * Exit status: 0 ran; 1 the arm could not be set up (the reason on stderr);
 * 2 bad arguments.
 *
 * Constants: lwlock_patch/rseq_slice.h (rseq is 334 on x86_64, 293 on
 * arm64; RSEQ_FLAG_UNREGISTER 1; PR_RSEQ_SLICE_EXTENSION 79, GET 1, SET 2,
 * ENABLE 1; AT_RSEQ_FEATURE_SIZE 27, AT_RSEQ_ALIGN 28), each checked there
 * against Linux 7.2.13's uapi headers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rseq_slice.h"

static rseq_slice_area_storage own_area;

static uint64_t
ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static long
parse_count(const char *s, const char *what)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > 2000000000L)
	{
		fprintf(stderr, "reg_probe: %s must be an integer in 1..2000000000, got '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int
sys_rseq(void *area, uint32_t len, int flags)
{
	return (int) syscall(RSEQ_SLICE_NR_RSEQ, area, len, flags, RSEQ_SLICE_SIG);
}

/* glibc's registered length: the kernel refuses an unregister of any other */
static int
unregister_glibc(void)
{
	void	   *g = (char *) __builtin_thread_pointer() + __rseq_offset;
	uint32_t	lens[3] = {RSEQ_SLICE_ORIG_SIZE, __rseq_size, 0};
	uint32_t	align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);

	if (align < RSEQ_SLICE_ORIG_SIZE)
		align = RSEQ_SLICE_ORIG_SIZE;
	lens[2] = ((__rseq_size + align - 1) / align) * align;
	for (int i = 0; i < 3; i++)
		if (lens[i] >= RSEQ_SLICE_ORIG_SIZE && sys_rseq(g, lens[i], RSEQ_SLICE_FLAG_UNREGISTER) == 0)
			return 0;
	return -1;
}

static void
futex_wait(volatile uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void
futex_wake(volatile uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static uint64_t
work(long n)
{
	volatile uint64_t x = 0;

	for (long i = 0; i < n; i++)
		x += (uint64_t) i;
	return x;
}

int
main(int argc, char **argv)
{
	const char *arm;
	long		nsys = 200000,
				npp = 20000,
				nwork = 200000000;
	uint32_t	fsize = (uint32_t) getauxval(RSEQ_SLICE_AT_FEATURE_SIZE);
	uint32_t	align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);
	uint32_t	reg_len = 0;
	int			enabled = 0;
	struct utsname u;
	cpu_set_t	set;
	int			cpu;
	uint64_t	t0, t_sys, t_pp, t_alone, t_hog;
	struct rusage r0, r1;
	volatile uint32_t *shared;
	pid_t		child;

	if (argc < 2 || argc > 5)
	{
		fprintf(stderr, "usage: reg_probe N|L|Lp|V|VE [SYSCALLS [PINGPONGS [WORK]]]\n");
		return 2;
	}
	arm = argv[1];
	if (argc > 2)
		nsys = parse_count(argv[2], "SYSCALLS");
	if (argc > 3)
		npp = parse_count(argv[3], "PINGPONGS");
	if (argc > 4)
		nwork = parse_count(argv[4], "WORK");
	if (align < RSEQ_SLICE_ORIG_SIZE)
		align = RSEQ_SLICE_ORIG_SIZE;

	if (strcmp(arm, "N") == 0)
	{
		if (__rseq_size != 0)
		{
			fprintf(stderr, "reg_probe: arm N needs GLIBC_TUNABLES=glibc.pthread.rseq=0 (glibc registered %u bytes)\n", __rseq_size);
			return 1;
		}
	}
	else if (strcmp(arm, "L") == 0)
	{
		if (__rseq_size == 0)
		{
			fprintf(stderr, "reg_probe: arm L: glibc registered no area\n");
			return 1;
		}
		reg_len = __rseq_size <= RSEQ_SLICE_ORIG_SIZE ? RSEQ_SLICE_ORIG_SIZE :
			((__rseq_size + align - 1) / align) * align;
	}
	else if (strcmp(arm, "Lp") == 0 || strcmp(arm, "V") == 0 || strcmp(arm, "VE") == 0)
	{
		uint32_t	len = RSEQ_SLICE_ORIG_SIZE;

		if (arm[0] == 'V')
		{
			if (fsize < RSEQ_SLICE_FEATURE_SIZE_SLICE)
			{
				fprintf(stderr, "reg_probe: arm %s: the kernel's feature size %u has no slice field (Linux 7.x has >= 33)\n", arm, fsize);
				return 1;
			}
			len = ((fsize + align - 1) / align) * align;
			if (len > RSEQ_SLICE_AREA_STORAGE || align > 64)
			{
				fprintf(stderr, "reg_probe: feature size %u / alignment %u do not fit our area\n", fsize, align);
				return 1;
			}
		}
		if (__rseq_size != 0 && unregister_glibc() != 0)
		{
			fprintf(stderr, "reg_probe: unregistering glibc's area failed: %s\n", strerror(errno));
			return 1;
		}
		own_area.u.area.cpu_id = RSEQ_SLICE_CPU_ID_UNINITIALIZED;
		if (sys_rseq(&own_area.u.area, len, 0) != 0)
		{
			fprintf(stderr, "reg_probe: registering a %u-byte area failed: %s\n", len, strerror(errno));
			return 1;
		}
		reg_len = len;
		if (strcmp(arm, "VE") == 0)
		{
			if (prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_SET, RSEQ_SLICE_PR_ENABLE, 0, 0) != 0)
			{
				fprintf(stderr, "reg_probe: arm VE: prctl SET failed: errno %d\n", errno);
				return 1;
			}
			enabled = prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_GET, 0, 0, 0) == 1;
			if (!enabled)
			{
				fprintf(stderr, "reg_probe: arm VE: prctl GET does not report the extension enabled\n");
				return 1;
			}
		}
	}
	else
	{
		fprintf(stderr, "reg_probe: unknown arm '%s' (N, L, Lp, V, VE)\n", arm);
		return 2;
	}

	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
	{
		perror("reg_probe: sched_setaffinity");
		return 1;
	}

	/* 1. system calls */
	t0 = ns_of(CLOCK_MONOTONIC);
	for (long i = 0; i < nsys; i++)
		(void) syscall(SYS_getppid);
	t_sys = ns_of(CLOCK_MONOTONIC) - t0;

	/* 2. futex ping-pong with a child on the same CPU */
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
	{
		perror("reg_probe: mmap");
		return 1;
	}
	shared[0] = 0;
	fflush(stdout);
	child = fork();
	if (child < 0)
	{
		perror("reg_probe: fork");
		return 1;
	}
	if (child == 0)
	{
		for (long i = 0; i < npp; i++)
		{
			while (__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE) != 1)
				futex_wait(&shared[0], 0);
			__atomic_store_n(&shared[0], 0, __ATOMIC_RELEASE);
			futex_wake(&shared[0]);
		}
		_exit(0);
	}
	t0 = ns_of(CLOCK_MONOTONIC);
	for (long i = 0; i < npp; i++)
	{
		__atomic_store_n(&shared[0], 1, __ATOMIC_RELEASE);
		futex_wake(&shared[0]);
		while (__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE) != 0)
			futex_wait(&shared[0], 1);
	}
	t_pp = ns_of(CLOCK_MONOTONIC) - t0;
	waitpid(child, NULL, 0);

	/* 3. CPU work alone, then beside a hog on the same CPU */
	t0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	work(nwork);
	t_alone = ns_of(CLOCK_THREAD_CPUTIME_ID) - t0;
	fflush(stdout);
	child = fork();
	if (child < 0)
	{
		perror("reg_probe: fork");
		return 1;
	}
	if (child == 0)
	{
		volatile unsigned long x = 0;

		for (;;)
			x++;
	}
	getrusage(RUSAGE_THREAD, &r0);
	t0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	work(nwork);
	t_hog = ns_of(CLOCK_THREAD_CPUTIME_ID) - t0;
	getrusage(RUSAGE_THREAD, &r1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	uname(&u);
	{
		long		invol = r1.ru_nivcsw - r0.ru_nivcsw;
		double		pre = invol > 0 ? ((double) t_hog - (double) t_alone) / (double) invol : 0.0;

		printf("arm %s\nkernel %s\nglibc %s\nrseq_size %u\nreg_len %u\nfeature_size %u\nslice_enabled %d\n",
			   arm, u.release, gnu_get_libc_version(), (unsigned) __rseq_size, reg_len, fsize, enabled);
		printf("getppid_ns %.1f\npingpong_ns %.1f\nalone_ns %llu\nhog_ns %llu\nhog_invol %ld\npreempt_ns %.1f\n",
			   (double) t_sys / (double) nsys, (double) t_pp / (double) npp,
			   (unsigned long long) t_alone, (unsigned long long) t_hog, invol, pre);
		printf("summary: arm %s on %s (reg_len %u, extension %s): getppid %.1f ns, futex round trip %.1f ns, "
			   "%.1f ns per preemption (%ld preemptions)\n",
			   arm, u.release, reg_len, enabled ? "enabled" : "not enabled",
			   (double) t_sys / (double) nsys, (double) t_pp / (double) npp, pre, invol);
	}
	return 0;
}
