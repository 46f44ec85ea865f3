-- uidgen for PostgreSQL: IDs, decoding, time ranges. Needs the module
-- loaded with the default layout and node ID 7 (tests/shell/postgresql.sh).
SET timezone = 'UTC';
SET extra_float_digits = 0;

-- Fresh IDs: positive, all different, from node 7.
SELECT count(*), count(DISTINCT id), min(id) > 0 AS positive
  FROM (SELECT uidgen_next() AS id FROM generate_series(1, 20000)) s;
SELECT count(*), count(DISTINCT id) FROM uidgen_next(5000) AS id;
SELECT DISTINCT (uidgen_decode(id)).node FROM uidgen_next(1000) AS id;
SELECT count(*) FROM uidgen_next(0);
SELECT uidgen_next(-1);
SELECT uidgen_next(NULL);

-- The time of a fresh ID is the wall clock's, to within its tick.
SELECT abs(extract(epoch FROM uidgen_time(uidgen_next()) - clock_timestamp())) < 2
  AS near_now;

-- As a column default, and the key of a table.
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT uidgen_next(), v int);
INSERT INTO t (v) SELECT g FROM generate_series(1, 3000) g;
SELECT count(*), count(DISTINCT id), bool_and(id > 0) FROM t;

-- Decoding, by the layout the device reports (41/5/5/12, 1 ms, 2026-01-01).
SELECT * FROM uidgen_decode(120772217587765248);
SELECT uidgen_time(120772217587765248);
SELECT * FROM uidgen_decode(0);
SELECT * FROM uidgen_decode(9223372036854775807);
SELECT uidgen_decode(-1);
SELECT uidgen_time(-9223372036854775808);
SELECT uidgen_decode(NULL) IS NULL AS strict;

-- uidgen_min_id(): the first ID of the first tick starting at or after t.
SELECT uidgen_min_id('2026-11-30 06:25:40.512+00');
SELECT uidgen_min_id('2026-11-30 06:25:40.511001+00');
SELECT uidgen_min_id('2026-11-30 06:25:40.512001+00');
SELECT uidgen_min_id('1970-01-01 00:00:00+00'), uidgen_min_id('2026-01-01 00:00:00+00');
SELECT uidgen_min_id('2095-09-07 15:47:35.552+00');
SELECT uidgen_min_id('infinity');

-- IDs between two times by the key alone agree with their decoded times,
-- and use the primary key's index.
SELECT min(uidgen_time(id)) AS t1, max(uidgen_time(id)) AS t2 FROM t \gset
SELECT count(*) = (SELECT count(*) FROM t
		    WHERE uidgen_time(id) >= :'t1' AND uidgen_time(id) < :'t2') AS same
  FROM t WHERE id >= uidgen_min_id(:'t1') AND id < uidgen_min_id(:'t2');
SELECT count(*) > 0 AS some FROM t WHERE id >= uidgen_min_id(:'t1') AND id < uidgen_min_id(:'t2');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM t WHERE id >= uidgen_min_id(now() - interval '1 hour') AND id < uidgen_min_id(now());
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE t;
