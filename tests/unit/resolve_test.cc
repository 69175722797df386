/*
 * 5. (second half) rseq_slice_resolve for each requested mode against
 *    synthetic probes, and rseq_slice_mode_from_name.
 */
#include "test_support.h"

#include <cerrno>
#include <string>

namespace {

rseq_slice_area_storage g_storage;

rseq_slice_probe Probe(int registered, uint32_t feature_size, rseq_slice_ext slice)
{
	rseq_slice_probe p;

	memset(&p, 0, sizeof(p));
	p.registered = registered;
	p.area = registered ? &g_storage.u.area : nullptr;
	p.owner = registered ? RSEQ_SLICE_OWNER_GLIBC : RSEQ_SLICE_OWNER_NONE;
	p.feature_size = feature_size;
	p.reg_len = feature_size > 32 ? 64 : 32;
	p.slice = slice;
	p.slice_ext_nsec = -1;
	return p;
}

rseq_slice_mode Resolve(rseq_slice_mode req, const rseq_slice_probe &p, std::string *why = nullptr)
{
	char		buf[256];

	memset(buf, 'x', sizeof(buf));
	rseq_slice_mode m = rseq_slice_resolve(req, &p, buf, sizeof(buf));

	EXPECT_NE(memchr(buf, '\0', sizeof(buf)), nullptr);
	EXPECT_GT(strlen(buf), 5u) << "a reason is always given";
	if (why)
		*why = buf;
	/* why may be NULL */
	EXPECT_EQ(rseq_slice_resolve(req, &p, nullptr, 0), m);
	return m;
}

constexpr rseq_slice_mode kAll[] = {RSEQ_SLICE_MODE_OFF, RSEQ_SLICE_MODE_MEASURE,
									RSEQ_SLICE_MODE_UPSTREAM, RSEQ_SLICE_MODE_POC,
									RSEQ_SLICE_MODE_AUTO};

TEST(Resolve, NoRegistrationIsAlwaysOff)
{
	for (uint32_t fs : {0u, 28u, 33u})
		for (rseq_slice_ext e : {RSEQ_SLICE_EXT_UNAVAILABLE, RSEQ_SLICE_EXT_ENABLED})
		{
			rseq_slice_probe p = Probe(0, fs, e);

			for (rseq_slice_mode m : kAll)
				EXPECT_EQ(Resolve(m, p), RSEQ_SLICE_MODE_OFF)
					<< rseq_slice_mode_names[m] << " fs " << fs;
		}
	/* registered but no area pointer: off as well */
	rseq_slice_probe p = Probe(1, 33, RSEQ_SLICE_EXT_ENABLED);

	p.area = nullptr;
	for (rseq_slice_mode m : kAll)
		EXPECT_EQ(Resolve(m, p), RSEQ_SLICE_MODE_OFF) << rseq_slice_mode_names[m];
}

TEST(Resolve, SliceEnabled)
{
	rseq_slice_probe p = Probe(1, 33, RSEQ_SLICE_EXT_ENABLED);
	std::string why;

	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_OFF, p), RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_MEASURE, p), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_UPSTREAM, p), RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p), RSEQ_SLICE_MODE_UPSTREAM);
	/* poc writes cr_flags at offset 28 = slice_ctrl on this kernel: refused */
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_POC, p, &why), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_NE(why.find("poc refused"), std::string::npos) << why;
}

TEST(Resolve, SliceUnavailableOldKernel)
{
	rseq_slice_probe p = Probe(1, 28, RSEQ_SLICE_EXT_UNAVAILABLE);
	std::string why;

	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_OFF, p), RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_MEASURE, p), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_UPSTREAM, p, &why), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_NE(why.find("no slice extension"), std::string::npos) << why;
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_POC, p), RSEQ_SLICE_MODE_POC);
	/* the legacy 32-byte feature size is still "no slice field" */
	p.feature_size = 32;
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_POC, p), RSEQ_SLICE_MODE_POC);
}

/*
 * arm64 on Linux 7.2: rseq works (the marker), the slice extension cannot
 * be configured (CONFIG_RSEQ_SLICE_EXTENSION needs GENERIC_ENTRY, which
 * arm64 does not select; shared/docs/rseq-slice-abi.md), so the prctl
 * fails with ENOTSUPP (524), GET included (the stub of
 * include/linux/rseq.h), not EINVAL, which probe_fill turns into
 * "unavailable" whatever the feature size (struct rseq is generic: 33
 * bytes on 7.2 as on x86_64); the resolution looks at that, not at the
 * errno set below.  auto must resolve to measure; on a later arm64 kernel that
 * enables the extension, to upstream, as on x86_64.  The decision itself
 * looks at no architecture: the same test runs in both unit builds.
 */
TEST(Resolve, Arm64KernelWithoutSliceExtension)
{
	for (uint32_t fs : {28u, 32u, 33u})
	{
		rseq_slice_probe p = Probe(1, fs, RSEQ_SLICE_EXT_UNAVAILABLE);
		std::string why;

		p.slice_errno = EINVAL;
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p, &why), RSEQ_SLICE_MODE_MEASURE) << "fs " << fs;
		EXPECT_NE(why.find("no slice extension"), std::string::npos) << why;
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_UPSTREAM, p), RSEQ_SLICE_MODE_MEASURE);
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_MEASURE, p), RSEQ_SLICE_MODE_MEASURE);
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_OFF, p), RSEQ_SLICE_MODE_OFF);
	}
	/* the day arm64 grants: auto is upstream, unchanged */
	rseq_slice_probe p = Probe(1, 33, RSEQ_SLICE_EXT_ENABLED);

	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p), RSEQ_SLICE_MODE_UPSTREAM);
}

