--
-- Upgrade: install 1.0.0, check its columns, ALTER EXTENSION pg_rseq
-- UPDATE (1.0.0 -> 1.1.0 -> 1.2.0 -> 1.2.1), check the new columns and
-- their values, and that the updated extension has exactly the objects of
-- a fresh install (1.2.1); then the same from 1.1.0 through 1.2.0, where
-- 1.2.0 -> 1.2.1 changes a comment only and keeps your GRANTs.  Databases
-- not yet updated keep their old columns, and the module hides addresses
-- from roles without pg_read_server_files in every version.
--
CREATE EXTENSION pg_rseq VERSION '1.0.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';

-- Every object of the extension with its definition, comment and
-- privileges (compared below between the updated and a fresh install).
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

-- 1.0.0's columns
CREATE TEMP VIEW rseq_columns AS
SELECT table_name AS relation,
       string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) AS columns
FROM information_schema.columns
WHERE table_name IN ('pg_stat_rseq', 'pg_stat_rseq_totals', 'pg_stat_rseq_tranche')
GROUP BY table_name
UNION ALL
-- (by name, not 'pg_rseq_kernel'::regproc: the view would depend on the function)
SELECT proname || '()', pg_get_function_arguments(oid) FROM pg_proc
WHERE proname IN ('pg_rseq_kernel', 'pg_rseq_backend_state')
ORDER BY 1;
SELECT * FROM rseq_columns;
SELECT object FROM rseq_objects ORDER BY 1;
-- 1.0.0's functions work with this module (their own entry points)
SELECT lock_layer, mode_setting = current_setting('rseq_slice_mode') AS setting_matches_guc
FROM pg_rseq_kernel();
SELECT depth, coalesce(request, 0) AS request, rseq_cs IS NOT NULL = rseq_registered AS rseq_cs_iff_registered
FROM pg_rseq_backend_state(), pg_rseq_kernel();
SELECT count(*) > 0 AS has_rows, bool_and(yields <= grants) AS yields_le_grants
FROM pg_stat_rseq_tranche;
SELECT sections > 0 AS sections, lwlock_sections > 0 AS lwlock_sections FROM pg_stat_rseq_totals;
-- 1.0.0's rseq_cs is an address too: NULL without pg_read_server_files
CREATE ROLE regress_rseq_plain;
SET ROLE regress_rseq_plain;
SELECT depth, rseq_cs FROM pg_rseq_backend_state();
SELECT count(*) AS visible_rows, bool_and(pid = pg_backend_pid()) AS only_own_row FROM pg_stat_rseq;
RESET ROLE;

-- 1.0.0 on this lock layer shows every counter as counted.  With
-- rseq_slice_detail off the detail counters stand still (this backend's,
-- exactly), while LWLock acquisitions are still counted: the reason why
-- 1.1.0 shows them as NULL then.
ALTER SYSTEM SET rseq_slice_detail = off;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_detail') <> 'off' \watch i=0.01 c=6000 m=1
\o
SHOW rseq_slice_detail;
CREATE TEMP TABLE rseq_v10_before AS
    SELECT * FROM pg_stat_rseq WHERE pid = pg_backend_pid();
CREATE TABLE rseq_v10_work AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 5000) g;
CREATE INDEX rseq_v10_work_v ON rseq_v10_work (v);
UPDATE rseq_v10_work SET v = v || 'x' WHERE id % 3 = 0;
VACUUM rseq_v10_work;
SELECT a.sections = b.sections AS sections_stand_still,
       a.spinlock_sections = b.spinlock_sections AS spinlock_sections_stand_still,
       a.buffer_header_sections = b.buffer_header_sections AS buffer_header_sections_stand_still,
       a.wait_list_sections = b.wait_list_sections AS wait_list_sections_stand_still,
       a.nested_entries = b.nested_entries AS nested_entries_stand_still,
       a.max_depth = b.max_depth AS max_depth_stands_still,
       a.lwlock_sections > b.lwlock_sections AS lwlock_sections_advanced
FROM pg_stat_rseq a, rseq_v10_before b
WHERE a.pid = pg_backend_pid();
-- 1.0.0 has no NULL counters, even while they are not counted
SELECT bool_and(sections IS NOT NULL AND max_depth IS NOT NULL) AS no_nulls
FROM pg_stat_rseq;
SELECT bool_and(acquisitions IS NOT NULL) AS no_nulls FROM pg_stat_rseq_tranche;

ALTER SYSTEM SET rseq_slice_detail = on;
SELECT pg_reload_conf();
\o /dev/null
SELECT 1 WHERE current_setting('rseq_slice_detail') <> 'on' \watch i=0.01 c=6000 m=1
\o
SHOW rseq_slice_detail;

-- the update, through 1.1.0
ALTER EXTENSION pg_rseq UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT * FROM rseq_columns;

-- real values in the new columns: every row consistent; without the slice
-- extension (any kernel before 7.0, or not enabled) the kernel never
-- grants, so grants_in_place, requests_cleared, yields and
-- yields_in_grant are 0 while locks were taken
SELECT count(*) > 0 AS has_rows,
       bool_and(grants_in_place >= 0 AND requests_cleared >= 0 AND yields_in_grant >= 0) AS never_negative,
       bool_and(yields_in_grant <= yields) AS yields_in_grant_le_yields,
       bool_and(yields <= grants_in_place + requests_cleared) AS yields_le_answers,
       sum(acquisitions) FILTER (WHERE lock_kind = 'lwlock') > 0 AS lwlocks_acquired
FROM pg_stat_rseq_tranche;
SELECT k.slice_extension = 'enabled'
       OR (sum(t.grants_in_place) = 0 AND sum(t.requests_cleared) = 0 AND sum(t.yields) = 0
           AND sum(t.yields_in_grant) = 0) AS no_outcomes_without_extension
