--
-- pg_rseq on the patched server: install, and check the SQL surface.
--
CREATE EXTENSION pg_rseq;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';

-- The tests that follow check the detail counters (sections, per-kind
-- entries, nested_entries, max_depth), which the lock layer counts only
-- with rseq_slice_detail = on (sql/detail.sql turns it off and on again,
-- sql/upgrade.sql resets it).  Wait until this backend has applied it;
-- backends started later inherit it from the postmaster, which applies a
-- reload before it signals them.
ALTER SYSTEM SET rseq_slice_detail = on;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_detail') <> 'on' \watch i=0.01 c=6000 m=1
\o
SELECT current_setting('rseq_slice_detail') AS rseq_slice_detail;

-- what it installs
SELECT pg_describe_object(classid, objid, 0) AS object
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_rseq')
  AND deptype = 'e'
ORDER BY 1;

-- the views' columns and types: every counter is a bigint
-- (pg_rseq_kernel()'s are checked in sql/kernel.sql)
SELECT table_name,
       string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) AS columns
FROM information_schema.columns
WHERE table_name IN ('pg_stat_rseq', 'pg_stat_rseq_totals', 'pg_stat_rseq_tranche')
GROUP BY table_name
ORDER BY table_name;

-- who may execute what
SELECT p.oid::regprocedure AS function,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_rseq')
ORDER BY 1::text;
