-- bench/callgrind/locktable.sql: a second fixed single-backend workload for
-- bench/callgrind/run (--workload bench/callgrind/locktable.sql): the shape
-- of the kernel lab's oracle2024 workload (Oracle's 2024 lock-table test),
-- 500 transactions that each take SHARE locks on 8 empty tables.
--
-- SHARE is a strong relation lock mode: it is never a fast-path lock, and
-- taking it makes the backend look at every PGPROC's fast-path array, each
-- under that PGPROC's fpInfoLock (lock.c FastPathTransferRelationLocks):
-- about ProcGlobal->allProcCount LWLock acquisitions per table, i.e. most
-- of the LWLock traffic of this workload is LockFastPath locks held for a
-- few instructions each.  With the default max_connections (100) that is
-- about 180 per LOCK of one table.
--
-- Statements end with ";" followed by an empty line (single-user mode -j).
-- Nothing depends on time or randomness.

CREATE TABLE lt1 (i int);

CREATE TABLE lt2 (i int);

CREATE TABLE lt3 (i int);

CREATE TABLE lt4 (i int);

CREATE TABLE lt5 (i int);

CREATE TABLE lt6 (i int);

CREATE TABLE lt7 (i int);

CREATE TABLE lt8 (i int);

-- One transaction per iteration (COMMIT inside the procedure), as pgbench's
-- BEGIN; LOCK TABLE ...; END; in the lab.
CREATE PROCEDURE lt_locks(n int)
LANGUAGE plpgsql
AS $$
BEGIN
    FOR i IN 1..n LOOP
        LOCK TABLE lt1, lt2, lt3, lt4, lt5, lt6, lt7, lt8 IN SHARE MODE;
        COMMIT;
    END LOOP;
END
$$;

CALL lt_locks(500);

SELECT 'locktable done' AS result;

