--
-- The extension drops cleanly.
--
DROP EXTENSION pg_rseq;
SELECT count(*) AS leftover_functions FROM pg_proc
WHERE proname LIKE 'pg_rseq%' OR proname LIKE 'pg_stat_rseq%';
SELECT count(*) AS leftover_views FROM pg_class
WHERE relname LIKE 'pg_stat_rseq%';
