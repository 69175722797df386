/*
 * GoogleTest main for rseq_slice_unit, plus the yield hook.
 *
 * `rseq_slice_unit --rseq-child=selfreg` does not run GoogleTest: it is the
 * child that real_kernel_test.cc starts with GLIBC_TUNABLES=glibc.pthread.rseq=0
 * (see RealKernel.SetupRegistersOwnAreaWithoutGlibc).
 */
#include "test_support.h"

#include <cstring>

namespace rseq_test {
YieldFn yield_fn = nullptr;
long yield_value = 1;
uint64_t yield_calls = 0;

long yield_hook(struct rseq_slice_state *s)
{
	yield_calls++;
	if (yield_fn != nullptr)
		return yield_fn(s);
	return yield_value;
}

int child_main(const char *what);	/* real_kernel_test.cc */
}  // namespace rseq_test

/* The slow path in rseq_slice_kernel.c yields here (yield_hook_c.h). */
extern "C" long rseq_test_c_yield_hook(struct rseq_slice_state *s)
{
	return rseq_test::yield_hook(s);
}

int main(int argc, char **argv)
{
	static const char child_opt[] = "--rseq-child=";

	if (argc == 2 && strncmp(argv[1], child_opt, sizeof(child_opt) - 1) == 0)
		return rseq_test::child_main(argv[1] + sizeof(child_opt) - 1);
	::testing::InitGoogleTest(&argc, argv);
	return RUN_ALL_TESTS();
}
