/*
 * 15. What the probe concludes from the kernel's answers to the slice
 *     prctl (rseq_slice_setup_process, rseq_slice_resolve), for kernels
 *     this machine does not run: the prctl and getauxval are replaced in
 *     this test binary by versions that answer as those kernels do (facts
 *     from Linux 7.2.13: include/linux/rseq.h, kernel/rseq.c):
 *       - built with the extension, disabled at boot: SET -> ENOTSUPP on a
 *         V2 registration, GET -> 0;
 *       - built without it (every arm64 7.2 kernel: no GENERIC_ENTRY):
 *         SET and GET -> ENOTSUPP (the stub of include/linux/rseq.h);
 *       - no prctl 79 (every kernel before 7.0): SET and GET -> EINVAL.
 *     The feature size (AT_RSEQ_FEATURE_SIZE) reads 33 as on 7.2, so that
 *     the probe registers a V2 area (64 bytes; the running kernel accepts
 *     that length from 6.3 on).  Outside these tests both functions pass
 *     every call to glibc's own.
 *
 * Each case runs in a forked child: it changes the process's registration.
 */
#include "test_support.h"
#include "kernel_rseq.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <string>

#include <dlfcn.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

/* what the faked kernel answers; 0 = pass every call to glibc */
int			fake_on = 0;
int			fake_set_errno = 0;	/* SET (2): -1 with this errno */
int			fake_get_errno = 0;	/* GET (1): -1 with this errno, else 0 */

}  // namespace

extern "C" int prctl(int option, ...) noexcept
{
	va_list		ap;
	unsigned long a[4];

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (fake_on && option == RSEQ_SLICE_PR_SLICE_EXTENSION)
	{
		int			err = a[0] == RSEQ_SLICE_PR_SET ? fake_set_errno :
			a[0] == RSEQ_SLICE_PR_GET ? fake_get_errno : EINVAL;

		if (err == 0)
			return 0;
		errno = err;
		return -1;
	}
	static auto real = reinterpret_cast<int (*)(int, ...)>(dlsym(RTLD_NEXT, "prctl"));

	return real(option, a[0], a[1], a[2], a[3]);
}

extern "C" unsigned long getauxval(unsigned long type) noexcept
{
	if (fake_on && type == RSEQ_SLICE_AT_FEATURE_SIZE)
		return RSEQ_SLICE_FEATURE_SIZE_SLICE;
	if (fake_on && type == RSEQ_SLICE_AT_ALIGN)
		return 32;
	static auto real = reinterpret_cast<unsigned long (*)(unsigned long)>(dlsym(RTLD_NEXT, "getauxval"));

	return real(type);
}

namespace {

/*
 * Set up the process as the postmaster does (rseq_slice_register = always)
 * against the faked kernel, in a child; returns
 * "slice|errno|reg_len|mode|because" or "error N".
 */
std::string Probe(int set_errno, int get_errno)
{
	int			fds[2];

	if (pipe(fds) != 0)
		return "error pipe";
	fflush(stdout);
	pid_t		pid = fork();

	if (pid == 0)
	{
		static rseq_slice_area_storage storage;
		rseq_slice_probe p;
		char		why[256],
					eb[16],
					out[600];

		close(fds[0]);
		fake_on = 1;
		fake_set_errno = set_errno;
		fake_get_errno = get_errno;
		rseq_slice_setup_process(&p, &storage, RSEQ_SLICE_REGISTER_ALWAYS);
		rseq_slice_mode m = rseq_slice_resolve(RSEQ_SLICE_MODE_AUTO, &p, why, sizeof(why));
		int			n = snprintf(out, sizeof(out), "%s|%s|%u|%s|%s",
								 rseq_slice_ext_names[p.slice],
								 p.slice_errno ? rseq_slice_errno_name(p.slice_errno, eb, sizeof(eb)) : "-",
								 (unsigned) p.reg_len, rseq_slice_mode_names[m], why);

		if (write(fds[1], out, (size_t) n) != n)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	std::string text;
	char		buf[1024];
	ssize_t		n;

	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		text.append(buf, (size_t) n);
	close(fds[0]);
	int			st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return "error " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st));
	return text;
}

TEST(ProbeErrno, BuiltWithExtensionDisabledAtBoot)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	EXPECT_EQ(Probe(RSEQ_SLICE_ENOTSUPP, 0),
			  "disabled|ENOTSUPP|64|measure|the slice extension is disabled on this kernel");
}

TEST(ProbeErrno, BuiltWithoutExtensionIsUnavailable)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	/* arm64 7.2: not "disabled at boot", the kernel has none */
	EXPECT_EQ(Probe(RSEQ_SLICE_ENOTSUPP, RSEQ_SLICE_ENOTSUPP),
			  "unavailable|ENOTSUPP|64|measure|the kernel has no slice extension");
}

TEST(ProbeErrno, NoSlicePrctlIsUnavailable)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	EXPECT_EQ(Probe(EINVAL, EINVAL),
			  "unavailable|EINVAL|64|measure|the kernel has no slice extension");
}

TEST(ProbeErrno, FakesPassThroughOutsideTheCases)
{
	/* the other tests of this binary see glibc's own functions */
	EXPECT_EQ(getauxval(AT_PAGESZ), (unsigned long) sysconf(_SC_PAGESIZE));
	errno = 0;
	EXPECT_EQ(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) >= 0, true);
}

}  // namespace
