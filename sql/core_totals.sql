--
-- Exited backends stay in the totals: the core's slots are cumulative over
-- their owners.  A backend does work and records its own sections, then
-- disconnects; once it is gone, the totals minus the live rows still hold
-- what it counted.
--
CREATE TABLE rseq_gone (pid integer, sections bigint);
\c
CREATE TABLE rseq_gone_work AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 20000) g;
CREATE INDEX ON rseq_gone_work (v);
INSERT INTO rseq_gone SELECT pid, sections FROM pg_stat_rseq WHERE pid = pg_backend_pid();
\c
\o /dev/null
SELECT 1 WHERE EXISTS (SELECT 1 FROM pg_stat_activity a JOIN rseq_gone g USING (pid)) \watch i=0.01 c=6000 m=1
\o
SELECT sections > 10000 AS gone_backend_counted FROM rseq_gone;
SELECT count(*) AS gone_backend_rows FROM pg_stat_rseq WHERE pid = (SELECT pid FROM rseq_gone);
-- totals minus the live rows: the gone backend's sections, and whatever
-- other exited processes counted, less the sections this query itself
-- opens between its two reads (a few dozen; 500 allowed)
SELECT (SELECT sections FROM pg_stat_rseq_totals)
       - (SELECT sum(sections) FROM pg_stat_rseq) >= (SELECT sections FROM rseq_gone) - 500 AS gone_backend_in_totals;
DROP TABLE rseq_gone, rseq_gone_work;
