-- bench/callgrind/hotlock.sql: a third fixed single-backend workload for
-- bench/callgrind/run (--workload bench/callgrind/hotlock.sql): the
-- kernel lab's hotlock workload (pgbench script
-- SELECT count(nextval('s')) FROM generate_series(1,200);), 300 times.
-- Every nextval locks the sequence's buffer (content LWLock, buffer
-- header) and takes spinlocks: a CPU-bound transaction with many short
-- lock sections, the shape on which the lock layer's per-section cost is
-- largest relative to the work.
--
-- Statements end with ";" followed by an empty line (single-user mode -j).

CREATE SEQUENCE s;

CREATE PROCEDURE hot_xacts(n int)
LANGUAGE plpgsql
AS $$
DECLARE
    c bigint;
BEGIN
    FOR i IN 1..n LOOP
        SELECT count(nextval('s')) INTO c FROM generate_series(1, 200);
        COMMIT;
    END LOOP;
END
$$;

CALL hot_xacts(300);

SELECT last_value = 60000 AS hotlock_done FROM s;

