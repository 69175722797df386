--
-- pg_rseq on a stock PostgreSQL 18 (no lock layer): the extension installs,
-- reports the kernel side, says the lock layer is 'stock', and every
-- statistics view is empty.  Expected output does not depend on the machine.
--
CREATE EXTENSION pg_rseq;

-- what it installs
SELECT pg_describe_object(classid, objid, 0) AS object
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_rseq')
  AND deptype = 'e'
ORDER BY 1;

-- kernel facts: no lock layer, so no mode
SELECT lock_layer, mode_setting, mode, mode_reason, detail,
       kernel_release <> '' AS has_release,
       rseq_owner IN ('glibc', 'none') AS owner_not_postgres,
       rseq_registered = (rseq_registration IS NOT NULL) AS registration_consistent,
       rseq_registered = (rseq_length IS NOT NULL) AS length_consistent,
       slice_extension IN ('enabled', 'available', 'unavailable', 'disabled') AS slice_known,
       slice_ext_nsec IS NULL OR slice_ext_nsec > 0 AS nsec_valid,
       summary LIKE 'kernel %' AS has_summary
FROM pg_rseq_kernel();
-- no lock layer, no deschedule counter: nothing to say what it counts
SELECT descheduled_counts FROM pg_rseq_kernel();

-- this backend: no lock layer state; outside any lock the rseq area (if
-- glibc registered one) has no request pending and rseq_cs 0
SELECT depth, mode,
       coalesce(request, 0) AS request,
       coalesce(granted, 0) AS granted,
       coalesce(rseq_cs, 0) AS rseq_cs
FROM pg_rseq_backend_state();

-- the views are empty, with their columns
SELECT * FROM pg_stat_rseq;
SELECT * FROM pg_stat_rseq_totals;
SELECT * FROM pg_stat_rseq_tranche;

-- nothing to reset
SELECT pg_stat_rseq_reset() IS NULL AS nothing_to_reset;

-- the test function still raises its error while holding LWLocks, and
-- checks its argument
SELECT pg_rseq_test_error_in_lwlocks(3);
SELECT pg_rseq_test_error_in_lwlocks(NULL);
SELECT pg_rseq_test_error_in_lwlocks(-1);
SELECT pg_rseq_test_error_in_lwlocks(65);
SELECT pg_rseq_test_error_in_lwlocks(3);  -- the locks were released
SELECT pg_rseq_test_signal_in_lwlocks(3);
SELECT pg_rseq_test_signal_in_lwlocks(NULL);
SELECT pg_rseq_test_signal_in_lwlocks(65);

-- privileges are the same as on a patched server
CREATE ROLE regress_rseq_nobody;
SET ROLE regress_rseq_nobody;
SELECT pg_stat_rseq_reset();
SELECT pg_rseq_test_error_in_lwlocks(1);
SELECT pg_rseq_test_signal_in_lwlocks(1);
SELECT count(*) AS rows FROM pg_stat_rseq;
SELECT lock_layer FROM pg_rseq_kernel();
RESET ROLE;
DROP ROLE regress_rseq_nobody;

DROP EXTENSION pg_rseq;
