/*
 * 8. Who owns the rseq registration: rseq_slice_register_decide (the
 *    rseq_slice_register policy against synthetic facts), the detection of
 *    other users of glibc's area (rseq_slice_known_rseq_library,
 *    rseq_slice_find_rseq_user with dlopened fixtures,
 *    rseq_slice_count_threads), and rseq_slice_setup_process on the running
 *    kernel under each policy.
 *
 * Everything that changes the process (dlopen, threads, registrations) runs
 * in a forked child, so that the order of the tests does not matter.
 */
#include "test_support.h"
#include "kernel_rseq.h"

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

/* ---- rseq_slice_register_decide ---- */

rseq_slice_register_facts Facts(uint32_t fsize, uint32_t glibc_size, uint32_t glibc_len)
{
	rseq_slice_register_facts f;

	memset(&f, 0, sizeof(f));
	f.feature_size = fsize;
	f.glibc_size = glibc_size;
	f.glibc_len = glibc_len;
	f.glibc_registered = glibc_size > 0;
	f.threads = 1;
	return f;
}

/* glibc 2.36 on 7.2, 2.36 on 6.18, 2.43 on 6.18 (measured), 2.43 on 7.2 */
const rseq_slice_register_facts kOldGlibcNewKernel = Facts(33, 20, 32);
const rseq_slice_register_facts kOldGlibcOldKernel = Facts(28, 20, 32);
const rseq_slice_register_facts kNewGlibcOldKernel = Facts(28, 28, 32);
const rseq_slice_register_facts kNewGlibcNewKernel = Facts(33, 33, 33);

rseq_slice_register_action Decide(rseq_slice_register_policy pol, const rseq_slice_register_facts &f,
								  std::string *why = nullptr)
{
	char		buf[512];

	memset(buf, 'x', sizeof(buf));
	rseq_slice_register_action a = rseq_slice_register_decide(pol, &f, buf, sizeof(buf));

	EXPECT_NE(memchr(buf, '\0', sizeof(buf)), nullptr);
	EXPECT_GT(strlen(buf), 5u) << "a reason is always given";
	EXPECT_EQ(rseq_slice_register_decide(pol, &f, nullptr, 0), a) << "why may be NULL";
	if (why)
		*why = buf;
	return a;
}

bool Has(const std::string &s, const char *part)
{
	return s.find(part) != std::string::npos;
}

constexpr rseq_slice_register_policy kPolicies[] = {
	RSEQ_SLICE_REGISTER_AUTO, RSEQ_SLICE_REGISTER_NEVER, RSEQ_SLICE_REGISTER_ALWAYS};

TEST(RegisterDecide, Names)
{
	EXPECT_STREQ(rseq_slice_register_names[RSEQ_SLICE_REGISTER_AUTO], "auto");
	EXPECT_STREQ(rseq_slice_register_names[RSEQ_SLICE_REGISTER_NEVER], "never");
	EXPECT_STREQ(rseq_slice_register_names[RSEQ_SLICE_REGISTER_ALWAYS], "always");
}

/* The case the postmaster re-registers for: glibc < 2.41 on Linux 7.x. */
TEST(RegisterDecide, OldGlibcOnSliceKernel)
{
	std::string why;

	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, kOldGlibcNewKernel, &why), RSEQ_SLICE_ACTION_REPLACE);
	EXPECT_TRUE(Has(why, "rseq_slice_register = auto: glibc's area is legacy")) << why;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_NEVER, kOldGlibcNewKernel, &why), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(why, "rseq_slice_register = never");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_ALWAYS, kOldGlibcNewKernel, &why), RSEQ_SLICE_ACTION_REPLACE);
	EXPECT_EQ(why, "rseq_slice_register = always");
	/* the registered length unknown: still decided from __rseq_size */
	rseq_slice_register_facts f = kOldGlibcNewKernel;

	f.glibc_len = 0;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, f), RSEQ_SLICE_ACTION_REPLACE);
}

