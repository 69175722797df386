--
-- pg_stat_rseq_reset() zeroes every counter and returns the reset time.
-- This backend counts its own locks again right after the reset, so the
-- totals are compared with their value before the reset rather than 0.
--
CREATE TABLE rseq_load AS SELECT g AS id FROM generate_series(1, 10000) g;
CREATE TEMP TABLE rseq_pre AS SELECT * FROM pg_stat_rseq_totals;
CREATE TEMP TABLE rseq_pre_tranche AS
    SELECT sum(acquisitions) AS acquisitions FROM pg_stat_rseq_tranche;
CREATE TEMP TABLE rseq_pre_own AS
    SELECT * FROM pg_stat_rseq WHERE pid = pg_backend_pid();
SELECT sections > 0 AS counted_before FROM rseq_pre;

SELECT pg_typeof(pg_stat_rseq_reset());
CREATE TEMP TABLE rseq_reset AS SELECT pg_stat_rseq_reset() AS reset_at;

SELECT r.reset_at > p.stats_reset AS reset_time_moved,
       t.stats_reset = r.reset_at AS totals_stats_reset,
       t.sections < p.sections AS sections_dropped,
       t.lwlock_sections < p.lwlock_sections AS lwlock_sections_dropped,
       t.spinlock_sections < p.spinlock_sections AS spinlock_sections_dropped,
       t.nested_entries < p.nested_entries AS nested_entries_dropped,
       t.descheduled_while_holding <= p.descheduled_while_holding AS descheduled_dropped
FROM pg_stat_rseq_totals t, rseq_reset r, rseq_pre p;

SELECT sum(t.acquisitions) < p.acquisitions AS tranche_acquisitions_dropped
FROM pg_stat_rseq_tranche t, rseq_pre_tranche p
GROUP BY p.acquisitions;

-- every live backend's row was reset too
SELECT bool_and(s.stats_reset >= r.reset_at) AS all_rows_reset
FROM pg_stat_rseq s, rseq_reset r;
SELECT s.sections < o.sections AS own_sections_dropped,
       s.lwlock_sections < o.lwlock_sections AS own_lwlock_sections_dropped
FROM pg_stat_rseq s, rseq_pre_own o
WHERE s.pid = pg_backend_pid();

DROP TABLE rseq_load, rseq_pre, rseq_pre_tranche, rseq_pre_own, rseq_reset;
