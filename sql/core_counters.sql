--
-- The core's counters as the views show them, with real values: this
-- backend takes LWLocks, spinlocks and buffer header locks in mode measure
-- and its sections grow; a holder interrupted by a timer signal is counted
-- as descheduled, on its tranche; the columns the core does not count are
-- NULL, yields is grants_in_place, and in mode measure nothing asks.
--
SELECT depth, mode, request, granted, rseq_cs_kind IN ('none', 'marker') AS rseq_cs_kind_none_or_marker,
       marker IS NOT NULL AS marker_shown, rseq_cs IN (0, marker) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();

CREATE TEMP TABLE rseq_before AS
    SELECT * FROM pg_stat_rseq WHERE pid = pg_backend_pid();
CREATE TEMP TABLE rseq_totals_before AS SELECT * FROM pg_stat_rseq_totals;
SELECT count(*) AS own_rows FROM rseq_before;

CREATE TABLE rseq_core_work AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 5000) g;
CREATE INDEX rseq_core_work_v ON rseq_core_work (v);
UPDATE rseq_core_work SET v = v || 'x' WHERE id % 3 = 0;
VACUUM rseq_core_work;

-- this backend's sections grew by at least one per statement above, and
-- the cluster's with them
SELECT a.sections - b.sections >= 1000 AS own_sections_grew,
       a.stats_reset = b.stats_reset AS same_period
FROM pg_stat_rseq a, rseq_before b
WHERE a.pid = pg_backend_pid();
SELECT a.sections - b.sections >= 1000 AS total_sections_grew,
       a.descheduled_while_holding >= b.descheduled_while_holding AS descheduled_never_shrinks
FROM pg_stat_rseq_totals a, rseq_totals_before b;

-- counted by the core, in mode measure: nothing asks, so no grant, no
-- cleared request, no yield; yields is grants_in_place; not counted: NULL
SELECT count(*) > 1 AS rows,
       bool_and(sections > 0) FILTER (WHERE backend_type = 'client backend') AS client_sections,
       bool_and(grants_in_place = 0 AND requests_cleared = 0 AND yields = 0 AND yields_in_grant = 0) AS no_outcomes,
       bool_and(yields = grants_in_place) AS yields_is_grants_in_place,
       bool_and(spinlock_sections IS NULL AND buffer_header_sections IS NULL AND lwlock_sections IS NULL
                AND wait_list_sections IS NULL AND nested_entries IS NULL AND max_depth IS NULL
                AND requests IS NULL) AS uncounted_null,
       bool_and(mode = 'measure') AS all_measure,
       bool_and(descheduled_while_holding >= 0 AND sections >= 0) AS never_negative
FROM pg_stat_rseq;
SELECT grants_in_place, requests_cleared, yields, yields_in_grant, detail,
       spinlock_sections IS NULL AND lwlock_sections IS NULL AND max_depth IS NULL AND requests IS NULL AS uncounted_null
FROM pg_stat_rseq_totals;
-- backend types as pg_stat_activity has them; this backend is a row
SELECT count(*) AS mismatched_types
FROM pg_stat_rseq r JOIN pg_stat_activity a USING (pid)
WHERE r.backend_type IS DISTINCT FROM a.backend_type;
SELECT count(*) AS own_rows FROM pg_stat_rseq WHERE pid = pg_backend_pid();

-- a holder interrupted by a signal: counted as descheduled, on its tranche
CREATE TEMP TABLE rseq_tranche_before AS
    SELECT coalesce((SELECT descheduled_while_holding FROM pg_stat_rseq_tranche WHERE tranche = 'pg_rseq_test'), 0) AS d,
           (SELECT descheduled_while_holding FROM pg_stat_rseq WHERE pid = pg_backend_pid()) AS own;
SELECT pg_rseq_test_signal_in_lwlocks(3);
SELECT t.descheduled_while_holding - b.d >= 1 AS tranche_counted,
       (SELECT descheduled_while_holding FROM pg_stat_rseq WHERE pid = pg_backend_pid()) - b.own >= 1 AS own_counted
FROM pg_stat_rseq_tranche t, rseq_tranche_before b
WHERE t.tranche = 'pg_rseq_test';

-- the per-lock rows: the three kinds always, LWLock tranches with a
-- deschedule; only deschedules are counted per lock
SELECT tranche, lock_kind FROM pg_stat_rseq_tranche
WHERE lock_kind <> 'lwlock' OR tranche = 'pg_rseq_test' ORDER BY 2, 1;
SELECT bool_and(acquisitions IS NULL AND grants_in_place IS NULL AND requests_cleared IS NULL
                AND yields IS NULL AND yields_in_grant IS NULL) AS per_lock_outcomes_null,
       bool_and(descheduled_while_holding > 0) FILTER (WHERE lock_kind = 'lwlock') AS lwlock_rows_descheduled
FROM pg_stat_rseq_tranche;

-- a holder that sleeps in a reported wait: on Linux up to 6.18 (which
-- clears rseq_cs at every context switch) each sleep is counted in
-- slept_while_holding and not as a deschedule; from 6.19 on the kernel
-- does not flag it (neither grows).  A preemption inside one of the short
-- sections is possible but rare: up to 2 allowed.
CREATE TEMP TABLE rseq_sleep_before AS
    SELECT descheduled_while_holding AS d, slept_while_holding AS z
    FROM pg_stat_rseq WHERE pid = pg_backend_pid();
SELECT pg_rseq_test_sleep_in_lwlocks(2, 20);
SELECT CASE WHEN split_part(k.kernel_release, '.', 1)::int * 1000
                 + substring(split_part(k.kernel_release, '.', 2) FROM '^[0-9]+')::int <= 6018
            THEN r.slept_while_holding - b.z BETWEEN 18 AND 20
            ELSE r.slept_while_holding - b.z <= 2
       END AS slept_follows_release,
       r.descheduled_while_holding - b.d <= 2 AS sleeps_not_descheduled
FROM pg_stat_rseq r, rseq_sleep_before b, pg_rseq_kernel() k
WHERE r.pid = pg_backend_pid();
SELECT slept_while_holding >= 0 AS totals_slept_counted FROM pg_stat_rseq_totals;
-- bad input
SELECT pg_rseq_test_sleep_in_lwlocks(1, 0);
SELECT pg_rseq_test_sleep_in_lwlocks(1, NULL);
SELECT pg_rseq_test_sleep_in_lwlocks(65, 1);

-- after all that, outside any lock
SELECT depth, request, rseq_cs_kind IN ('none', 'marker') AS rseq_cs_kind_none_or_marker
FROM pg_rseq_backend_state();

DROP TABLE rseq_core_work, rseq_before, rseq_totals_before, rseq_tranche_before, rseq_sleep_before;
