--
-- Privileges: reading other backends' rows needs pg_read_all_stats,
-- resetting needs superuser (or a GRANT), the test function superuser.
--
CREATE ROLE regress_rseq_nobody;
CREATE ROLE regress_rseq_stats IN ROLE pg_read_all_stats;
CREATE ROLE regress_rseq_resetter;
GRANT EXECUTE ON FUNCTION pg_stat_rseq_reset() TO regress_rseq_resetter;

-- a superuser sees every backend
SELECT count(*) > 1 AS sees_other_backends FROM pg_stat_rseq;

-- no privileges: only its own row, no reset, no test function
SET ROLE regress_rseq_nobody;
SELECT count(*) AS visible_rows,
       bool_and(pid = pg_backend_pid()) AS only_own_row
FROM pg_stat_rseq;
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
-- cluster-wide views and the kernel facts are for everyone
SELECT count(*) AS totals_rows FROM pg_stat_rseq_totals;
SELECT count(*) > 0 AS tranche_rows FROM pg_stat_rseq_tranche;
SELECT lock_layer FROM pg_rseq_kernel();
SELECT depth FROM pg_rseq_backend_state();
RESET ROLE;

-- pg_read_all_stats: every backend, still no reset
SET ROLE regress_rseq_stats;
SELECT count(*) > 1 AS sees_other_backends FROM pg_stat_rseq;
SELECT pg_stat_rseq_reset();
RESET ROLE;

-- reset can be GRANTed
SET ROLE regress_rseq_resetter;
SELECT pg_stat_rseq_reset() IS NOT NULL AS reset_done;
RESET ROLE;

-- EXECUTE on the test function is not enough: superuser only
GRANT EXECUTE ON FUNCTION pg_rseq_test_error_in_lwlocks(integer) TO regress_rseq_nobody;
SET ROLE regress_rseq_nobody;
SELECT pg_rseq_test_error_in_lwlocks(1);
RESET ROLE;

REVOKE EXECUTE ON FUNCTION pg_rseq_test_error_in_lwlocks(integer) FROM regress_rseq_nobody;
REVOKE EXECUTE ON FUNCTION pg_stat_rseq_reset() FROM regress_rseq_resetter;
DROP ROLE regress_rseq_nobody, regress_rseq_stats, regress_rseq_resetter;
