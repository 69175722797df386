/*-------------------------------------------------------------------------
 *
 * rseq_slice.h
 *	  The rseq time slice extension protocol: the single source of truth for
 *	  the rseq area layout, the kernel constants and the inline fast path.
 *
 * Standalone C99 (also valid C++): no PostgreSQL includes.  Used by the
 * PostgreSQL patch (installed as port/rseq_slice.h), the pg_rseq extension,
 * the unit tests and the benchmarks.
 *
 * Facts (offsets, constants, error numbers) come from the Linux 7.2.13
 * sources and measurements on 6.18 and 7.2 recorded in
 * shared/docs/rseq-slice-abi.md.  Summary:
 *
 *	- struct rseq (x86_64): rseq_cs at 8, flags at 16, slice_ctrl at 28
 *	  (u8 request, u8 granted), feature size 33 on 7.2 (28 on 6.18).
 *	- Upstream protocol (Linux 7.0+, CONFIG_RSEQ_SLICE_EXTENSION, only for a
 *	  V2 registration with rseq_len > 32): set request = 1 on entering a
 *	  critical section; on leaving clear it and, if granted is set, call
 *	  rseq_slice_yield (syscall 471).  Plain stores: all CPU-local.
 *	- 2023 proof of concept ("poc"): u32 cr_flags at offset 28, bit 0 set by
 *	  user space, bit 1 set by the kernel = "yield when done".  Never merged.
 *	- Preemption marker (every kernel with rseq): store an empty-range
 *	  rseq_cs descriptor; the kernel clears rseq_cs when it preempts the
 *	  thread.  What clears it depends on the kernel version, not on the
 *	  registration: up to 6.18 every context switch of the thread, voluntary
 *	  ones included, and every signal delivery; from 6.19 on (every 7.x) on
 *	  x86_64 and arm64 only a context switch after an interrupt or exception
 *	  entry from user mode, for legacy and V2 alike (rseq_update_usr,
 *	  include/linux/rseq_entry.h of 7.2.13), unless rseq debugging is on;
 *	  signals there: every delivery with a legacy registration, with V2
 *	  only one delivered on an interrupt or exception return.  A cleared
 *	  marker at release = "descheduled while holding".
 *
 * Nesting: the kernel keeps no nesting counter.  The state below keeps a
 * depth; request is written only on depth 0 -> 1 and 1 -> 0.
 *
 * Fast path cost: rseq_slice_enter()/rseq_slice_leave() are static inline,
 * use no atomic instructions and make no system call unless the kernel
 * granted an extension (then one rseq_slice_yield).  Out-of-line code is
 * only called by the contended paths (rseq_slice_wait_begin/end are inline
 * too, but are only called while spinning or sleeping).
 *
 * lwlock_patch/rseq_slice.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RSEQ_SLICE_H
#define RSEQ_SLICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ----------
 * Compile-time assertions usable from C99, C11 and C++.
 * ----------
 */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define RSEQ_SLICE_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define RSEQ_SLICE_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#else
#define RSEQ_SLICE_CONCAT_(a, b) a##b
#define RSEQ_SLICE_CONCAT(a, b) RSEQ_SLICE_CONCAT_(a, b)
#define RSEQ_SLICE_STATIC_ASSERT(cond, msg) \
	typedef char RSEQ_SLICE_CONCAT(rseq_slice_static_assert_, __LINE__)[(cond) ? 1 : -1]
#endif

/*
 * Is the protocol implemented for this platform?  Linux on x86_64 or on
 * little-endian aarch64, with a GCC-compatible compiler.  Everywhere else
 * the lock layer is compiled out and PostgreSQL behaves as stock.
 * RSEQ_SLICE_FORCE_UNSUPPORTED compiles the fallbacks of every other
 * platform here (the unit tests' build does, to keep them compiling).
 *
 * RSEQ_SLICE_X86_64 / RSEQ_SLICE_AARCH64: which implementation is in force.
 * Only x86_64 has inline asm on the fast path (one memory-operand compare
 * or xor where plain C costs a load more; objdump, gcc 12); aarch64 has no
 * memory-operand arithmetic, and the plain C below compiles to the same
 * loads, compares and branches the asm would (ldrb/cbz/cmp/b.ne), except
 * for rseq_slice_request_acted (see there).
 */
#if defined(__linux__) && defined(__GNUC__) && \
	!defined(RSEQ_SLICE_FORCE_UNSUPPORTED) && \
	(defined(__x86_64__) || (defined(__aarch64__) && defined(__AARCH64EL__)))
#define RSEQ_SLICE_SUPPORTED 1
#else
#define RSEQ_SLICE_SUPPORTED 0
#endif

#if RSEQ_SLICE_SUPPORTED && defined(__x86_64__)
#define RSEQ_SLICE_X86_64 1
#else
#define RSEQ_SLICE_X86_64 0
#endif

#if RSEQ_SLICE_SUPPORTED && defined(__aarch64__)
#define RSEQ_SLICE_AARCH64 1
#else
#define RSEQ_SLICE_AARCH64 0
#endif

/*
 * The open word (RSEQ_SLICE_OPEN_WORD) and its 8-byte store
 * (rseq_slice_enter_request_word) assume little endian, and so does the
 * kernel's slice_ctrl as bytes at offsets 28/29.  Both supported platforms
 * are: x86_64 always, aarch64 on Linux (the big-endian aarch64_be target is
 * not supported above; GCC's __BYTE_ORDER__ checks it here once more).
 */
#if RSEQ_SLICE_SUPPORTED && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rseq_slice.h: the supported platforms are little endian"
#endif

/*
 * Compiler-specific constructs, each with a plain fallback so that the
 * header parses with any C99 or C++ compiler PostgreSQL builds with (the
 * fast path is only implemented with GCC-compatible compilers on x86_64 and
 * aarch64 Linux; elsewhere the fallbacks are never on a hot path).
 *
 * The fast path must be inlined at every call site (GCC stops inlining a
 * plain static inline function called from many sites in one file).
 * RSEQ_SLICE_BARRIER is a compiler barrier: it orders our stores against
 * the lock's own accesses.
 */
#if defined(__GNUC__)
#define RSEQ_SLICE_INLINE static inline __attribute__((always_inline))
#define RSEQ_SLICE_LIKELY(x)	__builtin_expect(!!(x), 1)
#define RSEQ_SLICE_UNLIKELY(x)	__builtin_expect(!!(x), 0)
#define RSEQ_SLICE_BARRIER()	__asm__ __volatile__("" ::: "memory")
#define RSEQ_SLICE_ALIGNED(n)	__attribute__((aligned(n)))
#define RSEQ_SLICE_UNUSED		__attribute__((unused))
#define RSEQ_SLICE_THREAD_LOCAL __thread
#else
#define RSEQ_SLICE_INLINE static inline
#define RSEQ_SLICE_LIKELY(x)	(x)
#define RSEQ_SLICE_UNLIKELY(x)	(x)
#if defined(_MSC_VER)
#include <intrin.h>
#define RSEQ_SLICE_BARRIER()	_ReadWriteBarrier()
#else
#define RSEQ_SLICE_BARRIER()	((void) 0)	/* no fast path there */
#endif
#define RSEQ_SLICE_ALIGNED(n)
#define RSEQ_SLICE_UNUSED
#define RSEQ_SLICE_THREAD_LOCAL
#endif

/* ----------
 * Kernel constants (Linux 7.2.13 uapi; shared/docs/rseq-slice-abi.md)
 *
 * Per architecture, all here and only here: the rseq system call number
 * and RSEQ_SIG (the signature registered with the area and expected in the
 * 4 bytes before every rseq_cs abort_ip).  rseq_slice_yield is 471 on every
 * architecture (asm-generic/unistd.h and arch/x86/entry/syscalls/
 * syscall_64.tbl, Linux 7.0+).
 * ----------
 */
#if defined(__aarch64__)
/* arm64 uses asm-generic/unistd.h: __NR_rseq 293 (since Linux 4.18) */
#define RSEQ_SLICE_NR_RSEQ				293
/*
 * RSEQ_SIG on arm64: 0xd428bc00, the encoding of `brk #0x45e0` (the
 * kernel's tools/testing/selftests/rseq/rseq-arm64.h; as data on little
 * endian, the only byte order supported here).
 */
#define RSEQ_SLICE_SIG					0xd428bc00u
#else
/*
 * x86_64: arch/x86/entry/syscalls/syscall_64.tbl (Linux 4.18+).  Also the
 * values where the layer is compiled out (RSEQ_SLICE_SUPPORTED 0), which
 * make no system call with them.
 */
