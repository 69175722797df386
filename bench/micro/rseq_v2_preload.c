/*
 * rseq_v2_preload: an LD_PRELOAD library that gives a process the rseq
 * registration the patched PostgreSQL server makes with
 * rseq_slice_register = auto, and nothing else.
 *
 * Use: LD_PRELOAD=build/micro/librseq_v2_preload.so pg_ctl ... start, for a
 * stock PostgreSQL server.  Its constructor runs in the postmaster (and in
 * every other process of that environment: pg_ctl, the shell it starts the
 * postmaster with) before main() and calls the project's own set-up,
 * rseq_slice_setup_process(RSEQ_SLICE_REGISTER_AUTO) from
 * lwlock_patch/rseq_slice_kernel.c, as the patched postmaster does: on a
 * kernel whose rseq knows the slice field (AT_RSEQ_FEATURE_SIZE >= 33,
 * Linux 7.x) glibc's legacy 32-byte area (glibc < 2.41) is unregistered, a
 * V2 area of this library is registered, and the slice extension is enabled
 * (prctl PR_RSEQ_SLICE_EXTENSION).  Backends forked from the postmaster
 * inherit both (fork copies the registration and the extension state:
 * ../shared facts, rseq-slice-abi.md, checked on 7.2 in the kernel lab).
 * Only a process whose rseq area glibc registered is changed: with
 * glibc's registration turned off (GLIBC_TUNABLES=glibc.pthread.rseq=0,
 * which programs set that register their own area) the library does
 * nothing, so such a program's own registration still succeeds.
 * A stock server never asks for an extension, so the registration is the
 * only difference it makes: the kernel lab's control for what a V2
 * registration costs or saves a server that does not ask (payoff-in-guest
 * --stock-register v2).  It is also what a stock server gets from glibc
 * 2.41 or later, which registers a V2 area by itself (without enabling the
 * extension).
 *
 * Output: one line on stderr per process, "rseq_v2_preload: NAME (pid N):
 * slice extension enabled|not enabled: REASON", where REASON is the
 * probe's summary (kernel, who registered which area, what the set-up did:
 * "replacing glibc's (legacy, 32 bytes, ...)", "kept (...)", the feature
 * size, the prctl's errno); with pg_ctl -l the postmaster's line lands in the
 * server log, where payoff-in-guest checks it ("rseq registered by
 * postgres" there names the project's own area, whatever the program).
 * The line is written with write(2), SIGPIPE blocked, and its failure is
 * ignored: a closed or broken stderr changes neither the program's exit
 * status nor its signals.  Failures of the set-up are not fatal either:
 * the process runs on with whatever registration it had, and the line
 * says why.
 *
 * RSEQ_V2_PRELOAD_ARM (environment, read by the constructor) chooses what
 * is registered in place of glibc's area (the registration arms of issue
 * 42, item 2):
 *   ve (or unset, or empty)  the above, unchanged: the project's set-up,
 *            V2 area and the slice extension enabled (arm VE)
 *   v        glibc's area unregistered, this library's area registered with
 *            the kernel's feature size rounded up to AT_RSEQ_ALIGN (V2 on
 *            7.x), the extension NOT enabled (no prctl; arm V); nothing done
 *            where the feature size is below 33 (no slice field: 6.x)
 *   legacy   glibc's area unregistered, this library's area registered
 *            with the legacy length, 32 bytes (arm L'), on any kernel
 * v and legacy replace glibc's area whatever its length (a V2 area of
 * glibc 2.41+ too) and do not look for other users of it (for probes and
 * the stock server, one thread at start-up).  Any other value: nothing
 * done, and the line says so.  The line names the arm: "rseq_v2_preload:
 * NAME (pid N): arm ARM: ...", except arm ve, whose line is as before.
 * What was done is also readable in the process (dlsym(RTLD_DEFAULT, ...)):
 * rseq_v2_preload_arm ("ve", "v", "legacy", or "none" when nothing was
 * registered by this library), rseq_v2_preload_area (our registered area,
 * NULL if none), rseq_v2_preload_len (its rseq_len), rseq_v2_preload_line
 * (the line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rseq_slice.h"

/*
 * The area the kernel updates for the process's main thread for as long as
 * it lives (the patched server keeps its own in a static, too:
 * lwlock_patch/rseq_lock.c).  Threads created later get glibc's own
 * registration.
 */
