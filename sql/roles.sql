--
-- Roles: every function and view of pg_rseq run as a role without
-- privileges (regress_rseq_plain), as a role with the privileges of
-- another role (regress_rseq_peer, a member of regress_rseq_other), as a
-- member of pg_read_all_stats (regress_rseq_reader), of pg_monitor
-- (regress_rseq_monitor), of pg_read_server_files (regress_rseq_files) and
-- as a superuser, with what each may see:
--   * pg_rseq_kernel(), pg_stat_rseq_totals, pg_stat_rseq_tranche: the same
--     for everyone;
--   * pg_rseq_backend_state(): rseq_cs and marker (addresses) NULL without
--     the privileges of pg_read_server_files (who may read the server's
--     /proc/self/maps with pg_read_file), also for pg_read_all_stats and
--     pg_monitor; no number that could be an address in the row then;
--   * pg_stat_rseq: other roles' backends (here a session of
--     regress_rseq_other, and the background processes) only for
--     pg_read_all_stats, superusers and roles with the privileges of the
--     backend's role; the same backends whose details pg_stat_activity
--     shows, plus the caller's own;
--   * pg_stat_rseq_reset(), pg_rseq_test_*(): permission denied, also for
--     pg_read_all_stats.
-- The other session is a second psql started in the background (the
-- server's own psql, from pg_config), as regress_rseq_other: this needs a
-- server that lets that role log in without a password from here, as the
-- scratch server of `make ext-check` (trust) does.
--
CREATE ROLE regress_rseq_plain;
CREATE ROLE regress_rseq_reader IN ROLE pg_read_all_stats;
CREATE ROLE regress_rseq_monitor IN ROLE pg_monitor;
CREATE ROLE regress_rseq_files IN ROLE pg_read_server_files;
CREATE ROLE regress_rseq_other LOGIN;
CREATE ROLE regress_rseq_peer IN ROLE regress_rseq_other;

-- what a superuser sees, to compare with
CREATE TEMP TABLE rseq_kernel_su AS SELECT * FROM pg_rseq_kernel();
GRANT SELECT ON rseq_kernel_su TO PUBLIC;

-- a session of regress_rseq_other that stays in a statement until it is
-- terminated below
SELECT setting AS rseq_bindir FROM pg_config WHERE name = 'BINDIR' \gset
\setenv RSEQ_PSQL :rseq_bindir/psql
\setenv RSEQ_DB :DBNAME
\! PGAPPNAME=regress_rseq_other "$RSEQ_PSQL" -X -q -U regress_rseq_other -d "$RSEQ_DB" -c 'SELECT pg_sleep(600)' >/dev/null 2>&1 &
\o /dev/null
SELECT 1 WHERE NOT EXISTS (SELECT FROM pg_stat_activity
                           WHERE application_name = 'regress_rseq_other' AND state = 'active'
                             AND query LIKE 'SELECT pg_sleep%') \watch i=0.01 c=6000 m=1
\o
SELECT pid AS other_pid FROM pg_stat_activity WHERE application_name = 'regress_rseq_other' \gset
SELECT count(*) AS other_sessions,
       bool_and(r.pid IS NOT NULL) AS other_in_pg_stat_rseq
FROM pg_stat_activity a LEFT JOIN pg_stat_rseq r USING (pid)
WHERE a.application_name = 'regress_rseq_other';

--
-- No privileges
--
SET ROLE regress_rseq_plain;
-- the kernel facts: the superuser's row
SELECT count(*) AS same_kernel_row
FROM pg_rseq_kernel() k JOIN rseq_kernel_su s ON k IS NOT DISTINCT FROM s;
-- this backend's state: no addresses (rseq_cs and marker NULL), the rest
SELECT depth, coalesce(request, 0) AS request, coalesce(granted, 0) AS granted, rseq_cs, marker
FROM pg_rseq_backend_state();
SELECT (s.rseq_cs_kind IS NOT NULL) = k.rseq_registered AS rseq_cs_kind_iff_registered,
       coalesce(s.rseq_cs_kind IN ('none', 'marker'), true) AS rseq_cs_kind_none_or_marker,
       to_jsonb(s)::text !~ '[0-9]{6}' AS no_address_in_row
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
-- pg_stat_rseq: its own backend only, not regress_rseq_other's session,
-- not the background processes; view and function agree
SELECT count(*) AS visible_rows,
       count(*) FILTER (WHERE pid = pg_backend_pid()) AS own_rows,
       count(*) FILTER (WHERE pid = :other_pid) AS other_role_rows
FROM pg_stat_rseq;
SELECT count(*) AS function_rows FROM pg_stat_rseq();
-- pg_stat_activity hides the other session's details from this role too
SELECT query FROM pg_stat_activity WHERE pid = :other_pid;
-- the cluster-wide sums: readable
SELECT count(*) AS totals_rows, bool_and(lwlock_sections > 0) AS totals_counted FROM pg_stat_rseq_totals;
SELECT count(*) AS totals_function_rows FROM pg_stat_rseq_totals();
SELECT count(*) FILTER (WHERE lock_kind <> 'lwlock') AS other_kind_rows,
       count(*) FILTER (WHERE lock_kind = 'lwlock') > 0 AS has_lwlock_rows
FROM pg_stat_rseq_tranche;
SELECT count(*) > 3 AS tranche_function_rows FROM pg_stat_rseq_tranche();
-- no reset, no test functions
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
RESET ROLE;

--
-- The privileges of regress_rseq_other (member of it): its session too
--
SET ROLE regress_rseq_peer;
SELECT count(*) AS visible_rows,
       count(*) FILTER (WHERE pid = pg_backend_pid()) AS own_rows,
       count(*) FILTER (WHERE pid = :other_pid) AS other_role_rows
FROM pg_stat_rseq;
SELECT query FROM pg_stat_activity WHERE pid = :other_pid;
SELECT rseq_cs IS NULL AS rseq_cs_null, marker IS NULL AS marker_null,
       to_jsonb(s)::text !~ '[0-9]{6}' AS no_address_in_row
FROM pg_rseq_backend_state() s;
SELECT pg_stat_rseq_reset();
RESET ROLE;

--
-- pg_read_all_stats: every backend, but no addresses; no reset or tests
--
SET ROLE regress_rseq_reader;
SELECT count(*) AS same_kernel_row
FROM pg_rseq_kernel() k JOIN rseq_kernel_su s ON k IS NOT DISTINCT FROM s;
SELECT s.rseq_cs IS NULL AS rseq_cs_null, s.marker IS NULL AS marker_null,
       (s.rseq_cs_kind IS NOT NULL) = k.rseq_registered AS rseq_cs_kind_iff_registered,
       to_jsonb(s)::text !~ '[0-9]{6}' AS no_address_in_row
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SELECT count(*) FILTER (WHERE pid = pg_backend_pid()) AS own_rows,
       count(*) FILTER (WHERE pid = :other_pid) AS other_role_rows,
       count(*) FILTER (WHERE backend_type = 'checkpointer') AS checkpointer_rows
FROM pg_stat_rseq;
-- pg_stat_activity's rule: every row shown here is one whose details
-- pg_stat_activity shows this role too
SELECT count(*) FILTER (WHERE a.query = '<insufficient privilege>') AS hidden_there_shown_here
FROM pg_stat_rseq r LEFT JOIN pg_stat_activity a USING (pid);
SELECT count(*) > 2 AS function_rows FROM pg_stat_rseq();
SELECT count(*) AS totals_rows FROM pg_stat_rseq_totals;
SELECT count(*) AS totals_function_rows FROM pg_stat_rseq_totals();
SELECT count(*) FILTER (WHERE lock_kind <> 'lwlock') AS other_kind_rows FROM pg_stat_rseq_tranche;
SELECT count(*) > 3 AS tranche_function_rows FROM pg_stat_rseq_tranche();
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
RESET ROLE;

-- pg_monitor (what monitoring agents are given): as pg_read_all_stats
SET ROLE regress_rseq_monitor;
SELECT s.rseq_cs IS NULL AS rseq_cs_null, s.marker IS NULL AS marker_null,
       to_jsonb(s)::text !~ '[0-9]{6}' AS no_address_in_row
FROM pg_rseq_backend_state() s;
SELECT count(*) FILTER (WHERE pid = :other_pid) AS other_role_rows FROM pg_stat_rseq;
RESET ROLE;

--
-- pg_read_server_files: the addresses (it could read /proc/self/maps), but
-- only its own backend in pg_stat_rseq, as in pg_stat_activity
--
SET ROLE regress_rseq_files;
SELECT (s.rseq_cs IS NOT NULL) = k.rseq_registered AS rseq_cs_iff_registered,
       (s.marker IS NOT NULL) = k.rseq_registered AS marker_iff_registered,
       coalesce(s.rseq_cs IN (0, s.marker), true) AS rseq_cs_0_or_marker,
       s.rseq_cs_kind IS NOT DISTINCT FROM
           CASE WHEN s.rseq_cs = 0 THEN 'none' WHEN s.rseq_cs = s.marker THEN 'marker'
                WHEN s.rseq_cs IS NOT NULL THEN 'other' END AS rseq_cs_kind_matches
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SELECT count(*) FILTER (WHERE pid = :other_pid) AS other_role_rows FROM pg_stat_rseq;
RESET ROLE;

-- the same rule for the role without privileges: nothing shown here that
-- pg_stat_activity hides from it, except its own backend
SET ROLE regress_rseq_plain;
SELECT count(*) FILTER (WHERE a.query = '<insufficient privilege>' AND r.pid <> pg_backend_pid())
           AS hidden_there_shown_here
FROM pg_stat_rseq r LEFT JOIN pg_stat_activity a USING (pid);
RESET ROLE;
SET ROLE regress_rseq_peer;
SELECT count(*) FILTER (WHERE a.query = '<insufficient privilege>' AND r.pid <> pg_backend_pid())
           AS hidden_there_shown_here
FROM pg_stat_rseq r LEFT JOIN pg_stat_activity a USING (pid);
RESET ROLE;

--
-- Superuser: everything
--
SELECT count(*) AS same_kernel_row
FROM pg_rseq_kernel() k JOIN rseq_kernel_su s ON k IS NOT DISTINCT FROM s;
SELECT (s.rseq_cs IS NOT NULL) = k.rseq_registered AS rseq_cs_iff_registered,
       (s.marker IS NOT NULL) = k.rseq_registered AS marker_iff_registered,
       coalesce(s.rseq_cs IN (0, s.marker), true) AS rseq_cs_0_or_marker,
       -- the address of the marker: a number the other roles never saw
       (to_jsonb(s)::text ~ '[0-9]{6}') = k.rseq_registered AS address_in_row
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SELECT count(*) FILTER (WHERE pid = pg_backend_pid()) AS own_rows,
       count(*) FILTER (WHERE pid = :other_pid) AS other_role_rows,
       count(*) FILTER (WHERE backend_type = 'checkpointer') AS checkpointer_rows
FROM pg_stat_rseq;
SELECT count(*) > 2 AS function_rows FROM pg_stat_rseq();
SELECT count(*) AS totals_rows FROM pg_stat_rseq_totals;
SELECT count(*) AS totals_function_rows FROM pg_stat_rseq_totals();
SELECT count(*) FILTER (WHERE lock_kind <> 'lwlock') AS other_kind_rows FROM pg_stat_rseq_tranche;
SELECT count(*) > 3 AS tranche_function_rows FROM pg_stat_rseq_tranche();
SELECT pg_stat_rseq_reset() IS NOT NULL AS reset_done;
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);

-- end the other session
SELECT pg_terminate_backend(:other_pid, 60000) AS other_session_ended;

DROP TABLE rseq_kernel_su;
DROP ROLE regress_rseq_plain, regress_rseq_reader, regress_rseq_monitor, regress_rseq_files,
    regress_rseq_peer, regress_rseq_other;
