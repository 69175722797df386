--
-- Privileges on the core, as on the research layer and PostgreSQL's own
-- pg_stat views: a role without privileges sees no address and only its
-- own backend's row, may read the sums, may not reset or run the test
-- functions; pg_read_all_stats sees every backend but no address; the
-- reset can be GRANTed, the test functions stay superuser only.
--
CREATE ROLE regress_rseq_plain;
CREATE ROLE regress_rseq_stats IN ROLE pg_read_all_stats;
CREATE ROLE regress_rseq_files IN ROLE pg_read_server_files;

SET ROLE regress_rseq_plain;
SELECT depth, mode, rseq_cs, marker, rseq_cs_kind IN ('none', 'marker') AS rseq_cs_kind_none_or_marker
FROM pg_rseq_backend_state();
SELECT count(*) AS visible_rows, bool_and(pid = pg_backend_pid()) AS only_own_row FROM pg_stat_rseq;
SELECT sections > 0 AS totals_readable FROM pg_stat_rseq_totals;
SELECT count(*) >= 3 AS tranche_readable FROM pg_stat_rseq_tranche;
SELECT lock_layer, mode FROM pg_rseq_kernel();
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
RESET ROLE;

-- pg_read_all_stats: every backend, background processes included; no address
SET ROLE regress_rseq_stats;
SELECT count(*) > 1 AS sees_others,
       count(*) FILTER (WHERE backend_type = 'checkpointer') AS checkpointer_rows
FROM pg_stat_rseq;
SELECT rseq_cs, marker FROM pg_rseq_backend_state();
RESET ROLE;

-- pg_read_server_files: the addresses, not other backends
SET ROLE regress_rseq_files;
SELECT rseq_cs IS NOT NULL AS rseq_cs_shown, marker IS NOT NULL AS marker_shown,
       rseq_cs IN (0, marker) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();
SELECT count(*) AS visible_rows FROM pg_stat_rseq;
RESET ROLE;

-- the reset can be GRANTed; EXECUTE on a test function is not enough
GRANT EXECUTE ON FUNCTION pg_stat_rseq_reset() TO regress_rseq_plain;
GRANT EXECUTE ON FUNCTION pg_rseq_test_error_in_lwlocks(integer) TO regress_rseq_plain;
SET ROLE regress_rseq_plain;
SELECT pg_stat_rseq_reset() IS NOT NULL AS reset_granted;
SELECT pg_rseq_test_error_in_lwlocks(1);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION pg_stat_rseq_reset() FROM regress_rseq_plain;
REVOKE EXECUTE ON FUNCTION pg_rseq_test_error_in_lwlocks(integer) FROM regress_rseq_plain;
DROP ROLE regress_rseq_plain, regress_rseq_stats, regress_rseq_files;
