/* contrib/pg_rseq/pg_rseq--1.4.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_rseq" to load this file. \quit

--
-- Kernel facts
--

CREATE FUNCTION pg_rseq_kernel(
    OUT kernel_release text,
    OUT rseq_registered boolean,
    OUT rseq_registration text,
    OUT rseq_owner text,
    OUT rseq_length integer,
    OUT feature_size integer,
    OUT slice_extension text,
    OUT slice_extension_errno text,
    OUT rseq_register_errno text,
    OUT slice_ext_nsec bigint,
    OUT preemption text,
    OUT lock_layer text,
    OUT mode_setting text,
    OUT mode text,
    OUT mode_reason text,
    OUT detail boolean,
    OUT summary text,
    OUT descheduled_counts text
)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_rseq_kernel_1_3'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

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

CREATE FUNCTION pg_rseq_backend_state(
    OUT depth bigint,
    OUT mode text,
    OUT request smallint,
    OUT granted smallint,
    OUT rseq_cs bigint,
    OUT marker bigint,
    OUT rseq_cs_kind text
)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_rseq_backend_state_1_2'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION pg_rseq_backend_state() IS
$$One row: this backend's rseq protocol state right now. No input.
Outputs: depth (lock sections open: locks held by the lock layer's count; NULL on a stock server);
mode (mode in force in this backend, on the core its path 'off', 'measure' or 'request'; NULL on a stock server);
request and granted (slice_ctrl bytes at offsets 28 and 29 of the rseq area, 0 or 1);
rseq_cs (the rseq_cs word at offset 8: 0, the lock layer's marker, or another rseq user's descriptor address);
marker (address of the lock layer's preemption marker, an empty-range rseq_cs descriptor that stays armed
between sections in every mode but off, until the kernel clears it at a preemption or signal; NULL on a stock server);
rseq_cs_kind (what rseq_cs holds, without the address: 'none' (0), 'marker' or 'other').
request, granted, rseq_cs, marker and rseq_cs_kind are NULL if no rseq area is registered.
rseq_cs and marker are addresses in the server's memory: shown only to superusers and roles with the privileges
of pg_read_server_files (who could read the server's /proc/self/maps with pg_read_file), NULL for every other
role, pg_read_all_stats and pg_monitor included (no error).
Outside any lock (as when called from SQL) depth and request are 0 and rseq_cs_kind is 'none' or 'marker'. Never fails.$$;

--
-- Statistics of the lock layer (empty on a stock server)
--

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

CREATE FUNCTION pg_stat_rseq_tranche(
    OUT tranche text,
    OUT lock_kind text,
    OUT acquisitions bigint,
    OUT descheduled_while_holding bigint,
    OUT grants_in_place bigint,
    OUT requests_cleared bigint,
    OUT yields bigint,
    OUT yields_in_grant bigint
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pg_stat_rseq_tranche_1_2'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pg_stat_rseq_tranche() IS
$$Cluster totals since the last reset, live and exited backends, per lock: one row per LWLock tranche name
(lock_kind 'lwlock'; tranches never used since the reset are left out) and one row each for
'spinlock', 'buffer header' and 'wait list' locks. No input. Outputs (bigint, counts):
acquisitions (times a lock of this row was taken; on the spinlock, buffer header and wait list rows a detail counter:
NULL while rseq_slice_detail is off, as this backend applies it; LWLock rows are always counted);
descheduled_while_holding (releases of this lock that found the holder had been descheduled);
grants_in_place, requests_cleared, yields and yields_in_grant as in pg_stat_rseq, seen when releasing this lock
closed the outermost section: grants_in_place (the grant was still in place), requests_cleared (the kernel had
cleared the request with no grant in view: revoked, cleared at a context switch, or refused),
yields (rseq_slice_yield calls; <= grants_in_place + requests_cleared),
yields_in_grant (of which returned 1: the section ended inside the extension; <= yields).
The rows add up to pg_stat_rseq_totals' columns of the same names.
Readable by everyone (sums, no per-backend or per-role content). Empty on a stock server. Never fails.
On the core series only descheduled_while_holding is counted per lock (the tranche ID's row, IDs from 127 on
sharing the row 'other'); acquisitions, grants_in_place, requests_cleared, yields and yields_in_grant are NULL;
LWLock tranches with no deschedule since the reset are left out.$$;

CREATE VIEW pg_stat_rseq_tranche AS
    SELECT * FROM pg_stat_rseq_tranche();

COMMENT ON VIEW pg_stat_rseq_tranche IS
'Rseq slice extension lock layer counters per LWLock tranche and per spinlock kind, cluster totals (see function pg_stat_rseq_tranche())';

GRANT SELECT ON pg_stat_rseq, pg_stat_rseq_totals, pg_stat_rseq_tranche TO PUBLIC;

CREATE FUNCTION pg_stat_rseq_reset()
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'pg_stat_rseq_reset'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION pg_stat_rseq_reset() IS
$$Resets every lock layer counter (all backends and the cluster totals) to 0 and returns the reset time
(timestamptz, the new stats_reset). No input. Returns NULL on a stock server (nothing to reset).
On the core series the reset is the extension's: the core's counters never reset, so the slots' counts at the
reset are kept as baselines in a DSM registry segment (pg_rseq_core_baselines) and subtracted by the views.
Not executable by PUBLIC: superusers only unless GRANTed; pg_read_all_stats does not allow it.
Errors: permission denied for function pg_stat_rseq_reset (42501).$$;

REVOKE ALL ON FUNCTION pg_stat_rseq_reset() FROM PUBLIC;

--
-- Test support
--

CREATE FUNCTION pg_rseq_test_error_in_lwlocks(n integer)
RETURNS void
AS 'MODULE_PATHNAME', 'pg_rseq_test_error_in_lwlocks'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION pg_rseq_test_error_in_lwlocks(integer) IS
$$Test only. Input: n, number of LWLocks (0 to 64). Takes n LWLocks of tranche pg_rseq_test in exclusive mode,
then raises ERROR P0001 (raise_exception) while holding them, so that abort must release them;
on a patched server the DETAIL gives the nesting depth at the error. Never returns normally.
Not executable by PUBLIC, and superuser only even if GRANTed.
Errors: n NULL (22004), n outside 0..64 (22023), caller not superuser (42501).$$;

REVOKE ALL ON FUNCTION pg_rseq_test_error_in_lwlocks(integer) FROM PUBLIC;

CREATE FUNCTION pg_rseq_test_signal_in_lwlocks(n integer)
RETURNS void
AS 'MODULE_PATHNAME', 'pg_rseq_test_signal_in_lwlocks'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION pg_rseq_test_signal_in_lwlocks(integer) IS
$$Test only. Input: n, number of LWLocks (0 to 64). Takes n LWLocks of tranche pg_rseq_test in exclusive mode,
has a 1 ms POSIX timer deliver SIGUSR1 to this backend while it spins holding them (harmless: it only sets the
latch) and releases them. The kernel clears rseq_cs when it delivers a signal that interrupted user space, as when it
preempts, so on a patched server with an rseq area
registered and a mode that counts, n >= 1 adds at least 1 to descheduled_while_holding (tranche pg_rseq_test,
this backend; exactly 1 unless the kernel also preempts it while it holds them).
Returns nothing. Not executable by PUBLIC, and superuser only even if GRANTed.
Errors: n NULL (22004), n outside 0..64 (22023), caller not superuser (42501), the timer not made or its signal
not delivered within 5 s (58000).$$;

REVOKE ALL ON FUNCTION pg_rseq_test_signal_in_lwlocks(integer) FROM PUBLIC;

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
