/*-------------------------------------------------------------------------
 *
 * rseq_slice_kernel.c
 *	  Out-of-line part of the rseq slice extension protocol: kernel probe,
 *	  registration of a V2 rseq area, mode resolution.  Nothing here is on
 *	  the lock path.
 *
 * Standalone C99, no PostgreSQL includes (the PostgreSQL patch, the
 * extension, the tests and the benchmarks all compile this same file).
 *
 * Architectures: x86_64 and aarch64 Linux (RSEQ_SLICE_SUPPORTED); the only
 * difference here is thread_pointer(); the system call numbers and
 * RSEQ_SIG come from rseq_slice.h.  On arm64 Linux 7.2 has no slice
 * extension: a 7.x kernel built without CONFIG_RSEQ_SLICE_EXTENSION answers
 * prctl 79 with ENOTSUPP (524), GET included, not EINVAL (the stub in
 * include/linux/rseq.h; shared/docs/rseq-slice-abi.md, "Turning it on"),
 * the probe says "unavailable" and auto resolves to measure.
 *
 * Facts used (shared/docs/rseq-slice-abi.md, checked on 6.18 and 7.2.13):
 *	- glibc 2.36 registers a legacy 32-byte area per thread (__rseq_size 20);
 *	  unregistering it with rseq(area, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG)
 *	  returns 0, after which a 64-byte aligned area of length >= the feature
 *	  size can be registered (a second registration gives EBUSY).
 *	- prctl(79, 2, 1, 0, 0) enables the extension; EINVAL: no such prctl
 *	  (every kernel before 7.0) or bad arguments, ENOTSUPP (524): disabled at
 *	  boot or a legacy registration, ENXIO: no rseq registered.  A 7.x
 *	  kernel built without CONFIG_RSEQ_SLICE_EXTENSION (every arm64 7.2
 *	  kernel) answers ENOTSUPP to every well-formed request of prctl 79,
 *	  GET (1) included; one built with it answers GET with 0 or 1
 *	  (include/linux/rseq.h, kernel/rseq.c of 7.2.13).
 *	- fork() copies the registration and the slice extension state.
 *	- glibc 2.41+ sizes its registration from AT_RSEQ_FEATURE_SIZE: Debian
 *	  sid's 2.43 on 6.18 has __rseq_size 28 and registers 32 bytes (measured
 *	  with the EBUSY probe below); on 7.x its area is V2 and is used as it is.
 *	- rseq(area, len, 0, sig) on a thread already registered with that area
 *	  and length returns EBUSY, with any other length EINVAL: the registered
 *	  length can be read back without changing anything.
 *
 * lwlock_patch/rseq_slice_kernel.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

/*
 * lwlock_patch/ and the tests: beside us; PostgreSQL's tree: port/.  (Two
 * #if levels: where __has_include is not defined, `__has_include(...)`
 * does not parse, even behind a false `defined` test.)
 */
#if defined(__has_include)
#if __has_include("rseq_slice.h")
#include "rseq_slice.h"
#else
#include "port/rseq_slice.h"
#endif
#else
#include "port/rseq_slice.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if RSEQ_SLICE_SUPPORTED
#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* glibc >= 2.35 exports these; weak so that older glibc still links. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
#endif

const char *const rseq_slice_mode_names[RSEQ_SLICE_NMODES] = {
	"off", "measure", "upstream", "poc", "auto"
};
const char *const rseq_slice_owner_names[3] = {"none", "glibc", "postgres"};
const char *const rseq_slice_register_names[RSEQ_SLICE_NREGISTER] = {
	"auto", "never", "always"
};
const char *const rseq_slice_ext_names[4] = {
	"unavailable", "available", "enabled", "disabled"
};

/*
 * The empty-range descriptor and the signature word its abort_ip points past.
 * Filled at run time (an address cannot be a 64-bit integer constant in C99).
 */
static uint32_t rseq_slice_sig_words[2] RSEQ_SLICE_ALIGNED(8);
static rseq_slice_cs rseq_slice_marker_cs;

/*
 * Registration owned by this thread, if any.  Thread-local: every thread
 * registers its own area; fork() copies the forking thread's value along
 * with its registration.
 */
#if RSEQ_SLICE_SUPPORTED
static RSEQ_SLICE_THREAD_LOCAL volatile rseq_slice_area *self_area;
static RSEQ_SLICE_THREAD_LOCAL uint32_t self_len;
#endif

static void probe_fill(rseq_slice_probe *p);