/* 6.x: nothing to gain, auto keeps glibc's area; always replaces it anyway. */
TEST(RegisterDecide, KernelWithoutSliceField)
{
	for (const rseq_slice_register_facts &f : {kOldGlibcOldKernel, kNewGlibcOldKernel})
	{
		std::string why;

		EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, f, &why), RSEQ_SLICE_ACTION_KEEP);
		EXPECT_EQ(why, "rseq_slice_register = auto: the kernel has no slice field");
		EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_NEVER, f), RSEQ_SLICE_ACTION_KEEP);
		EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_ALWAYS, f), RSEQ_SLICE_ACTION_REPLACE);
	}
	/* feature size 32 (legacy size reported by a kernel) is no slice field */
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, Facts(32, 20, 32)), RSEQ_SLICE_ACTION_KEEP);
}

/* glibc 2.41+: its area is V2 already, decided from __rseq_size. */
TEST(RegisterDecide, NewGlibcAreaIsUsed)
{
	std::string why;

	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, kNewGlibcNewKernel, &why), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(why, "rseq_slice_register = auto: glibc's area is already v2");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_NEVER, kNewGlibcNewKernel), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_ALWAYS, kNewGlibcNewKernel), RSEQ_SLICE_ACTION_REPLACE);
	/* __rseq_size >= 33 alone, the length not read back */
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, Facts(33, 33, 0)), RSEQ_SLICE_ACTION_KEEP);
	/* a later kernel with a larger feature size and glibc following it */
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, Facts(40, 40, 40)), RSEQ_SLICE_ACTION_KEEP);
	/* registered longer than 32 bytes whatever __rseq_size says */
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, Facts(33, 20, 64)), RSEQ_SLICE_ACTION_KEEP);
	/* __rseq_size 32 (a glibc that registered exactly the legacy size) is legacy */
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, Facts(33, 32, 32)), RSEQ_SLICE_ACTION_REPLACE);
}

/* Other users of glibc's area: auto keeps it, always replaces and says so. */
TEST(RegisterDecide, DetectedUsersKeepGlibcArea)
{
	rseq_slice_register_facts f = kOldGlibcNewKernel;
	std::string why;

	f.threads = 2;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, f, &why), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(why, "rseq_slice_register = auto: the process has 2 threads");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_ALWAYS, f, &why), RSEQ_SLICE_ACTION_REPLACE);
	EXPECT_TRUE(Has(why, "although the process has 2 threads")) << why;

	f.threads = 1;
	snprintf(f.rseq_user, sizeof(f.rseq_user), "librseq.so.0 (a library known to use rseq)");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, f, &why), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(why, "rseq_slice_register = auto: librseq.so.0 (a library known to use rseq) uses glibc's area");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_ALWAYS, f, &why), RSEQ_SLICE_ACTION_REPLACE);
	EXPECT_TRUE(Has(why, "although librseq.so.0")) << why;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_NEVER, f), RSEQ_SLICE_ACTION_KEEP);

	/* 0 threads = not counted: no reason to keep */
	f.rseq_user[0] = '\0';
	f.threads = 0;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, f), RSEQ_SLICE_ACTION_REPLACE);
}

/* Every reason is listed, so that a 6.18 log already names the users. */
TEST(RegisterDecide, AllReasonsListed)
{
	rseq_slice_register_facts f = kOldGlibcOldKernel;
	std::string why;

	f.threads = 3;
	snprintf(f.rseq_user, sizeof(f.rseq_user), "libx.so (references __rseq_offset)");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, f, &why), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(why, "rseq_slice_register = auto: the kernel has no slice field; the process has 3 "
				   "threads; libx.so (references __rseq_offset) uses glibc's area");
}

