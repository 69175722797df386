/*
 * portable_fallback.c: the protocol header and rseq_slice_kernel.c as
 * every platform but x86_64 and aarch64 Linux compiles them
 * (RSEQ_SLICE_FORCE_UNSUPPORTED, set by CMakeLists.txt; built for the
 * host and, in `make unit-check-aarch64`, for aarch64 too): they must
 * compile, and behave as stock
 * PostgreSQL: no registration, every mode resolves to off, sections change
 * nothing.  Prints one line per check; exit 0 only if all hold.
 */
#include "rseq_slice.h"

#include <stdio.h>
#include <string.h>

static int failed;

/* The unit tests' build routes rseq_slice_kernel.c's yields here (CMake). */
long		rseq_test_c_yield_hook(struct rseq_slice_state *s);

long
rseq_test_c_yield_hook(struct rseq_slice_state *s)
{
	(void) s;
	return 0;
}

static void
check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failed = 1;
}

int
main(void)
{
	rseq_slice_probe p;
	rseq_slice_area_storage storage;
	rseq_slice_counters ctr;
	rseq_slice_state s;
	char		why[200];

	memset(&ctr, 0, sizeof(ctr));
	check("RSEQ_SLICE_SUPPORTED is 0", RSEQ_SLICE_SUPPORTED == 0);
	check("no architecture's asm is in force", RSEQ_SLICE_X86_64 == 0 && RSEQ_SLICE_AARCH64 == 0);
	(void) rseq_slice_setup_process(&p, &storage, RSEQ_SLICE_REGISTER_ALWAYS);
	check("the set-up registers nothing", p.registered == 0 && p.area == NULL);
	check("auto resolves to off",
		  rseq_slice_resolve(RSEQ_SLICE_MODE_AUTO, &p, why, sizeof(why)) == RSEQ_SLICE_MODE_OFF);
	check("upstream resolves to off",
		  rseq_slice_resolve(RSEQ_SLICE_MODE_UPSTREAM, &p, why, sizeof(why)) == RSEQ_SLICE_MODE_OFF);
	rseq_slice_state_init(&s, RSEQ_SLICE_MODE_MEASURE, &p, &ctr);
	check("a state without an area is in mode off", s.mode == RSEQ_SLICE_MODE_OFF);
	rseq_slice_enter(&s, 0);
	rseq_slice_enter(&s, 2);
	check("sections leave no trace", rseq_slice_leave(&s) == 0 && rseq_slice_leave(&s) == 0 &&
		  s.depth == 0 && ctr.descheduled == 0 && ctr.grants == 0);
	check("the debug-mode probe cannot tell", rseq_slice_kernel_validates(NULL, 0) == -1);
	check("no rseq user looked for", rseq_slice_find_rseq_user(why, sizeof(why)) == 0);
	return failed;
}
