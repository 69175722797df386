--
-- Lock traffic made here shows up in this backend's row, in the cluster
-- totals and per tranche; the counters are consistent with each other.
-- Only comparisons are shown: the values depend on timing.
--
CREATE TABLE rseq_traffic (id int PRIMARY KEY, v text);
INSERT INTO rseq_traffic SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g;
CREATE INDEX rseq_traffic_v ON rseq_traffic (v);
UPDATE rseq_traffic SET v = v || 'y' WHERE id % 7 = 0;
DELETE FROM rseq_traffic WHERE id % 11 = 0;
VACUUM rseq_traffic;
ALTER TABLE rseq_traffic ADD COLUMN w int DEFAULT 1;
SELECT count(*) FROM rseq_traffic;

-- this backend's own row
SELECT backend_type,
       sections > 0 AS sections,
       lwlock_sections > 0 AS lwlock_sections,
       buffer_header_sections > 0 AS buffer_header_sections,
       stats_reset IS NOT NULL AS has_stats_reset,
       sections + nested_entries = spinlock_sections + buffer_header_sections
           + lwlock_sections + wait_list_sections AS entries_add_up,
       max_depth >= 1 AS max_depth
FROM pg_stat_rseq
WHERE pid = pg_backend_pid();

-- the cluster totals (this backend, the background processes, ...)
SELECT sections > 0 AS sections,
       spinlock_sections > 0 AS spinlock_sections,
       buffer_header_sections > 0 AS buffer_header_sections,
       lwlock_sections > 0 AS lwlock_sections,
       nested_entries > 0 AS nested_entries,
       max_depth >= 2 AS max_depth,
       stats_reset IS NOT NULL AS has_stats_reset
FROM pg_stat_rseq_totals;

-- every row: never negative, and grants_in_place + requests_cleared <=
-- requests (every grant or cleared request answered a request),
-- yields <= grants_in_place + requests_cleared, yields_in_grant <= yields
SELECT count(*) > 1 AS several_backends,
       count(DISTINCT pid) = count(*) AS one_row_per_pid,
       bool_and(sections >= 0 AND spinlock_sections >= 0 AND buffer_header_sections >= 0
                AND lwlock_sections >= 0 AND wait_list_sections >= 0 AND nested_entries >= 0
                AND max_depth >= 0 AND requests >= 0 AND descheduled_while_holding >= 0) AS never_negative,
       bool_and(grants_in_place >= 0 AND requests_cleared >= 0 AND yields >= 0
                AND yields_in_grant >= 0) AS outcomes_never_negative,
       bool_and(grants_in_place + requests_cleared <= requests) AS answers_le_requests,
       bool_and(yields <= grants_in_place + requests_cleared) AS yields_le_answers,
       bool_and(yields_in_grant <= yields) AS yields_in_grant_le_yields,
       bool_and(backend_type IS NOT NULL AND mode IS NOT NULL AND stats_reset IS NOT NULL) AS no_nulls
FROM pg_stat_rseq;

SELECT grants_in_place + requests_cleared <= requests AS answers_le_requests,
       yields <= grants_in_place + requests_cleared AS yields_le_answers,
       yields_in_grant <= yields AS yields_in_grant_le_yields,
       descheduled_while_holding >= 0 AS descheduled_not_negative
FROM pg_stat_rseq_totals;

-- the background processes are there, as pg_stat_activity names them
SELECT r.backend_type = a.backend_type AS same_backend_type
FROM pg_stat_rseq r JOIN pg_stat_activity a USING (pid)
WHERE r.pid = pg_backend_pid();
SELECT count(*) > 0 AS has_checkpointer FROM pg_stat_rseq WHERE backend_type = 'checkpointer';

-- per tranche: every lock kind is there, and the locks this test used
SELECT lock_kind, count(*) > 0 AS present
FROM pg_stat_rseq_tranche GROUP BY lock_kind ORDER BY lock_kind;
SELECT tranche, acquisitions > 0 AS acquired
FROM pg_stat_rseq_tranche
WHERE tranche IN ('BufferContent', 'BufferMapping', 'WALInsert', 'spinlock', 'buffer header')
ORDER BY tranche;
SELECT count(*) = count(DISTINCT (tranche, lock_kind)) AS one_row_per_tranche,
       bool_and(acquisitions >= 0 AND descheduled_while_holding >= 0 AND grants_in_place >= 0
                AND requests_cleared >= 0 AND yields >= 0 AND yields_in_grant >= 0) AS never_negative,
       bool_and(yields <= grants_in_place + requests_cleared) AS yields_le_answers,
       bool_and(yields_in_grant <= yields) AS yields_in_grant_le_yields
FROM pg_stat_rseq_tranche;

DROP TABLE rseq_traffic;