/* Kernel with the feature but not enabled / disabled: measure, poc refused. */
TEST(Resolve, SliceAvailableOrDisabled)
{
	for (rseq_slice_ext e : {RSEQ_SLICE_EXT_AVAILABLE, RSEQ_SLICE_EXT_DISABLED})
	{
		rseq_slice_probe p = Probe(1, 33, e);
		std::string why;

		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p, &why), RSEQ_SLICE_MODE_MEASURE);
		EXPECT_NE(why.find(e == RSEQ_SLICE_EXT_DISABLED ? "disabled" : "not enabled"),
				  std::string::npos) << why;
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_UPSTREAM, p), RSEQ_SLICE_MODE_MEASURE);
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_MEASURE, p), RSEQ_SLICE_MODE_MEASURE);
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_POC, p), RSEQ_SLICE_MODE_MEASURE);
		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_OFF, p), RSEQ_SLICE_MODE_OFF);
	}
}

/*
 * glibc's legacy area kept on a kernel with the feature (rseq_slice_register
 * = never, or other users of glibc's area detected): the reason says why.
 * glibc 2.41+'s V2 area, enabled: upstream with glibc as the owner.
 */
TEST(Resolve, GlibcAreaKept)
{
	rseq_slice_probe p = Probe(1, 33, RSEQ_SLICE_EXT_AVAILABLE);
	std::string why;

	p.reg_len = 32;
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p, &why), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(why, "the slice extension needs a v2 registration, glibc's area is legacy");
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_UPSTREAM, p), RSEQ_SLICE_MODE_MEASURE);
	/* our own legacy area (never happens on 7.x, but the words must fit) */
	p.owner = RSEQ_SLICE_OWNER_SELF;
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, p, &why), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(why, "the slice extension is not enabled for this registration");

	rseq_slice_probe v2 = Probe(1, 33, RSEQ_SLICE_EXT_ENABLED);

	v2.reg_len = 33;
	EXPECT_EQ(v2.owner, RSEQ_SLICE_OWNER_GLIBC);
	EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_AUTO, v2, &why), RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(why, "the kernel enabled the slice extension");
}

/* poc is refused for every feature size >= 33, accepted below. */
TEST(Resolve, PocFeatureSizeBoundary)
{
	for (uint32_t fs = 20; fs <= 64; fs++)
	{
		rseq_slice_probe p = Probe(1, fs, RSEQ_SLICE_EXT_UNAVAILABLE);

		EXPECT_EQ(Resolve(RSEQ_SLICE_MODE_POC, p),
				  fs >= 33 ? RSEQ_SLICE_MODE_MEASURE : RSEQ_SLICE_MODE_POC) << "fs " << fs;
	}
}

/* A short why buffer is truncated, never overrun. */
TEST(Resolve, ShortReasonBuffer)
{
	rseq_slice_probe p = Probe(1, 28, RSEQ_SLICE_EXT_UNAVAILABLE);
	char		buf[8];

	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(rseq_slice_resolve(RSEQ_SLICE_MODE_AUTO, &p, buf, 5), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(strlen(buf), 4u);
	EXPECT_EQ(buf[5], 'x');
}

TEST(ModeFromName, ExactNames)
{
	EXPECT_EQ(rseq_slice_mode_from_name("off"), RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_mode_from_name("measure"), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(rseq_slice_mode_from_name("upstream"), RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(rseq_slice_mode_from_name("poc"), RSEQ_SLICE_MODE_POC);
	EXPECT_EQ(rseq_slice_mode_from_name("auto"), RSEQ_SLICE_MODE_AUTO);
	for (int m = 0; m < RSEQ_SLICE_NMODES; m++)
		EXPECT_EQ(rseq_slice_mode_from_name(rseq_slice_mode_names[m]), m);
}

TEST(ModeFromName, CaseInsensitive)
{
	EXPECT_EQ(rseq_slice_mode_from_name("OFF"), RSEQ_SLICE_MODE_OFF);
	EXPECT_EQ(rseq_slice_mode_from_name("Measure"), RSEQ_SLICE_MODE_MEASURE);
	EXPECT_EQ(rseq_slice_mode_from_name("UpStReAm"), RSEQ_SLICE_MODE_UPSTREAM);
	EXPECT_EQ(rseq_slice_mode_from_name("POC"), RSEQ_SLICE_MODE_POC);
	EXPECT_EQ(rseq_slice_mode_from_name("aUTO"), RSEQ_SLICE_MODE_AUTO);
}

TEST(ModeFromName, UnknownIsMinusOne)
{
	EXPECT_EQ(rseq_slice_mode_from_name(nullptr), -1);
	EXPECT_EQ(rseq_slice_mode_from_name(""), -1);
	EXPECT_EQ(rseq_slice_mode_from_name("on"), -1);
	EXPECT_EQ(rseq_slice_mode_from_name("measure "), -1);
	EXPECT_EQ(rseq_slice_mode_from_name(" off"), -1);
	EXPECT_EQ(rseq_slice_mode_from_name("upstreams"), -1);
	EXPECT_EQ(rseq_slice_mode_from_name("po"), -1);
	EXPECT_EQ(rseq_slice_mode_from_name("2"), -1);
}

}  // namespace
