--
-- A strong relation lock (SHARE and stronger) makes the backend visit
-- every PGPROC's fast-path array under that PGPROC's fpInfoLock (lock.c
-- FastPathTransferRelationLocks): ProcGlobal->allProcCount LWLocks.  The
-- lock layer takes that loop as ONE section of tranche LockFastPath
-- (lwlock.c LWLockScanBegin/LWLockAcquireInScan), counted as one LWLock
-- section: so a LOCK ... IN SHARE MODE opens about as many LWLock sections
-- as a LOCK ... IN ACCESS SHARE MODE (a fast-path lock: this backend's own
-- fpInfoLock), not allProcCount more (allProcCount >= MaxBackends =
-- max_connections + autovacuum_worker_slots + max_worker_processes +
-- max_wal_senders + 1).  The assertion builds also check, at every lock of
-- the scan, that the sections open match the locks held.
--
CREATE TABLE rseq_scan_weak (i int);
CREATE TABLE rseq_scan_strong (i int);
-- LWLock acquisitions (pg_stat_rseq.lwlock_sections, this backend) of one
-- LOCK statement, in the caller's transaction
CREATE FUNCTION rseq_lock_delta(tbl text, lockmode text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    b bigint;
    a bigint;
BEGIN
    SELECT lwlock_sections INTO b FROM pg_stat_rseq WHERE pid = pg_backend_pid();
    EXECUTE format('LOCK TABLE %I IN %s MODE', tbl, lockmode);
    SELECT lwlock_sections INTO a FROM pg_stat_rseq WHERE pid = pg_backend_pid();
    RETURN a - b;
END
$$;
-- warm the caches (no catalog reads in the measured statements)
SELECT rseq_lock_delta('rseq_scan_weak', 'ACCESS SHARE') >= 0 AS warm_weak;
SELECT rseq_lock_delta('rseq_scan_strong', 'SHARE') >= 0 AS warm_strong;
-- autovacuum's PGPROCs: autovacuum_worker_slots from 18 on, autovacuum_max_workers before
SELECT current_setting('max_connections')::int
       + coalesce(current_setting('autovacuum_worker_slots', true), current_setting('autovacuum_max_workers'))::int
       + current_setting('max_worker_processes')::int + current_setting('max_wal_senders')::int + 1
       + current_setting('max_prepared_transactions')::int AS procs_lo \gset
SELECT rseq_lock_delta('rseq_scan_weak', 'ACCESS SHARE') AS weak \gset
SELECT rseq_lock_delta('rseq_scan_strong', 'SHARE') AS strong \gset
-- the strong lock: one section for the scan and one for the lock table's
-- partition lock, the weak one: one for the backend's own fpInfoLock
SELECT :strong - :weak BETWEEN 1 AND 8 AS scan_is_one_section,
       :strong - :weak < :procs_lo AS not_one_per_pgproc;
-- the lock layer is back at depth 0 after the scans, nothing requested
SELECT depth, coalesce(request, 0) AS request FROM pg_rseq_backend_state();
DROP FUNCTION rseq_lock_delta(text, text);
DROP TABLE rseq_scan_weak, rseq_scan_strong;
