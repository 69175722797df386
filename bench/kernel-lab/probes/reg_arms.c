/*
 * reg_arms: per-event kernel cost of an rseq registration, one arm per
 * process (issue 42, item 2, step 1; driver: registration-arms).
 *
 * Arms (the registration is made BEFORE main(), by glibc or by
 * bench/micro/rseq_v2_preload.c; this program only checks it and fails
 * with exit status 3 when the arm asked for is not the one in force):
 *   L   glibc's own area, as the process starts (legacy, 32 bytes, with the
 *       host's glibc 2.36); no preload loaded
 *   Lp  (L') LD_PRELOAD=librseq_v2_preload.so RSEQ_V2_PRELOAD_ARM=legacy:
 *       glibc's area unregistered, the preload's 32-byte area registered
 *   V   LD_PRELOAD=... RSEQ_V2_PRELOAD_ARM=v: the preload's V2 area (the
 *       kernel's feature size rounded up to AT_RSEQ_ALIGN), the slice
 *       extension not enabled
 *   VE  LD_PRELOAD=... (RSEQ_V2_PRELOAD_ARM unset: the preload's default):
 *       V2 area and the slice extension enabled
 *   N   GLIBC_TUNABLES=glibc.pthread.rseq=0, no preload: no rseq area
 * Checks per arm, all from inside the process:
 *   - glibc's __rseq_size / __rseq_offset (N: size 0; L: 1..32)
 *   - the preload's own report (dlsym of rseq_v2_preload_arm, _area, _len,
 *     _line): absent for L and N, the arm's name for Lp, V, VE
 *   - the kernel: rseq(area, len, 0, sig) answers EBUSY only for the area
 *     and length registered (EINVAL for any other; nothing changes), so the
 *     expected (area, len) must give EBUSY and glibc's area EINVAL when the
 *     preload replaced it; for N a scratch area must register (then it is
 *     unregistered again: the thread had none)
 *   - the kernel wrote a CPU number into the registered area's cpu_id
 *   - prctl(PR_RSEQ_SLICE_EXTENSION, GET): 1 for VE, not 1 for the others;
 *     the area's flags: SLICE_EXT_ENABLED (bit 5) set for VE only;
 *     SLICE_EXT_AVAILABLE (bit 4), which 7.x writes at registration for a
 *     V2 registration only (the kernel's ABI version), set for V and VE and
 *     clear for L and Lp
 *   - the forked children (ping-pong partner, hog) inherit the registration:
 *     the ping-pong child checks it again (EBUSY) and exits 3 otherwise
 *
 * Usage:  reg_arms ARM [SYSCALLS [PINGPONGS [WORK]]]
 *         (defaults 200000 getppid calls, 20000 futex round trips,
 *         30000000 loop iterations of CPU work)
 *
 * Measurements (guest ns = CLOCK_MONOTONIC; under the lab's icount clock 1
 * ns = 1 guest instruction, kernel and user, independent of the host):
 *   getppid_ns     per getppid() system call (SYSCALLS of them)
 *   pp_ns          per futex round trip between this process and a forked
 *                  child on the same CPU (PINGPONGS; two voluntary switches
 *                  each, pp_vcsw / pp_ivcsw = this process's voluntary /
 *                  involuntary switches per round trip)
 *   alone_ns       WORK iterations of a busy loop, the CPU alone (wall)
 *   pair_ns        fork of a hog that runs the same WORK iterations and
 *                  exits, this process's WORK iterations, reaping the hog,
 *                  both pinned to one CPU (wall)
 *   forkwait_ns    a fork of a child that exits at once, and its reaping
 *                  (mean of 20)
 *   pair_invol     involuntary switches of both processes during the pair
 *                  (getrusage: this process's delta + the hog's wait4)
 *   preempt_ns     (pair_ns - 2 alone_ns - forkwait_ns) / pair_invol: guest
 *                  time lost per preemption (scheduler, switch, the rseq
 *                  work at the return to user, cache-free under TCG)
 *   preempt_cpu_ns (this process's CPU time in the pair - in alone) / its
 *                  involuntary switches: the cost charged to the preempted
 *                  task (reg_probe.c's measure)
 *   k_*_{sys,pp,pair}  differences of debugfs rseq/stats (exit, slowp,
 *                  fastp, ids, cs, clear, fixup, sgrant, ...) over each
 *                  measurement, system-wide; NA when unreadable (not root,
 *                  no debugfs, no CONFIG_RSEQ_STATS)
 * Output: "key value" lines, then a "summary:" line.
 * Exit status: 0 ran; 2 bad arguments; 3 the arm is not in force (why on
 * stderr); 1 another failure.
 *
 * Constants: lwlock_patch/rseq_slice.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rseq_slice.h"

extern const unsigned int __rseq_size __attribute__((weak));
extern const ptrdiff_t __rseq_offset __attribute__((weak));

#define NSTATS 13
static const char *const stat_names[NSTATS] = {
	"exit", "signal", "slowp", "fastp", "ids", "cs", "clear", "fixup",
	"sgrant", "sexpir", "srevok", "syield", "sabort"
};

typedef struct
{
	int			ok;
	unsigned long long v[NSTATS];
} kstats;

static rseq_slice_area_storage scratch;

static void
read_stats(kstats *k)
{
	FILE	   *f = fopen("/sys/kernel/debug/rseq/stats", "r");
	char		name[32];
	unsigned long long val;

	memset(k, 0, sizeof(*k));
	if (f == NULL)
		return;
	while (fscanf(f, "%31[^:]: %llu\n", name, &val) == 2)
		for (int i = 0; i < NSTATS; i++)
			if (strcmp(name, stat_names[i]) == 0)
				k->v[i] = val, k->ok = 1;
	fclose(f);
}

static void
print_stats(const char *tag, const kstats *a, const kstats *b)
{
	for (int i = 0; i < NSTATS; i++)
	{
		if (a->ok && b->ok)
			printf("k_%s_%s %llu\n", stat_names[i], tag, b->v[i] - a->v[i]);
		else
			printf("k_%s_%s NA\n", stat_names[i], tag);
	}
}

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
		fprintf(stderr, "reg_arms: %s must be an integer in 1..2000000000, got '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int
sys_rseq(volatile void *area, uint32_t len, int flags)
{
	return (int) syscall(RSEQ_SLICE_NR_RSEQ, area, len, flags, RSEQ_SLICE_SIG);
}

/* 1 if the kernel has exactly (area, len) registered for this thread */
static int
registered_as(volatile void *area, uint32_t len)
{
	return sys_rseq(area, len, 0) != 0 && errno == EBUSY;
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

static uint64_t __attribute__((noinline))
work(long n)
{
	volatile uint64_t x = 0;

	for (long i = 0; i < n; i++)
		x += (uint64_t) i;
	return x;
}

#define FAIL_ARM(...) do { fprintf(stderr, "reg_arms: arm %s NOT in force: ", arm); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); return 3; } while (0)

int
main(int argc, char **argv)
{
	const char *arm;
	long		nsys = 200000,
				npp = 20000,
				nwork = 30000000;
	uint32_t	fsize = (uint32_t) getauxval(RSEQ_SLICE_AT_FEATURE_SIZE);
	unsigned	gsize = &__rseq_size != NULL ? __rseq_size : 0;
	long		goff = &__rseq_offset != NULL ? (long) __rseq_offset : 0;
	volatile rseq_slice_area *g = NULL,
			   *area = NULL;
	const char **pl_arm;
	volatile void **pl_area;
	unsigned   *pl_len;
	const char *pl_line;
	uint32_t	reg_len = 0;
	const char *owner = "none";
	long		get;
	int			get_errno = 0;
	unsigned	flags = 0;
	struct utsname u;
	cpu_set_t	set;
	int			cpu;
	kstats		k0, k1;
	struct rusage r0, r1, rc;
	volatile uint32_t *shared;
	pid_t		child;
	int			st;
	uint64_t	t0, t_sys, t_pp, t_alone, t_alone_cpu, t_pair, t_pair_cpu, t_fw;
	long		pp_vcsw, pp_ivcsw, pair_invol, self_invol, alone_invol;

	if (argc < 2 || argc > 5)
	{
		fprintf(stderr, "usage: reg_arms L|Lp|V|VE|N [SYSCALLS [PINGPONGS [WORK]]]\n");
		return 2;
	}
	arm = argv[1];
	if (argc > 2)
		nsys = parse_count(argv[2], "SYSCALLS");
	if (argc > 3)
		npp = parse_count(argv[3], "PINGPONGS");
	if (argc > 4)
		nwork = parse_count(argv[4], "WORK");
	if (strcmp(arm, "L") && strcmp(arm, "Lp") && strcmp(arm, "V") && strcmp(arm, "VE") && strcmp(arm, "N"))
	{
		fprintf(stderr, "reg_arms: unknown arm '%s' (L, Lp, V, VE, N)\n", arm);
		return 2;
	}

	/* ---- which registration is in force ---- */
	if (gsize != 0)
		g = (volatile rseq_slice_area *) ((char *) __builtin_thread_pointer() + goff);
	pl_arm = (const char **) dlsym(RTLD_DEFAULT, "rseq_v2_preload_arm");
	pl_area = (volatile void **) dlsym(RTLD_DEFAULT, "rseq_v2_preload_area");
	pl_len = (unsigned *) dlsym(RTLD_DEFAULT, "rseq_v2_preload_len");
	pl_line = (const char *) dlsym(RTLD_DEFAULT, "rseq_v2_preload_line");

	if (strcmp(arm, "N") == 0 || strcmp(arm, "L") == 0)
	{
		if (pl_arm != NULL)
			FAIL_ARM("the preload library is loaded (arm %s): run without LD_PRELOAD", *pl_arm);
	}
	else
	{
		const char *want = strcmp(arm, "Lp") == 0 ? "legacy" : strcmp(arm, "V") == 0 ? "v" : "ve";

		if (pl_arm == NULL || pl_area == NULL || pl_len == NULL)
			FAIL_ARM("the preload library (rseq_v2_preload_arm) is not loaded");
		if (strcmp(*pl_arm, want) != 0)
			FAIL_ARM("the preload did arm '%s', not '%s': %s", *pl_arm, want, pl_line ? pl_line : "");
		if (*pl_area == NULL)
			FAIL_ARM("the preload reports no area of its own: %s", pl_line ? pl_line : "");
	}

	if (strcmp(arm, "N") == 0)
	{
		if (gsize != 0)
			FAIL_ARM("glibc registered %u bytes (GLIBC_TUNABLES=glibc.pthread.rseq=0 missing?)", gsize);
		/* nothing registered: a scratch area registers, then goes again */
		scratch.u.area.cpu_id = RSEQ_SLICE_CPU_ID_UNINITIALIZED;
		if (sys_rseq(&scratch.u.area, RSEQ_SLICE_ORIG_SIZE, 0) != 0)
			FAIL_ARM("registering a scratch area failed (errno %d): the thread has an rseq area", errno);
		if (sys_rseq(&scratch.u.area, RSEQ_SLICE_ORIG_SIZE, RSEQ_SLICE_FLAG_UNREGISTER) != 0)
		{
			fprintf(stderr, "reg_arms: unregistering the scratch area failed: errno %d\n", errno);
			return 1;
		}
	}
	else if (strcmp(arm, "L") == 0)
	{
		if (gsize == 0)
			FAIL_ARM("glibc registered no area (__rseq_size 0)");
		if (gsize > RSEQ_SLICE_ORIG_SIZE)
			FAIL_ARM("glibc's area is not legacy (__rseq_size %u: glibc 2.41+)", gsize);
		if (!registered_as(g, RSEQ_SLICE_ORIG_SIZE))
			FAIL_ARM("the kernel does not have glibc's area registered with 32 bytes (errno %d)", errno);
		area = g;
		reg_len = RSEQ_SLICE_ORIG_SIZE;
		owner = "glibc";
	}
	else
	{
		area = (volatile rseq_slice_area *) *pl_area;
		reg_len = *pl_len;
		owner = "preload";
		if (strcmp(arm, "Lp") == 0 ? reg_len != RSEQ_SLICE_ORIG_SIZE : reg_len <= RSEQ_SLICE_ORIG_SIZE)
			FAIL_ARM("the preload's area has %u bytes", reg_len);
		if (!registered_as(area, reg_len))
			FAIL_ARM("the kernel does not have the preload's area (%p, %u bytes) registered (errno %d)",
					 (void *) area, reg_len, errno);
		if (g != NULL && registered_as(g, RSEQ_SLICE_ORIG_SIZE))
			FAIL_ARM("glibc's area is still registered");
	}
	if (area != NULL)
	{
		(void) syscall(SYS_getppid);
		if ((int32_t) area->cpu_id < 0)
			FAIL_ARM("the kernel has not written a CPU number into the area (cpu_id %d)", (int) area->cpu_id);
		flags = area->flags;
	}
	get = prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_GET, 0, 0, 0);
	if (get < 0)
		get_errno = errno;
	if (strcmp(arm, "VE") == 0)
	{
		if (get != 1 || !(flags & RSEQ_SLICE_CPU_FLAG_ENABLED))
			FAIL_ARM("slice extension not enabled (prctl GET %ld errno %d, area flags 0x%x)", get, get_errno, flags);
	}
	else if (get == 1 || (flags & RSEQ_SLICE_CPU_FLAG_ENABLED))
		FAIL_ARM("slice extension enabled (prctl GET %ld, area flags 0x%x)", get, flags);
	/*
	 * The kernel's own word on the ABI version: at registration 7.x writes
	 * SLICE_EXT_AVAILABLE into the area's flags for a V2 registration only
	 * (kernel/rseq.c rseq_register, when the extension is on system-wide),
	 * 0 for a 32-byte one.
	 */
	if (area != NULL && reg_len == RSEQ_SLICE_ORIG_SIZE && (flags & RSEQ_SLICE_CPU_FLAG_AVAILABLE))
		FAIL_ARM("a 32-byte registration with SLICE_EXT_AVAILABLE in its flags (0x%x)", flags);
	if (area != NULL && reg_len > RSEQ_SLICE_ORIG_SIZE && fsize >= RSEQ_SLICE_FEATURE_SIZE_SLICE &&
		!(flags & RSEQ_SLICE_CPU_FLAG_AVAILABLE) && get_errno != RSEQ_SLICE_ENOTSUPP)
		FAIL_ARM("a %u-byte registration without SLICE_EXT_AVAILABLE in its flags (0x%x): not V2 to the kernel",
				 reg_len, flags);

	uname(&u);
	printf("arm %s\nkernel %s\nglibc %s\nglibc_rseq_size %u\nglibc_rseq_offset %ld\nfeature_size %u\n"
		   "owner %s\nreg_len %u\nregistration %s\nprctl_get %ld\nprctl_get_errno %d\narea_flags 0x%x\n",
		   arm, u.release, gnu_get_libc_version(), gsize, goff, (unsigned) fsize,
		   owner, reg_len, reg_len == 0 ? "none" : reg_len > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy",
		   get, get_errno, flags);
	if (pl_line != NULL)
		printf("preload_line %s", pl_line);

	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
	{
		perror("reg_arms: sched_setaffinity");
		return 1;
	}
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
	{
		perror("reg_arms: mmap");
		return 1;
	}

	/* ---- 1. system calls ---- */
	for (long i = 0; i < 1000; i++)
		(void) syscall(SYS_getppid);
	read_stats(&k0);
	t0 = ns_of(CLOCK_MONOTONIC);
	for (long i = 0; i < nsys; i++)
		(void) syscall(SYS_getppid);
	t_sys = ns_of(CLOCK_MONOTONIC) - t0;
	read_stats(&k1);
	print_stats("sys", &k0, &k1);

	/* ---- 2. futex ping-pong with a child on the same CPU ---- */
	shared[0] = 0;
	shared[1] = 0;
	fflush(stdout);
	child = fork();
	if (child < 0)
	{
		perror("reg_arms: fork");
		return 1;
	}
	if (child == 0)
	{
		if (area != NULL && !registered_as(area, reg_len))
			_exit(3);
		if (area == NULL &&
			(sys_rseq(&scratch.u.area, RSEQ_SLICE_ORIG_SIZE, 0) != 0 ||
			 sys_rseq(&scratch.u.area, RSEQ_SLICE_ORIG_SIZE, RSEQ_SLICE_FLAG_UNREGISTER) != 0))
			_exit(3);
		__atomic_store_n(&shared[1], 1, __ATOMIC_RELEASE);
		for (long i = 0; i < npp; i++)
		{
			while (__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE) != 1)
				futex_wait(&shared[0], 0);
			__atomic_store_n(&shared[0], 0, __ATOMIC_RELEASE);
			futex_wake(&shared[0]);
		}
		_exit(0);
	}
	while (__atomic_load_n(&shared[1], __ATOMIC_ACQUIRE) != 1)
	{
		if (waitpid(child, &st, WNOHANG) == child)
		{
			fprintf(stderr, "reg_arms: arm %s NOT in force in the forked child (status %d)\n", arm, st);
			return 3;
		}
		sched_yield();
	}
	read_stats(&k0);
	getrusage(RUSAGE_SELF, &r0);
	t0 = ns_of(CLOCK_MONOTONIC);
	for (long i = 0; i < npp; i++)
	{
		__atomic_store_n(&shared[0], 1, __ATOMIC_RELEASE);
		futex_wake(&shared[0]);
		while (__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE) != 0)
			futex_wait(&shared[0], 1);
	}
	t_pp = ns_of(CLOCK_MONOTONIC) - t0;
	getrusage(RUSAGE_SELF, &r1);
	read_stats(&k1);
	waitpid(child, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
	{
		fprintf(stderr, "reg_arms: the ping-pong child ended with status %d\n", st);
		return WIFEXITED(st) && WEXITSTATUS(st) == 3 ? 3 : 1;
	}
	pp_vcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	pp_ivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	print_stats("pp", &k0, &k1);

	/* ---- 3. fork + reap, the calibration of the pair ---- */
	fflush(stdout);
	t0 = ns_of(CLOCK_MONOTONIC);
	for (int i = 0; i < 20; i++)
	{
		child = fork();
		if (child < 0)
		{
			perror("reg_arms: fork");
			return 1;
		}
		if (child == 0)
			_exit(0);
		waitpid(child, &st, 0);
	}
	t_fw = (ns_of(CLOCK_MONOTONIC) - t0) / 20;

	/* ---- 4. CPU work alone, then beside a hog doing the same ---- */
	getrusage(RUSAGE_SELF, &r0);
	t0 = ns_of(CLOCK_MONOTONIC);
	t_alone_cpu = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	work(nwork);
	t_alone_cpu = ns_of(CLOCK_PROCESS_CPUTIME_ID) - t_alone_cpu;
	t_alone = ns_of(CLOCK_MONOTONIC) - t0;
	getrusage(RUSAGE_SELF, &r1);
	alone_invol = r1.ru_nivcsw - r0.ru_nivcsw;

	fflush(stdout);
	read_stats(&k0);
	getrusage(RUSAGE_SELF, &r0);
	t0 = ns_of(CLOCK_MONOTONIC);
	t_pair_cpu = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	child = fork();
	if (child < 0)
	{
		perror("reg_arms: fork");
		return 1;
	}
	if (child == 0)
	{
		work(nwork);
		_exit(0);
	}
	work(nwork);
	t_pair_cpu = ns_of(CLOCK_PROCESS_CPUTIME_ID) - t_pair_cpu;
	getrusage(RUSAGE_SELF, &r1);
	if (wait4(child, &st, 0, &rc) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
	{
		fprintf(stderr, "reg_arms: the hog ended with status %d\n", st);
		return 1;
	}
	t_pair = ns_of(CLOCK_MONOTONIC) - t0;
	read_stats(&k1);
	self_invol = r1.ru_nivcsw - r0.ru_nivcsw;
	pair_invol = self_invol + rc.ru_nivcsw;
	print_stats("pair", &k0, &k1);

	{
		double		lost = (double) t_pair - 2.0 * (double) t_alone - (double) t_fw;
		double		pre = pair_invol > 0 ? lost / (double) pair_invol : 0.0;
		double		pre_cpu = self_invol > 0 ?
			((double) t_pair_cpu - (double) t_alone_cpu) / (double) self_invol : 0.0;

		printf("getppid_n %ld\ngetppid_ns %.2f\n", nsys, (double) t_sys / (double) nsys);
		printf("pp_n %ld\npp_ns %.2f\npp_vcsw %.3f\npp_ivcsw %.3f\n", npp, (double) t_pp / (double) npp,
			   (double) pp_vcsw / (double) npp, (double) pp_ivcsw / (double) npp);
		printf("work_n %ld\nalone_ns %llu\nalone_cpu_ns %llu\nalone_invol %ld\nforkwait_ns %llu\n"
			   "pair_ns %llu\npair_cpu_ns %llu\npair_invol %ld\nself_invol %ld\nhog_invol %ld\n"
			   "lost_ns %.0f\npreempt_ns %.1f\npreempt_cpu_ns %.1f\n",
			   nwork, (unsigned long long) t_alone, (unsigned long long) t_alone_cpu, alone_invol,
			   (unsigned long long) t_fw, (unsigned long long) t_pair, (unsigned long long) t_pair_cpu,
			   pair_invol, self_invol, (long) rc.ru_nivcsw, lost, pre, pre_cpu);
		printf("summary: arm %s on %s (%s, %u bytes, owner %s, extension %s): getppid %.1f ns, "
			   "futex round trip %.1f ns, %.1f ns lost per preemption (%ld preemptions)\n",
			   arm, u.release, reg_len == 0 ? "none" : reg_len > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy",
			   reg_len, owner, get == 1 ? "enabled" : "not enabled",
			   (double) t_sys / (double) nsys, (double) t_pp / (double) npp, pre, pair_invol);
	}
	return 0;
}
