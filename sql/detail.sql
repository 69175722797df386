--
-- rseq_slice_detail: the lock layer counts the per-kind entries of
-- spinlocks, buffer header and wait-list locks, the outermost sections,
-- nested entries, max_depth and requests (lock layer layout 3) only while
-- it is on.  1.1.0 and later show those columns as NULL while they are
-- not counted (never as 0); LWLock acquisitions (lwlock_sections) and the
-- outcome counters (grants_in_place, requests_cleared, yields,
-- yields_in_grant, descheduled_while_holding) are counted either way.
-- sql/upgrade.sql checks, through 1.0.0's columns (which show the raw
-- counts), that the detail counters stand still while it is off.
--
-- on (sql/setup.sql turned it on): numbers everywhere
SELECT k.detail AS kernel_detail,
       t.detail AS totals_detail,
       t.sections > 0 AS sections,
       t.spinlock_sections > 0 AS spinlock_sections,
       t.buffer_header_sections > 0 AS buffer_header_sections,
       t.wait_list_sections >= 0 AS wait_list_sections,
       t.nested_entries > 0 AS nested_entries,
       t.max_depth >= 2 AS max_depth
FROM pg_rseq_kernel() k, pg_stat_rseq_totals t;
SELECT lock_kind, acquisitions IS NOT NULL AS acquisitions_shown
FROM pg_stat_rseq_tranche WHERE lock_kind <> 'lwlock' ORDER BY lock_kind;

-- turn it off; wait until this backend has applied it
ALTER SYSTEM SET rseq_slice_detail = off;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_detail') <> 'off' \watch i=0.01 c=6000 m=1
\o
SHOW rseq_slice_detail;

-- off: the detail columns are NULL (not counted), the others numbers
SELECT k.detail AS kernel_detail,
       t.detail AS totals_detail,
       t.sections IS NULL AND t.spinlock_sections IS NULL AND t.buffer_header_sections IS NULL
           AND t.wait_list_sections IS NULL AND t.nested_entries IS NULL
           AND t.max_depth IS NULL AND t.requests IS NULL AS detail_columns_null,
       t.lwlock_sections > 0 AS lwlock_sections,
       t.grants_in_place >= 0 AND t.requests_cleared >= 0 AND t.yields >= 0
           AND t.yields_in_grant >= 0 AND t.descheduled_while_holding >= 0 AS outcomes_shown,
       t.stats_reset IS NOT NULL AS has_stats_reset
FROM pg_rseq_kernel() k, pg_stat_rseq_totals t;
SELECT count(*) > 1 AS several_backends,
       bool_and(sections IS NULL AND spinlock_sections IS NULL AND buffer_header_sections IS NULL
                AND wait_list_sections IS NULL AND nested_entries IS NULL
                AND max_depth IS NULL AND requests IS NULL) AS detail_columns_null,
       bool_and(lwlock_sections >= 0 AND grants_in_place >= 0 AND requests_cleared >= 0
                AND yields >= 0 AND yields_in_grant >= 0
                AND descheduled_while_holding >= 0) AS others_shown
FROM pg_stat_rseq;
-- per tranche: the LWLock rows keep their acquisitions, the other kinds'
-- are detail counters; every row keeps its outcome counters
SELECT lock_kind,
       bool_and(acquisitions IS NULL) AS acquisitions_null,
       bool_and(descheduled_while_holding >= 0 AND grants_in_place >= 0 AND requests_cleared >= 0
                AND yields >= 0 AND yields_in_grant >= 0) AS outcomes_shown
FROM pg_stat_rseq_tranche GROUP BY lock_kind ORDER BY lock_kind;

-- still counted while off: LWLock acquisitions and deschedules.  The
-- first call registers the tranche name pg_rseq_test in this backend (it
-- takes no lock); the second holds 3 locks of it while it signals itself,
-- which the kernel reports like a preemption.
SELECT pg_rseq_test_signal_in_lwlocks(0);
CREATE TEMP TABLE rseq_off_before AS
    SELECT r.lwlock_sections, r.descheduled_while_holding AS descheduled,
           coalesce(t.acquisitions, 0) AS test_acquisitions,
           coalesce(t.descheduled_while_holding, 0) AS test_descheduled
    FROM pg_stat_rseq r
    LEFT JOIN pg_stat_rseq_tranche t ON t.tranche = 'pg_rseq_test'
    WHERE r.pid = pg_backend_pid();
CREATE TABLE rseq_off_work AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 5000) g;
SELECT pg_rseq_test_signal_in_lwlocks(3);
SELECT r.lwlock_sections > b.lwlock_sections AS lwlock_sections_advanced,
       r.descheduled_while_holding >= b.descheduled + 1 AS descheduled_advanced,
       t.acquisitions = b.test_acquisitions + 3 AS test_acquisitions_plus_3,
       t.descheduled_while_holding >= b.test_descheduled + 1 AS test_descheduled_advanced,
       r.sections IS NULL AND r.spinlock_sections IS NULL AS detail_still_null
FROM pg_stat_rseq r, pg_stat_rseq_tranche t, rseq_off_before b
WHERE r.pid = pg_backend_pid() AND t.tranche = 'pg_rseq_test';

-- on again: numbers again (counted while it was on)
ALTER SYSTEM SET rseq_slice_detail = on;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_detail') <> 'on' \watch i=0.01 c=6000 m=1
\o
SHOW rseq_slice_detail;
SELECT t.detail AS totals_detail,
       t.sections > 0 AND t.spinlock_sections > 0 AND t.nested_entries > 0
           AND t.max_depth >= 2 AS detail_columns_shown
FROM pg_stat_rseq_totals t;
SELECT sections > 0 AS own_sections_shown
FROM pg_stat_rseq WHERE pid = pg_backend_pid();

DROP TABLE rseq_off_work, rseq_off_before;
