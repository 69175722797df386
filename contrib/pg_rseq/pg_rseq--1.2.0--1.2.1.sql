/* contrib/pg_rseq/pg_rseq--1.2.0--1.2.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_rseq UPDATE TO '1.2.1'" to load this file. \quit

--
-- 1.2.1: the same objects as 1.2.0; only the comment of
-- pg_rseq_backend_state() changes, for the module's rule on addresses
-- (rseq_cs and marker): they are shown only with the privileges of
-- pg_read_server_files, no longer to pg_read_all_stats or pg_monitor (a
-- monitoring agent gets no address: PostgreSQL shows none in any view, and
-- pg_read_server_files can read /proc/self/maps anyway).  The rule is the
-- module's: it holds for databases still on 1.0.0, 1.1.0 or 1.2.0 too.
-- Nothing is dropped: GRANTs and REVOKEs you made are kept.  The result is
-- the same as a fresh CREATE EXTENSION pg_rseq VERSION '1.2.1' (checked by
-- sql/upgrade.sql and sql/stock_upgrade.sql).
--

COMMENT ON FUNCTION pg_rseq_backend_state() IS
$$One row: this backend's rseq protocol state right now. No input.
Outputs: depth (lock sections open: locks held by the lock layer's count; NULL on a stock server);
mode (mode in force in this backend; NULL on a stock server);
request and granted (slice_ctrl bytes at offsets 28 and 29 of the rseq area, 0 or 1);
rseq_cs (the rseq_cs word at offset 8: 0, the lock layer's marker, or another rseq user's descriptor address);
marker (address of the lock layer's preemption marker, an empty-range rseq_cs descriptor that stays armed
between sections in every mode but off, until the kernel clears it at a preemption or signal; NULL on a stock server);
rseq_cs_kind (what rseq_cs holds, without the address: 'none' (0), 'marker' or 'other').
request, granted, rseq_cs, marker and rseq_cs_kind are NULL if no rseq area is registered.
rseq_cs and marker are addresses in the server's memory: shown only to superusers and roles with the privileges
of pg_read_server_files (who could read the server's /proc/self/maps with pg_read_file), NULL for every other
role, pg_read_all_stats and pg_monitor included (no error).
Outside any lock (as when called from SQL) depth and request are 0 and rseq_cs_kind is 'none' or 'marker'. Never fails.$$;