#define RSEQ_SLICE_NR_RSEQ				334
/* RSEQ_SIG on x86 (tools/testing/selftests/rseq/rseq-x86.h) */
#define RSEQ_SLICE_SIG					0x53053053u
#endif
#define RSEQ_SLICE_NR_YIELD				471 /* __NR_rseq_slice_yield, 7.0+ */
#define RSEQ_SLICE_FLAG_UNREGISTER		(1 << 0)	/* rseq() flags */
/*
 * SLICE_EXT_DEFAULT_ON: enables the extension at registration for a V2
 * registration on a kernel where it is enabled system-wide; on a 32-byte
 * registration it is accepted and ignored (kernel/rseq.c, 7.2.13).
 */
#define RSEQ_SLICE_FLAG_SLICE_EXT_DEFAULT_ON (1 << 1)
#define RSEQ_SLICE_ORIG_SIZE			32	/* legacy registration length */
#define RSEQ_SLICE_FEATURE_SIZE_SLICE	33	/* feature size with slice_ctrl */
#define RSEQ_SLICE_AT_FEATURE_SIZE		27	/* getauxval() keys */
#define RSEQ_SLICE_AT_ALIGN				28
/* struct rseq.flags bits written by the kernel */
#define RSEQ_SLICE_CPU_FLAG_AVAILABLE	(1u << 4)	/* SLICE_EXT_AVAILABLE */
#define RSEQ_SLICE_CPU_FLAG_ENABLED		(1u << 5)	/* SLICE_EXT_ENABLED */
/* prctl(PR_RSEQ_SLICE_EXTENSION, GET|SET, ENABLE, 0, 0) */
#define RSEQ_SLICE_PR_SLICE_EXTENSION	79
#define RSEQ_SLICE_PR_GET				1
#define RSEQ_SLICE_PR_SET				2
#define RSEQ_SLICE_PR_ENABLE			1
#define RSEQ_SLICE_ENOTSUPP				524 /* kernel-internal errno */
/* cpu_id values that mean "not registered" */
#define RSEQ_SLICE_CPU_ID_UNINITIALIZED	((uint32_t) -1)
#define RSEQ_SLICE_CPU_ID_REGISTRATION_FAILED ((uint32_t) -2)
/* 2023 proof of concept: cr_flags bits */
#define RSEQ_SLICE_POC_IN_CRITICAL_SECTION	(1u << 0)
#define RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED	(1u << 1)

/* ----------
 * The rseq area (struct rseq on Linux 7.2, the same on x86_64 and arm64:
 * include/uapi/linux/rseq.h is generic; little endian)
 * ----------
 */
typedef struct rseq_slice_ctrl
{
	uint8_t		request;		/* user sets 1 to ask; kernel clears on grant */
	uint8_t		granted;		/* kernel sets 1 on grant, clears on resched */
	uint16_t	reserved;
} rseq_slice_ctrl;

typedef union rseq_slice_word
{
	rseq_slice_ctrl ctrl;		/* upstream (7.0+) */
	uint32_t	poc_cr_flags;	/* 2023 proof of concept */
} rseq_slice_word;

typedef struct rseq_slice_area
{
	uint32_t	cpu_id_start;	/* 0: kernel */
	uint32_t	cpu_id;			/* 4: kernel */
	uint64_t	rseq_cs;		/* 8: user sets, kernel clears */
	uint32_t	flags;			/* 16: kernel; SLICE_EXT_* bits */
	uint32_t	node_id;		/* 20: kernel */
	uint32_t	mm_cid;			/* 24: kernel */
	rseq_slice_word slice;		/* 28: slice_ctrl / cr_flags */
	uint8_t		end_reserved;	/* 32: makes the feature size 33 */
} rseq_slice_area;

RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, cpu_id_start) == 0, "cpu_id_start");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, cpu_id) == 4, "cpu_id");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, rseq_cs) == 8, "rseq_cs");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, flags) == 16, "flags");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, node_id) == 20, "node_id");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, mm_cid) == 24, "mm_cid");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, slice) == 28, "slice_ctrl");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, slice.ctrl.request) == 28, "request");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, slice.ctrl.granted) == 29, "granted");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_area, end_reserved) == 32, "end");

/*
 * Storage for a registration owned by the project: 64-byte aligned (7.2's
 * AT_RSEQ_ALIGN), room for feature sizes up to 256 bytes.
 */
#define RSEQ_SLICE_AREA_STORAGE 256
typedef struct rseq_slice_area_storage
{
	union
	{
		rseq_slice_area area;
		unsigned char bytes[RSEQ_SLICE_AREA_STORAGE];
	}			u;
} RSEQ_SLICE_ALIGNED(64) rseq_slice_area_storage;

/*
 * struct rseq_cs: the critical-section descriptor.  Ours has an empty range
 * (start_ip 0, post_commit_offset 0), so the kernel clears rseq_cs whenever
 * it evaluates it.  abort_ip must point just past a 4-byte word holding the
 * signature: 6.x kernels check the signature before the range and kill the
 * thread (SIGSEGV) on a mismatch.  32-byte aligned.
 */
typedef struct rseq_slice_cs
{
	uint32_t	version;
	uint32_t	flags;
	uint64_t	start_ip;
	uint64_t	post_commit_offset;
	uint64_t	abort_ip;
} RSEQ_SLICE_ALIGNED(32) rseq_slice_cs;

RSEQ_SLICE_STATIC_ASSERT(sizeof(rseq_slice_cs) == 32, "struct rseq_cs");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_cs, abort_ip) == 24, "abort_ip");

/* ----------
 * Modes
 * ----------
 */
typedef enum rseq_slice_mode
{
	RSEQ_SLICE_MODE_OFF = 0,	/* touches nothing, not even the depth */
	RSEQ_SLICE_MODE_MEASURE = 1,	/* preemption marker, no requests */
	RSEQ_SLICE_MODE_UPSTREAM = 2,	/* marker + Linux 7.x slice requests */
	RSEQ_SLICE_MODE_POC = 3,	/* marker + 2023 cr_flags requests */
	RSEQ_SLICE_MODE_AUTO = 4	/* setting only: upstream if granted, else
								 * measure */
} rseq_slice_mode;

#define RSEQ_SLICE_NMODES 5

/* Lowercase names of the modes, indexed by rseq_slice_mode. */
extern const char *const rseq_slice_mode_names[RSEQ_SLICE_NMODES];

/* ----------
 * Counters of one thread (one PostgreSQL backend).  One writer, plain
 * 64-bit stores; readers in other processes may see a value one event old.
 * Units: counts, except max_depth (locks).
 * ----------
 */
#define RSEQ_SLICE_MAX_KINDS 4

typedef struct rseq_slice_counters
{
	uint64_t	entries[RSEQ_SLICE_MAX_KINDS];	/* enter() calls per lock kind */
	uint64_t	sections;		/* outermost sections (depth 0 -> 1) */
	uint64_t	nested;			/* enter() at depth >= 1 */
	uint64_t	max_depth;		/* deepest nesting seen */
	uint64_t	requests;		/* request windows opened that asked (a
								 * detail counter: only while detail is on) */
	uint64_t	grants;			/* granted at close + "revoked" */
	uint64_t	revoked;		/* request cleared by the kernel, granted
								 * clear at close: a grant already ended, or
								 * a clear without a grant (cause unknown) */
	uint64_t	yields;			/* rseq_slice_yield calls (granted or revoked) */
	uint64_t	yields_in_grant;	/* ... that returned 1 */
	uint64_t	descheduled;	/* marker found cleared at a release */
} rseq_slice_counters;

/* Events returned by rseq_slice_leave(), for attribution by the caller. */
#define RSEQ_SLICE_EV_DESCHEDULED	(1u << 0)
#define RSEQ_SLICE_EV_GRANTED		(1u << 1)
#define RSEQ_SLICE_EV_REVOKED		(1u << 2)
#define RSEQ_SLICE_EV_YIELDED		(1u << 3)	/* yield returned 1 */
#define RSEQ_SLICE_EV_YIELD_CALLED	(1u << 4)
#define RSEQ_SLICE_EV_DESCHEDULED_AGAIN (1u << 5)	/* a second deschedule
														 * charged to the same
														 * release (see
														 * rseq_slice_leave) */
/* Bits 8-15: yet more deschedules charged to the same release. */
#define RSEQ_SLICE_EV_MORE_SHIFT	8
#define RSEQ_SLICE_EV_MORE(ev)		(((ev) >> RSEQ_SLICE_EV_MORE_SHIFT) & 0xffu)

