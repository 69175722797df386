--
-- A backend that did work and disconnected is still counted in the
-- cluster totals.
--
-- This backend does some work, then records its pid, its own counter and
-- the totals, and disconnects.
CREATE TABLE rseq_work AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 20000) g;
CREATE INDEX rseq_work_v ON rseq_work (v);
CREATE TABLE rseq_before AS
    SELECT pg_backend_pid() AS pid,
           s.lwlock_sections AS own_lwlock,
           s.sections AS own_sections,
           t.stats_reset
    FROM pg_stat_rseq s, pg_stat_rseq_totals t
    WHERE s.pid = pg_backend_pid();
SELECT own_lwlock > 0 AS did_work FROM rseq_before;

\c -

-- wait until the old backend has exited (at most 60 s)
DO $$
BEGIN
    FOR i IN 1 .. 6000 LOOP
        PERFORM pg_stat_clear_snapshot();
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
                              WHERE pid = (SELECT pid FROM rseq_before));
        PERFORM pg_sleep(0.01);
    END LOOP;
END
$$;

SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity a JOIN rseq_before b USING (pid)) AS old_backend_gone,
       NOT EXISTS (SELECT 1 FROM pg_stat_rseq r JOIN rseq_before b USING (pid)) AS old_row_gone;

-- What live backends counted, read before the totals: totals - live is
-- then at least what exited backends counted, the old one included.
CREATE TEMP TABLE rseq_live AS
    SELECT sum(lwlock_sections) AS lwlock, sum(sections) AS sections FROM pg_stat_rseq;
SELECT t.stats_reset = b.stats_reset AS no_reset_in_between,
       t.lwlock_sections - l.lwlock >= b.own_lwlock AS exited_lwlock_sections_kept,
       t.sections - l.sections >= b.own_sections AS exited_sections_kept
FROM pg_stat_rseq_totals t, rseq_live l, rseq_before b;

DROP TABLE rseq_work, rseq_before, rseq_live;
