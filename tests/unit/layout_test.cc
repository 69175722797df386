/*
 * 1. Layout of the rseq area and of the critical-section descriptor, and the
 *    kernel constants the header hard-codes (shared/docs/rseq-slice-abi.md).
 *    The header has static_asserts; these check the same facts at run time,
 *    by offsetof and by writing fields of a real object and looking at which
 *    bytes changed.
 */
#include "test_support.h"

#include <cerrno>
#include <cstddef>
#include <string>

namespace {

/* Byte offset of a field of a live object (pointer difference, run time). */
template <typename T, typename F>
size_t field_offset(volatile T *obj, volatile F *field)
{
	return (size_t) ((const volatile char *) field - (const volatile char *) obj);
}

TEST(Layout, AreaFieldOffsetsByOffsetof)
{
	EXPECT_EQ(offsetof(rseq_slice_area, cpu_id_start), 0u);
	EXPECT_EQ(offsetof(rseq_slice_area, cpu_id), 4u);
	EXPECT_EQ(offsetof(rseq_slice_area, rseq_cs), 8u);
	EXPECT_EQ(offsetof(rseq_slice_area, flags), 16u);
	EXPECT_EQ(offsetof(rseq_slice_area, node_id), 20u);
	EXPECT_EQ(offsetof(rseq_slice_area, mm_cid), 24u);
	EXPECT_EQ(offsetof(rseq_slice_area, slice), 28u);
	EXPECT_EQ(offsetof(rseq_slice_area, slice.ctrl.request), 28u);
	EXPECT_EQ(offsetof(rseq_slice_area, slice.ctrl.granted), 29u);
	EXPECT_EQ(offsetof(rseq_slice_area, slice.ctrl.reserved), 30u);
	EXPECT_EQ(offsetof(rseq_slice_area, slice.poc_cr_flags), 28u);
	EXPECT_EQ(offsetof(rseq_slice_area, end_reserved), 32u);
	EXPECT_EQ(sizeof(rseq_slice_ctrl), 4u);
	EXPECT_EQ(sizeof(rseq_slice_word), 4u);
	/* 33 bytes of fields, padded to the 8-byte alignment of rseq_cs */
	EXPECT_EQ(sizeof(rseq_slice_area), 40u);
	EXPECT_EQ(alignof(rseq_slice_area), 8u);
}

TEST(Layout, AreaFieldOffsetsOfALiveObject)
{
	rseq_slice_area_storage st;
	volatile rseq_slice_area *a = &st.u.area;

	EXPECT_EQ(field_offset(a, &a->cpu_id_start), 0u);
	EXPECT_EQ(field_offset(a, &a->cpu_id), 4u);
	EXPECT_EQ(field_offset(a, &a->rseq_cs), 8u);
	EXPECT_EQ(field_offset(a, &a->flags), 16u);
	EXPECT_EQ(field_offset(a, &a->node_id), 20u);
	EXPECT_EQ(field_offset(a, &a->mm_cid), 24u);
	EXPECT_EQ(field_offset(a, &a->slice.ctrl.request), 28u);
	EXPECT_EQ(field_offset(a, &a->slice.ctrl.granted), 29u);
	EXPECT_EQ(field_offset(a, &a->slice.poc_cr_flags), 28u);
	EXPECT_EQ(field_offset(a, &a->end_reserved), 32u);
}

/* Write each field and check exactly which bytes changed, little endian. */
TEST(Layout, FieldWritesHitTheDocumentedBytes)
{
	rseq_slice_area_storage st;
	volatile rseq_slice_area *a = &st.u.area;
	volatile unsigned char *b = st.u.bytes;

	auto clear = [&]() {
		for (int i = 0; i < RSEQ_SLICE_AREA_STORAGE; i++)
			b[i] = 0;
	};
	auto nonzero = [&]() {
		std::string s;

		for (int i = 0; i < 64; i++)
			if (b[i] != 0)
				s += std::to_string(i) + "=" + std::to_string(b[i]) + " ";
		return s;
	};

	clear();
	a->slice.ctrl.request = 1;
	EXPECT_EQ(nonzero(), "28=1 ");
	clear();
	a->slice.ctrl.granted = 1;
	EXPECT_EQ(nonzero(), "29=1 ");
	clear();
	a->slice.poc_cr_flags = RSEQ_SLICE_POC_IN_CRITICAL_SECTION;
	EXPECT_EQ(nonzero(), "28=1 ");
	clear();
	a->slice.poc_cr_flags = RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED;
	EXPECT_EQ(nonzero(), "28=2 ");
	clear();
	a->rseq_cs = 0x0102030405060708ull;
	EXPECT_EQ(nonzero(), "8=8 9=7 10=6 11=5 12=4 13=3 14=2 15=1 ");
	clear();
	a->flags = RSEQ_SLICE_CPU_FLAG_AVAILABLE | RSEQ_SLICE_CPU_FLAG_ENABLED;
	EXPECT_EQ(nonzero(), "16=48 ");
	clear();
	a->end_reserved = 0xff;
	EXPECT_EQ(nonzero(), "32=255 ");
	clear();
	a->mm_cid = 0x11223344;
	EXPECT_EQ(nonzero(), "24=68 25=51 26=34 27=17 ");
}

TEST(Layout, CriticalSectionDescriptor)
{
	EXPECT_EQ(sizeof(rseq_slice_cs), 32u);
	EXPECT_EQ(alignof(rseq_slice_cs), 32u);
	EXPECT_EQ(offsetof(rseq_slice_cs, version), 0u);
	EXPECT_EQ(offsetof(rseq_slice_cs, flags), 4u);
	EXPECT_EQ(offsetof(rseq_slice_cs, start_ip), 8u);
	EXPECT_EQ(offsetof(rseq_slice_cs, post_commit_offset), 16u);
	EXPECT_EQ(offsetof(rseq_slice_cs, abort_ip), 24u);
}

TEST(Layout, StorageIs64ByteAlignedAnd256Bytes)
{
	EXPECT_EQ(alignof(rseq_slice_area_storage), 64u);
	EXPECT_EQ(sizeof(rseq_slice_area_storage), 256u);
	EXPECT_EQ(RSEQ_SLICE_AREA_STORAGE, 256);
	EXPECT_EQ(offsetof(rseq_slice_area_storage, u.area), 0u);

	rseq_slice_area_storage several[3];

	for (auto &st : several)
		EXPECT_EQ(reinterpret_cast<uintptr_t>(&st) % 64, 0u);
}

/* The descriptor the marker points to: empty range, signature before abort_ip. */
TEST(Layout, MarkerDescriptorIsAnEmptyRangeWithSignature)
{
	uint64_t m = rseq_slice_marker_address();

	ASSERT_NE(m, 0u);
	EXPECT_EQ(m % 32, 0u) << "struct rseq_cs must be 32-byte aligned";
	EXPECT_EQ(rseq_slice_marker_address(), m) << "one descriptor per process";

	const rseq_slice_cs *cs = reinterpret_cast<const rseq_slice_cs *>(m);

	EXPECT_EQ(cs->version, 0u);
	EXPECT_EQ(cs->flags, 0u);
	EXPECT_EQ(cs->start_ip, 0u);
	EXPECT_EQ(cs->post_commit_offset, 0u);
	ASSERT_NE(cs->abort_ip, 0u);
	EXPECT_EQ(*reinterpret_cast<const uint32_t *>(cs->abort_ip - 4), RSEQ_SLICE_SIG);
	/* abort_ip outside the (empty) range [start_ip, start_ip + 0) */
	EXPECT_GE(cs->abort_ip - cs->start_ip, cs->post_commit_offset);
}

TEST(Layout, KernelConstants)
{
#if defined(__aarch64__)
	/* arm64: asm-generic/unistd.h; the kernel's selftests rseq-arm64.h */
	EXPECT_EQ(RSEQ_SLICE_SIG, 0xd428bc00u);
	EXPECT_EQ(RSEQ_SLICE_NR_RSEQ, 293);
	EXPECT_EQ(RSEQ_SLICE_AARCH64, 1);
	EXPECT_EQ(RSEQ_SLICE_X86_64, 0);
#else
	EXPECT_EQ(RSEQ_SLICE_SIG, 0x53053053u);
	EXPECT_EQ(RSEQ_SLICE_NR_RSEQ, 334);
	EXPECT_EQ(RSEQ_SLICE_X86_64, 1);
	EXPECT_EQ(RSEQ_SLICE_AARCH64, 0);
#endif
	EXPECT_EQ(RSEQ_SLICE_NR_YIELD, 471);
	EXPECT_EQ(RSEQ_SLICE_FLAG_UNREGISTER, 1);
	EXPECT_EQ(RSEQ_SLICE_FLAG_SLICE_EXT_DEFAULT_ON, 2);
	EXPECT_EQ(RSEQ_SLICE_ORIG_SIZE, 32);
	EXPECT_EQ(RSEQ_SLICE_FEATURE_SIZE_SLICE, 33);
	EXPECT_EQ(RSEQ_SLICE_AT_FEATURE_SIZE, 27);
	EXPECT_EQ(RSEQ_SLICE_AT_ALIGN, 28);
	EXPECT_EQ(RSEQ_SLICE_CPU_FLAG_AVAILABLE, 0x10u);
	EXPECT_EQ(RSEQ_SLICE_CPU_FLAG_ENABLED, 0x20u);
	EXPECT_EQ(RSEQ_SLICE_PR_SLICE_EXTENSION, 79);
	EXPECT_EQ(RSEQ_SLICE_PR_GET, 1);
	EXPECT_EQ(RSEQ_SLICE_PR_SET, 2);
	EXPECT_EQ(RSEQ_SLICE_PR_ENABLE, 1);
	EXPECT_EQ(RSEQ_SLICE_ENOTSUPP, 524);
	EXPECT_EQ(RSEQ_SLICE_CPU_ID_UNINITIALIZED, 0xffffffffu);
	EXPECT_EQ(RSEQ_SLICE_CPU_ID_REGISTRATION_FAILED, 0xfffffffeu);
	EXPECT_EQ(RSEQ_SLICE_POC_IN_CRITICAL_SECTION, 1u);
	EXPECT_EQ(RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED, 2u);
	EXPECT_EQ(RSEQ_SLICE_SUPPORTED, 1) << "the tests run on x86_64 or aarch64 Linux";
}

TEST(Layout, NamesTables)
{
	EXPECT_STREQ(rseq_slice_mode_names[RSEQ_SLICE_MODE_OFF], "off");
	EXPECT_STREQ(rseq_slice_mode_names[RSEQ_SLICE_MODE_MEASURE], "measure");
	EXPECT_STREQ(rseq_slice_mode_names[RSEQ_SLICE_MODE_UPSTREAM], "upstream");
	EXPECT_STREQ(rseq_slice_mode_names[RSEQ_SLICE_MODE_POC], "poc");
	EXPECT_STREQ(rseq_slice_mode_names[RSEQ_SLICE_MODE_AUTO], "auto");
	EXPECT_EQ(RSEQ_SLICE_NMODES, 5);
	EXPECT_STREQ(rseq_slice_owner_names[RSEQ_SLICE_OWNER_NONE], "none");
	EXPECT_STREQ(rseq_slice_owner_names[RSEQ_SLICE_OWNER_GLIBC], "glibc");
	EXPECT_STREQ(rseq_slice_owner_names[RSEQ_SLICE_OWNER_SELF], "postgres");
	EXPECT_STREQ(rseq_slice_ext_names[RSEQ_SLICE_EXT_UNAVAILABLE], "unavailable");
	EXPECT_STREQ(rseq_slice_ext_names[RSEQ_SLICE_EXT_AVAILABLE], "available");
	EXPECT_STREQ(rseq_slice_ext_names[RSEQ_SLICE_EXT_ENABLED], "enabled");
	EXPECT_STREQ(rseq_slice_ext_names[RSEQ_SLICE_EXT_DISABLED], "disabled");
}

TEST(Layout, ErrnoNames)
{
	char buf[16];

	EXPECT_STREQ(rseq_slice_errno_name(0, buf, sizeof(buf)), "0");
	EXPECT_STREQ(rseq_slice_errno_name(EINVAL, buf, sizeof(buf)), "EINVAL");
	EXPECT_STREQ(rseq_slice_errno_name(524, buf, sizeof(buf)), "ENOTSUPP");
	EXPECT_STREQ(rseq_slice_errno_name(ENXIO, buf, sizeof(buf)), "ENXIO");
	EXPECT_STREQ(rseq_slice_errno_name(EBUSY, buf, sizeof(buf)), "EBUSY");
	EXPECT_STREQ(rseq_slice_errno_name(EOPNOTSUPP, buf, sizeof(buf)), "EOPNOTSUPP");
	EXPECT_STREQ(rseq_slice_errno_name(4321, buf, sizeof(buf)), "E4321");
}

}  // namespace
