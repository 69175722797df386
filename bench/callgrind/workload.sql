-- bench/callgrind/workload.sql: the fixed single-backend workload that
-- bench/callgrind/run feeds to `postgres --single -j` under callgrind.
--
-- Statements end with ";" followed by an empty line (single-user mode -j).
-- Nothing here depends on time, randomness or the server flavour: the same
-- file gives the same lock sequence on the stock and the patched server.
-- With the run script's shared_buffers (2MB = 256 buffers) the table and its
-- indexes (about 450 pages) do not fit, so the lookups also evict buffers
-- (clock sweep, buffer header locks, buffer mapping partition locks).
-- Sizes: 20000 rows, 20000 primary-key lookups, 5000 updates,
-- 500 committed transactions, 2 aggregates, 1 VACUUM.

CREATE TABLE cg (
    id   int PRIMARY KEY,
    grp  int NOT NULL,
    val  int NOT NULL,
    pad  text NOT NULL
);

CREATE INDEX cg_grp ON cg (grp);

CREATE TABLE cg_log (
    n    int NOT NULL,
    id   int NOT NULL,
    val  int NOT NULL
);

-- Bulk load: heap and index inserts, WAL insertion locks, buffer mapping.
INSERT INTO cg
SELECT g, g % 100, g, repeat('x', 100)
FROM generate_series(1, 20000) AS g;

-- Primary-key lookups in a scattered (but fixed) order: buffer mapping
-- partition LWLocks, content locks, buffer pins and evictions.
DO $$
DECLARE
    s bigint := 0;
    v int;
BEGIN
    FOR i IN 1..20000 LOOP
        SELECT val INTO v FROM cg WHERE id = (i * 7919) % 20000 + 1;
        s := s + v;
    END LOOP;
    RAISE NOTICE 'lookups: sum %', s;
END
$$;

-- Updates in one transaction: exclusive content locks, WAL insertion.
DO $$
BEGIN
    FOR i IN 1..5000 LOOP
        UPDATE cg SET val = val + 1 WHERE id = (i * 104729) % 20000 + 1;
    END LOOP;
END
$$;

-- Many small transactions: commit path (ProcArrayLock, XactSLRU,
-- WALWriteLock, WAL insertion locks) once per iteration.
CREATE PROCEDURE cg_commits(n int)
LANGUAGE plpgsql
AS $$
BEGIN
    FOR i IN 1..n LOOP
        UPDATE cg SET val = val - 1 WHERE id = (i * 31) % 20000 + 1;
        INSERT INTO cg_log VALUES (i, (i * 31) % 20000 + 1, i);
        COMMIT;
    END LOOP;
END
$$;

CALL cg_commits(500);

-- Sequential scans with aggregation.
SELECT count(*), sum(val), count(DISTINCT grp) FROM cg;

SELECT grp, count(*), sum(val) FROM cg WHERE grp < 5 GROUP BY grp ORDER BY grp;

VACUUM cg;

