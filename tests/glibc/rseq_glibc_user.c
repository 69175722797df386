/*
 * rseq_glibc_user.c: a test library that uses glibc's rseq area the way
 * librseq, TCMalloc's per-CPU caches or an extension's own library do: it
 * reads cpu_id at the thread pointer + __rseq_offset.  Not part of pg_rseq.
 *
 * tests/glibc/glibc_check loads it with shared_preload_libraries (so it is
 * in the postmaster when the lock layer decides about glibc's area, and its
 * undefined reference to __rseq_offset is what rseq_slice_find_rseq_user
 * looks for) and calls
 *
 *     CREATE FUNCTION rseq_glibc_user() RETURNS text
 *       AS '<path>/rseq_glibc_user.so' LANGUAGE C STRICT;
 *
 * which reports what the library sees in the calling backend:
 *
 *     rseq_size=20 load_cpu_id=1 cpu_id=0 getcpu=0 agree=200/200
 *
 * rseq_size: glibc's __rseq_size; load_cpu_id: cpu_id read in the
 * postmaster when the library was loaded (before the lock layer's set-up);
 * cpu_id: read now in this backend; getcpu: the getcpu system call now;
 * agree: how many of 200 back-to-back (cpu_id, getcpu) pairs were equal.
 * When the postmaster replaced glibc's registration, the kernel no longer
 * updates glibc's area: cpu_id reads -1 (RSEQ_CPU_ID_UNINITIALIZED, written
 * by the kernel at unregistration) and agree is 0/200.  Without any glibc
 * registration (GLIBC_TUNABLES=glibc.pthread.rseq=0) rseq_size is 0 and
 * cpu_id -2 (RSEQ_CPU_ID_REGISTRATION_FAILED, written by glibc).
 *
 * RSEQ_GLIBC_USER_THREAD=1 in the postmaster's environment: start a thread
 * that sleeps forever when loaded (a library with threads in the postmaster).
 *
 * tests/glibc/rseq_glibc_user.c
 */
#include "postgres.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fmgr.h"
#include "utils/builtins.h"

PG_MODULE_MAGIC;

/* glibc >= 2.35 (ld.so) */
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

PG_FUNCTION_INFO_V1(rseq_glibc_user);

static int	load_cpu_id = -100;

static int
glibc_area_cpu_id(void)
{
	char	   *tp = (char *) __builtin_thread_pointer();

	/* struct rseq: cpu_id_start at 0, cpu_id at 4 */
	return *(volatile int32 *) (tp + __rseq_offset + 4);
}

static void *
sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

void
_PG_init(void)
{
	const char *t = getenv("RSEQ_GLIBC_USER_THREAD");

	load_cpu_id = glibc_area_cpu_id();
	if (t != NULL && strcmp(t, "1") == 0)
	{
		pthread_t	th;

		if (pthread_create(&th, NULL, sleeper, NULL) == 0)
			pthread_detach(th);
	}
}

Datum
rseq_glibc_user(PG_FUNCTION_ARGS)
{
	const int	n = 200;
	int			agree = 0;
	int			cpu_id = -100;
	unsigned	getcpu = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		unsigned	c = 0;

		if (syscall(SYS_getcpu, &c, NULL, NULL) != 0)
			c = (unsigned) -100;
		cpu_id = glibc_area_cpu_id();
		getcpu = c;
		if (cpu_id >= 0 && (unsigned) cpu_id == c)
			agree++;
	}
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("rseq_size=%u load_cpu_id=%d cpu_id=%d getcpu=%u agree=%d/%d",
											  __rseq_size, load_cpu_id, cpu_id,
											  getcpu, agree, n)));
}