/* Nobody registered (GLIBC_TUNABLES=glibc.pthread.rseq=0): ours, whatever the policy. */
TEST(RegisterDecide, NoGlibcAreaRegistersOurs)
{
	for (rseq_slice_register_policy pol : kPolicies)
		for (uint32_t fs : {28u, 33u})
		{
			std::string why;

			EXPECT_EQ(Decide(pol, Facts(fs, 0, 0), &why), RSEQ_SLICE_ACTION_REGISTER)
				<< rseq_slice_register_names[pol];
			EXPECT_EQ(why, "glibc registered no rseq area (__rseq_size 0)");
		}
	/* a library that may register its own area: left to it, except always */
	rseq_slice_register_facts u = Facts(33, 0, 0);
	std::string why;

	snprintf(u.rseq_user, sizeof(u.rseq_user), "libtcmalloc.so.4 (a library known to use rseq)");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, u, &why), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(why, "glibc registered no rseq area (__rseq_size 0), not registering ours "
				   "(rseq_slice_register = auto: libtcmalloc.so.4 (a library known to use rseq) "
				   "may register its own)");
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_NEVER, u), RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_ALWAYS, u, &why), RSEQ_SLICE_ACTION_REGISTER);
	EXPECT_EQ(why, "glibc registered no rseq area (__rseq_size 0) (rseq_slice_register = always, "
				   "although libtcmalloc.so.4 (a library known to use rseq) may register its own)");
	/* threads alone do not stop it: a thread has its own registration */
	u.rseq_user[0] = '\0';
	u.threads = 4;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_AUTO, u), RSEQ_SLICE_ACTION_REGISTER);

	/* __rseq_size set but registration failed (cpu_id -2): registers too */
	rseq_slice_register_facts f = Facts(28, 20, 0);

	f.glibc_registered = 0;
	EXPECT_EQ(Decide(RSEQ_SLICE_REGISTER_NEVER, f), RSEQ_SLICE_ACTION_REGISTER);
	/* no feature size (no rseq, or a kernel before 6.3): nothing */
	for (rseq_slice_register_policy pol : kPolicies)
		EXPECT_EQ(Decide(pol, Facts(0, 0, 0)), RSEQ_SLICE_ACTION_KEEP);
}

TEST(RegisterDecide, OwnRegistrationIsKept)
{
	for (rseq_slice_register_policy pol : kPolicies)
		for (const rseq_slice_register_facts &base : {kOldGlibcNewKernel, kOldGlibcOldKernel, Facts(33, 0, 0)})
		{
			rseq_slice_register_facts f = base;
			std::string why;

			f.self_registered = 1;
			f.glibc_registered = 0;
			EXPECT_EQ(Decide(pol, f, &why), RSEQ_SLICE_ACTION_KEEP);
			EXPECT_EQ(why, "already registered by this process");
		}
}

TEST(RegisterDecide, ShortReasonBuffer)
{
	char		buf[8];

	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(rseq_slice_register_decide(RSEQ_SLICE_REGISTER_AUTO, &kOldGlibcOldKernel, buf, 5),
			  RSEQ_SLICE_ACTION_KEEP);
	EXPECT_EQ(strlen(buf), 4u);
	EXPECT_EQ(buf[5], 'x');
}

/* ---- detection ---- */

TEST(RegisterDetect, KnownLibraryNames)
{
	for (const char *n : {"librseq.so", "librseq.so.0", "/usr/lib/x86_64-linux-gnu/librseq.so.0.1.0",
						  "libtcmalloc.so.4", "libtcmalloc_minimal.so.4", "/opt/x/libtcmalloc_and_profiler.so",
						  "liblttng-ust.so.1"})
		EXPECT_EQ(rseq_slice_known_rseq_library(n), 1) << n;
	for (const char *n : {"libc.so.6", "libstdc++.so.6", "librseqx.a", "librseq", "libtcmalloc.a",
						  "/usr/lib/librseq/libfoo.so", "pg_rseq.so", "", (const char *) nullptr})
		EXPECT_EQ(rseq_slice_known_rseq_library(n), 0) << (n ? n : "(null)");
}

/*
 * Run fn in a forked child; its return value is the exit status, what it
 * writes to `out` (a pipe) comes back as the string.
 */
template <typename F>
int InChild(F fn, std::string *text)
{
	int			fds[2];

	fflush(stdout);
	if (pipe(fds) != 0)
		return -1;
	pid_t		pid = fork();

	if (pid == 0)
	{
		close(fds[0]);
		FILE	   *out = fdopen(fds[1], "w");
		int			rc = fn(out);

		fclose(out);
		_exit(rc);
	}
	close(fds[1]);
	char		buf[4096];
	ssize_t		n;

	text->clear();
	while ((n = read(fds[0], buf, sizeof(buf))) != 0)
	{
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			break;
		}
		text->append(buf, (size_t) n);
	}
	close(fds[0]);
	int			st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* This test binary itself (the main program, references __rseq_offset) is not named. */