/* strlcpy: copy src into dst (dstlen > 0), cut to fit, NUL-terminated. */
static void RSEQ_SLICE_UNUSED
copy_truncated(char *dst, size_t dstlen, const char *src)
{
	size_t		n = strlen(src);

	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

uint64_t
rseq_slice_marker_address(void)
{
	if (rseq_slice_marker_cs.abort_ip == 0)
	{
		rseq_slice_sig_words[0] = RSEQ_SLICE_SIG;
		rseq_slice_sig_words[1] = 0;
		rseq_slice_marker_cs.version = 0;
		rseq_slice_marker_cs.flags = 0;
		rseq_slice_marker_cs.start_ip = 0;
		rseq_slice_marker_cs.post_commit_offset = 0;
		rseq_slice_marker_cs.abort_ip =
			(uint64_t) (uintptr_t) &rseq_slice_sig_words[1];
	}
	return (uint64_t) (uintptr_t) &rseq_slice_marker_cs;
}

const char *
rseq_slice_errno_name(int err, char *buf, size_t buflen)
{
	switch (err)
	{
		case 0:
			return "0";
		case EINVAL:
			return "EINVAL";
		case RSEQ_SLICE_ENOTSUPP:
			return "ENOTSUPP";
		case ENXIO:
			return "ENXIO";
		case EBUSY:
			return "EBUSY";
		case EPERM:
			return "EPERM";
		case EFAULT:
			return "EFAULT";
		case ENOSYS:
			return "ENOSYS";
		case EACCES:
			return "EACCES";
		case ENOENT:
			return "ENOENT";
		case ENOMEM:
			return "ENOMEM";
		case EOPNOTSUPP:
			return "EOPNOTSUPP";
		default:
			snprintf(buf, buflen, "E%d", err);
			return buf;
	}
}

int
rseq_slice_mode_from_name(const char *name)
{
	int			i;

	if (name == NULL)
		return -1;
	for (i = 0; i < RSEQ_SLICE_NMODES; i++)
		if (strcasecmp(name, rseq_slice_mode_names[i]) == 0)
			return i;
	return -1;
}

#if RSEQ_SLICE_SUPPORTED

/*
 * The thread pointer, which glibc's __rseq_offset is relative to (glibc's
 * sys/rseq.h): %fs:0 on x86_64 (the TCB's self pointer, tcbhead_t.tcb),
 * the TPIDR_EL0 register on aarch64 (the Arm ARM; glibc's
 * sysdeps/aarch64/nptl/tls.h, TLS_TCB_AT_TP 0).
 */
static void *
thread_pointer(void)
{
	void	   *tp;

#if RSEQ_SLICE_AARCH64
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
#else
	__asm__("mov %%fs:0, %0" : "=r"(tp));
#endif
	return tp;
}

/* Read a small text file into buf (first line, trailing newline cut). */
static int
read_small_file(const char *path, char *buf, size_t len)
{
	FILE	   *f = fopen(path, "r");
	size_t		n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * The preemption model: debugfs sched/preempt ("none voluntary (full) lazy")
 * when readable (root), else the PREEMPT words of uname -v.
 */
static void
probe_preempt(char *out, size_t len)
{
	char		buf[256];
	struct utsname u;

	out[0] = '\0';
	if (read_small_file("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)) == 0)
	{
		char	   *open = strchr(buf, '(');
		char	   *close = open ? strchr(open, ')') : NULL;

		if (open && close && close > open + 1)
		{
			*close = '\0';
			snprintf(out, len, "%s", open + 1);
			return;
		}
	}
	if (uname(&u) == 0)
	{
		const char *words[] = {"PREEMPT_RT", "PREEMPT_LAZY", "PREEMPT_DYNAMIC",
		"PREEMPT "};
		size_t		i;

		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strstr(u.version, words[i]) != NULL)
			{
				char		w[32];
				size_t		wl;

				snprintf(w, sizeof(w), "%s", words[i]);
				wl = strlen(w);
				if (wl > 0 && w[wl - 1] == ' ')
					w[wl - 1] = '\0';
				snprintf(out, len, "%s (uname -v)", w);
				return;
			}
	}
}

static int
cpu_id_registered(volatile rseq_slice_area *a)
{
	uint32_t	id = a->cpu_id;

	return id != RSEQ_SLICE_CPU_ID_UNINITIALIZED &&
		id != RSEQ_SLICE_CPU_ID_REGISTRATION_FAILED;
}

/* glibc's area for this thread, or NULL if glibc registered none. */
static volatile rseq_slice_area *
glibc_area(void)
{
	volatile rseq_slice_area *a;

	if (&__rseq_size == NULL || &__rseq_offset == NULL || __rseq_size == 0)
		return NULL;
	a = (volatile rseq_slice_area *) ((char *) thread_pointer() + __rseq_offset);
	return cpu_id_registered(a) ? a : NULL;
}

static int
sys_rseq(volatile void *area, uint32_t len, int flags)
{
	return (int) syscall(RSEQ_SLICE_NR_RSEQ, area, len, flags, RSEQ_SLICE_SIG);
}

/*
 * The rseq_len of glibc's registration of area g, read back from the kernel:
 * registering the same area again with the registered length returns EBUSY,
 * with any other length EINVAL (nothing changes either way).  Tries the
 * lengths glibc uses (32 up to 2.40; __rseq_size, at least 32, from 2.41)
 * and a few roundings.  0 if none matched.
 */
static uint32_t
glibc_reg_len(volatile rseq_slice_area *g, uint32_t glibc_size)
{
	uint32_t	fsize = (uint32_t) getauxval(RSEQ_SLICE_AT_FEATURE_SIZE);
	uint32_t	align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);
	uint32_t	cand[5];
	int			i,
				j;

	if (align < RSEQ_SLICE_ORIG_SIZE)
		align = RSEQ_SLICE_ORIG_SIZE;
	cand[0] = glibc_size > RSEQ_SLICE_ORIG_SIZE ? glibc_size : RSEQ_SLICE_ORIG_SIZE;
	cand[1] = RSEQ_SLICE_ORIG_SIZE;
	cand[2] = ((glibc_size + align - 1) / align) * align;
	cand[3] = fsize > RSEQ_SLICE_ORIG_SIZE ? fsize : RSEQ_SLICE_ORIG_SIZE;
	cand[4] = ((fsize + align - 1) / align) * align;
	for (i = 0; i < 5; i++)
	{
		int			seen = 0;

		if (cand[i] < RSEQ_SLICE_ORIG_SIZE || cand[i] > 4096)
			continue;
		for (j = 0; j < i; j++)
			if (cand[j] == cand[i])
				seen = 1;
		if (seen)
			continue;
		if (sys_rseq(g, cand[i], 0) != 0 && errno == EBUSY)
			return cand[i];
	}
	return 0;
}

/* ---- other users of glibc's area in the process ---- */

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int
has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Addresses in .dynamic: relocated by ld.so on x86_64 and aarch64 (glibc
 * keeps .dynamic read-only only on MIPS and RISC-V), but not in the vDSO.
 */
static const void *
dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) ptr)
{
	return (const void *) (ptr < info->dlpi_addr ? ptr + info->dlpi_addr : ptr);
}

/* Number of dynamic symbols from DT_HASH or DT_GNU_HASH, 0 if unknown. */
static uint32_t
dynsym_count(const uint32_t *hash, const uint32_t *gnu)
{
	uint32_t	nbuckets,
				symoffset,
				bloom_size,
				maxsym = 0,
				b;
	const uint32_t *buckets,
			   *chain;

	if (hash != NULL)
		return hash[1];			/* nchain */
	if (gnu == NULL)
		return 0;
	nbuckets = gnu[0];
	symoffset = gnu[1];
	bloom_size = gnu[2];
	buckets = (const uint32_t *) ((const ElfW(Addr) *) (gnu + 4) + bloom_size);
	chain = buckets + nbuckets;
	for (b = 0; b < nbuckets; b++)
		if (buckets[b] > maxsym)
			maxsym = buckets[b];
	if (maxsym < symoffset)
		return symoffset;		/* only unhashed (undefined) symbols */
	while ((chain[maxsym - symoffset] & 1) == 0)
		maxsym++;
	return maxsym + 1;
}

