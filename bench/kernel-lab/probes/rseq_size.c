/*
 * rseq_size.c: print the size and flags of the rseq area glibc registered
 * for this thread (glibc 2.35 and later: __rseq_size, __rseq_offset,
 * __rseq_flags from <sys/rseq.h>), and the AT_RSEQ_FEATURE_SIZE the kernel
 * passed (0 if none).  No input; prints one line
 * "rseq_size=N rseq_offset=N feature_size=N cpu_id=N"; exit 0.
 * Used by core-counts-in-guest to show which area (32 bytes: legacy; more:
 * V2) a glibc gives the server.
 */
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/rseq.h>

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

int
main(void)
{
	struct rseq *area = (struct rseq *) ((char *) __builtin_thread_pointer() + __rseq_offset);

	printf("rseq_size=%u rseq_offset=%ld feature_size=%lu cpu_id=%d\n",
		   __rseq_size, (long) __rseq_offset, getauxval(AT_RSEQ_FEATURE_SIZE),
		   __rseq_size ? (int) area->cpu_id : -1);
	return 0;
}
