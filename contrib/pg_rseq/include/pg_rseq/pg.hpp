/*
 * pg.hpp: the only place pg_rseq includes PostgreSQL and the lock layer.
 *
 * PostgreSQL's headers are C: they are included inside extern "C", with
 * postgres.h first.  Which lock layer the server has is decided here, at
 * compile time:
 *
 *   patched server  storage/rseq_stats.h is installed with the server's
 *                   headers (it includes port/rseq_slice.h); the kernel
 *                   probe is the server's own copy, which knows that the
 *                   postmaster registered the rseq area.
 *   core server     the core series (lwlock_patch/core/) installs
 *                   storage/rseq_slice.h (and no rseq_stats.h): the
 *                   counters are read with its reader (PgRseqReadSlot);
 *                   the kernel probe is our own copy, as on stock (the core
 *                   uses glibc's area and registers none).
 *   stock server    the protocol header is included from lwlock_patch/ by
 *                   relative path, and the Makefile compiles our own copy
 *                   of lwlock_patch/rseq_slice_kernel.c (as C) into the
 *                   module; it defines PG_RSEQ_OWN_PROBE.
 *
 * contrib/pg_rseq/include/pg_rseq/pg.hpp
 */
#pragma once

#if defined(__has_include)
#if __has_include("storage/rseq_stats.h")
#define PG_RSEQ_PATCHED 1
#elif __has_include("storage/rseq_slice.h")
/* the core series (lwlock_patch/core/); checked below by its macros */
#define PG_RSEQ_CORE 1
#endif
#endif
#ifndef PG_RSEQ_PATCHED
#define PG_RSEQ_PATCHED 0
#endif
#ifndef PG_RSEQ_CORE
#define PG_RSEQ_CORE 0
#endif

/* The Makefile and __has_include must agree on the lock layer. */
#if PG_RSEQ_PATCHED && defined(PG_RSEQ_OWN_PROBE)
#error "patched server: do not compile lwlock_patch/rseq_slice_kernel.c into pg_rseq"
#elif !PG_RSEQ_PATCHED && !defined(PG_RSEQ_OWN_PROBE)
#error "stock or core server: lwlock_patch/rseq_slice_kernel.c must be compiled into pg_rseq"
#endif
#if PG_RSEQ_CORE != defined(PG_RSEQ_CORE_LAYER)
#error "the Makefile and __has_include(\"storage/rseq_slice.h\") disagree about the core series"
#endif

#if PG_RSEQ_CORE
/*
 * The core series' storage/rseq_slice.h has the same include guard as the
 * probe's header (lwlock_patch/rseq_slice.h, standalone C99 with its own
 * extern "C"), and PostgreSQL's lock headers include the core's: the probe's
 * header comes first, then its guard is dropped.  Its names are
 * rseq_slice_*; its RSEQ_SLICE_MODE_* enum constants are shadowed from
 * there on by the core's macros, which are the ones this module uses on the
 * core, and its type rseq_slice_mode is renamed here (the core's
 * rseq_slice_mode is the GUC variable; C linkage does not see type names).
 */
#define rseq_slice_mode pg_rseq_research_mode
#include "../../../../lwlock_patch/rseq_slice.h"
#undef rseq_slice_mode
#undef RSEQ_SLICE_H
#endif

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm_registry.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/acl.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

#if PG_RSEQ_PATCHED
#include "storage/rseq_stats.h"
#elif PG_RSEQ_CORE
/* the reader: PgRseqNumSlots, PgRseqReadSlot, PgRseqPathInForce, ... */
#include "postmaster/bgworker.h"
#include "storage/proc.h"
#include "storage/rseq_slice.h"
#else
#include "../../../../lwlock_patch/rseq_slice.h"
#endif
}

/*
 * What differs between the PostgreSQL majors pg_rseq supports (17 and 18):
 * everything is here, the rest of the code is the same for both.
 */
#if PG_VERSION_NUM < 170000 || PG_VERSION_NUM >= 190000
#error "pg_rseq supports PostgreSQL 17 and 18"
#endif

/*
 * PG_MODULE_MAGIC_EXT (name and version in pg_get_loaded_modules) is new in
 * 18; 17 gets the plain magic block.
 */
#ifndef PG_MODULE_MAGIC_EXT
#define PG_MODULE_MAGIC_EXT(...) PG_MODULE_MAGIC
#endif

#if PG_RSEQ_CORE && (!defined(PG_RSEQ_PATH_REQUEST) || !defined(RSEQ_SLICE_MODE_AUTO) || !defined(PG_RSEQ_NROWS))
#error "storage/rseq_slice.h is not the core series' header (no PG_RSEQ_PATH_REQUEST, RSEQ_SLICE_MODE_AUTO, PG_RSEQ_NROWS)"
#endif

#if PG_RSEQ_PATCHED
static_assert(PG_RSEQ_LAYOUT_VERSION == 4,
			  "pg_rseq reads layout version 4 of storage/rseq_stats.h "
			  "(per-row yields_in_grant and revoked, rseq_slice_detail, "
			  "requests a detail counter, layout-checked readers); "
			  "update contrib/pg_rseq/src/pg_rseq_stats.cpp");
#endif
