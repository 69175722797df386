--
-- pg_rseq on the core series (lwlock_patch/core/): the server runs with
-- rseq_slice_mode = measure (set at start: PGC_POSTMASTER; ext_check.sh).
-- Install the default version and check the SQL surface and the kernel row.
--
CREATE EXTENSION pg_rseq;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SHOW rseq_slice_mode;

-- the core's reader: the mode in force and why, no detail counters
SELECT lock_layer, mode_setting, mode, mode_reason, detail,
       mode_setting = current_setting('rseq_slice_mode') AS setting_matches_guc
FROM pg_rseq_kernel();
-- glibc registered the area (the core registers none)
SELECT rseq_registered, rseq_owner FROM pg_rseq_kernel();

-- descheduled_counts follows the kernel release: up to 6.18 every context
-- switch outside reported waits (the core counts those in
-- slept_while_holding), from 6.19 on interrupt and exception entries from
-- user mode
SELECT CASE WHEN split_part(kernel_release, '.', 1)::int * 1000
                 + substring(split_part(kernel_release, '.', 2) FROM '^[0-9]+')::int <= 6018
            THEN descheduled_counts LIKE 'context switches of the holder outside reported waits:%'
            ELSE descheduled_counts LIKE 'entries from user mode by an interrupt or exception only:%'
       END AS descheduled_counts_follows_release
FROM pg_rseq_kernel();

-- no reset yet: the counting period starts at the server's start
SELECT stats_reset = pg_postmaster_start_time() AS since_server_start FROM pg_stat_rseq_totals;

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
SELECT pg_get_function_arguments('pg_rseq_kernel'::regproc) LIKE '%, OUT descheduled_counts text' AS kernel_has_descheduled_counts;

-- who may execute what
SELECT p.oid::regprocedure AS function,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_rseq')
ORDER BY 1::text;