/* ----------
 * Per-thread state.  PostgreSQL keeps one per backend process; threaded
 * users keep one per thread (e.g. thread_local).
 *
 * `path` and `fast_area` tell the inline fast path what to do;
 * rseq_slice_repath() derives them from the other fields whenever one of
 * them changes.  The logical paths (rseq_slice_path()):
 *
 *	OFF		mode off: enter and leave do nothing, not even the depth (so a
 *			switch out of off needs the caller to say how many sections are
 *			open: see rseq_slice_set_mode_open)
 *	MEASURE	depth +-1 and one load of rseq_cs (the preemption marker)
 *	REQUEST	MEASURE plus the upstream request on depth 0 -> 1 and 1 -> 0
 *	SLOW	everything else, out of line (rseq_slice_kernel.c): the detail
 *			counters, poc mode, a pending mode switch, a pending deschedule
 *			report, a section waiting for its lock
 *
 * The path byte only takes the values OFF, MEASURE and REQUEST, so that one
 * compare dispatches all three (RSEQ_SLICE_DISPATCH).  SLOW is the MEASURE
 * byte with `fast_area` pointing at rseq_slice_slow_area, an area whose
 * rseq_cs is always 0: the inline measure path then finds "the marker
 * cleared" at every enter and leave and calls rseq_slice_enter_rare /
 * rseq_slice_leave_rare, which see the slow area and run the slow path.
 * (Until 2026-12-01 SLOW was a fourth byte value and REQUEST needed a second
 * compare: 4 instructions per section, bench/results/callgrind/README.md.)
 * Otherwise fast_area = area.
 *
 * The preemption marker stays in rseq_cs between sections (it is re-armed
 * by the slow path only when the kernel has cleared it), so the fast path
 * makes one load and no store for it; see rseq_slice_enter.
 * ----------
 */
#define RSEQ_SLICE_PATH_OFF		0
#define RSEQ_SLICE_PATH_MEASURE	1
#define RSEQ_SLICE_PATH_REQUEST	2
#define RSEQ_SLICE_PATH_SLOW	3	/* logical only: see above */

typedef struct rseq_slice_state
{
	uint8_t		path;			/* RSEQ_SLICE_PATH_*, see above */
	uint8_t		mode;			/* rseq_slice_mode in force (never AUTO) */
	uint8_t		detail;			/* 1: count entries, sections, nested and
								 * max_depth (slow path) */
	uint8_t		waiting;		/* in wait_begin/wait_end at depth 1 */
	uint8_t		pending;		/* a mode switch waits for depth 0 */
	uint8_t		pending_mode;	/* the mode to switch to */
	uint8_t		in_wait;		/* between wait_begin and wait_end: the depth
								 * of the waiting section (capped at 255), 0
								 * if none; callers test it to skip wait_end */
	uint8_t		no_clear_yield; /* 1: no rseq_slice_yield after a request
								 * the kernel cleared with granted clear
								 * (rseq_slice_granted); 0 (default): yield */
	/*
	 * asked, open_pad and depth form one 64-bit word (offsets 8-15) that an
	 * outermost entry with a policy table can write with one store
	 * (RSEQ_SLICE_OPEN_WORD, rseq_slice_enter_request_word).
	 */
	uint8_t		asked;			/* what the open request window wrote to
								 * `request` (1: asked, 0: the section's lock
								 * does not ask, see rseq_slice_enter_ask) */
	uint8_t		open_pad[3];	/* 0 */
	uint32_t	depth;			/* nesting depth: sections entered, not left
								 * (not kept in mode off) */
	volatile rseq_slice_area *fast_area;	/* what the inline path reads:
											 * area, or rseq_slice_slow_area
											 * on the slow path */
	volatile rseq_slice_area *area; /* registered area, NULL if none */
	uint64_t	marker;			/* address of our rseq_slice_cs */
	rseq_slice_counters *ctr;	/* where to count; never NULL */
	uint32_t	desched_levels; /* bit k: a deschedule, already counted, is
								 * to be reported at the release of the lock
								 * entered at depth k + 1; bit 31 stands for
								 * depths >= 32 (reported once, at depth 32) */
	uint8_t		desched_more[32];	/* further deschedules for the same
										 * level (saturating at 255) */
} rseq_slice_state;

RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_state, path) == 0, "path first");
RSEQ_SLICE_STATIC_ASSERT(offsetof(rseq_slice_state, asked) == 8 &&
						 offsetof(rseq_slice_state, depth) == 12,
						 "asked and depth share the open word");

/*
 * RSEQ_SLICE_OPEN_WORD(ask): the 64-bit value of the open word (asked,
 * open_pad, depth) at the start of an outermost section that asks `ask`
 * (0 or 1): asked = ask, depth = 1.  Its low byte is `ask`, the value to
 * write to `request`.  Little endian only (see RSEQ_SLICE_SUPPORTED).
 */
#define RSEQ_SLICE_OPEN_WORD(ask) ((uint64_t) (uint8_t) (ask) | ((uint64_t) 1 << 32))

/* The desched_levels bit of the lock entered at depth d + 1. */
#define RSEQ_SLICE_LEVEL_BIT(d) (1u << ((d) < 31 ? (d) : 31))

/*
 * rseq_slice_slow_area: the area fast_area points at on the slow path
 * (rseq_slice_kernel.c).  Its rseq_cs is always 0 and nothing else of it
 * is read or written (the inline paths that touch `slice` never run with
 * it).
 */
extern volatile rseq_slice_area rseq_slice_slow_area;

/* The logical path (RSEQ_SLICE_PATH_*, SLOW included); not on the fast path. */
RSEQ_SLICE_INLINE uint8_t
rseq_slice_path(const rseq_slice_state *s)
{
	if (s->path != RSEQ_SLICE_PATH_OFF &&
		s->fast_area == &rseq_slice_slow_area)
		return RSEQ_SLICE_PATH_SLOW;
	return s->path;
}

/* Plain test of the logical path (out of the fast path). */
#define RSEQ_SLICE_PATH_IS(s, p) (rseq_slice_path(s) == (p))

/*
 * RSEQ_SLICE_DISPATCH(s, off, other): one compare of the path byte with
 * MEASURE and two branches: to label `off` when the path is OFF, to label
 * `other` when it is REQUEST, falling through for MEASURE (and SLOW, which
 * is MEASURE with the slow area).  So mode off costs one compare and one
 * branch, measure and request one more branch (asm goto: compilers
 * otherwise materialise the second flag in a register).  Plain C elsewhere:
 * on aarch64 gcc 12 emits ldrb, cbz, cmp, b.ne, which is what asm would be.
 */
#if RSEQ_SLICE_X86_64
#define RSEQ_SLICE_DISPATCH(s, off, other) \
	__asm__ goto("cmpb %1, %0\n\tjb %l2\n\tjne %l3" \
				 : : "m"((s)->path), "i"(RSEQ_SLICE_PATH_MEASURE) \
				 : "cc" : off, other)
#else
#define RSEQ_SLICE_DISPATCH(s, off, other) \
	do { \
		if ((s)->path == RSEQ_SLICE_PATH_OFF) goto off; \
		if ((s)->path != RSEQ_SLICE_PATH_MEASURE) goto other; \
	} while (0)
#endif

/*
 * RSEQ_SLICE_IF_ZERO32(lvalue, label): jump to `label` if the 32-bit lvalue
 * (in memory) is 0: `cmpl $0, mem` and `je`.  Plain C makes the compiler
 * load the depth into a register to test and increment it (4-5
 * instructions instead of 3 with the increment; objdump, gcc 12).  aarch64
 * has no compare with memory: plain C (ldr, cbz).
 */
#if RSEQ_SLICE_X86_64
#define RSEQ_SLICE_IF_ZERO32(v, label) \
	__asm__ goto("cmpl $0, %0\n\tje %l1" : : "m"(v) : "cc" : label)
#else
#define RSEQ_SLICE_IF_ZERO32(v, label) \
	do { if ((v) == 0) goto label; } while (0)
#endif

/* rseq_cs == 0: one `cmpq $0` on x86_64 (the kernel writes rseq_cs
 * asynchronously, so it is read at every check; a volatile load would cost
 * a separate load and test).  aarch64: the volatile load (ldr, cbz). */
RSEQ_SLICE_INLINE int
rseq_slice_cs_cleared(volatile rseq_slice_area *a)
{
#if RSEQ_SLICE_X86_64 && defined(__GCC_ASM_FLAG_OUTPUTS__)
	int			z;

	__asm__ __volatile__("cmpq $0, %1" : "=@ccz"(z) : "m"(a->rseq_cs));
	return z;
#else
	return a->rseq_cs == 0;
#endif
}

