--
-- NULL and bad arguments get clear errors.
--
SELECT pg_rseq_test_error_in_lwlocks(NULL);
SELECT pg_rseq_test_error_in_lwlocks(-1);
SELECT pg_rseq_test_error_in_lwlocks(65);
SELECT pg_rseq_test_error_in_lwlocks(2147483647);
SELECT pg_rseq_test_error_in_lwlocks('many');
SELECT pg_rseq_test_error_in_lwlocks(0);
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(NULL);
SELECT pg_rseq_test_signal_in_lwlocks(-1);
SELECT pg_rseq_test_signal_in_lwlocks(65);
SELECT pg_rseq_test_signal_in_lwlocks('many');
SELECT pg_rseq_test_signal_in_lwlocks(0);
SELECT pg_rseq_test_signal_in_lwlocks(64);
-- the functions without arguments take none
SELECT pg_stat_rseq_reset(NULL);
SELECT * FROM pg_rseq_kernel(NULL);
SELECT * FROM pg_stat_rseq(0);
-- still at depth 0 after all that
SELECT depth, coalesce(request, 0) AS request, coalesce(rseq_cs IN (0, marker), true) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();