typedef struct rseq_user_scan
{
	char	   *out;
	size_t		outlen;
	int			found;
} rseq_user_scan;

static int
scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	rseq_user_scan *scan = (rseq_user_scan *) arg;
	const char *name = info->dlpi_name;
	const char *base;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *hash = NULL,
			   *gnu = NULL;
	size_t		strsz = 0;
	uint32_t	n,
				i;
	int			refs = 0,
				ours = 0;
	int			k;

	(void) size;
	if (scan->found)
		return 1;
	if (name == NULL || name[0] == '\0')
		return 0;				/* the main program */
	base = base_name(name);
	if (has_prefix(base, "linux-vdso") || has_prefix(base, "linux-gate") ||
		has_prefix(base, "libc.so") || has_prefix(base, "ld-linux"))
		return 0;				/* the vDSO and glibc itself */
	if (rseq_slice_known_rseq_library(base))
	{
		snprintf(scan->out, scan->outlen, "%s (a library known to use rseq)", base);
		scan->found = 1;
		return 1;
	}
	for (k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *) (info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	if (dyn == NULL)
		return 0;
	for (; dyn->d_tag != DT_NULL; dyn++)
	{
		switch (dyn->d_tag)
		{
			case DT_SYMTAB:
				symtab = (const ElfW(Sym) *) dyn_ptr(info, dyn->d_un.d_ptr);
				break;
			case DT_STRTAB:
				strtab = (const char *) dyn_ptr(info, dyn->d_un.d_ptr);
				break;
			case DT_STRSZ:
				strsz = dyn->d_un.d_val;
				break;
			case DT_HASH:
				hash = (const uint32_t *) dyn_ptr(info, dyn->d_un.d_ptr);
				break;
			case DT_GNU_HASH:
				gnu = (const uint32_t *) dyn_ptr(info, dyn->d_un.d_ptr);
				break;
		}
	}
	if (symtab == NULL || strtab == NULL)
		return 0;
	n = dynsym_count(hash, gnu);
	for (i = 1; i < n; i++)
	{
		const ElfW(Sym) *sym = &symtab[i];
		const char *sname;

		if (sym->st_name == 0 || sym->st_name >= strsz)
			continue;
		sname = strtab + sym->st_name;
		if (sname[0] == '_' && sym->st_shndx == SHN_UNDEF &&
			(strcmp(sname, "__rseq_offset") == 0 || strcmp(sname, "__rseq_size") == 0))
			refs = 1;
		else if (sname[0] == 'r' && sym->st_shndx != SHN_UNDEF &&
				 strcmp(sname, "rseq_slice_probe_thread") == 0)
			ours = 1;
	}
	if (refs && !ours)
	{
		snprintf(scan->out, scan->outlen, "%s (references __rseq_offset)", base);
		scan->found = 1;
		return 1;
	}
	return 0;
}

#endif							/* RSEQ_SLICE_SUPPORTED */

int
rseq_slice_known_rseq_library(const char *path)
{
	static const char *const prefixes[] = {
		"librseq.so", "libtcmalloc", "liblttng-ust.so"
	};
	const char *base;
	size_t		i;

	if (path == NULL)
		return 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0 &&
			strstr(base, ".so") != NULL)
			return 1;
	return 0;
}

int
rseq_slice_find_rseq_user(char *out, size_t outlen)
{
	if (out != NULL && outlen > 0)
		out[0] = '\0';
#if RSEQ_SLICE_SUPPORTED
	{
		char		dummy[1];
		rseq_user_scan scan;

		scan.out = (out != NULL && outlen > 0) ? out : dummy;
		scan.outlen = (out != NULL && outlen > 0) ? outlen : sizeof(dummy);
		scan.found = 0;
		dl_iterate_phdr(scan_object, &scan);
		return scan.found;
	}
#else
	return 0;
#endif
}

int
rseq_slice_count_threads(void)
{
#if RSEQ_SLICE_SUPPORTED
	DIR		   *d = opendir("/proc/self/task");
	struct dirent *e;
	int			n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
#else
	return 0;
#endif
}

