--
-- An ERROR raised while holding LWLocks: PostgreSQL's abort releases them,
-- and the core series must be back at depth 0 with no request pending and
-- rseq_cs 0 or its own marker, which it leaves armed between sections, never
-- anything else (the DETAIL shows the depth at the error).
--
SELECT depth, coalesce(request, 0) AS request, coalesce(rseq_cs IN (0, marker), true) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();

SELECT pg_rseq_test_error_in_lwlocks(5);
SELECT depth, coalesce(request, 0) AS request, coalesce(granted, 0) AS granted,
       coalesce(rseq_cs IN (0, marker), true) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();

-- all 64 at once; they were released, or this would wait forever
SELECT pg_rseq_test_error_in_lwlocks(64);
SELECT depth, coalesce(request, 0) AS request, coalesce(granted, 0) AS granted,
       coalesce(rseq_cs IN (0, marker), true) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();

-- in a transaction block: the error aborts it, ROLLBACK ends it
BEGIN;
SELECT pg_rseq_test_error_in_lwlocks(2);
ROLLBACK;
SELECT depth, coalesce(request, 0) AS request, coalesce(rseq_cs IN (0, marker), true) AS rseq_cs_0_or_marker
FROM pg_rseq_backend_state();

-- caught by PL/pgSQL: the subtransaction's abort releases them
DO $$
DECLARE
    s record;
BEGIN
    BEGIN
        PERFORM pg_rseq_test_error_in_lwlocks(3);
    EXCEPTION WHEN raise_exception THEN
        SELECT * INTO s FROM pg_rseq_backend_state();
        RAISE NOTICE 'caught "%": depth %, request %, rseq_cs 0 or marker: %',
            SQLERRM, s.depth, coalesce(s.request, 0), coalesce(s.rseq_cs IN (0, s.marker), true);
    END;
END
$$;

