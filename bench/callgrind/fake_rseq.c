/*
 * bench/callgrind/fake_rseq.c: LD_PRELOAD shim for running PostgreSQL under
 * valgrind with the rseq lock layer able to resolve mode "measure".
 *
 * Valgrind does not pass the rseq system call through: glibc's start-up
 * registration fails, glibc then sets __rseq_size to 0 and the thread
 * area's cpu_id to RSEQ_CPU_ID_REGISTRATION_FAILED (-2), and valgrind also
 * hides AT_RSEQ_FEATURE_SIZE.  The patched server's probe
 * (lwlock_patch/rseq_slice_kernel.c) then finds no registered area and
 * resolves every mode to "off", so the "measure" fast path would never run
 * under callgrind.
 *
 * This constructor, only when it finds exactly that failed state, makes it
 * look as if glibc 2.36 had registered its legacy area, as it does on the
 * real kernel: __rseq_size = 20 (what glibc 2.36 reports natively) and
 * cpu_id_start = cpu_id = 0.  The lock layer then arms its marker in the
 * area's rseq_cs and reads it back at every release, exactly the
 * instructions it runs natively; the kernel never sees the area, so it is
 * never cleared (no "descheduled" events: the uncontended, not preempted
 * fast path).  Outside valgrind (a real registration) it does nothing.
 *
 * The run script preloads it into every configuration (stock included), so
 * its few dozen start-up instructions are the same everywhere.
 *
 * With PG_RSEQ_FAKE_SLICE=1 in the environment it also plays a Linux 7.x
 * kernel with the slice extension enabled, for configuration "upstream":
 * getauxval(AT_RSEQ_FEATURE_SIZE) = 33 and AT_RSEQ_ALIGN = 64 (what 7.2
 * reports, shared/docs/rseq-slice-abi.md), and
 * prctl(PR_RSEQ_SLICE_EXTENSION, GET) = 1 (SET: 0).  The lock layer then
 * resolves auto/upstream to upstream and runs the request path (request = 1
 * on depth 0 -> 1, request = 0 and a test of granted on 1 -> 0) on the
 * fake area's slice_ctrl bytes (offsets 28-29, inside glibc's 32-byte
 * struct rseq); nothing ever grants, so these are the uncontended,
 * not-granted costs.  syscall(471), rseq_slice_yield, returns 0 (see
 * syscall() below).  Every other getauxval/prctl/syscall goes to glibc.
 *
 * With PG_RSEQ_FAKE_SIZE=N (20 to 33) the faked registration reports
 * __rseq_size = N instead of 20: N = 33 is what glibc 2.41 and later
 * report on Linux 7.2 (the area covers slice_ctrl), which the core series
 * (lwlock_patch/core) needs before it asks the kernel for the extension
 * (configuration core-auto: PG_RSEQ_FAKE_SLICE=1 PG_RSEQ_FAKE_SIZE=33).
 * The area stays glibc's 32-byte TLS block: slice_ctrl (28-29) is inside
 * it.
 *
 * Build: cc -O2 -shared -fPIC -o fake_rseq.so fake_rseq.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
fake_slice(void)
{
	const char *v = getenv("PG_RSEQ_FAKE_SLICE");

	return v != NULL && strcmp(v, "1") == 0;
}

unsigned long
getauxval(unsigned long type)
{
	static unsigned long (*real) (unsigned long);

	if (fake_slice() && type == 27)		/* AT_RSEQ_FEATURE_SIZE */
		return 33;
	if (fake_slice() && type == 28)		/* AT_RSEQ_ALIGN */
		return 64;
	if (real == NULL)
		real = (unsigned long (*) (unsigned long)) dlsym(RTLD_NEXT, "getauxval");
	return real(type);
}

int
prctl(int option, ...)
{
	va_list		ap;
	unsigned long a2, a3, a4, a5;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (fake_slice() && option == 79)	/* PR_RSEQ_SLICE_EXTENSION */
		return a2 == 1 ? 1 : 0;			/* GET: enabled; SET: ok */
	return (int) syscall(SYS_prctl, option, a2, a3, a4, a5);
}

/*
 * With the fake slice, syscall(471) (rseq_slice_yield, which the core
 * series calls once at start-up through glibc's syscall() to find out
 * whether a seccomp filter refuses it) returns 0, as Linux 7.2 does
 * outside a grant; with PG_RSEQ_FAKE_YIELD_ERRNO=N it fails with errno N
 * instead, as under a filter that answers SCMP_ACT_ERRNO(N).  The lock
 * path's own yield is an inline system call and never comes here.
 */
long
syscall(long number, ...)
{
	static long (*real) (long, ...);
	va_list		ap;
	long		a[6];

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (fake_slice() && number == 471)
	{
		const char *e = getenv("PG_RSEQ_FAKE_YIELD_ERRNO");

		if (e != NULL && atoi(e) > 0)
		{
			errno = atoi(e);
			return -1;
		}
		return 0;
	}
	if (real == NULL)
		real = (long (*) (long, ...)) dlsym(RTLD_NEXT, "syscall");
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

__attribute__((constructor)) static void
fake_rseq_registration(void)
{
	struct rseq *area;
	uintptr_t	page;
	long		pagesize;
	unsigned int size = 20;
	const char *v = getenv("PG_RSEQ_FAKE_SIZE");

	if (v != NULL && *v != '\0')
	{
		char	   *end;
		long		n = strtol(v, &end, 10);

		if (*end == '\0' && n >= 20 && n <= 33)
			size = (unsigned int) n;
	}

	area = (struct rseq *) ((char *) __builtin_thread_pointer() + __rseq_offset);
	if (__rseq_size != 0 || (int32_t) area->cpu_id != RSEQ_CPU_ID_REGISTRATION_FAILED)
		return;					/* registered for real, or rseq disabled */

	/* __rseq_size lives in ld.so's RELRO: unprotect, write, protect again */
	pagesize = sysconf(_SC_PAGESIZE);
	page = (uintptr_t) &__rseq_size & ~(uintptr_t) (pagesize - 1);
	if (mprotect((void *) page, (size_t) pagesize, PROT_READ | PROT_WRITE) != 0)
		return;
	*(volatile unsigned int *) &__rseq_size = size;
	(void) mprotect((void *) page, (size_t) pagesize, PROT_READ);

	area->cpu_id_start = 0;
	area->cpu_id = 0;
}