rseq_slice_register_action
rseq_slice_register_decide(rseq_slice_register_policy policy,
						   const rseq_slice_register_facts *f,
						   char *why, size_t whylen)
{
	rseq_slice_register_action a;
	char		buf[256];
	char		dummy[1];
	const char *pname = (unsigned) policy < RSEQ_SLICE_NREGISTER ?
		rseq_slice_register_names[policy] : "?";
	int			glibc_v2;

	if (why == NULL || whylen == 0)
	{
		why = dummy;
		whylen = sizeof(dummy);
	}
	/* glibc 2.41+ registers the feature size: decided from __rseq_size */
	glibc_v2 = f->glibc_size >= RSEQ_SLICE_FEATURE_SIZE_SLICE ||
		f->glibc_len > RSEQ_SLICE_ORIG_SIZE;

	if (f->self_registered)
	{
		a = RSEQ_SLICE_ACTION_KEEP;
		snprintf(buf, sizeof(buf), "already registered by this process");
	}
	else if (!f->glibc_registered)
	{
		if (f->feature_size == 0)
		{
			a = RSEQ_SLICE_ACTION_KEEP;
			snprintf(buf, sizeof(buf), "the kernel reports no rseq feature size");
		}
		else if (f->rseq_user[0] != '\0' && policy != RSEQ_SLICE_REGISTER_ALWAYS)
		{
			/* e.g. TCMalloc under glibc.pthread.rseq=0: leave it the thread */
			a = RSEQ_SLICE_ACTION_KEEP;
			snprintf(buf, sizeof(buf), "glibc registered no rseq area%s, not registering ours "
					 "(rseq_slice_register = %s: %s may register its own)",
					 f->glibc_size == 0 ? " (__rseq_size 0)" : "", pname, f->rseq_user);
		}
		else
		{
			a = RSEQ_SLICE_ACTION_REGISTER;
			snprintf(buf, sizeof(buf), "glibc registered no rseq area%s%s%s%s",
					 f->glibc_size == 0 ? " (__rseq_size 0)" : "",
					 f->rseq_user[0] != '\0' ? " (rseq_slice_register = always, although " : "",
					 f->rseq_user,
					 f->rseq_user[0] != '\0' ? " may register its own)" : "");
		}
	}
	else if (policy == RSEQ_SLICE_REGISTER_NEVER)
	{
		a = RSEQ_SLICE_ACTION_KEEP;
		snprintf(buf, sizeof(buf), "rseq_slice_register = never");
	}
	else if (policy == RSEQ_SLICE_REGISTER_ALWAYS)
	{
		a = RSEQ_SLICE_ACTION_REPLACE;
		if (f->rseq_user[0] != '\0')
			snprintf(buf, sizeof(buf), "rseq_slice_register = always, although %s uses glibc's area",
					 f->rseq_user);
		else if (f->threads > 1)
			snprintf(buf, sizeof(buf), "rseq_slice_register = always, although the process has %d threads",
					 f->threads);
		else
			snprintf(buf, sizeof(buf), "rseq_slice_register = always");
	}
	else
	{
		/* auto: every reason to keep glibc's area, the first one decides */
		size_t		used;

		a = RSEQ_SLICE_ACTION_KEEP;
		used = (size_t) snprintf(buf, sizeof(buf), "rseq_slice_register = %s: ", pname);
		if (f->feature_size < RSEQ_SLICE_FEATURE_SIZE_SLICE)
			used += (size_t) snprintf(buf + used, sizeof(buf) - used,
									  "the kernel has no slice field; ");
		else if (glibc_v2)
			used += (size_t) snprintf(buf + used, sizeof(buf) - used,
									  "glibc's area is already v2; ");
		if (f->threads > 1 && used < sizeof(buf))
			used += (size_t) snprintf(buf + used, sizeof(buf) - used,
									  "the process has %d threads; ", f->threads);
		if (f->rseq_user[0] != '\0' && used < sizeof(buf))
			used += (size_t) snprintf(buf + used, sizeof(buf) - used,
									  "%s uses glibc's area; ", f->rseq_user);
		if (used >= sizeof(buf))
			used = sizeof(buf) - 1;
		if (buf[used - 1] == ' ' && buf[used - 2] == ';')
			buf[used - 2] = '\0';	/* at least one reason: keep */
		else
		{
			a = RSEQ_SLICE_ACTION_REPLACE;
			snprintf(buf + used, sizeof(buf) - used, "glibc's area is legacy");
		}
	}
	snprintf(why, whylen, "%s", buf);
	return a;
}

void
rseq_slice_gather_facts(rseq_slice_register_facts *f, int detect)
{
	memset(f, 0, sizeof(*f));
#if RSEQ_SLICE_SUPPORTED
	{
		volatile rseq_slice_area *g = glibc_area();

		f->feature_size = (uint32_t) getauxval(RSEQ_SLICE_AT_FEATURE_SIZE);
		f->glibc_size = (&__rseq_size != NULL) ? __rseq_size : 0;
		f->self_registered = self_area != NULL && cpu_id_registered(self_area);
		f->glibc_registered = !f->self_registered && g != NULL;
		if (f->glibc_registered)
			f->glibc_len = glibc_reg_len(g, f->glibc_size);
		if (detect)
		{
			f->threads = rseq_slice_count_threads();
			(void) rseq_slice_find_rseq_user(f->rseq_user, sizeof(f->rseq_user));
		}
	}
#else
	(void) detect;
#endif
}

/*
 * The set-up of rseq_slice_setup_thread and rseq_slice_setup_process.
 * detect: look for other users of glibc's area (process set-up).
 */
