/* contrib/pg_rseq/pg_rseq--1.3.0--1.4.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_rseq UPDATE TO '1.4.0'" to load this file. \quit

--
-- 1.4.0: pg_stat_rseq and pg_stat_rseq_totals get slept_while_holding
-- (the core series counts a reported wait inside a lock hold whose context
-- switch cleared the marker apart from the deschedules), and the test
-- function pg_rseq_test_sleep_in_lwlocks().  An OUT column cannot be added
-- in place, so the two functions and their views are dropped and created
-- again, as PostgreSQL's own extensions do (pg_stat_statements): GRANTs
-- and REVOKEs made on them go back to the defaults (SELECT for PUBLIC),
-- as in 1.1.0 -> 1.2.0.  A GRANT applied again by this script would be
-- recorded as the objects' initial privileges (pg_init_privs), which
-- pg_dump does not dump, so none is.  The other objects are kept.
-- The result is the same as a fresh CREATE EXTENSION pg_rseq VERSION
-- '1.4.0' (checked by sql/upgrade.sql, sql/stock_upgrade.sql and
-- sql/core_upgrade.sql).
--

DROP VIEW pg_stat_rseq;
DROP FUNCTION pg_stat_rseq();
DROP VIEW pg_stat_rseq_totals;
DROP FUNCTION pg_stat_rseq_totals();

CREATE FUNCTION pg_stat_rseq(
    OUT pid integer,
    OUT backend_type text,
    OUT mode text,
    OUT sections bigint,
    OUT spinlock_sections bigint,
    OUT buffer_header_sections bigint,
    OUT lwlock_sections bigint,
    OUT wait_list_sections bigint,
    OUT nested_entries bigint,
    OUT max_depth bigint,
    OUT requests bigint,
    OUT grants_in_place bigint,
    OUT requests_cleared bigint,
    OUT yields bigint,
    OUT yields_in_grant bigint,
    OUT descheduled_while_holding bigint,
    OUT slept_while_holding bigint,
    OUT stats_reset timestamptz
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_stat_rseq_1_4'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION pg_stat_rseq() IS
$$One row per live backend, counters (bigint, counts) since the later of the backend's start and the last reset.
No input. Outputs: pid; backend_type (as in pg_stat_activity); mode (in force);
sections (outermost lock sections entered); spinlock_sections, buffer_header_sections, lwlock_sections,
wait_list_sections (sections entered per lock kind, nested ones included);
nested_entries (sections entered while another was open); max_depth (deepest nesting, locks);
requests (slice extension requests made: outermost sections that asked);
grants_in_place (sections that ended with the kernel's grant still in place: granted set at the release;
<= the kernel's s_granted); requests_cleared (sections whose request the kernel had cleared with no grant in view:
a grant revoked, a request cleared at a context switch or a grant refused, which user space cannot tell apart;
the kernel has no such count); yields (rseq_slice_yield calls; <= grants_in_place + requests_cleared);
yields_in_grant (of which returned 1: the section ended inside the extension; = the kernel's s_yielded);
descheduled_while_holding (releases that found the thread had been descheduled, or got a signal, while holding);
slept_while_holding (1.4.0; the core series only, else NULL: reported waits (wait events: I/O, a wait
for another lock) inside a lock hold whose context switch the kernel flagged in rseq_cs; such a wait is not counted in
descheduled_while_holding; Linux up to 6.18 flags voluntary switches, later kernels do not, so there it stays 0); stats_reset. Summed over every backend (pg_stat_rseq_totals), over the same interval:
grants_in_place <= s_granted <= grants_in_place + requests_cleared and yields_in_grant = s_yielded
(debugfs rseq/stats, Linux 7.x).
Detail counters: sections, spinlock_sections, buffer_header_sections, wait_list_sections, nested_entries, max_depth and requests
are counted only with rseq_slice_detail = on; while it is off (as this backend applies it) they are NULL
(not counted), never 0. lwlock_sections and the other counters are counted in every mode but off.
Rows: a superuser or a role with the privileges of pg_read_all_stats sees every backend; any other role
sees its own backend and the backends of roles it has the privileges of (as in pg_stat_activity);
other backends' rows are left out, pid included. Empty on a stock server. Never fails.
On the core series (lock_layer 'core'): counts come from the core's per-slot counters, cumulative over the slot's
owners; a backend's are its slot's counts since the later of its start and the last reset (pg_stat_rseq_reset);
counted by the core: sections, grants_in_place, requests_cleared, yields_in_grant, descheduled_while_holding;
derived exactly: yields = grants_in_place (the core yields once for every grant it finds in place);
not counted by the core, so NULL: spinlock_sections, buffer_header_sections, lwlock_sections, wait_list_sections,
nested_entries, max_depth, requests. descheduled_while_holding counts what pg_rseq_kernel().descheduled_counts says.$$;

CREATE VIEW pg_stat_rseq AS
    SELECT * FROM pg_stat_rseq();

COMMENT ON VIEW pg_stat_rseq IS
'Rseq slice extension lock layer counters, one row per live backend the caller may see (see function pg_stat_rseq())';

CREATE FUNCTION pg_stat_rseq_totals(
    OUT sections bigint,
    OUT spinlock_sections bigint,
    OUT buffer_header_sections bigint,
    OUT lwlock_sections bigint,
    OUT wait_list_sections bigint,
    OUT nested_entries bigint,
    OUT max_depth bigint,
    OUT requests bigint,
    OUT grants_in_place bigint,
    OUT requests_cleared bigint,
    OUT yields bigint,
    OUT yields_in_grant bigint,
    OUT descheduled_while_holding bigint,
    OUT slept_while_holding bigint,
    OUT detail boolean,
    OUT stats_reset timestamptz
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_stat_rseq_totals_1_4'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pg_stat_rseq_totals() IS
$$One row: cluster totals since the last reset (stats_reset), every backend that ever ran, live or exited.
No input. Outputs: the counter columns of pg_stat_rseq (bigint, counts; max_depth in locks; the detail counters
NULL while rseq_slice_detail is off); detail (rseq_slice_detail as this backend applies it: false means the NULL
columns are not being counted); stats_reset. slept_while_holding (1.4.0) as in pg_stat_rseq(): NULL but on the core.
Against the kernel's debugfs rseq/stats over the same interval (Linux 7.x):
grants_in_place <= s_granted <= grants_in_place + requests_cleared; yields_in_grant = s_yielded.
Readable by everyone (sums, no per-backend or per-role content). Empty on a stock server. Never fails.
On the core series: the sums over the core's slots of their counts since the last reset (exited backends stay in:
a slot's counts are cumulative over its owners); the columns the core does not count are NULL (see pg_stat_rseq()),
detail is false; stats_reset is the last reset, or the server's start if none.$$;

CREATE VIEW pg_stat_rseq_totals AS
    SELECT * FROM pg_stat_rseq_totals();

COMMENT ON VIEW pg_stat_rseq_totals IS
'Rseq slice extension lock layer counters of the whole cluster since the last reset (see function pg_stat_rseq_totals())';

GRANT SELECT ON pg_stat_rseq, pg_stat_rseq_totals TO PUBLIC;

COMMENT ON FUNCTION pg_rseq_kernel() IS
$$One row: the kernel's rseq support as this server uses it. No input.
Outputs: kernel_release (uname -r); rseq_registered (the backend has an rseq area);
rseq_registration ('v2' if registered with more than 32 bytes, else 'legacy'; NULL if none);
rseq_owner ('glibc', 'postgres' (the patched postmaster) or 'none'); rseq_length (bytes registered, NULL if none);
feature_size (AT_RSEQ_FEATURE_SIZE, bytes; NULL if the kernel does not say);
slice_extension ('enabled', 'available', 'unavailable' or 'disabled');
slice_extension_errno (errno name of the enabling prctl, e.g. EINVAL, ENOTSUPP; NULL if none);
rseq_register_errno (errno name of a failed re-registration; NULL if none);
slice_ext_nsec (grant length in nanoseconds from debugfs; NULL if unreadable);
preemption (the scheduler's preemption model; NULL if unknown);
lock_layer ('patched' (the research layer), 'core' (the core series) or 'stock');
mode_setting (GUC rseq_slice_mode), mode (in force in this backend; on the core its path: 'off', 'measure' or 'request')
and mode_reason (why; on the core its start-up line's reason): NULL on a stock server;
detail (GUC rseq_slice_detail as this backend applies it: true if the detail counters of pg_stat_rseq,
pg_stat_rseq_totals and pg_stat_rseq_tranche are counted, false if they are not and show as NULL;
always false on the core, which has no detail counters; NULL on a stock server);
summary (one-line text of the probe);
descheduled_counts (1.3.0: what descheduled_while_holding counts on this kernel, from its release: up to Linux 6.18
every context switch of a holder, voluntary sleeps in system calls included (on the core series, 1.4.0: but for
sleeps in reported waits, which slept_while_holding counts); from 6.19 on x86_64 and arm64 only
entries from user mode by an interrupt or exception (preemptions, page faults that sleep, signals), unless the
kernel's rseq debugging is on; NULL on a stock server).
On the patched server these are the postmaster's start-up findings, inherited by every backend; on the core and on
a stock server the kernel side is probed in this backend (nothing is changed by probing).
Executable by everyone: no addresses, the same for every role. Never fails.$$;

CREATE FUNCTION pg_rseq_test_sleep_in_lwlocks(n integer, sleeps integer)
RETURNS void
AS 'MODULE_PATHNAME', 'pg_rseq_test_sleep_in_lwlocks'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION pg_rseq_test_sleep_in_lwlocks(integer, integer) IS
$$Test only (1.4.0). Inputs: n, number of LWLocks (0 to 64); sleeps (1 to 1000). Takes n LWLocks of tranche
pg_rseq_test in exclusive mode, sleeps sleeps times 1 ms holding them, each sleep in a reported wait (wait event
PgSleep, as pg_sleep reports it), and releases them. On the core series with a mode that counts and n >= 1 (n = 0
opens no section), on Linux up to 6.18 (which clears rseq_cs at every context switch) each sleep adds 1 to this
backend's slept_while_holding and nothing to descheduled_while_holding (unless the kernel also preempts it while it
holds them); from 6.19 on neither grows, unless the kernel's rseq debugging is on.
Returns nothing. Not executable by PUBLIC, and superuser only even if GRANTed.
Errors: n or sleeps NULL (22004), n outside 0..64 or sleeps outside 1..1000 (22023), caller not superuser (42501).$$;

REVOKE ALL ON FUNCTION pg_rseq_test_sleep_in_lwlocks(integer, integer) FROM PUBLIC;
