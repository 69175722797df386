--
-- pg_rseq on the patched server: install, and check the SQL surface.
--
CREATE EXTENSION pg_rseq;

-- what it installs
SELECT pg_describe_object(classid, objid, 0) AS object
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_rseq')
  AND deptype = 'e'
ORDER BY 1;

-- the views' columns and types: every counter is a bigint
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