static int
setup_common(rseq_slice_probe *p, rseq_slice_area_storage *storage,
			 rseq_slice_register_policy policy, int detect)
{
#if RSEQ_SLICE_SUPPORTED
	volatile rseq_slice_area *g;
	rseq_slice_register_facts f;
	rseq_slice_register_action action;
	char		why[256];
	char		note[448];
	uint32_t	fsize,
				align,
				len,
				glen;
	int			want_v2;
	int			reg_errno = 0;
	int			slice_errno = 0;
	int			disabled = 0;
	char		eb[16];

	(void) rseq_slice_marker_address();
	note[0] = '\0';
	rseq_slice_gather_facts(&f, detect);
	fsize = f.feature_size;
	align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);
	if (align < RSEQ_SLICE_ORIG_SIZE)
		align = RSEQ_SLICE_ORIG_SIZE;
	want_v2 = fsize >= RSEQ_SLICE_FEATURE_SIZE_SLICE;
	len = want_v2 ? ((fsize + align - 1) / align) * align : RSEQ_SLICE_ORIG_SIZE;
	if (len > RSEQ_SLICE_AREA_STORAGE || align > 64)
	{
		want_v2 = 0;
		len = RSEQ_SLICE_ORIG_SIZE;
		reg_errno = ENOMEM;		/* our storage is too small for this kernel */
	}
	/* glibc's registered length (estimated if the kernel did not say) */
	glen = f.glibc_len != 0 ? f.glibc_len :
		(f.glibc_size > RSEQ_SLICE_ORIG_SIZE ? f.glibc_size : RSEQ_SLICE_ORIG_SIZE);

	action = rseq_slice_register_decide(policy, &f, why, sizeof(why));
	if (action == RSEQ_SLICE_ACTION_REPLACE && reg_errno == ENOMEM &&
		policy != RSEQ_SLICE_REGISTER_ALWAYS)
	{
		/* a V2 area would not fit our storage: nothing to gain */
		action = RSEQ_SLICE_ACTION_KEEP;
		snprintf(why, sizeof(why), "rseq_slice_register = %s: feature size %u does not fit our %d-byte area",
				 (unsigned) policy < RSEQ_SLICE_NREGISTER ? rseq_slice_register_names[policy] : "?",
				 (unsigned) fsize, RSEQ_SLICE_AREA_STORAGE);
	}
	g = glibc_area();
	if (action == RSEQ_SLICE_ACTION_REGISTER)
	{
		/* Nobody registered: register ours, so the marker works. */
		memset(storage, 0, sizeof(*storage));
		storage->u.area.cpu_id = RSEQ_SLICE_CPU_ID_UNINITIALIZED;
		if (sys_rseq(&storage->u.area, len, 0) == 0)
		{
			self_area = &storage->u.area;
			self_len = len;
			snprintf(note, sizeof(note), "%s", why);
		}
		else
		{
			reg_errno = errno;
			/* EINVAL/EBUSY: another library registered this thread's area */
			snprintf(note, sizeof(note), "%s; registering ours failed: %s%s", why,
					 rseq_slice_errno_name(reg_errno, eb, sizeof(eb)),
					 (reg_errno == EINVAL || reg_errno == EBUSY) ?
					 " (another library registered the thread's area)" : "");
		}
	}
	else if (action == RSEQ_SLICE_ACTION_REPLACE && g != NULL)
	{
		/* glibc's area: replace it with ours (V2 when the kernel has it). */
		if (sys_rseq(g, glen, RSEQ_SLICE_FLAG_UNREGISTER) == 0)
		{
			memset(storage, 0, sizeof(*storage));
			storage->u.area.cpu_id = RSEQ_SLICE_CPU_ID_UNINITIALIZED;
			if (sys_rseq(&storage->u.area, len, 0) == 0)
			{
				self_area = &storage->u.area;
				self_len = len;
				snprintf(note, sizeof(note),
						 "replacing glibc's (%s, %u bytes, __rseq_size %u; %s)",
						 glen > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy",
						 (unsigned) glen, (unsigned) f.glibc_size, why);
			}
			else
			{
				reg_errno = errno;
				/* put glibc's registration back */
				(void) sys_rseq(g, glen, 0);
				snprintf(note, sizeof(note), "kept (%s), glibc's area put back", why);
			}
		}
		else
		{
			reg_errno = errno;
			snprintf(note, sizeof(note), "kept (%s), unregistering it failed", why);
		}
	}
	else if (f.glibc_registered)
		snprintf(note, sizeof(note), "kept (%s)", why);
	else if (!f.self_registered)
		snprintf(note, sizeof(note), "%s", why);

	/* Ask even on old kernels: the errno says why it is unavailable. */
	if (prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_SET,
			  RSEQ_SLICE_PR_ENABLE, 0, 0) != 0)
	{
		slice_errno = errno;

		/*
		 * ENOTSUPP on a V2 registration: disabled at boot, unless the kernel
		 * was built without the extension.  Such a kernel (every arm64 7.2
		 * kernel: no GENERIC_ENTRY) answers ENOTSUPP to GET as well, from
		 * the stub in include/linux/rseq.h; a kernel built with it answers
		 * GET with 0 or 1 even when disabled (kernel/rseq.c, 7.2.13).
		 */
		if (slice_errno == RSEQ_SLICE_ENOTSUPP &&
			!(prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_GET,
					0, 0, 0) < 0 && errno == RSEQ_SLICE_ENOTSUPP))
		{
			if (self_area != NULL && cpu_id_registered(self_area))
				disabled = self_len > RSEQ_SLICE_ORIG_SIZE;
			else if (glibc_area() != NULL)
				disabled = glen > RSEQ_SLICE_ORIG_SIZE;
		}
	}

	memset(p, 0, sizeof(*p));
	p->slice_errno = slice_errno;
	p->register_errno = reg_errno;
	copy_truncated(p->register_note, sizeof(p->register_note), note);
	if (disabled)
		p->slice = RSEQ_SLICE_EXT_DISABLED;
	probe_fill(p);
	return p->slice == RSEQ_SLICE_EXT_ENABLED ? 0 : -1;
#else
	(void) storage;
	(void) policy;
	(void) detect;
	rseq_slice_probe_thread(p);
	return -1;
#endif
}

int
rseq_slice_setup_thread(rseq_slice_probe *p, rseq_slice_area_storage *storage)
{
	return setup_common(p, storage, RSEQ_SLICE_REGISTER_AUTO, 0);
}

int
rseq_slice_setup_process(rseq_slice_probe *p, rseq_slice_area_storage *storage,
						 rseq_slice_register_policy policy)
{
	return setup_common(p, storage, policy, 1);
}

/* Fill everything but reason; reason gets a summary. */
static void
probe_fill(rseq_slice_probe *p)
{
	char		eb[16];
	size_t		used;

#if RSEQ_SLICE_SUPPORTED
	struct utsname u;
	volatile rseq_slice_area *g;
	char		nsec[32];
	long		r;

	if (uname(&u) == 0)
		snprintf(p->release, sizeof(p->release), "%s", u.release);
	p->feature_size = (uint32_t) getauxval(RSEQ_SLICE_AT_FEATURE_SIZE);
	p->align = (uint32_t) getauxval(RSEQ_SLICE_AT_ALIGN);
	p->glibc_size = (&__rseq_size != NULL) ? __rseq_size : 0;
	probe_preempt(p->preempt, sizeof(p->preempt));
	p->slice_ext_nsec = -1;
	if (read_small_file("/sys/kernel/debug/rseq/slice_ext_nsec", nsec,
						sizeof(nsec)) == 0)
		p->slice_ext_nsec = strtoll(nsec, NULL, 10);

	g = glibc_area();
	if (self_area != NULL && cpu_id_registered(self_area))
	{
		p->registered = 1;
		p->owner = RSEQ_SLICE_OWNER_SELF;
		p->area = self_area;
		p->reg_len = self_len;
	}
	else if (g != NULL)
	{
		p->registered = 1;
		p->owner = RSEQ_SLICE_OWNER_GLIBC;
		p->area = g;
		/* asked of the kernel; else glibc < 2.41: 32, later: __rseq_size */
		p->reg_len = glibc_reg_len(g, p->glibc_size);
		if (p->reg_len == 0)
			p->reg_len = p->glibc_size <= RSEQ_SLICE_ORIG_SIZE ?
				RSEQ_SLICE_ORIG_SIZE : p->glibc_size;
	}

	if (p->slice != RSEQ_SLICE_EXT_DISABLED)
	{
		/* GET changes nothing; its errno says why a kernel lacks it */
		int			get_errno;

		r = prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_GET, 0, 0, 0);
		get_errno = r < 0 ? errno : 0;
		if (r < 0 && p->slice_errno == 0)
			p->slice_errno = get_errno;
		if (p->feature_size < RSEQ_SLICE_FEATURE_SIZE_SLICE)
			p->slice = RSEQ_SLICE_EXT_UNAVAILABLE;
		else if (p->area != NULL &&
				 (p->area->flags & RSEQ_SLICE_CPU_FLAG_ENABLED))
			p->slice = RSEQ_SLICE_EXT_ENABLED;
		else if (r == 1)
			p->slice = RSEQ_SLICE_EXT_ENABLED;
		else if (r < 0 && (get_errno == EINVAL ||
							get_errno == RSEQ_SLICE_ENOTSUPP))
		{
			/*
			 * EINVAL: no such prctl (before 7.0); ENOTSUPP: built without
			 * the extension (see rseq_slice_setup_process)
			 */
			p->slice = RSEQ_SLICE_EXT_UNAVAILABLE;
		}
		else
			p->slice = RSEQ_SLICE_EXT_AVAILABLE;
	}