TEST(RegisterDetect, NothingLoadedUsesGlibcArea)
{
	char		out[128];

	memset(out, 'x', sizeof(out));
	EXPECT_EQ(rseq_slice_find_rseq_user(out, sizeof(out)), 0) << out;
	EXPECT_STREQ(out, "");
	EXPECT_EQ(rseq_slice_find_rseq_user(nullptr, 0), 0);
}

TEST(RegisterDetect, LibraryReferencingRseqOffsetIsNamed)
{
	std::string text;
	int			rc = InChild([](FILE *out) {
		char		u[128];

		if (dlopen(PLAIN_FIXTURE, RTLD_NOW) == nullptr)
			return 3;
		if (rseq_slice_find_rseq_user(u, sizeof(u)) != 0)
			return fprintf(out, "plain named: %s", u), 4;
		if (dlopen(OWN_COPY_FIXTURE, RTLD_NOW | RTLD_LOCAL) == nullptr)
			return 5;
		if (rseq_slice_find_rseq_user(u, sizeof(u)) != 0)
			return fprintf(out, "own copy named: %s", u), 6;
		void	   *h = dlopen(RSEQ_USER_FIXTURE, RTLD_NOW);

		if (h == nullptr)
			return 7;
		if (rseq_slice_find_rseq_user(u, sizeof(u)) != 1)
			return 8;
		fprintf(out, "%s", u);
		/* the fixture really reads glibc's area: the cpu we run on */
		auto		cpu = (int (*)(void)) dlsym(h, "rseq_user_fixture_cpu");

		if (cpu == nullptr)
			return 9;
		int			c = cpu();

		if (__rseq_size > 0 && (c < 0 || c >= CPU_SETSIZE))
			return 10;
		return 0;
	}, &text);

	EXPECT_EQ(rc, 0) << text;
	EXPECT_EQ(text, "librseq_user_fixture.so (references __rseq_offset)");
}

TEST(RegisterDetect, KnownLibraryIsNamedByName)
{
	std::string text;
	int			rc = InChild([](FILE *out) {
		char		u[128];

		if (dlopen(FAKE_LIBRSEQ, RTLD_NOW) == nullptr)
			return 3;
		if (rseq_slice_find_rseq_user(u, sizeof(u)) != 1)
			return 4;
		fprintf(out, "%s", u);
		return 0;
	}, &text);

	EXPECT_EQ(rc, 0) << text;
	EXPECT_EQ(text, "librseq.so (a library known to use rseq)");
}

void *Sleeper(void *)
{
	for (;;)
		pause();
	return nullptr;
}

TEST(RegisterDetect, CountThreads)
{
	std::string text;
	int			rc = InChild([](FILE *out) {
		int			before = rseq_slice_count_threads();
		pthread_t	t;

		if (pthread_create(&t, nullptr, Sleeper, nullptr) != 0)
			return 3;
		int			after = rseq_slice_count_threads();

		fprintf(out, "%d %d", before, after);
		return 0;
	}, &text);

	EXPECT_EQ(rc, 0);
#if defined(__x86_64__)
	EXPECT_EQ(text, "1 2") << "a forked child has one thread, then two";
#else
	/*
	 * The aarch64 build runs under qemu-user, which keeps a thread of its
	 * own in every process (its RCU thread, re-created in a forked child:
	 * "2 3" with qemu-aarch64 7.2.22): one more thread counts one more.
	 */
	int			before = -1,
				after = -1;

	ASSERT_EQ(sscanf(text.c_str(), "%d %d", &before, &after), 2) << text;
	EXPECT_GE(before, 1) << text;
	EXPECT_EQ(after, before + 1) << text;
#endif
}

/* ---- rseq_slice_setup_process on the running kernel ---- */

bool KernelHasSliceField()
{
	return getauxval(RSEQ_SLICE_AT_FEATURE_SIZE) >= RSEQ_SLICE_FEATURE_SIZE_SLICE;
}

volatile rseq_slice_area *GlibcArea()
{
	return (volatile rseq_slice_area *) ((char *) __builtin_thread_pointer() + __rseq_offset);
}

