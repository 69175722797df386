/*
 * kernel_rseq.h: does the kernel the tests run on implement rseq at all?
 *
 * Under qemu's user-mode emulator (`make unit-check-aarch64`) it does not:
 * qemu-aarch64 7.2 answers rseq() with ENOSYS (so glibc registers nothing,
 * __rseq_size 0, and AT_RSEQ_FEATURE_SIZE is absent), and so does a kernel
 * built without CONFIG_RSEQ.  Tests that need a real registration skip
 * there with this reason instead of failing.  Include after rseq_slice.h.
 */
#ifndef PG_RSEQ_KERNEL_RSEQ_H
#define PG_RSEQ_KERNEL_RSEQ_H

#include <cerrno>

#include <sys/syscall.h>
#include <unistd.h>

namespace rseq_test {

/*
 * nullptr if rseq() exists here, else why not.  The probe changes nothing:
 * rseq(NULL, 0, 0, sig) is EINVAL (length below 32) on every kernel with
 * rseq (EBUSY/EINVAL when the thread is registered), ENOSYS without.
 */
inline const char *NoKernelRseq()
{
	errno = 0;
	if (syscall(RSEQ_SLICE_NR_RSEQ, nullptr, 0, 0, RSEQ_SLICE_SIG) == -1 && errno == ENOSYS)
		return "rseq() is not implemented here (ENOSYS): qemu's user-mode emulator, or a "
			"kernel without CONFIG_RSEQ; this test needs a real registration";
	return nullptr;
}

}  // namespace rseq_test

#define SKIP_WITHOUT_KERNEL_RSEQ() \
	do { \
		if (const char *why_ = ::rseq_test::NoKernelRseq()) \
			GTEST_SKIP() << why_; \
	} while (0)

#endif							/* PG_RSEQ_KERNEL_RSEQ_H */