#else
	snprintf(p->release, sizeof(p->release), "unknown");
	p->slice_ext_nsec = -1;
	p->slice = RSEQ_SLICE_EXT_UNAVAILABLE;
#endif

	used = (size_t) snprintf(p->reason, sizeof(p->reason),
							 "kernel %s, rseq %s", p->release,
							 p->registered ? "registered by" : "not registered");
	if (p->registered && used < sizeof(p->reason))
	{
		used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used,
								  " %s (%s, %u bytes",
								  rseq_slice_owner_names[p->owner],
								  p->reg_len > RSEQ_SLICE_ORIG_SIZE ? "v2" : "legacy",
								  (unsigned) p->reg_len);
		if (p->owner == RSEQ_SLICE_OWNER_GLIBC && used < sizeof(p->reason))
			used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used,
									  ", __rseq_size %u", (unsigned) p->glibc_size);
		if (used < sizeof(p->reason))
			used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used, ")");
	}
	if (p->register_note[0] != '\0' && used < sizeof(p->reason))
		used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used,
								  "%s%s", p->registered ? ", " : ": ", p->register_note);
	if (used < sizeof(p->reason))
		used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used,
								  ", feature size %u, slice extension %s",
								  (unsigned) p->feature_size,
								  rseq_slice_ext_names[p->slice]);
	if (p->slice_errno != 0 && used < sizeof(p->reason))
		used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used,
								  " (prctl: %s)",
								  rseq_slice_errno_name(p->slice_errno, eb, sizeof(eb)));
	if (p->register_errno != 0 && used < sizeof(p->reason))
		used += (size_t) snprintf(p->reason + used, sizeof(p->reason) - used,
								  ", re-registration failed: %s",
								  rseq_slice_errno_name(p->register_errno, eb, sizeof(eb)));
	if (p->slice_ext_nsec >= 0 && used < sizeof(p->reason))
		snprintf(p->reason + used, sizeof(p->reason) - used,
				 ", slice_ext_nsec %lld", (long long) p->slice_ext_nsec);
#if !RSEQ_SLICE_SUPPORTED
	snprintf(p->reason, sizeof(p->reason), "platform not supported (x86_64 and aarch64 Linux only)");
#endif
}

void
rseq_slice_probe_thread(rseq_slice_probe *p)
{
	memset(p, 0, sizeof(*p));
	probe_fill(p);
}



int
rseq_slice_thread_enabled(void)
{
#if RSEQ_SLICE_SUPPORTED
	return prctl(RSEQ_SLICE_PR_SLICE_EXTENSION, RSEQ_SLICE_PR_GET, 0, 0, 0) == 1;
#else
	return 0;
#endif
}

rseq_slice_mode
rseq_slice_resolve(rseq_slice_mode requested, const rseq_slice_probe *p,
				   char *why, size_t whylen)
{
	rseq_slice_mode m;
	const char *because;
	char		dummy[1];

	if (why == NULL)
	{
		why = dummy;
		whylen = sizeof(dummy);
	}
	if (requested == RSEQ_SLICE_MODE_OFF)
	{
		m = RSEQ_SLICE_MODE_OFF;
		because = "off was requested";
	}
	else if (!p->registered || p->area == NULL)
	{
		m = RSEQ_SLICE_MODE_OFF;
		because = "no rseq area is registered, so nothing can be measured";
	}
	else if (requested == RSEQ_SLICE_MODE_MEASURE)
	{
		m = RSEQ_SLICE_MODE_MEASURE;
		because = "measure was requested";
	}
	else if (requested == RSEQ_SLICE_MODE_POC)
	{
		if (p->feature_size >= RSEQ_SLICE_FEATURE_SIZE_SLICE)
		{
			m = RSEQ_SLICE_MODE_MEASURE;
			because = "poc refused: this kernel has the upstream slice_ctrl at offset 28";
		}
		else
		{
			m = RSEQ_SLICE_MODE_POC;
			because = "poc was requested (2023 cr_flags interface)";
		}
	}
	else if (p->slice == RSEQ_SLICE_EXT_ENABLED)
	{
		m = RSEQ_SLICE_MODE_UPSTREAM;
		because = "the kernel enabled the slice extension";
	}
	else
	{
		m = RSEQ_SLICE_MODE_MEASURE;
		because = p->slice == RSEQ_SLICE_EXT_DISABLED ?
			"the slice extension is disabled on this kernel" :
			p->slice == RSEQ_SLICE_EXT_AVAILABLE &&
			p->owner == RSEQ_SLICE_OWNER_GLIBC &&
			p->reg_len <= RSEQ_SLICE_ORIG_SIZE ?
			"the slice extension needs a v2 registration, glibc's area is legacy" :
			p->slice == RSEQ_SLICE_EXT_AVAILABLE ?
			"the slice extension is not enabled for this registration" :
			"the kernel has no slice extension";
	}
	snprintf(why, whylen, "%s", because);
	return m;
}

