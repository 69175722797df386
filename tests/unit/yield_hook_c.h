/*
 * Force-included (-include) into lwlock_patch/rseq_slice_kernel.c for the
 * unit tests only: the out-of-line slow path of the protocol then calls
 * the tests' emulated rseq_slice_yield (main.cc) instead of the system
 * call, like the inline fast path in the test files (test_support.h).
 */
#ifndef PG_RSEQ_YIELD_HOOK_C_H
#define PG_RSEQ_YIELD_HOOK_C_H
struct rseq_slice_state;
#ifdef __cplusplus
extern "C"
#endif
long		rseq_test_c_yield_hook(struct rseq_slice_state *s);
#define RSEQ_SLICE_YIELD_HOOK(s) rseq_test_c_yield_hook(s)
#endif
