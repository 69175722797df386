// rseq_debug_probe: check, on a kernel with CONFIG_RSEQ_SLICE_EXTENSION,
// which uses of rseq slice_ctrl the kernel's rseq debug mode punishes with
// SIGSEGV, and what debug mode does to an empty-range rseq_cs marker.
// Findings and the kernel code behind them: bench/kernel-lab/NOTES.md.
//
// Build: cc -O2 -Wall -o rseq_debug_probe rseq_debug_probe.c
// Run (in the kernel lab guest, as root to read/switch debugfs):
//   rseq_debug_probe [SECONDS_PER_MODE]      runs every mode in a child
//   rseq_debug_probe MODE [SECONDS]          runs one mode in this process
// Modes:
//   proper       documented protocol (request=1 ... request=0; yield if granted)
//   stale        after a revoked grant (request and granted both 0 at the end
//                of a section), the next section makes a system call while
//                request=1 and nothing is granted
//   stale-fixed  like stale, but calls rseq_slice_yield() right after seeing
//                the revoked grant, before the next section
//   nested       after a grant, sets request=1 again, then a system call
//   clear        after a grant, user space clears granted itself, then yields
//   syscall-req  request=1 and a system call in every section (no grant
//                seen before); sections never check for revocations
//   marker       no hog: an empty-range rseq_cs descriptor is armed around a
//                getppid() system call; counts how often the kernel cleared it
// Each mode prints one line "mode: ..."; the driver prints how the child ended.
// A CPU hog child shares the CPU (both pinned) so that the tick asks for
// reschedules and the kernel grants extensions.
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAB_SYS_RSEQ 334
#define LAB_SYS_RSEQ_SLICE_YIELD 471
#define LAB_RSEQ_SIG 0x53053053u
#define LAB_RSEQ_FLAG_UNREGISTER 1
#define LAB_PR_RSEQ_SLICE_EXTENSION 79
#define LAB_PR_RSEQ_SLICE_EXTENSION_GET 1
#define LAB_PR_RSEQ_SLICE_EXTENSION_SET 2
#define LAB_PR_RSEQ_SLICE_EXT_ENABLE 1

struct lab_rseq {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	volatile uint8_t request;   /* offset 28 */
	volatile uint8_t granted;   /* offset 29 */
	uint16_t reserved;
	uint8_t reserved2;
} __attribute__((aligned(64)));
_Static_assert(__builtin_offsetof(struct lab_rseq, request) == 28, "request at 28");
_Static_assert(__builtin_offsetof(struct lab_rseq, granted) == 29, "granted at 29");

struct lab_cs {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} __attribute__((aligned(32)));

/* The signature word, and an abort target just after it (never reached). */
__asm__(".text\n"
	".globl lab_sig_word\nlab_sig_word: .long 0x53053053\n"
	".globl lab_after_sig\nlab_after_sig: ud2\n");
extern char lab_after_sig[];

static struct lab_rseq area;
static struct lab_cs marker;
#define barrier() __asm__ __volatile__("" ::: "memory")

static void *glibc_rseq_area(unsigned int *size)
{
	/* glibc >= 2.35 exports these; weak so the probe also links elsewhere. */
	extern const ptrdiff_t __rseq_offset __attribute__((weak));
	extern const unsigned int __rseq_size __attribute__((weak));
	char *tp;

	if (!&__rseq_size || !__rseq_size)
		return NULL;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	*size = __rseq_size;
	return tp + __rseq_offset;
}