/*
 * rseq_slice_request_acted: end a request window with one read-modify-write
 * of `request`: request ^= asked.  Returns 0 if request still held what the
 * window wrote (asked): no grant, and request is now 0.  Returns nonzero if
 * the kernel had cleared it (a grant, live or already ended, or a request
 * cleared without one: Linux 7.2.13 writes request = 0 and granted = 1 with
 * one store on a grant, and the whole slice_ctrl word 0 on a revoke, at a
 * V2 ID update on the return to user space after a context switch, and at
 * a refused grant when other exit work is pending;
 * include/linux/rseq_entry.h);
 * request is then `asked` (1) again and the caller must clear it before
 * anything else (rseq_slice_request_cleared).  `granted` needs no test of
 * its own: the kernel sets it only together with clearing request, and user
 * space writes request only when it opens the window.
 *
 * Why one instruction: the kernel writes slice_ctrl only from this thread's
 * own context (return from an interrupt, system call entry), which cannot
 * land inside one instruction, so the xor is atomic against it without a
 * lock prefix (the same reasoning as librseq's per-CPU operations).  The
 * load / store / load it replaces (read request, clear it, read granted:
 * 5 instructions with the tests, 3 now; objdump, gcc 12) had a window
 * between the load and the store where a grant followed by a revoke went
 * uncounted (tests/unit/race_step_test.cc).  The window left is in the
 * rare branch, between the xor and its clear: a request the kernel may
 * grant there (an interrupt within those 2 instructions); the grant is then
 * seen, yielded and counted like the first (pg_rseq counts one grant, the
 * kernel two, one of them revoked: grants - s_granted = revoked - s_revoked
 * still holds).
 *
 * aarch64 has no read-modify-write of memory but atomics (LSE ldeorb,
 * ARMv8.1+), which the fast path does not use: the plain C below keeps the
 * load / store window of the old close there.  It matters only once an
 * arm64 kernel can grant (no slice extension on arm64 in Linux 7.2:
 * shared/docs/rseq-slice-abi.md); upstream mode is then never resolved
 * there (rseq_slice_resolve).
 */
RSEQ_SLICE_INLINE int
rseq_slice_request_acted(volatile rseq_slice_area *a, uint8_t asked)
{
#if RSEQ_SLICE_X86_64 && defined(__GCC_ASM_FLAG_OUTPUTS__)
	int			nz;

	__asm__ __volatile__("xorb %2, %0"
						 : "+m"(a->slice.ctrl.request), "=@ccnz"(nz)
						 : "q"(asked) : "memory");
	return nz;
#else
	uint8_t		req = a->slice.ctrl.request;

	a->slice.ctrl.request = 0;
	RSEQ_SLICE_BARRIER();
	/*
	 * Without the single RMW: the load / store window of the old close, and
	 * request already 0 here (the caller's clear repeats it); granted is
	 * tested because a grant between the load and the store is live.
	 */
	return (uint8_t) (req ^ asked) != 0 || a->slice.ctrl.granted != 0;
#endif
}

/*
 * rseq_slice_request_cleared: the rare branch after rseq_slice_request_acted
 * returned nonzero: clear the request it re-set, first thing.
 */
RSEQ_SLICE_INLINE void
rseq_slice_request_cleared(volatile rseq_slice_area *a)
{
	a->slice.ctrl.request = 0;
	RSEQ_SLICE_BARRIER();
}

/*
 * The yield system call.  Tests may define RSEQ_SLICE_YIELD_HOOK(state) to an
 * expression returning long before including this header, to emulate the
 * kernel.
 */