FROM pg_rseq_kernel() k, pg_stat_rseq_tranche t
GROUP BY k.slice_extension;
SELECT tranche, acquisitions > 0 AS acquired,
       yields_in_grant <= yields AND yields <= grants_in_place + requests_cleared AS consistent
FROM pg_stat_rseq_tranche
WHERE tranche IN ('BufferContent', 'WALInsert', 'buffer header')
ORDER BY tranche;
-- the addresses, still hidden; rseq_cs_kind instead
SET ROLE regress_rseq_plain;
SELECT depth, rseq_cs, marker, rseq_cs_kind IN ('none', 'marker') AS rseq_cs_kind_none_or_marker
FROM pg_rseq_backend_state();
RESET ROLE;
-- detail is on: the detail columns are numbers, and detail says so
SELECT k.detail AS kernel_detail, t.detail AS totals_detail,
       t.sections > 0 AND t.spinlock_sections > 0 AND t.max_depth >= 2 AS detail_columns_shown
FROM pg_rseq_kernel() k, pg_stat_rseq_totals t;

-- the same objects as a fresh install
CREATE TEMP TABLE rseq_updated AS SELECT * FROM rseq_objects;
DROP EXTENSION pg_rseq;
CREATE EXTENSION pg_rseq;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
CREATE TEMP TABLE rseq_fresh AS SELECT * FROM rseq_objects;
SELECT (SELECT count(*) FROM rseq_updated) AS updated_objects,
       (SELECT count(*) FROM rseq_fresh) AS fresh_objects,
       (SELECT count(definition) FROM rseq_fresh) AS with_definition,
       (SELECT count(comment) FROM rseq_fresh) AS with_comment,
       (SELECT count(acl) FROM rseq_fresh) AS with_acl;
SELECT 'only after the update' AS side, object
FROM (SELECT * FROM rseq_updated EXCEPT SELECT * FROM rseq_fresh) u
UNION ALL
SELECT 'only in a fresh install', object
FROM (SELECT * FROM rseq_fresh EXCEPT SELECT * FROM rseq_updated) f
ORDER BY 1, 2;

-- an unknown version is refused
ALTER EXTENSION pg_rseq UPDATE TO '0.9';

--
-- 1.1.0 -> 1.2.0
--
DROP EXTENSION pg_rseq;
CREATE EXTENSION pg_rseq VERSION '1.1.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT * FROM rseq_columns;
-- 1.1.0's functions work with this module; the addresses are hidden there too
SELECT lock_layer, detail FROM pg_rseq_kernel();
SELECT bool_and(revoked <= grants AND yields <= grants AND yields_in_grant <= yields) AS consistent
FROM pg_stat_rseq_tranche;
SELECT (s.marker IS NOT NULL) = k.rseq_registered AS marker_iff_registered
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SET ROLE regress_rseq_plain;
SELECT depth, rseq_cs, marker FROM pg_rseq_backend_state();
RESET ROLE;
-- a GRANT on pg_stat_rseq before the update (see below)
GRANT SELECT ON pg_stat_rseq TO regress_rseq_plain;
ALTER EXTENSION pg_rseq UPDATE TO '1.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT * FROM rseq_columns;
SELECT count(*) > 0 AS has_rows,
       bool_and(yields <= grants_in_place + requests_cleared AND yields_in_grant <= yields) AS consistent
FROM pg_stat_rseq_tranche;
-- the view was created again: the GRANT is gone, as documented
SELECT relacl::text LIKE '%regress_rseq_plain%' AS grant_kept
FROM pg_class WHERE oid = 'pg_stat_rseq'::regclass;
-- 1.2.0 -> 1.2.1: a comment only, nothing dropped: a GRANT made on 1.2.0
-- is kept; the comment gives the rule on addresses
GRANT SELECT ON pg_stat_rseq TO regress_rseq_plain;
ALTER EXTENSION pg_rseq UPDATE TO '1.2.1';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT relacl::text LIKE '%regress_rseq_plain%' AS grant_kept
FROM pg_class WHERE oid = 'pg_stat_rseq'::regclass;
SELECT obj_description('pg_rseq_backend_state'::regproc, 'pg_proc') ~ 'privileges\s+of pg_read_server_files'
           AS comment_names_pg_read_server_files;
-- on to the default version: 1.3.0 keeps pg_stat_rseq, 1.4.0 re-creates it
-- (slept_while_holding), so the GRANT is gone, as documented
ALTER EXTENSION pg_rseq UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT relacl::text LIKE '%regress_rseq_plain%' AS grant_kept
FROM pg_class WHERE oid = 'pg_stat_rseq'::regclass;
-- the same objects as a fresh install (rseq_fresh, above)
DROP TABLE rseq_updated;
CREATE TEMP TABLE rseq_updated AS SELECT * FROM rseq_objects;
SELECT (SELECT count(*) FROM rseq_updated) AS updated_objects,
       (SELECT count(*) FROM rseq_fresh) AS fresh_objects;
SELECT 'only after the update' AS side, object
FROM (SELECT * FROM rseq_updated EXCEPT SELECT * FROM rseq_fresh) u
UNION ALL
SELECT 'only in a fresh install', object
FROM (SELECT * FROM rseq_fresh EXCEPT SELECT * FROM rseq_updated) f
ORDER BY 1, 2;

DROP ROLE regress_rseq_plain;
DROP TABLE rseq_v10_work, rseq_v10_before, rseq_updated, rseq_fresh;
DROP VIEW rseq_columns, rseq_objects;
DROP EXTENSION pg_rseq;
ALTER SYSTEM RESET rseq_slice_detail;
SELECT pg_reload_conf();