static rseq_slice_area_storage preload_area;

/* glibc's registered size, 0 if it registered nothing (weak: any glibc) */
extern const unsigned int __rseq_size __attribute__((weak));
extern const ptrdiff_t __rseq_offset __attribute__((weak));

/* What the constructor did, for a program that checks (see the header). */
#define PRELOAD_EXPORT __attribute__((visibility("default")))
PRELOAD_EXPORT const char *rseq_v2_preload_arm = "none";
PRELOAD_EXPORT volatile void *rseq_v2_preload_area = NULL;
PRELOAD_EXPORT unsigned int rseq_v2_preload_len = 0;
PRELOAD_EXPORT char rseq_v2_preload_line[640];

static int
sys_rseq(volatile void *area, uint32_t len, int flags)
{
	return (int) syscall(RSEQ_SLICE_NR_RSEQ, area, len, flags, RSEQ_SLICE_SIG);
}

/*
 * Arms v and legacy: unregister glibc's area (its length read back from the
 * kernel: the registered length gives EBUSY, any other EINVAL) and register
 * preload_area with len bytes; glibc's put back if ours is refused.  Writes
 * what happened to note; returns 0 when ours is registered.
 */
static int
replace_glibc(uint32_t len, char *note, size_t notelen)
{
	volatile void *g = (char *) __builtin_thread_pointer() + __rseq_offset;
	uint32_t	align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);
	uint32_t	cand[3],
				glen = 0;
	int			i;

	if (align < RSEQ_SLICE_ORIG_SIZE)
		align = RSEQ_SLICE_ORIG_SIZE;
	cand[0] = RSEQ_SLICE_ORIG_SIZE;
	cand[1] = __rseq_size > RSEQ_SLICE_ORIG_SIZE ? __rseq_size : RSEQ_SLICE_ORIG_SIZE;
	cand[2] = ((cand[1] + align - 1) / align) * align;
	for (i = 0; i < 3 && glen == 0; i++)
		if (sys_rseq(g, cand[i], 0) != 0 && errno == EBUSY)
			glen = cand[i];
	if (glen == 0)
	{
		snprintf(note, notelen, "glibc's area (__rseq_size %u) is not registered with any length tried: nothing done",
				 (unsigned) __rseq_size);
		return -1;
	}
	if (sys_rseq(g, glen, RSEQ_SLICE_FLAG_UNREGISTER) != 0)
	{
		snprintf(note, notelen, "unregistering glibc's area (%u bytes) failed: errno %d: nothing done",
				 (unsigned) glen, errno);
		return -1;
	}
	memset(&preload_area, 0, sizeof(preload_area));
	preload_area.u.area.cpu_id = RSEQ_SLICE_CPU_ID_UNINITIALIZED;
	if (sys_rseq(&preload_area.u.area, len, 0) != 0)
	{
		int			e = errno;

		(void) sys_rseq(g, glen, 0);
		snprintf(note, notelen, "registering our %u-byte area failed: errno %d: glibc's area put back",
				 (unsigned) len, e);
		return -1;
	}
	snprintf(note, notelen, "replaced glibc's (%s, %u bytes, __rseq_size %u) by ours (%s, %u bytes)",
			 glen > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy", (unsigned) glen, (unsigned) __rseq_size,
			 len > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy", (unsigned) len);
	return 0;
}

/*
 * One line to fd 2 that cannot hurt the program: no stdio (whose error flag
 * coreutils check at exit), SIGPIPE blocked during the write and a SIGPIPE
 * it raised taken back before the mask is restored.
 */