/* Set up under pol in a child; "owner|reg_len|glibc cpu_id|sched_getcpu ok|note|reason". */
std::string SetupInChild(rseq_slice_register_policy pol, const char *dlopen_first, bool thread_first,
						 int *rc)
{
	std::string text;

	struct Args
	{
		rseq_slice_register_policy pol;
		const char *lib;
		bool		thread;
	}			args = {pol, dlopen_first, thread_first};

	*rc = InChild([&args](FILE *out) {
		static rseq_slice_area_storage storage;
		rseq_slice_probe p;
		pthread_t	t;

		if (args.lib != nullptr && dlopen(args.lib, RTLD_NOW) == nullptr)
			return 3;
		if (args.thread && pthread_create(&t, nullptr, Sleeper, nullptr) != 0)
			return 4;
		rseq_slice_setup_process(&p, &storage, args.pol);
		int			cpu = sched_getcpu();

		fprintf(out, "%s|%u|%d|%d|%s|%s", rseq_slice_owner_names[p.owner], p.reg_len,
				(int) GlibcArea()->cpu_id, cpu >= 0 && cpu < CPU_SETSIZE ? 1 : 0,
				p.register_note, p.reason);
		return 0;
	}, &text);
	return text;
}

std::vector<std::string> Split(const std::string &s)
{
	std::vector<std::string> v;
	size_t		pos = 0,
				bar;

	while ((bar = s.find('|', pos)) != std::string::npos && v.size() < 5)
	{
		v.push_back(s.substr(pos, bar - pos));
		pos = bar + 1;
	}
	v.push_back(s.substr(pos));
	return v;
}

TEST(RegisterSetup, NeverKeepsGlibcArea)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	if (__rseq_size == 0)
		GTEST_SKIP() << "glibc did not register rseq here (GLIBC_TUNABLES?)";
	int			rc;
	auto		v = Split(SetupInChild(RSEQ_SLICE_REGISTER_NEVER, nullptr, false, &rc));

	ASSERT_EQ(rc, 0);
	ASSERT_EQ(v.size(), 6u);
	printf("[ info ] never: %s\n", v[5].c_str());
	EXPECT_EQ(v[0], "glibc");
	EXPECT_EQ(v[1], std::to_string(__rseq_size > 32 ? __rseq_size : 32));
	EXPECT_NE(v[2], "-1") << "glibc's area is still updated by the kernel";
	EXPECT_EQ(v[3], "1");
	EXPECT_EQ(v[4], "kept (rseq_slice_register = never)");
	EXPECT_TRUE(Has(v[5], "rseq registered by glibc (")) << v[5];
	EXPECT_TRUE(Has(v[5], ", kept (rseq_slice_register = never)")) << v[5];
	EXPECT_TRUE(Has(v[5], ("__rseq_size " + std::to_string(__rseq_size) + ")").c_str())) << v[5];
}

TEST(RegisterSetup, AlwaysReplacesGlibcArea)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	if (__rseq_size == 0)
		GTEST_SKIP() << "glibc did not register rseq here (GLIBC_TUNABLES?)";
	int			rc;
	auto		v = Split(SetupInChild(RSEQ_SLICE_REGISTER_ALWAYS, RSEQ_USER_FIXTURE, false, &rc));

	ASSERT_EQ(rc, 0);
	ASSERT_EQ(v.size(), 6u);
	printf("[ info ] always: %s\n", v[5].c_str());
	EXPECT_EQ(v[0], "postgres");
	/* the kernel resets the unregistered area: cpu_id reads -1 from now on */
	EXPECT_EQ(v[2], "-1") << "glibc's area is no longer updated";
	EXPECT_EQ(v[3], "1") << "sched_getcpu falls back to the system call";
	/* glibc 2.36: legacy 32 bytes; 2.41+ on 7.x: v2, the feature size */
	EXPECT_TRUE(Has(v[4], "replacing glibc's (legacy, 32 bytes, __rseq_size ") ||
				Has(v[4], "replacing glibc's (v2, ")) << v[4];
	EXPECT_TRUE(Has(v[4], "rseq_slice_register = always, although librseq_user_fixture.so "
						  "(references __rseq_offset) uses glibc's area")) << v[4];
	EXPECT_TRUE(Has(v[5], "rseq registered by postgres (")) << v[5];
	EXPECT_EQ(v[1], std::to_string(KernelHasSliceField() ? 64 : 32));
}

