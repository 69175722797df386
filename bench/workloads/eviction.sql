-- eviction: random primary-key reads over pgbench_accounts, run on a cluster
-- whose shared_buffers (default 16MB) is several times smaller than the table
-- and its index (default scale 6: ~95MB).  bench/run passes -s SCALE so that
-- :scale matches the initialised data.
--
-- Why: nearly every read misses shared_buffers and must evict a buffer.
-- StrategyGetBuffer runs the clock sweep, taking the buffer header spinlock
-- of each candidate buffer, and the new mapping takes a BufferMapping LWLock
-- partition in exclusive mode; the data itself comes from the OS page cache,
-- so the run is CPU bound and these spinlocks are hot.  This is the case of
-- the 2026 report of a PostgreSQL regression under Linux 7.0's lazy
-- preemption, where backends preempted while holding buffer header spinlocks
-- made the others spin.
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