static void
say(const char *line, size_t len)
{
	sigset_t	pipe_set,
				old,
				pending;
	int			was_pending;
	struct timespec zero = {0, 0};

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &pipe_set, &old) != 0)
		return;
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	if (write(2, line, len) < 0 && !was_pending)
		(void) sigtimedwait(&pipe_set, NULL, &zero);
	(void) sigprocmask(SIG_SETMASK, &old, NULL);
}

__attribute__((constructor))
static void
rseq_v2_preload_init(void)
{
	rseq_slice_probe p;
	int			saved_errno = errno;
	int			rc,
				n;
	char		line[640];

	const char *arm = getenv("RSEQ_V2_PRELOAD_ARM");

	if (arm == NULL || arm[0] == '\0')
		arm = "ve";
	if (strcmp(arm, "ve") != 0 && strcmp(arm, "v") != 0 && strcmp(arm, "legacy") != 0)
		n = snprintf(line, sizeof(line),
					 "rseq_v2_preload: %s (pid %d): unknown RSEQ_V2_PRELOAD_ARM '%.40s' (ve, v, legacy): nothing done\n",
					 program_invocation_short_name, (int) getpid(), arm);
	else if (&__rseq_size == NULL || &__rseq_offset == NULL || __rseq_size == 0)
		n = snprintf(line, sizeof(line),
					 "rseq_v2_preload: %s (pid %d): glibc registered no rseq area: nothing done\n",
					 program_invocation_short_name, (int) getpid());
	else if (strcmp(arm, "ve") == 0)
	{
		rc = rseq_slice_setup_process(&p, &preload_area, RSEQ_SLICE_REGISTER_AUTO);
		n = snprintf(line, sizeof(line), "rseq_v2_preload: %s (pid %d): slice extension %s: %s\n",
					 program_invocation_short_name, (int) getpid(),
					 rc == 0 ? "enabled" : "not enabled", p.reason);
		if (p.registered && p.owner == RSEQ_SLICE_OWNER_SELF)
		{
			rseq_v2_preload_arm = "ve";
			rseq_v2_preload_area = p.area;
			rseq_v2_preload_len = p.reg_len;
		}
	}
	else
	{
		uint32_t	fsize = (uint32_t) getauxval(RSEQ_SLICE_AT_FEATURE_SIZE);
		uint32_t	align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);
		uint32_t	len = RSEQ_SLICE_ORIG_SIZE;
		char		note[400];

		if (align < RSEQ_SLICE_ORIG_SIZE)
			align = RSEQ_SLICE_ORIG_SIZE;
		rc = -1;
		if (arm[0] == 'v')
			len = ((fsize + align - 1) / align) * align;
		if (arm[0] == 'v' && fsize < RSEQ_SLICE_FEATURE_SIZE_SLICE)
			snprintf(note, sizeof(note), "the kernel's feature size %u has no slice field (7.x has >= 33): nothing done",
					 (unsigned) fsize);
		else if (len > RSEQ_SLICE_AREA_STORAGE || align > 64)
			snprintf(note, sizeof(note), "feature size %u / alignment %u do not fit our %d-byte area: nothing done",
					 (unsigned) fsize, (unsigned) align, RSEQ_SLICE_AREA_STORAGE);
		else
			rc = replace_glibc(len, note, sizeof(note));
		if (rc == 0)
		{
			rseq_v2_preload_arm = arm[0] == 'v' ? "v" : "legacy";
			rseq_v2_preload_area = &preload_area.u.area;
			rseq_v2_preload_len = len;
		}
		n = snprintf(line, sizeof(line), "rseq_v2_preload: %s (pid %d): arm %s: %s, feature size %u, slice extension not enabled\n",
					 program_invocation_short_name, (int) getpid(), arm, note, (unsigned) fsize);
	}
	if (n > 0)
	{
		size_t		len = (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1;

		memcpy(rseq_v2_preload_line, line, len);
		rseq_v2_preload_line[len < sizeof(rseq_v2_preload_line) ? len : sizeof(rseq_v2_preload_line) - 1] = '\0';
		say(line, len);
	}
	errno = saved_errno;
}
