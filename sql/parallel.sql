--
-- Parallel workers take the leader's settings in RestoreGUCState, which
-- first resets every non-default setting to its built-in value (mode auto,
-- detail off) and then applies the leader's.  The lock layer does not
-- switch in between (PgRseqParallelWorkerReady applies the final values),
-- so a worker keeps the mode it started in.  Mode off counts nothing: with
-- every process in mode off the cluster totals stand still across
-- parallel queries (a worker switched to auto for that moment added its
-- 16 LWLock sections each).
--
CREATE TABLE rseq_par AS SELECT g AS id FROM generate_series(1, 10000) g;
ANALYZE rseq_par;
-- the number of workers a query launched (EXPLAIN ANALYZE's Gather nodes)
CREATE FUNCTION rseq_par_workers(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query INTO plan;
    RETURN (SELECT coalesce(sum(w::int), 0)
            FROM jsonb_path_query(plan, 'strict $.**."Workers Launched"') w);
END $$;

ALTER SYSTEM SET rseq_slice_mode = off;
SELECT pg_reload_conf();
-- wait until every process has applied it (each does on its own)
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_mode') <> 'off'
            OR EXISTS (SELECT 1 FROM pg_stat_rseq WHERE mode <> 'off') \watch i=0.01 c=6000 m=1
\o
SELECT count(*) > 1 AS several_backends, bool_and(mode = 'off') AS all_off FROM pg_stat_rseq;

CREATE TEMP TABLE rseq_par_before AS
    SELECT lwlock_sections, descheduled_while_holding FROM pg_stat_rseq_totals;
SET debug_parallel_query = on;
SET max_parallel_workers_per_gather = 2;
SELECT rseq_par_workers('SELECT count(*) FROM rseq_par') >= 1 AS worker_launched,
       rseq_par_workers('SELECT count(*) FROM rseq_par') >= 1 AS worker_launched_again,
       rseq_par_workers('SELECT sum(id) FROM rseq_par') >= 1 AS another_worker_launched;
RESET max_parallel_workers_per_gather;
RESET debug_parallel_query;
-- the workers have exited (the leader waits for that) and their counts are
-- in the totals: nothing was counted
SELECT t.lwlock_sections - b.lwlock_sections AS lwlock_sections_added,
       t.descheduled_while_holding - b.descheduled_while_holding AS deschedules_added
FROM pg_stat_rseq_totals t, rseq_par_before b;

-- back to the default
ALTER SYSTEM RESET rseq_slice_mode;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_mode') <> 'auto'
            OR EXISTS (SELECT 1 FROM pg_stat_rseq WHERE mode = 'off') \watch i=0.01 c=6000 m=1
\o
SHOW rseq_slice_mode;
DROP FUNCTION rseq_par_workers(text);
DROP TABLE rseq_par;
