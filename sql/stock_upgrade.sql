--
-- Upgrade on a stock server: install 1.0.0, ALTER EXTENSION pg_rseq
-- UPDATE (to 1.2.1, through 1.1.0 and 1.2.0); the new columns are there
-- (views still empty, detail NULL: no lock layer) and the objects are
-- those of a fresh install; then the same from 1.1.0.
--
CREATE EXTENSION pg_rseq VERSION '1.0.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';

-- every object with its definition, comment and privileges
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

-- 1.0.0: the old columns, empty views
SELECT * FROM pg_stat_rseq_totals;
SELECT * FROM pg_stat_rseq_tranche;
SELECT lock_layer, mode FROM pg_rseq_kernel();

ALTER EXTENSION pg_rseq UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';

-- 1.2.0: the new columns, still empty; detail NULL (no lock layer)
SELECT * FROM pg_stat_rseq;
SELECT * FROM pg_stat_rseq_totals;
SELECT * FROM pg_stat_rseq_tranche;
SELECT lock_layer, mode, detail FROM pg_rseq_kernel();
SELECT depth, mode, marker, coalesce(rseq_cs_kind, 'none') AS rseq_cs_kind FROM pg_rseq_backend_state();
SELECT pg_rseq_test_signal_in_lwlocks(3);

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

-- 1.1.0 -> 1.2.0
DROP EXTENSION pg_rseq;
CREATE EXTENSION pg_rseq VERSION '1.1.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT * FROM pg_stat_rseq_tranche;
ALTER EXTENSION pg_rseq UPDATE TO '1.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
SELECT * FROM pg_stat_rseq_tranche;
-- 1.2.0 -> 1.2.1 (a comment)
ALTER EXTENSION pg_rseq UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_rseq';
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

DROP TABLE rseq_updated, rseq_fresh;
DROP VIEW rseq_objects;
DROP EXTENSION pg_rseq;