static int setup(void)
{
	unsigned int gsize = 0;
	void *g = glibc_rseq_area(&gsize);

	/* glibc 2.36 registers a legacy 32-byte area: drop it, register V2. */
	if (g && syscall(LAB_SYS_RSEQ, g, 32, LAB_RSEQ_FLAG_UNREGISTER, LAB_RSEQ_SIG)) {
		fprintf(stderr, "unregister glibc rseq: %s\n", strerror(errno));
		return -1;
	}
	if (syscall(LAB_SYS_RSEQ, &area, sizeof(area), 0, LAB_RSEQ_SIG)) {
		fprintf(stderr, "register rseq (len %zu): %s\n", sizeof(area), strerror(errno));
		return -1;
	}
	if (prctl(LAB_PR_RSEQ_SLICE_EXTENSION, LAB_PR_RSEQ_SLICE_EXTENSION_SET,
		  LAB_PR_RSEQ_SLICE_EXT_ENABLE, 0, 0)) {
		fprintf(stderr, "prctl slice extension: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static pid_t start_hog(int cpu)
{
	pid_t p = fork();

	if (p == 0) {
		pin(cpu);
		for (;;)
			barrier();
	}
	return p;
}

static void spin(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_mode(const char *mode, double secs)
{
	long sections = 0, grants = 0, revoked = 0, events = 0, cleared = 0;
	int cpu = 1, hog = strcmp(mode, "marker") != 0;
	pid_t hp = -1;
	double end;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		cpu = 0;
	pin(cpu);
	if (setup())
		return 2;
	if (hog)
		hp = start_hog(cpu);
	printf("%s: starting (flags 0x%x, prctl GET %d)\n", mode, area.flags,
	       prctl(LAB_PR_RSEQ_SLICE_EXTENSION, LAB_PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	fflush(stdout);
	end = now() + secs;

	if (!strcmp(mode, "marker")) {
		marker.abort_ip = (uintptr_t)lab_after_sig;
		while (now() < end) {
			area.rseq_cs = (uintptr_t)&marker;
			barrier();
			syscall(SYS_getppid);
			barrier();
			if (area.rseq_cs == 0)
				cleared++;
			area.rseq_cs = 0;
			sections++;
		}
		printf("marker: %ld windows around getppid(), rseq_cs cleared by the kernel in %ld\n",
		       sections, cleared);
		return 0;
	}

	while (now() < end) {
		int is_grant, is_revoked;

		sections++;
		area.request = 1;
		barrier();
		if (!strcmp(mode, "syscall-req")) {
			syscall(SYS_getppid);
			events++;
		}
		spin(20000);
		barrier();
		is_revoked = !area.request && !area.granted;
		is_grant = area.granted;
		area.request = 0;
		barrier();
		grants += is_grant;
		revoked += is_revoked;

		if (is_grant) {
			if (!strcmp(mode, "nested")) {
				area.request = 1;       /* re-request while granted */
				barrier();
				events++;
				syscall(SYS_getppid);
				area.request = 0;
			} else if (!strcmp(mode, "clear")) {
				*(volatile uint16_t *)&area.request = 0; /* user clears granted */
				barrier();
				events++;
				syscall(LAB_SYS_RSEQ_SLICE_YIELD);
			} else {
				syscall(LAB_SYS_RSEQ_SLICE_YIELD);
			}
		} else if (is_revoked) {
			if (!strcmp(mode, "stale-fixed"))
				syscall(LAB_SYS_RSEQ_SLICE_YIELD); /* clears the pending work */
			if (!strcmp(mode, "stale") || !strcmp(mode, "stale-fixed")) {
				area.request = 1;      /* next critical section ... */
				barrier();
				events++;
				syscall(SYS_getppid);  /* ... does a system call */
				barrier();
				area.request = 0;
				if (area.granted)
					syscall(LAB_SYS_RSEQ_SLICE_YIELD);
			}
		}
	}
	if (hp > 0) {
		kill(hp, SIGKILL);
		waitpid(hp, NULL, 0);
	}
	printf("%s: survived: %ld sections, %ld grants seen, %ld revoked grants seen, %ld test events\n",
	       mode, sections, grants, revoked, events);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *modes[] = { "proper", "stale", "stale-fixed", "nested",
				       "clear", "syscall-req", "marker" };
	double secs = 2;
	FILE *f;
	char dbg[8] = "?";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9')) {
		if (argc > 2)
			secs = atof(argv[2]);
		return run_mode(argv[1], secs);
	}
	if (argc > 1)
		secs = atof(argv[1]);
	f = fopen("/sys/kernel/debug/rseq/debug", "r");
	if (f) {
		if (!fgets(dbg, sizeof(dbg), f))
			strcpy(dbg, "?");
		dbg[strcspn(dbg, "\n")] = 0;
		fclose(f);
	}
	printf("rseq debug mode (debugfs rseq/debug): %s\n", dbg);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		pid_t p = fork();
		int st;

		if (p == 0) {
			/* Own process group so the hog dies with it. */
			setpgid(0, 0);
			exit(run_mode(modes[i], secs));
		}
		waitpid(p, &st, 0);
		kill(-p, SIGKILL);
		if (WIFSIGNALED(st))
			printf("%s: KILLED by signal %d (%s)\n", modes[i], WTERMSIG(st),
			       strsignal(WTERMSIG(st)));
		else
			printf("%s: exit %d\n", modes[i], WEXITSTATUS(st));
	}
	return 0;
}
