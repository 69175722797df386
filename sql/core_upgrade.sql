--
-- Upgrade on the core: install 1.2.1, use it (the module serves it on the
-- core), GRANT on a view and on the reset, ALTER EXTENSION pg_rseq UPDATE
-- to the default version (1.4.0, through 1.3.0): pg_rseq_kernel() gains
-- descheduled_counts (1.3.0), pg_stat_rseq and pg_stat_rseq_totals
-- slept_while_holding (1.4.0: re-created, so privileges changed on them go
-- back to the defaults, as documented), the GRANTs on the kept objects
-- stay, and the objects equal a fresh install's.  Older versions (1.0.0) still work on the core.
--
DROP EXTENSION pg_rseq;
CREATE EXTENSION pg_rseq VERSION '1.2.1';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';

CREATE TEMP VIEW rseq_objects AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object,
       CASE d.classid
           WHEN 'pg_proc'::regclass THEN pg_get_functiondef(d.objid)
           WHEN 'pg_class'::regclass THEN pg_get_viewdef(d.objid)
       END AS definition,
       obj_description(d.objid, d.classid::regclass::text) AS comment,
       CASE d.classid
           WHEN 'pg_proc'::regclass THEN (SELECT proacl::text FROM pg_proc WHERE oid = d.objid)
           WHEN 'pg_class'::regclass THEN (SELECT relacl::text FROM pg_class WHERE oid = d.objid)
       END AS acl
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_rseq')
  AND d.deptype = 'e';

-- 1.2.1 on the core: its columns, real values
SELECT pg_get_function_arguments('pg_rseq_kernel'::regproc) LIKE '%descheduled_counts%' AS has_descheduled_counts;
SELECT lock_layer, mode, detail FROM pg_rseq_kernel();
SELECT sections > 0 AS sections_counted, yields = grants_in_place AS yields_is_grants_in_place,
       lwlock_sections IS NULL AS lwlock_sections_null
FROM pg_stat_rseq_totals;
SELECT count(*) AS own_rows FROM pg_stat_rseq WHERE pid = pg_backend_pid() AND sections > 0;

CREATE ROLE regress_rseq_plain;
GRANT SELECT ON pg_stat_rseq TO regress_rseq_plain;
GRANT EXECUTE ON FUNCTION pg_stat_rseq_reset() TO regress_rseq_plain;
-- a REVOKE on a view that the update re-creates
REVOKE SELECT ON pg_stat_rseq_totals FROM PUBLIC;

ALTER EXTENSION pg_rseq UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT pg_get_function_arguments('pg_rseq_kernel'::regproc) LIKE '%, OUT descheduled_counts text' AS has_descheduled_counts;
SELECT lock_layer, mode, descheduled_counts IS NOT NULL AS descheduled_counts_given FROM pg_rseq_kernel();
SELECT sections > 0 AS sections_counted, slept_while_holding IS NOT NULL AS slept_counted FROM pg_stat_rseq_totals;
SELECT count(*) AS own_rows FROM pg_stat_rseq WHERE pid = pg_backend_pid() AND slept_while_holding >= 0;
-- the GRANT on a kept object stays; the re-created views are back at the
-- defaults (readable by everyone)
SELECT has_function_privilege('regress_rseq_plain', 'pg_stat_rseq_reset()', 'EXECUTE') AS reset_grant_kept;
SELECT relacl::text LIKE '%regress_rseq_plain%' AS view_grant_kept
FROM pg_class WHERE oid = 'pg_stat_rseq'::regclass;
SELECT has_table_privilege('regress_rseq_plain', 'pg_stat_rseq_totals', 'SELECT') AS totals_readable_again;
SELECT obj_description('pg_stat_rseq_totals'::regproc, 'pg_proc') ~ 'On the core series' AS comment_describes_core;
REVOKE EXECUTE ON FUNCTION pg_stat_rseq_reset() FROM regress_rseq_plain;

-- the same objects as a fresh install
CREATE TEMP TABLE rseq_updated AS SELECT * FROM rseq_objects;
DROP EXTENSION pg_rseq;
CREATE EXTENSION pg_rseq;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
CREATE TEMP TABLE rseq_fresh AS SELECT * FROM rseq_objects;
SELECT (SELECT count(*) FROM rseq_updated) AS updated_objects,
       (SELECT count(*) FROM rseq_fresh) AS fresh_objects,
       (SELECT count(comment) FROM rseq_fresh) AS with_comment;
SELECT 'only after the update' AS side, object
FROM (SELECT * FROM rseq_updated EXCEPT SELECT * FROM rseq_fresh) u
UNION ALL
SELECT 'only in a fresh install', object
FROM (SELECT * FROM rseq_fresh EXCEPT SELECT * FROM rseq_updated) f
ORDER BY 1, 2;

-- 1.0.0 on the core: its own entry points, the core's counts
DROP EXTENSION pg_rseq;
CREATE EXTENSION pg_rseq VERSION '1.0.0';
SELECT lock_layer FROM pg_rseq_kernel();
SELECT sections > 0 AS sections_counted, grants = 0 AS no_grants FROM pg_stat_rseq_totals;
SELECT count(*) >= 3 AS tranche_rows FROM pg_stat_rseq_tranche;
SELECT count(*) AS own_rows FROM pg_stat_rseq WHERE pid = pg_backend_pid();
ALTER EXTENSION pg_rseq UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';

DROP TABLE rseq_updated, rseq_fresh;
DROP VIEW rseq_objects;
DROP ROLE regress_rseq_plain;
DROP EXTENSION pg_rseq;