TEST(RegisterSetup, AutoWithUsersKeepsGlibcArea)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	if (__rseq_size == 0)
		GTEST_SKIP() << "glibc did not register rseq here (GLIBC_TUNABLES?)";
	int			rc;
	auto		v = Split(SetupInChild(RSEQ_SLICE_REGISTER_AUTO, RSEQ_USER_FIXTURE, true, &rc));

	ASSERT_EQ(rc, 0);
	ASSERT_EQ(v.size(), 6u);
	printf("[ info ] auto, fixture loaded, 2 threads: %s\n", v[5].c_str());
	EXPECT_EQ(v[0], "glibc");
	EXPECT_NE(v[2], "-1");
	EXPECT_TRUE(Has(v[4], "kept (rseq_slice_register = auto: ")) << v[4];
	EXPECT_TRUE(Has(v[4], "the process has 2 threads")) << v[4];
	EXPECT_TRUE(Has(v[4], "librseq_user_fixture.so (references __rseq_offset) uses glibc's area")) << v[4];
	if (!KernelHasSliceField())
	{
		EXPECT_TRUE(Has(v[4], "the kernel has no slice field")) << v[4];
	}
}

TEST(RegisterSetup, AutoAloneOnThisKernel)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	if (__rseq_size == 0)
		GTEST_SKIP() << "glibc did not register rseq here (GLIBC_TUNABLES?)";
	int			rc;
	auto		v = Split(SetupInChild(RSEQ_SLICE_REGISTER_AUTO, nullptr, false, &rc));

	ASSERT_EQ(rc, 0);
	ASSERT_EQ(v.size(), 6u);
	printf("[ info ] auto: %s\n", v[5].c_str());
	if (!KernelHasSliceField())
	{
		EXPECT_EQ(v[0], "glibc");
		EXPECT_EQ(v[4], "kept (rseq_slice_register = auto: the kernel has no slice field)");
	}
	else if (__rseq_size >= RSEQ_SLICE_FEATURE_SIZE_SLICE)
	{
		EXPECT_EQ(v[0], "glibc");
		EXPECT_EQ(v[4], "kept (rseq_slice_register = auto: glibc's area is already v2)");
	}
	else
	{
		EXPECT_EQ(v[0], "postgres");
		EXPECT_TRUE(Has(v[4], "rseq_slice_register = auto: glibc's area is legacy")) << v[4];
	}
}

/* The length the probe reports is the one the kernel confirms (EBUSY). */
TEST(RegisterSetup, ProbeReadsGlibcLengthBack)
{
	SKIP_WITHOUT_KERNEL_RSEQ();
	if (__rseq_size == 0)
		GTEST_SKIP() << "glibc did not register rseq here (GLIBC_TUNABLES?)";
	rseq_slice_probe p;
	rseq_slice_register_facts f;

	rseq_slice_probe_thread(&p);
	rseq_slice_gather_facts(&f, 0);
	ASSERT_EQ(p.owner, RSEQ_SLICE_OWNER_GLIBC);
	EXPECT_EQ(f.glibc_registered, 1);
	EXPECT_EQ(f.glibc_size, __rseq_size);
	EXPECT_EQ(f.glibc_len, p.reg_len);
	EXPECT_EQ(f.threads, 0) << "not counted without detect";
	errno = 0;
	EXPECT_EQ(syscall(RSEQ_SLICE_NR_RSEQ, p.area, p.reg_len, 0, RSEQ_SLICE_SIG), -1);
	EXPECT_EQ(errno, EBUSY);
	errno = 0;
	EXPECT_EQ(syscall(RSEQ_SLICE_NR_RSEQ, p.area, p.reg_len + 1, 0, RSEQ_SLICE_SIG), -1);
	EXPECT_EQ(errno, EINVAL);
	printf("[ info ] glibc: __rseq_size %u, registered %u bytes\n", __rseq_size, p.reg_len);
}

}  // namespace