void
rseq_slice_state_init(rseq_slice_state *s, rseq_slice_mode mode,
					  const rseq_slice_probe *p, rseq_slice_counters *ctr)
{
	memset(s, 0, sizeof(*s));
	s->area = p->area;
	s->marker = rseq_slice_marker_address();
	s->ctr = ctr;
	s->mode = (uint8_t) ((s->area == NULL || mode == RSEQ_SLICE_MODE_AUTO) ?
						 RSEQ_SLICE_MODE_OFF : mode);
	rseq_slice_repath(s);
}

/* Leaving mode off: no section is open; start counting the depth at 0. */
static void
rseq_slice_switch(rseq_slice_state *s, rseq_slice_mode mode)
{
	volatile rseq_slice_area *a = s->area;

	if (mode == RSEQ_SLICE_MODE_OFF && a != NULL && a->rseq_cs == s->marker)
		a->rseq_cs = 0;			/* off leaves rseq_cs as it found it */
	if (s->mode == RSEQ_SLICE_MODE_OFF)
	{
		s->depth = 0;
		s->waiting = 0;
		s->in_wait = 0;
		s->desched_levels = 0;
		memset(s->desched_more, 0, sizeof(s->desched_more));
	}
	s->mode = (uint8_t) mode;
	s->pending = 0;
	rseq_slice_repath(s);
}

/*
 * A switch out of off that was waiting for open sections is cancelled by a
 * switch back to off: forget the depth the waiting switch was counting too
 * (mode off keeps none, and a later switch out of off starts from the
 * caller's count of open sections, rseq_slice_set_mode_open).
 */
static void
rseq_slice_cancel_pending(rseq_slice_state *s)
{
	s->pending = 0;
	s->depth = 0;
	s->waiting = 0;
	s->in_wait = 0;
	s->desched_levels = 0;
	memset(s->desched_more, 0, sizeof(s->desched_more));
	rseq_slice_repath(s);
}

static rseq_slice_mode
rseq_slice_usable(const rseq_slice_state *s, rseq_slice_mode mode)
{
	if (s->area == NULL || mode == RSEQ_SLICE_MODE_AUTO)
		return RSEQ_SLICE_MODE_OFF;
	return mode;
}

int
rseq_slice_set_mode(rseq_slice_state *s, rseq_slice_mode mode)
{
	mode = rseq_slice_usable(s, mode);
	if ((s->mode == RSEQ_SLICE_MODE_OFF && !s->pending) || s->depth == 0)
	{
		rseq_slice_switch(s, mode);
		return 1;
	}
	if (s->mode == RSEQ_SLICE_MODE_OFF && mode == RSEQ_SLICE_MODE_OFF)
	{
		/* a switch out of off was waiting: forget it, and its depth */
		rseq_slice_cancel_pending(s);
		return 1;
	}
	s->pending_mode = (uint8_t) mode;
	s->pending = 1;
	rseq_slice_repath(s);
	return 0;
}

int
rseq_slice_set_mode_open(rseq_slice_state *s, rseq_slice_mode mode,
						 uint32_t open)
{
	if (s->mode != RSEQ_SLICE_MODE_OFF || open == 0)
		return rseq_slice_set_mode(s, mode);
	mode = rseq_slice_usable(s, mode);
	if (mode == RSEQ_SLICE_MODE_OFF)
	{
		rseq_slice_cancel_pending(s);
		return 1;
	}
	/* off + pending: the slow path counts the depth down to 0 */
	s->depth = open;
	s->pending_mode = (uint8_t) mode;
	s->pending = 1;
	rseq_slice_repath(s);
	return 0;
}

void
rseq_slice_set_detail(rseq_slice_state *s, int detail)
{
	s->detail = detail ? 1 : 0;
	rseq_slice_repath(s);
}

/* ----------
 * The slow path of rseq_slice_enter/leave (see rseq_slice.h).  Reached only
 * when the kernel cleared the marker, or when path is SLOW: detail
 * counters, poc mode, a pending mode switch or deschedule report, a
 * depth-1 section waiting for its lock.  Not on the common lock path.
 * ----------
 */

unsigned
rseq_slice_granted(rseq_slice_state *s, int granted)
{
	rseq_slice_counters *c = s->ctr;

	c->grants++;
	if (!granted)
	{
		c->revoked++;
		/* the yield only matters to a kernel in rseq debug mode */
		if (s->no_clear_yield)
			return RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_REVOKED;
		c->yields++;
		(void) rseq_slice_sys_yield(s);
		return RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_REVOKED |
			RSEQ_SLICE_EV_YIELD_CALLED;
	}
	c->yields++;
	if (rseq_slice_sys_yield(s) == 1)
	{
		c->yields_in_grant++;
		return RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED |
			RSEQ_SLICE_EV_YIELDED;
	}
	return RSEQ_SLICE_EV_GRANTED | RSEQ_SLICE_EV_YIELD_CALLED;
}

int
rseq_slice_kernel_validates(volatile rseq_slice_area *a, uint64_t marker)
{
	int			cleared = 0;

#if RSEQ_SLICE_SUPPORTED
	if (a == NULL || a->rseq_cs != 0)
		return -1;
	for (int i = 0; i < 2; i++)
	{
		a->rseq_cs = marker;
		RSEQ_SLICE_BARRIER();
		(void) syscall(SYS_getppid);
		RSEQ_SLICE_BARRIER();
		if (a->rseq_cs == 0)
			cleared++;
		a->rseq_cs = 0;
	}
	return cleared == 2 ? 1 : 0;
#else
	(void) a;
	(void) marker;
	(void) cleared;
	return -1;
#endif
}

unsigned
rseq_slice_granted_now(rseq_slice_state *s)
{
	return rseq_slice_granted(s, s->area->slice.ctrl.granted != 0);
}

/* Re-arm the marker if the kernel cleared it (never over a foreign one). */
static inline void
rseq_slice_rearm(rseq_slice_state *s)
{
	if (s->area->rseq_cs == 0)
		s->area->rseq_cs = s->marker;
}

