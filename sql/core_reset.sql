--
-- pg_stat_rseq_reset() on the core: the core never resets its counters,
-- the extension keeps each slot's counts at the reset (a DSM registry
-- segment) and the views subtract them.  Totals, per-backend and per-lock
-- counts drop, stats_reset is the reset time, and counting goes on.
--
CREATE TEMP TABLE rseq_before AS
    SELECT t.sections AS total_sections, t.descheduled_while_holding AS total_desched,
           (SELECT sections FROM pg_stat_rseq WHERE pid = pg_backend_pid()) AS own_sections,
           (SELECT descheduled_while_holding FROM pg_stat_rseq_tranche WHERE tranche = 'pg_rseq_test') AS test_desched
    FROM pg_stat_rseq_totals t;
SELECT total_sections > 1000 AS counted_before, test_desched >= 1 AS test_tranche_before FROM rseq_before;

SELECT pg_typeof(pg_stat_rseq_reset()) AS reset_returns;
CREATE TEMP TABLE rseq_reset_at AS SELECT pg_stat_rseq_reset() AS at;
SELECT at > pg_postmaster_start_time() AND at <= now() + interval '1 minute' AS plausible_time FROM rseq_reset_at;

SELECT t.sections < b.total_sections AS totals_dropped,
       t.descheduled_while_holding <= b.total_desched AS desched_not_above,
       t.stats_reset = r.at AS totals_stats_reset
FROM pg_stat_rseq_totals t, rseq_before b, rseq_reset_at r;
SELECT s.sections < b.own_sections AS own_dropped, s.stats_reset = r.at AS own_stats_reset
FROM pg_stat_rseq s, rseq_before b, rseq_reset_at r
WHERE s.pid = pg_backend_pid();
-- every row's period starts at the reset or later (the backend's start)
SELECT bool_and(s.stats_reset >= r.at) AS rows_since_reset FROM pg_stat_rseq s, rseq_reset_at r;
-- the test tranche had no deschedule since the reset: its row is gone
SELECT count(*) AS test_rows FROM pg_stat_rseq_tranche WHERE tranche = 'pg_rseq_test';

-- counting goes on after the reset
SELECT pg_rseq_test_signal_in_lwlocks(1);
SELECT descheduled_while_holding >= 1 AS counted_after FROM pg_stat_rseq_tranche WHERE tranche = 'pg_rseq_test';
SELECT descheduled_while_holding >= 1 AS own_counted_after FROM pg_stat_rseq WHERE pid = pg_backend_pid();
SELECT t.sections > 0 AND t.descheduled_while_holding >= 1 AS totals_counted_after FROM pg_stat_rseq_totals t;

-- a second reset moves stats_reset on
SELECT pg_stat_rseq_reset() > at AS later_reset FROM rseq_reset_at;
SELECT stats_reset > (SELECT at FROM rseq_reset_at) AS moved FROM pg_stat_rseq_totals;
DROP TABLE rseq_before, rseq_reset_at;
