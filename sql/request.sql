--
-- rseq_slice_request: which outermost lock sections ask the kernel for a
-- slice extension.  Requests are counted only by sections that ask, so the
-- per-backend requests of one fixed statement order the policies:
-- all (every outermost section) > shared (all but LockFastPath) >
-- spinning (no LWLock).  The mode must be one that asks: upstream where
-- the kernel grants (Linux 7.x), else poc, which every other kernel
-- accepts and ignores (requests count, grants stay 0) and which runs the
-- out-of-line path with the policy passed through the thunks.
--
SHOW rseq_slice_request;
-- bad values are refused, the setting is unchanged
ALTER SYSTEM SET rseq_slice_request = 'sometimes';
SHOW rseq_slice_request;

CREATE TABLE rseq_req_t AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 5000) g;
-- requests of this backend during one statement (read before and after)
CREATE FUNCTION rseq_req_delta(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    b bigint;
    a bigint;
BEGIN
    SELECT requests INTO b FROM pg_stat_rseq WHERE pid = pg_backend_pid();
    EXECUTE q;
    SELECT requests INTO a FROM pg_stat_rseq WHERE pid = pg_backend_pid();
    RETURN a - b;
END
$$;
-- the statement: a scan (buffer content LWLocks, outermost) in a new
-- subtransaction-free transaction each time (its relation lock takes the
-- backend's fast path: LockFastPath, outermost)
SELECT count(*) FROM rseq_req_t;

-- A kernel with the upstream slice field (feature size 33, Linux 7.x)
-- that does not grant (built without the extension, e.g. every arm64 7.2
-- kernel, or with it disabled or not enabled for this registration) has no
-- mode that asks: poc is refused next to the upstream field.  There the
-- policies cannot be told apart by requests; the test checks instead that
-- poc falls back to measure and that nothing asks (expected/request_1.out).
SELECT CASE WHEN slice_extension = 'enabled' THEN 'upstream' ELSE 'poc' END AS asking_mode,
       slice_extension = 'enabled' OR feature_size < 33 AS can_ask
FROM pg_rseq_kernel() \gset
\if :can_ask
ALTER SYSTEM SET rseq_slice_mode = :'asking_mode';
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE (SELECT mode FROM pg_rseq_backend_state()) <> :'asking_mode' \watch i=0.01 c=6000 m=1
\o
SELECT mode = :'asking_mode' AS asking_mode_applied FROM pg_rseq_backend_state();

-- all (the default)
SELECT rseq_req_delta('SELECT count(*) FROM rseq_req_t') AS d \gset all_
SELECT rseq_req_delta('SELECT count(*) FROM rseq_req_t') AS d \gset all2_

-- the other policies, one step each (sql/request_policy.psql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set policy_step :abs_srcdir '/sql/request_policy.psql'
\set policy shared
\i :policy_step
-- A read of the totals takes no LWLock: it sums the slots without a lock
-- and copies the exited backends' totals under one spinlock (a section
-- that asks, like every spinlock).  Under shared (just applied), 20 reads
-- of the totals in one DO block ask exactly 20 times more than 20
-- statements that read nothing (the snapshot's ProcArrayLock and the rest
-- are the same in both).  Each block runs once first, so that both are
-- planned and cached.
\set stats_blk 'DO $d$ BEGIN FOR i IN 1..20 LOOP PERFORM * FROM pg_stat_rseq_totals; END LOOP; END $d$'
\set none_blk 'DO $d$ BEGIN FOR i IN 1..20 LOOP PERFORM * FROM (SELECT 1) s; END LOOP; END $d$'
SELECT rseq_req_delta(:'stats_blk') IS NOT NULL AS warm_stats,
       rseq_req_delta(:'none_blk') IS NOT NULL AS warm_none;
SELECT rseq_req_delta(:'stats_blk') AS d \gset stats_
SELECT rseq_req_delta(:'none_blk') AS d \gset none_
SELECT :stats_d = :none_d + 20 AS totals_read_asks_once, :none_d >= 20 AS other_locks_ask;

\set policy spinning
\i :policy_step
\set policy adaptive
\i :policy_step

-- the same statement twice under all asks the same number of times; the
-- scan's pages ask under all and shared; shared drops the fast-path lock
-- sections; spinning drops every LWLock section; adaptive, with no grant
-- to judge by, asks like shared
SELECT :all_d = :all2_d AS all_repeatable,
       :all_d >= 40 AS all_asks_per_page,
       :shared_d < :all_d AS shared_below_all,
       :all_d - :shared_d <= 8 AS shared_drops_only_fast_path,
       :spinning_d < :shared_d AS spinning_below_shared,
       :spinning_d >= 0 AS spinning_not_negative,
       :adaptive_d = :shared_d AS adaptive_like_shared;
\else
ALTER SYSTEM SET rseq_slice_mode = 'poc';
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_mode') <> 'poc' \watch i=0.01 c=6000 m=1
\o
SELECT mode AS poc_resolves_to FROM pg_rseq_backend_state();
SELECT coalesce(rseq_req_delta('SELECT count(*) FROM rseq_req_t'), 0) AS requests_counted;
\endif

-- back to the defaults
ALTER SYSTEM RESET rseq_slice_request;
ALTER SYSTEM RESET rseq_slice_mode;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_request') <> 'all'
            OR current_setting('rseq_slice_mode') <> 'auto' \watch i=0.01 c=6000 m=1
\o
SHOW rseq_slice_request;
SHOW rseq_slice_mode;
DROP FUNCTION rseq_req_delta(text);
DROP TABLE rseq_req_t;
