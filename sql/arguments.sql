--
-- NULL and bad arguments get clear errors.
--
SELECT pg_rseq_test_error_in_lwlocks(NULL);
SELECT pg_rseq_test_error_in_lwlocks(-1);
SELECT pg_rseq_test_error_in_lwlocks(65);
SELECT pg_rseq_test_error_in_lwlocks(2147483647);
SELECT pg_rseq_test_error_in_lwlocks('many');
SELECT pg_rseq_test_error_in_lwlocks(0);
-- the functions without arguments take none
SELECT pg_stat_rseq_reset(NULL);
SELECT * FROM pg_rseq_kernel(NULL);
SELECT * FROM pg_stat_rseq(0);
-- still at depth 0 after all that
SELECT depth, coalesce(request, 0) AS request, coalesce(rseq_cs, 0) AS rseq_cs
FROM pg_rseq_backend_state();
