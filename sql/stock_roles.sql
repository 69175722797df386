--
-- Roles on a stock server: every function and view of pg_rseq run as a
-- role without privileges, as a member of pg_read_all_stats, as a member
-- of pg_read_server_files and as a superuser.  There is no lock layer (the
-- views are empty for everyone), but the rseq area glibc registered is:
-- its rseq_cs word is shown only with the privileges of
-- pg_read_server_files (an address when set, as on a patched server), and
-- the reset and the test functions are refused as on a patched server.
--
CREATE EXTENSION pg_rseq;
CREATE ROLE regress_rseq_plain;
CREATE ROLE regress_rseq_reader IN ROLE pg_read_all_stats;
CREATE ROLE regress_rseq_files IN ROLE pg_read_server_files;
CREATE TEMP TABLE rseq_kernel_su AS SELECT * FROM pg_rseq_kernel();
GRANT SELECT ON rseq_kernel_su TO PUBLIC;

-- no privileges
SET ROLE regress_rseq_plain;
SELECT count(*) AS same_kernel_row
FROM pg_rseq_kernel() k JOIN rseq_kernel_su s ON k IS NOT DISTINCT FROM s;
SELECT depth, mode, coalesce(request, 0) AS request, coalesce(granted, 0) AS granted, rseq_cs, marker
FROM pg_rseq_backend_state();
SELECT (s.rseq_cs_kind IS NOT NULL) = k.rseq_registered AS rseq_cs_kind_iff_registered,
       coalesce(s.rseq_cs_kind = 'none', true) AS rseq_cs_kind_none,
       to_jsonb(s)::text !~ '[0-9]{6}' AS no_address_in_row
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SELECT count(*) AS rows FROM pg_stat_rseq;
SELECT count(*) AS rows FROM pg_stat_rseq();
SELECT count(*) AS rows FROM pg_stat_rseq_totals;
SELECT count(*) AS rows FROM pg_stat_rseq_totals();
SELECT count(*) AS rows FROM pg_stat_rseq_tranche;
SELECT count(*) AS rows FROM pg_stat_rseq_tranche();
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
RESET ROLE;

-- pg_read_all_stats: no rseq_cs word either
SET ROLE regress_rseq_reader;
SELECT count(*) AS same_kernel_row
FROM pg_rseq_kernel() k JOIN rseq_kernel_su s ON k IS NOT DISTINCT FROM s;
SELECT s.rseq_cs IS NULL AS rseq_cs_null, s.marker,
       coalesce(s.rseq_cs_kind = 'none', true) AS rseq_cs_kind_none
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SELECT count(*) AS rows FROM pg_stat_rseq;
SELECT count(*) AS rows FROM pg_stat_rseq_totals;
SELECT count(*) AS rows FROM pg_stat_rseq_tranche;
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
RESET ROLE;

-- pg_read_server_files: the rseq_cs word (0 outside any critical section)
SET ROLE regress_rseq_files;
SELECT (s.rseq_cs IS NOT NULL) = k.rseq_registered AS rseq_cs_iff_registered,
       coalesce(s.rseq_cs, 0) AS rseq_cs, s.marker
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
RESET ROLE;

-- superuser
SELECT count(*) AS same_kernel_row
FROM pg_rseq_kernel() k JOIN rseq_kernel_su s ON k IS NOT DISTINCT FROM s;
SELECT (s.rseq_cs IS NOT NULL) = k.rseq_registered AS rseq_cs_iff_registered,
       coalesce(s.rseq_cs, 0) AS rseq_cs, s.marker
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;
SELECT count(*) AS rows FROM pg_stat_rseq;
SELECT count(*) AS rows FROM pg_stat_rseq_totals;
SELECT count(*) AS rows FROM pg_stat_rseq_tranche;
SELECT pg_stat_rseq_reset() IS NULL AS nothing_to_reset;
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);

DROP TABLE rseq_kernel_su;
DROP ROLE regress_rseq_plain, regress_rseq_reader, regress_rseq_files;
DROP EXTENSION pg_rseq;