void
rseq_slice_cleared_at_enter(rseq_slice_state *s)
{
	uint32_t	outer = s->depth - 1;	/* locks held before this entry */

	if (s->area->rseq_cs != 0)
		return;
	s->area->rseq_cs = s->marker;
	/* nothing was held (a depth-1 section that waits holds nothing yet) */
	if (outer == 0 || (s->waiting && outer == 1))
		return;
	s->ctr->descheduled++;
	if (s->desched_levels & RSEQ_SLICE_LEVEL_BIT(outer - 1))
	{
		/* one more for the same lock: reported with the first */
		uint8_t    *m = &s->desched_more[outer - 1 < 31 ? outer - 1 : 31];

		if (*m < 255)
			(*m)++;
		return;
	}
	s->desched_levels |= RSEQ_SLICE_LEVEL_BIT(outer - 1);
	rseq_slice_repath(s);		/* the report needs the slow leave */
}

unsigned
rseq_slice_cleared_at_leave(rseq_slice_state *s)
{
	if (s->area->rseq_cs != 0)
		return 0;
	s->area->rseq_cs = s->marker;
	s->ctr->descheduled++;
	return RSEQ_SLICE_EV_DESCHEDULED;
}

unsigned
rseq_slice_adapt_step(rseq_slice_adapt *a, unsigned ask, unsigned events)
{
	if (ask)
	{
		if (!(events & RSEQ_SLICE_EV_GRANTED))
			return 1;
		a->grants++;
		if (events & RSEQ_SLICE_EV_YIELDED)
			a->yielded++;
		if (a->grants < RSEQ_SLICE_ADAPT_GRANTS)
			return 1;
		ask = 2u * a->yielded >= a->grants;
		a->grants = 0;
		a->yielded = 0;
		a->desched = 0;
		return ask;
	}
	else
	{
		unsigned	n = 0;

		if (events & RSEQ_SLICE_EV_DESCHEDULED)
			n++;
		if (events & RSEQ_SLICE_EV_DESCHEDULED_AGAIN)
			n++;
		n += RSEQ_SLICE_EV_MORE(events);
		if (n == 0)
			return 0;
		a->desched = (uint16_t) (a->desched + n < 0xffffu ? a->desched + n : 0xffffu);
		if (a->desched < RSEQ_SLICE_ADAPT_DESCHED)
			return 0;
		a->grants = 0;
		a->yielded = 0;
		a->desched = 0;
		return 1;
	}
}

/* Its rseq_cs stays 0: the inline path's check sends every section here. */
volatile rseq_slice_area rseq_slice_slow_area;

void
rseq_slice_enter_rare(rseq_slice_state *s, unsigned kind, unsigned ask)
{
	if (s->fast_area == &rseq_slice_slow_area)
	{
		s->depth--;				/* the inline path counted it already */
		rseq_slice_enter_slow_ask(s, kind, ask);
		return;
	}
	rseq_slice_cleared_at_enter(s);
}

unsigned
rseq_slice_leave_rare(rseq_slice_state *s)
{
	if (s->fast_area == &rseq_slice_slow_area)
	{
		s->depth++;				/* the inline path counted it already */
		return rseq_slice_leave_slow(s);
	}
	return rseq_slice_cleared_at_leave(s);
}

void
rseq_slice_enter_slow(rseq_slice_state *s, unsigned kind)
{
	rseq_slice_enter_slow_ask(s, kind, 1);
}

void
rseq_slice_enter_slow_ask(rseq_slice_state *s, unsigned kind, unsigned ask)
{
	uint32_t	d;

	if (s->mode == RSEQ_SLICE_MODE_OFF)
	{
		s->depth++;				/* a switch out of off waits for depth 0 */
		return;
	}
	d = s->depth++;
	if (s->detail)
	{
		rseq_slice_counters *c = s->ctr;

		c->entries[kind]++;
		if (d == 0)
			c->sections++;
		else
		{
			c->nested++;
			if (d + 1 > c->max_depth)
				c->max_depth = d + 1;
		}
	}
	if (d == 0 && s->mode >= RSEQ_SLICE_MODE_UPSTREAM)
	{
		s->asked = (uint8_t) (ask != 0);
		rseq_slice_open_request(s);
	}
	if (s->area->rseq_cs == 0)
		rseq_slice_cleared_at_enter(s);
	RSEQ_SLICE_BARRIER();
}

unsigned
rseq_slice_leave_slow(rseq_slice_state *s)
{
	uint32_t	d;
	unsigned	ev = 0;

	if (s->mode == RSEQ_SLICE_MODE_OFF)
	{
		/* a switch out of off waits for depth 0 */
		if (--s->depth == 0 && s->pending)
			rseq_slice_switch(s, (rseq_slice_mode) s->pending_mode);
		return 0;
	}
	d = --s->depth;
	if (s->in_wait > d)
		s->in_wait = 0;			/* the waiting section was left: wait over */
	if (s->area->rseq_cs == 0)
	{
		if (s->waiting && d == 0)
			s->area->rseq_cs = s->marker;	/* waited, held nothing */
		else
			ev = rseq_slice_cleared_at_leave(s);
	}
	/* bit 31 stands for depths >= 32: reported at the lock at depth 32 */
	if (s->desched_levels != 0 && d <= 31 &&
		(s->desched_levels & RSEQ_SLICE_LEVEL_BIT(d)))
	{
		/* one found at a nested entry, maybe one more found just now */
		ev |= (ev & RSEQ_SLICE_EV_DESCHEDULED) ?
			RSEQ_SLICE_EV_DESCHEDULED_AGAIN : RSEQ_SLICE_EV_DESCHEDULED;
		ev |= (unsigned) s->desched_more[d] << RSEQ_SLICE_EV_MORE_SHIFT;
		s->desched_more[d] = 0;
		s->desched_levels &= ~RSEQ_SLICE_LEVEL_BIT(d);
	}
	if (d == 0)
	{
		/* a section left while waiting ends the wait (request withdrawn) */
		if (s->mode >= RSEQ_SLICE_MODE_UPSTREAM && !s->waiting)
			ev |= rseq_slice_close_request(s);
		s->waiting = 0;
		s->desched_levels = 0;
		if (s->pending)
		{
			rseq_slice_switch(s, (rseq_slice_mode) s->pending_mode);
			return ev;
		}
	}
	rseq_slice_repath(s);
	return ev;
}
