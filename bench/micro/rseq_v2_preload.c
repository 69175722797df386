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
 * says why.  No environment variable or argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
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

	if (&__rseq_size == NULL || __rseq_size == 0)
		n = snprintf(line, sizeof(line),
					 "rseq_v2_preload: %s (pid %d): glibc registered no rseq area: nothing done\n",
					 program_invocation_short_name, (int) getpid());
	else
	{
		rc = rseq_slice_setup_process(&p, &preload_area, RSEQ_SLICE_REGISTER_AUTO);
		n = snprintf(line, sizeof(line), "rseq_v2_preload: %s (pid %d): slice extension %s: %s\n",
					 program_invocation_short_name, (int) getpid(),
					 rc == 0 ? "enabled" : "not enabled", p.reason);
	}
	if (n > 0)
		say(line, (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1);
	errno = saved_errno;
}