#ifdef RSEQ_SLICE_YIELD_HOOK
#define rseq_slice_sys_yield(s) RSEQ_SLICE_YIELD_HOOK(s)
#else
RSEQ_SLICE_INLINE long
rseq_slice_sys_yield(rseq_slice_state *s)
{
#if RSEQ_SLICE_X86_64
	long		ret;

	(void) s;
	__asm__ __volatile__("syscall"
						 : "=a"(ret)
						 : "0"((long) RSEQ_SLICE_NR_YIELD)
						 : "rcx", "r11", "memory");
	return ret;
#elif RSEQ_SLICE_AARCH64
	/*
	 * arm64 system call ABI (the kernel's Documentation/arch/arm64 and
	 * glibc's sysdeps/unix/sysv/linux/aarch64/sysdep.h): number in x8,
	 * `svc #0`, result in x0; every other register and the flags are
	 * preserved.  rseq_slice_yield takes no argument.
	 */
	register long x8 __asm__("x8") = RSEQ_SLICE_NR_YIELD;
	register long x0 __asm__("x0");

	(void) s;
	__asm__ __volatile__("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
#else
	(void) s;
	return 0;
#endif
}
#endif

/*
 * rseq_slice_granted: the upstream request window closed with the kernel's
 * answer: `granted` set (call rseq_slice_yield), or request already clear
 * and granted clear (a grant that already ended, or a clear without a
 * grant: which one cannot be known here; one rseq_slice_yield is the
 * first system call after that grant, where with rseq debugging on the
 * kernel checks slice_ctrl once, and only there: a request set at that
 * call, inside a later section, would kill the thread: Linux 7.2
 * kernel/rseq.c rseq_syscall_enter_work(), bench/kernel-lab/NOTES.md).
 * Counts grants, revoked, yields, yields_in_grant; returns RSEQ_SLICE_EV_*.
 * In a two-thread probe grants = debugfs s_granted
 * (shared/docs/rseq-slice-abi.md, measured); under PostgreSQL on Linux
 * 7.2.13 with multi-threaded TCG grants exceed s_granted, because the kernel
 * also clears slice_ctrl without granting (at its V2 rseq update on the
 * return to user space after a context switch, gated by the system-wide
 * static key, not by the thread's prctl state; at a refused grant only when
 * other exit work is pending) and that looks the same here
 * (bench/results/kernel-lab/README.md).  yields_in_grant = s_yielded
 * exactly in every measurement.  Only reached when the kernel acted: out of
 * line (rseq_slice_kernel.c).
 */
extern unsigned rseq_slice_granted(rseq_slice_state *s, int granted);

/*
 * rseq_slice_kernel_validates: does the kernel check slice_ctrl for this
 * thread (rseq debug mode: boot option rseq_debug=1 or debugfs rseq/debug)?
 * It checks it only at the first system call after a grant that was not
 * ended by rseq_slice_yield, not at every system call.  With debug mode on,
 * a request left set at the first system call after a grant that was
 * revoked unseen kills the thread
 * (SIGSEGV), so a section whose request the kernel cleared with granted
 * clear must be followed by a system call before the next request: the
 * default, s->no_clear_yield = 0, makes rseq_slice_granted call
 * rseq_slice_yield there.  Without debug mode that call does nothing
 * useful: 5-10 times the kernel's revoked grants under connection churn
 * (Linux 7.2.13 in the kernel lab, bench/kernel-lab/NOTES.md).
 *
 * How: debug mode evaluates rseq_cs at every system call return and clears
 * an empty-range descriptor there; otherwise only a deschedule (on 7.x one
 * after an interrupt or exception from user mode) or a signal (on 7.x with
 * a V2 area only one delivered on an interrupt or exception return) clears
 * it.
 * The probe arms our marker, makes a system call (getppid), and looks;
 * twice, so that a deschedule between cannot pass for debug mode.
 * Returns 1 (debug mode seen: keep yielding), 0 (not seen), -1 (cannot
 * tell: no area, or rseq_cs holds a foreign descriptor).  Two system
 * calls; call it when a process starts, not on the lock path.  A switch of
 * debugfs rseq/debug after the probe is not seen.
 */
extern int	rseq_slice_kernel_validates(volatile rseq_slice_area *a,
										uint64_t marker);

/*
 * rseq_slice_granted_now: rseq_slice_granted with `granted` read from the
 * area now: the inline close (rseq_slice_request_acted) found request
 * cleared by the kernel and has cleared the request its xor re-set
 * (rseq_slice_request_cleared).  The kernel can only have ended a live
 * grant since (a revoke), or cleared it without a grant: it is counted as
 * revoked, whatever the cause; a
 * grant of the re-set request (an interrupt within the rare branch's first
 * two instructions) is seen here as granted and yielded.
 */
extern unsigned rseq_slice_granted_now(rseq_slice_state *s);

/*
 * rseq_slice_close_request: end the request window of the outermost section
 * (upstream or poc mode): upstream ends it with one xor of request
 * (rseq_slice_request_acted) and reads granted only if the kernel acted;
 * see rseq_slice_granted for what the answers mean.  Returns
 * RSEQ_SLICE_EV_*.
 *
 * PoC: cr_flags is one word shared with the kernel; without an atomic
 * exchange a grant that lands between the load and the store is missed
 * (two instructions).  PoC mode is never chosen automatically.
 */
RSEQ_SLICE_INLINE unsigned
rseq_slice_close_request(rseq_slice_state *s)
{
	volatile rseq_slice_area *a = s->area;

	RSEQ_SLICE_BARRIER();
	if (s->mode == RSEQ_SLICE_MODE_UPSTREAM)
	{
		/* not asked: request and granted stay 0 (the kernel grants only on
		 * request) */
		if (RSEQ_SLICE_UNLIKELY(rseq_slice_request_acted(a, s->asked)))
		{
			rseq_slice_request_cleared(a);
			return rseq_slice_granted(s, a->slice.ctrl.granted != 0);
		}
		return 0;
	}
	else
	{
		uint32_t	f = a->slice.poc_cr_flags;

		a->slice.poc_cr_flags = 0;
		if (RSEQ_SLICE_UNLIKELY(f & RSEQ_SLICE_POC_KERNEL_REQUEST_SCHED))
			return rseq_slice_granted(s, 1);
		return 0;
	}
}

/*
 * Open a request window (upstream or poc mode) with what the section asks
 * (s->asked: 1 ask, 0 do not); requests (a detail counter) counts the
 * windows that asked.
 */
RSEQ_SLICE_INLINE void
rseq_slice_open_request(rseq_slice_state *s)
{
	if (s->detail)
		s->ctr->requests += s->asked;
	if (s->mode == RSEQ_SLICE_MODE_UPSTREAM)
		s->area->slice.ctrl.request = s->asked;
	else
		s->area->slice.poc_cr_flags =
			s->asked ? RSEQ_SLICE_POC_IN_CRITICAL_SECTION : 0;
	RSEQ_SLICE_BARRIER();
}

/*
 * Out of line (rseq_slice_kernel.c), never on the common path:
 *
 * rseq_slice_enter_slow: the whole of rseq_slice_enter on the slow path
 *   (depth not yet changed); `ask` as for rseq_slice_enter_ask.
 * rseq_slice_leave_slow: the whole of rseq_slice_leave on the slow path
 *   (depth not yet changed).  Returns RSEQ_SLICE_EV_*.
 * rseq_slice_cleared_at_enter: a section was entered (depth already
 *   incremented) and rseq_cs was found 0: the kernel cleared the marker
 *   (or it was never armed).  Re-arms it; with locks held before this entry,
 *   counts a deschedule charged to the enclosing lock.
 * rseq_slice_cleared_at_leave: a section was left (depth already
 *   decremented) and rseq_cs was found 0: the thread was descheduled (or took
 *   a signal) while holding the lock just released.  Counts it, re-arms the
 *   marker and returns RSEQ_SLICE_EV_DESCHEDULED.
 * rseq_slice_enter_rare: what the inline path calls when it found rseq_cs
 *   of fast_area 0 after depth + 1: on the slow path (fast_area is
 *   rseq_slice_slow_area) it undoes the increment and runs
 *   rseq_slice_enter_slow, else rseq_slice_cleared_at_enter.
 * rseq_slice_leave_rare: the same at a leave: on the slow path it undoes
 *   the decrement and runs rseq_slice_leave_slow, else
 *   rseq_slice_cleared_at_leave.  Returns RSEQ_SLICE_EV_*.  (The request
 *   path calls it before its decrement; it never runs with the slow area.)
 */
extern void rseq_slice_enter_slow_ask(rseq_slice_state *s, unsigned kind,
									  unsigned ask);
extern void rseq_slice_enter_slow(rseq_slice_state *s, unsigned kind);
extern unsigned rseq_slice_leave_slow(rseq_slice_state *s);
extern void rseq_slice_cleared_at_enter(rseq_slice_state *s);
extern unsigned rseq_slice_cleared_at_leave(rseq_slice_state *s);
extern void rseq_slice_enter_rare(rseq_slice_state *s, unsigned kind,
								  unsigned ask);
extern unsigned rseq_slice_leave_rare(rseq_slice_state *s);

/*
 * How the inline fast path calls those (and rseq_slice_granted).  An
 * includer may define RSEQ_SLICE_CALL_HOOKS and all three macros before
 * including this header to route the calls elsewhere (PostgreSQL's
 * storage/rseq_lock.h translates the entry's `ask`).  A hook must be an
 * ordinary call, or preserve every register the C calling convention lets
 * a callee clobber, vector and mask registers included: code compiled for
 * AVX keeps 256- and 512-bit values live across a lock section.  `ctx` is
 * the value the caller passed to rseq_slice_leave_measure/_other (0 from
 * rseq_slice_leave), for a hook that attributes the events itself; such a
 * hook returns 0.
 */
#ifndef RSEQ_SLICE_CALL_HOOKS
#define RSEQ_SLICE_CALL_ENTER_RARE(s, kind, ask) \
	rseq_slice_enter_rare((s), (kind), (ask))
#define RSEQ_SLICE_CALL_LEAVE_RARE(s, ctx) rseq_slice_leave_rare(s)
#define RSEQ_SLICE_CALL_GRANTED(s, ctx) rseq_slice_granted_now(s)
#endif

/* Close the upstream request window: the inline part of the above. */
RSEQ_SLICE_INLINE unsigned
rseq_slice_close_upstream(rseq_slice_state *s, volatile rseq_slice_area *a,
						  long ctx)
{
	(void) ctx;
	/*
	 * The caller (rseq_slice_leave) has ordered the lock's release before.
	 * movzbl asked, xorb, jne (rseq_slice_request_acted); the rare path
	 * reads granted.
	 */
	if (RSEQ_SLICE_UNLIKELY(rseq_slice_request_acted(a, s->asked)))
	{
		rseq_slice_request_cleared(a);
		return RSEQ_SLICE_CALL_GRANTED(s, ctx);
	}
	return 0;
}


/*
 * rseq_slice_enter: enter a critical section of lock kind `kind`
 * (0 .. RSEQ_SLICE_MAX_KINDS - 1, the caller's numbering).
 * rseq_slice_enter_ask: the same with the request policy of the section's
 * lock: ask = 1 asks the kernel for an extension if this is the outermost
 * section, ask = 0 does not (the window is still opened and closed, with
 * request left 0, so that nested sections behave the same); 0 or 1 only.
 *
 * Off: nothing (one load and one branch).  Measure: depth + 1 and one load
 * of rseq_cs: our marker is normally still there from an earlier section;
 * if the kernel cleared it (a deschedule or a signal since the last check),
 * the rare path re-arms it and, if locks were already held, counts the
 * deschedule against the enclosing lock.  Upstream: the same, plus
 * request = ask and asked = ask on depth 0 -> 1.  Everything else (detail
 * counters, poc, pending work) is out of line, reached through the slow
 * area's cleared rseq_cs.
 *
 * The marker is an empty-range rseq_cs descriptor (valid for the life of
 * the process): leaving it armed between sections only means that the
 * kernel clears it at the next preemption, context switch (kernels up to
 * 6.18, either registration) or signal (on 7.x with a V2 area only one
 * delivered on an interrupt or exception return), as it would inside a
 * section.  A foreign descriptor found in rseq_cs (another rseq user's,
 * necessarily stale: no other rseq critical section can be running while
 * this C code runs, since a signal handler can only have interrupted one
 * by an interrupt or exception, on whose return the kernel aborted it) is
 * left alone until the kernel clears it; it then acts as the marker.
 */
/* The bodies of rseq_slice_enter after the dispatch (see RSEQ_SLICE_DISPATCH). */
/*
 * rseq_slice_enter_check: the marker check of an entry whose depth is
 * already counted (a cleared rseq_cs: the rare path), then the barrier that
 * orders the section's stores before the lock's own accesses.
 */
RSEQ_SLICE_INLINE void
rseq_slice_enter_check(rseq_slice_state *s, volatile rseq_slice_area *a,
					   unsigned kind, unsigned ask)
{
	(void) s;					/* a hook may not use it */
	if (RSEQ_SLICE_UNLIKELY(rseq_slice_cs_cleared(a)))
		RSEQ_SLICE_CALL_ENTER_RARE(s, kind, ask);
	RSEQ_SLICE_BARRIER();
}

RSEQ_SLICE_INLINE void
rseq_slice_enter_measure_ask(rseq_slice_state *s, unsigned kind, unsigned ask)
{
	s->depth++;
	rseq_slice_enter_check(s, s->fast_area, kind, ask);
}

/*
 * path REQUEST (fast_area = area).  `hook_ask` is what the rare path gets
 * for `ask`: on this path it only ever runs rseq_slice_cleared_at_enter,
 * which does not look at it, so a caller may pass 0 and keep the
 * computation of `ask` in the outermost branch.  The marker check
 * is written out in both branches: one jump less per section.  `requests`
 * is a detail counter (the slow path counts it): 2-3 instructions per
 * outermost section otherwise (bench/results/callgrind/README.md).
 * rseq_slice_enter_request: the policy `ask` (0 or 1) given by value.
 */
RSEQ_SLICE_INLINE void
rseq_slice_enter_request(rseq_slice_state *s, unsigned kind, unsigned ask,
						 unsigned hook_ask)
{
	volatile rseq_slice_area *a = s->fast_area;

	RSEQ_SLICE_IF_ZERO32(s->depth, outermost);
	s->depth++;
	rseq_slice_enter_check(s, a, kind, hook_ask);
	return;
outermost:
	s->depth = 1;
	s->asked = (uint8_t) ask;
	a->slice.ctrl.request = (uint8_t) ask;
	rseq_slice_enter_check(s, a, kind, hook_ask);
}

/*
 * rseq_slice_load_word: the 8 bytes at byte offset `off` of `words`.  On
 * x86_64 an asm volatile with an indexed operand: a volatile C read was not
 * hoisted above the depth test either, but gcc 12 computed its address
 * with an extra add (objdump of LWLockAcquire).  Elsewhere (aarch64) the
 * volatile C read: `ldr x, [base, off]` takes a register offset anyway.
 */
RSEQ_SLICE_INLINE uint64_t
rseq_slice_load_word(const void *words, size_t off)
{
	uint64_t	w;

#if RSEQ_SLICE_X86_64
	__asm__ __volatile__("movq (%1,%2), %0" : "=r"(w) : "r"(words), "r"(off) : "memory");
#else
	w = *(const volatile uint64_t *) ((const char *) words + off);
#endif
	return w;
}

/*
 * rseq_slice_enter_request_word: rseq_slice_enter_request with the policy
 * given as an open word (RSEQ_SLICE_OPEN_WORD) at byte offset `off` of the
 * table `words`, read in the outermost branch only: one load and one store
 * set asked and depth, and the word's low byte is the request (3
 * instructions less than a byte table read through a volatile pointer;
 * objdump of LWLockAcquire, gcc 12).  For a caller that keeps its policy
 * as a table of open words (PostgreSQL's PgRseqAskRows).
 */
RSEQ_SLICE_INLINE void
rseq_slice_enter_request_word(rseq_slice_state *s, unsigned kind,
							  const void *words, size_t off, unsigned hook_ask)
{
	volatile rseq_slice_area *a = s->fast_area;
	uint64_t	w;

	RSEQ_SLICE_IF_ZERO32(s->depth, outermost);
	s->depth++;
	rseq_slice_enter_check(s, a, kind, hook_ask);
	return;
outermost:
	w = rseq_slice_load_word(words, off);
#if RSEQ_SLICE_SUPPORTED
	/*
	 * asked = ask, open_pad = 0, depth = 1: one 8-byte store (x86_64 and
	 * aarch64, both little endian: see RSEQ_SLICE_SUPPORTED)
	 */
	__builtin_memcpy((char *) s + offsetof(rseq_slice_state, asked), &w,
					 sizeof(w));
#else
	s->asked = (uint8_t) w;
	s->depth = 1;
#endif
	a->slice.ctrl.request = (uint8_t) w;
	rseq_slice_enter_check(s, a, kind, hook_ask);
}

RSEQ_SLICE_INLINE void
rseq_slice_enter_other_ask(rseq_slice_state *s, unsigned kind, unsigned ask)
{
	rseq_slice_enter_request(s, kind, ask, ask);
}

RSEQ_SLICE_INLINE void
rseq_slice_enter_ask(rseq_slice_state *s, unsigned kind, unsigned ask)
{
	RSEQ_SLICE_DISPATCH(s, off, other);
	rseq_slice_enter_measure_ask(s, kind, ask);
	return;
other:
	rseq_slice_enter_other_ask(s, kind, ask);
off:
	return;
}

RSEQ_SLICE_INLINE void
rseq_slice_enter(rseq_slice_state *s, unsigned kind)
{
	rseq_slice_enter_ask(s, kind, 1);
}

/*
 * rseq_slice_leave: leave the innermost section.  Call right after the
 * lock was released.  Returns 0, or RSEQ_SLICE_EV_* bits when something
 * happened (descheduled while holding, grant, yield) so that the caller can
 * attribute it to the lock just released.
 *
 * At every release the marker is checked: cleared by the kernel means the
 * thread was descheduled (or took a signal) while holding; it is re-armed.
 * A deschedule is charged to the innermost lock held when it happened: the
 * one released here, or an enclosing one whose deschedule was found before
 * a nested entry (reported at that lock's release, counted once; if that
 * release also finds one of its own, the second is
 * RSEQ_SLICE_EV_DESCHEDULED_AGAIN, so that every count in `descheduled` is
 * reported exactly once, except for depths beyond 32, which share one
 * report).  Upstream, at depth 1 -> 0 the request window is closed; a grant
 * costs one rseq_slice_yield.
 */
/* The bodies of rseq_slice_leave after the dispatch. */
RSEQ_SLICE_INLINE unsigned
rseq_slice_leave_measure(rseq_slice_state *s, long ctx)
{
	(void) ctx;
	s->depth--;
	if (RSEQ_SLICE_UNLIKELY(rseq_slice_cs_cleared(s->fast_area)))
		return RSEQ_SLICE_CALL_LEAVE_RARE(s, ctx);
	return 0;
}

/* path REQUEST (fast_area = area) */
RSEQ_SLICE_INLINE unsigned
rseq_slice_leave_other(rseq_slice_state *s, long ctx)
{
	volatile rseq_slice_area *a = s->fast_area;
	unsigned	ev = 0;

	(void) ctx;
	if (RSEQ_SLICE_UNLIKELY(rseq_slice_cs_cleared(a)))
		ev = RSEQ_SLICE_CALL_LEAVE_RARE(s, ctx);
	if (--s->depth == 0)
		ev |= rseq_slice_close_upstream(s, a, ctx);
	return ev;
}

RSEQ_SLICE_INLINE unsigned
rseq_slice_leave(rseq_slice_state *s)
{
	RSEQ_SLICE_BARRIER();
	RSEQ_SLICE_DISPATCH(s, off, other);
	return rseq_slice_leave_measure(s, 0);
other:
	return rseq_slice_leave_other(s, 0);
off:
	return 0;
}

/*
 * rseq_slice_wait_begin / rseq_slice_wait_end: bracket the contended part of
 * an acquisition (spinning or sleeping) whose section was entered before the
 * attempt.  If that section is the outermost one (depth 1), the request is
 * withdrawn while waiting and a deschedule while waiting is not counted:
 * the thread holds nothing yet.  wait_end re-arms the marker and
 * re-requests once the lock is held.  Outer sections (depth > 1) stay
 * extended: the thread really holds other locks while it waits; a
 * deschedule during such a wait is charged to the enclosing lock.  While
 * a wait is in progress, the slow path is in force (a leave of the waiting
 * section then ends the wait: an abandoned wait leaves no state behind);
 * sections nested in the waiting one may open and close meanwhile, and
 * their wait_end does not end it (only a wait_end at the depth of the
 * wait_begin does).  in_wait is set from
 * wait_begin to wait_end at any depth, so that a caller can skip wait_end
 * after an acquisition that did not wait with one test.
 * Returns the events of the closed request window.  Contended path only.
 */
RSEQ_SLICE_INLINE void
rseq_slice_repath(rseq_slice_state *s)
{
	uint8_t		p;

	if (s->mode == RSEQ_SLICE_MODE_OFF)
		p = s->pending ? RSEQ_SLICE_PATH_SLOW : RSEQ_SLICE_PATH_OFF;
	else if (s->detail || s->waiting || s->in_wait || s->pending ||
			 s->desched_levels != 0 || s->mode == RSEQ_SLICE_MODE_POC)
		p = RSEQ_SLICE_PATH_SLOW;
	else if (s->mode == RSEQ_SLICE_MODE_UPSTREAM)
		p = RSEQ_SLICE_PATH_REQUEST;
	else
		p = RSEQ_SLICE_PATH_MEASURE;
	if (p == RSEQ_SLICE_PATH_SLOW)
	{
		s->fast_area = &rseq_slice_slow_area;
		s->path = RSEQ_SLICE_PATH_MEASURE;
	}
	else
	{
		s->fast_area = s->area != NULL ? s->area : &rseq_slice_slow_area;
		s->path = p;
	}
}

/* The depth as in_wait records it (one byte: deeper waits share 255). */
RSEQ_SLICE_INLINE uint8_t
rseq_slice_wait_depth(const rseq_slice_state *s)
{
	return (uint8_t) (s->depth < 255 ? s->depth : 255);
}

RSEQ_SLICE_INLINE unsigned
rseq_slice_wait_begin(rseq_slice_state *s)
{
	unsigned	ev = 0;

	if (s->mode == RSEQ_SLICE_MODE_OFF || s->in_wait)
		return 0;
	s->in_wait = rseq_slice_wait_depth(s);
	if (s->depth != 1 || s->waiting)
	{
		rseq_slice_repath(s);	/* a leave during the wait ends it */
		return 0;
	}
	if (s->mode >= RSEQ_SLICE_MODE_UPSTREAM)
		ev = rseq_slice_close_request(s);
	s->waiting = 1;
	rseq_slice_repath(s);
	return ev;
}

RSEQ_SLICE_INLINE void
rseq_slice_wait_end(rseq_slice_state *s)
{
	if (s->mode == RSEQ_SLICE_MODE_OFF)
		return;
	/*
	 * A section nested in the waiting one ends no wait but its own: an
	 * LWLock wait inside a scan queues itself under the wait-list lock
	 * (a section of its own, whose acquisition also calls wait_end) and
	 * then still sleeps for the lock (found by a fresh-clone test,
	 * tests/unit/scan_wait_test.cc).
	 */
	if (s->in_wait != 0 && s->in_wait != rseq_slice_wait_depth(s))
		return;
	s->in_wait = 0;
	if (!s->waiting)
	{
		/*
		 * Depth > 1: the marker stayed armed while waiting.  A deschedule
		 * then happened while the enclosing locks were held: charge it to
		 * the innermost of them, not to the lock just acquired (the slow
		 * path's check at a nested entry does exactly that).
		 */
		if (s->depth > 1 && RSEQ_SLICE_UNLIKELY(s->area->rseq_cs == 0))
			rseq_slice_cleared_at_enter(s);
		rseq_slice_repath(s);
		return;
	}
	s->waiting = 0;
	/* a deschedule while waiting at depth 1 held nothing: just re-arm */
	if (s->area->rseq_cs == 0)
		s->area->rseq_cs = s->marker;
	if (s->mode >= RSEQ_SLICE_MODE_UPSTREAM)
		rseq_slice_open_request(s);
	rseq_slice_repath(s);
	RSEQ_SLICE_BARRIER();
}

/* ----------
 * Out-of-line support (rseq_slice_kernel.c): kernel probe, registration,
 * mode resolution.  None of it is on the lock path.
 * ----------
 */

/* Who registered the calling thread's rseq area. */
typedef enum rseq_slice_owner
{
	RSEQ_SLICE_OWNER_NONE = 0,
	RSEQ_SLICE_OWNER_GLIBC = 1,
	RSEQ_SLICE_OWNER_SELF = 2	/* this project (e.g. the postmaster) */
} rseq_slice_owner;

/* What the kernel offers this thread for the slice extension. */
typedef enum rseq_slice_ext
{
	RSEQ_SLICE_EXT_UNAVAILABLE = 0, /* kernel without the feature */
	RSEQ_SLICE_EXT_AVAILABLE = 1,	/* kernel has it, not enabled here */
	RSEQ_SLICE_EXT_ENABLED = 2, /* enabled for this thread */
	RSEQ_SLICE_EXT_DISABLED = 3 /* kernel has it, disabled (boot option or
								 * legacy registration: ENOTSUPP) */
} rseq_slice_ext;

extern const char *const rseq_slice_owner_names[3];
extern const char *const rseq_slice_ext_names[4];

/* Result of a probe of the calling thread.  Strings are NUL-terminated. */
typedef struct rseq_slice_probe
{
	char		release[65];	/* uname -r */
	char		preempt[64];	/* preemption model, "" if unknown */
	uint32_t	feature_size;	/* getauxval(AT_RSEQ_FEATURE_SIZE), bytes */
	uint32_t	align;			/* getauxval(AT_RSEQ_ALIGN), bytes */
	uint32_t	glibc_size;		/* glibc's __rseq_size, bytes (0: none) */
	uint32_t	reg_len;		/* rseq_len of the registration, bytes */
	int			registered;		/* 1 if the thread has an rseq area */
	rseq_slice_owner owner;
	rseq_slice_ext slice;		/* slice extension state */
	int			slice_errno;	/* errno of the enabling prctl, 0 if none */
	int			register_errno; /* errno of our (un)registration, 0 if none */
	int64_t		slice_ext_nsec; /* debugfs rseq/slice_ext_nsec, -1 unread */
	volatile rseq_slice_area *area; /* the registered area, NULL if none */
	/* what the set-up decided about glibc's area, "" if nothing (a probe) */
	char		register_note[200];
	char		reason[384];	/* one-line explanation of the above */
} rseq_slice_probe;

/*
 * May the set-up replace glibc's rseq registration?  The PostgreSQL GUC
 * rseq_slice_register (PGC_POSTMASTER) uses these values.
 *
 * Replacing glibc's area is the only way to a V2 registration (and so to
 * the slice extension) with glibc < 2.41 on Linux 7.x, but everything else
 * in the thread that reaches rseq through glibc's __rseq_offset (glibc's own
 * sched_getcpu, librseq, TCMalloc's per-CPU caches, libraries of
 * extensions) then reads an area the kernel no longer updates (its cpu_id
 * reads RSEQ_SLICE_CPU_ID_UNINITIALIZED).
 */
typedef enum rseq_slice_register_policy
{
	/*
	 * Replace glibc's area only when the kernel has the slice field
	 * (feature size >= 33), glibc's registration is legacy (32 bytes), and
	 * nothing else in the process is seen to use glibc's area: the process
	 * has one thread and no loaded object references __rseq_offset or
	 * __rseq_size or is a library known to use rseq
	 * (rseq_slice_find_rseq_user).
	 */
	RSEQ_SLICE_REGISTER_AUTO = 0,
	/* Never unregister glibc's area (mode auto then gets what it allows). */
	RSEQ_SLICE_REGISTER_NEVER = 1,
	/*
	 * Replace any glibc registration, on every kernel (6.x too: legacy by
	 * legacy), even when other users are detected; for tests.
	 */
	RSEQ_SLICE_REGISTER_ALWAYS = 2
} rseq_slice_register_policy;

#define RSEQ_SLICE_NREGISTER 3
extern const char *const rseq_slice_register_names[RSEQ_SLICE_NREGISTER];

/* What rseq_slice_register_decide chose. */
typedef enum rseq_slice_register_action
{
	RSEQ_SLICE_ACTION_KEEP = 0, /* keep the registration in place (or none) */
	RSEQ_SLICE_ACTION_REGISTER = 1, /* the thread has none: register ours */
	RSEQ_SLICE_ACTION_REPLACE = 2	/* unregister glibc's area, register ours */
} rseq_slice_register_action;

/* The facts the decision looks at (rseq_slice_gather_facts fills them). */
typedef struct rseq_slice_register_facts
{
	uint32_t	feature_size;	/* getauxval(AT_RSEQ_FEATURE_SIZE), 0 unknown */
	uint32_t	glibc_size;		/* glibc's __rseq_size (0: no registration) */
	uint32_t	glibc_len;		/* rseq_len of glibc's registration, 0 unknown */
	int			glibc_registered;	/* glibc's area is registered here */
	int			self_registered;	/* the thread already has our area */
	int			threads;		/* threads in the process, 0 if not counted */
	char		rseq_user[96];	/* an object using glibc's area, "" if none
								 * (or not looked for) */
} rseq_slice_register_facts;

/*
 * rseq_slice_register_decide: what to do with the calling thread's
 * registration under a policy.  Pure (no system call).  Keeps our own
 * registration; registers ours when the thread has none (nothing without a
 * feature size, i.e. kernels without rseq or before 6.3; under auto and
 * never not when f->rseq_user names an object, which may register its own
 * area, e.g. TCMalloc under GLIBC_TUNABLES=glibc.pthread.rseq=0);
 * otherwise never: keep; always: replace; auto: keep
 * when the kernel lacks the slice field, glibc's area is already V2
 * (glibc 2.41+: __rseq_size >= 33, or a registration longer than 32
 * bytes), the process has more than one thread, or f->rseq_user names an
 * object; else replace.  Writes a short reason to why (may be NULL).
 */
extern rseq_slice_register_action rseq_slice_register_decide(rseq_slice_register_policy policy,
															 const rseq_slice_register_facts *f,
															 char *why, size_t whylen);

/*
 * rseq_slice_gather_facts: the facts about the calling thread.  detect: also
 * count the process's threads (/proc/self/task) and look for other users of
 * glibc's area (rseq_slice_find_rseq_user).  glibc_len comes from the
 * kernel itself (re-registering the same area with the same length gives
 * EBUSY, any other length EINVAL; nothing changes).
 */
extern void rseq_slice_gather_facts(rseq_slice_register_facts *f, int detect);

/*
 * rseq_slice_known_rseq_library: 1 if the file name (a path or a base name)
 * is that of a library known to use rseq: librseq.so*, libtcmalloc*.so*
 * (TCMalloc, gperftools), liblttng-ust.so*.  Else 0.
 */
extern int	rseq_slice_known_rseq_library(const char *path);

/*
 * rseq_slice_find_rseq_user: look through the loaded objects
 * (dl_iterate_phdr) for one that uses rseq besides glibc and this project:
 * a known rseq library, or an object whose dynamic symbol table has an
 * undefined reference to __rseq_offset or __rseq_size.  Skipped: the main
 * program, the vDSO, glibc's libc.so and ld.so, and objects that define
 * rseq_slice_probe_thread (this project's code, which follows the set-up).
 * Writes "<base name> (<why>)" of the first found to out and returns 1;
 * returns 0 (out "") if none.
 */
extern int	rseq_slice_find_rseq_user(char *out, size_t outlen);

/* Threads of the calling process (entries of /proc/self/task), 0 unknown. */
extern int	rseq_slice_count_threads(void);

/*
 * rseq_slice_setup_process: rseq_slice_setup_thread for the main thread of
 * a process before it forks children that inherit its registration (the
 * postmaster), under a policy and with detection of other users of glibc's
 * area (rseq_slice_gather_facts(f, 1)).  p->register_note and p->reason say
 * what was decided and why ("kept (rseq_slice_register = auto: ...)",
 * "replacing glibc's (...)").  Returns 0 when the slice extension ended up
 * enabled, else -1.
 */
extern int	rseq_slice_setup_process(rseq_slice_probe *p,
									 rseq_slice_area_storage *storage,
									 rseq_slice_register_policy policy);

/*
 * rseq_slice_probe_thread: fill *p for the calling thread without changing
 * anything (no registration, no prctl SET).  Never fails; unknown fields are
 * 0, "" or -1.
 */
extern void rseq_slice_probe_thread(rseq_slice_probe *p);

/*
 * rseq_slice_setup_thread: make the calling thread able to use the slice
 * extension, then probe it into *p.
 *
 * If the kernel knows the slice field (feature size >= 33) and the thread
 * has only a legacy (32-byte) registration from glibc, unregister glibc's
 * area and register `storage` (64-byte aligned, length the feature size
 * rounded up to the alignment): policy RSEQ_SLICE_REGISTER_AUTO without
 * looking for other users of glibc's area (for benchmarks whose threads are
 * their own; the postmaster uses rseq_slice_setup_process).  A V2 area from
 * glibc 2.41+ is kept and used.  If the thread has no registration at all,
 * register `storage` (legacy or V2 as the kernel allows) so that the
 * marker works.  Then enable the extension with the prctl when the
 * registration is V2.  Failures are not fatal: *p says what is in force and
 * why (errno names in p->reason).  Call before creating threads or forking
 * children that should inherit the registration.  Returns 0 when the slice
 * extension ended up enabled, else -1.
 */
extern int	rseq_slice_setup_thread(rseq_slice_probe *p,
									rseq_slice_area_storage *storage);

/*
 * rseq_slice_resolve: the mode in force for a requested mode given a probe.
 * off stays off; without any registration everything is off; upstream and
 * auto need the extension enabled (else measure); poc needs a registration
 * and a kernel whose area does not have the upstream slice field at offset
 * 28 (else measure).  Writes a one-line reason to why (may be NULL).
 */
extern rseq_slice_mode rseq_slice_resolve(rseq_slice_mode requested,
										  const rseq_slice_probe *p,
										  char *why, size_t whylen);

/*
 * rseq_slice_state_init: set up *s for the calling thread: depth 0, the
 * given mode in force, area and marker from the probe, counters at ctr
 * (must not be NULL).  mode must already be resolved (not AUTO).
 */
extern void rseq_slice_state_init(rseq_slice_state *s, rseq_slice_mode mode,
								  const rseq_slice_probe *p,
								  rseq_slice_counters *ctr);

/*
 * rseq_slice_set_mode: switch *s to a resolved mode now if no section is
 * open, else at the next depth 1 -> 0.  Returns 1 if switched now.  Mode off
 * keeps no depth: from off the switch is immediate and the caller
 * guarantees that no section is open (else use rseq_slice_set_mode_open).
 * Switching to off clears rseq_cs if it holds our marker.
 */
extern int	rseq_slice_set_mode(rseq_slice_state *s, rseq_slice_mode mode);

/*
 * rseq_slice_set_mode_open: the same, for a caller that knows that `open`
 * sections (locks) are held while *s is in mode off (which keeps no depth):
 * the switch then waits until they are left (the slow path counts the
 * depth from `open` meanwhile).  Returns 1 if switched now.
 */
extern int	rseq_slice_set_mode_open(rseq_slice_state *s, rseq_slice_mode mode,
									 uint32_t open);

/*
 * rseq_slice_set_detail: 1 = also count entries per kind, sections, nested
 * entries and max_depth (every section then takes the out-of-line slow
 * path through the caller's hooks: about 210 more instructions per
 * section in the server, bench/results/callgrind); 0 = do
 * not (those counters stand still).  Takes effect at the next enter.
 */
extern void rseq_slice_set_detail(rseq_slice_state *s, int detail);

/*
 * An adaptive request policy for one group of locks (PostgreSQL: one
 * tranche row per backend), fed with the RSEQ_SLICE_EV_* events of each
 * release of a lock of the group (rseq_slice_leave's result):
 *
 *	asking: after RSEQ_SLICE_ADAPT_GRANTS grants, if fewer than half of
 *		them ended inside the extension (RSEQ_SLICE_EV_YIELDED: the yield
 *		returned 1), stop asking; either way start a new window.
 *	not asking: count deschedules while holding (every count the events
 *		carry: DESCHEDULED, DESCHEDULED_AGAIN, the EV_MORE count); after
 *		RSEQ_SLICE_ADAPT_DESCHED of them ask again (preemption costs the
 *		group again, so try the extension again).
 *
 * rseq_slice_adapt_step returns the new ask (0 or 1) for a group that asked
 * `ask` before these events.  Counts are per window, saturating.  The
 * thresholds are a first choice (2026-12-01), not yet tuned on a kernel
 * that grants extensions.
 */
#define RSEQ_SLICE_ADAPT_GRANTS		32
#define RSEQ_SLICE_ADAPT_DESCHED	64

typedef struct rseq_slice_adapt
{
	uint16_t	grants;			/* grants in this window (asking) */
	uint16_t	yielded;		/* of those, released inside the extension */
	uint16_t	desched;		/* deschedules while holding (not asking) */
} rseq_slice_adapt;

extern unsigned rseq_slice_adapt_step(rseq_slice_adapt *a, unsigned ask,
									  unsigned events);

/*
 * rseq_slice_thread_enabled: 1 if the slice extension is enabled for the
 * calling thread now (prctl GET, one system call), else 0.  For children
 * that inherited the registration with fork().
 */
extern int	rseq_slice_thread_enabled(void);

/* Parse a mode name (case-insensitive); returns -1 if unknown. */
extern int	rseq_slice_mode_from_name(const char *name);

/* The address of the process's empty-range descriptor, as rseq_cs wants it. */
extern uint64_t rseq_slice_marker_address(void);

/* errno name ("EINVAL", "ENOTSUPP", ...) or "E<number>". */
extern const char *rseq_slice_errno_name(int err, char *buf, size_t buflen);

#ifdef __cplusplus
}
#endif

#endif							/* RSEQ_SLICE_H */
