-- uidgen for PostgreSQL: the public form (Documentation/public-ids.rst).
-- Needs no module. The server runs with uidgen.public_key_file =
-- '/tmp/pg/public.keys' (tests/shell/postgresql.sh); this test writes that
-- file as the server's user (COPY TO, which makes it mode 0644: refused
-- until chmod 0600).

-- No key file yet.
SELECT uidgen_public(0);
COPY (SELECT '1 000102030405060708090a0b0c0d0e0f') TO '/tmp/pg/public.keys';
-- Others may read it.
SELECT uidgen_public(0);
COPY (SELECT 1) TO PROGRAM 'chmod 0600 /tmp/pg/public.keys';

-- Key 1 = 00..0f: libuidgen's vectors (userlib/tests/public_kats.h).
SELECT id, uidgen_public(id) FROM (VALUES (0::bigint), (1), (4611686018427387904),
  (9223372036854775807), (9007199254740993)) v(id);
SELECT uidgen_private('1CjGQJ2ZYu96R'), uidgen_private('10HNGxLcualA1'),
       uidgen_private('15kq9QvcEfc6K');

-- Round trip over 100000 consecutive and 100000 random IDs; every token
-- 13 characters under key 1; consecutive IDs' tokens in no order.
CREATE TEMP TABLE p AS
  SELECT id, uidgen_public(id) AS t FROM (
    SELECT 517820499493421056 + g AS id FROM generate_series(1, 100000) g
    UNION ALL
    SELECT (random() * 9223372036854775807)::bigint FROM generate_series(1, 100000)) s;
SELECT count(*) FILTER (WHERE uidgen_private(t) <> id) AS lost,
       count(*) FILTER (WHERE t !~ '^1[0-9A-Za-z]{12}$') AS malformed,
       count(DISTINCT t) = count(DISTINCT id) AS one_to_one
  FROM p;
SELECT abs(avg((t2 COLLATE "C" > t1)::int) - 0.5) < 0.01 AS no_order FROM (
  SELECT t AS t1, lead(t) OVER (ORDER BY id) AS t2 FROM p
   WHERE id BETWEEN 517820499493421057 AND 517820499493521056) s
 WHERE t2 IS NOT NULL;

-- Refused: not a token's text, a key the file does not hold, a check
-- digit that does not match, not an ID.
SELECT uidgen_private('1CjGQJ2ZYu96');
SELECT uidgen_private('1CjGQJ2ZYu96-');
SELECT uidgen_private('1LygHa16AHYG0');
SELECT uidgen_private('2CjGQJ2ZYu96R');
SELECT uidgen_private('1CjGQJ2ZYu96S');
SELECT uidgen_public(-1);
SELECT uidgen_public(NULL) IS NULL AS null_in_null_out, uidgen_private(NULL) IS NULL AS also;

-- Rotation: key 2 added to the file is current from the next statement
-- on; key 1's tokens still open.
COPY (VALUES ('1 000102030405060708090a0b0c0d0e0f'),
             ('2 0f0e0d0c0b0a09080706050403020100')) TO '/tmp/pg/public.keys';
SELECT left(uidgen_public(0), 1) AS key, uidgen_private(uidgen_public(0)) AS id,
       uidgen_private('1CjGQJ2ZYu96R') AS key1_token;
-- Key 1 removed: its tokens fail.
COPY (VALUES ('2 0f0e0d0c0b0a09080706050403020100')) TO '/tmp/pg/public.keys';
SELECT uidgen_private('1CjGQJ2ZYu96R');

-- A malformed line, a key ID given twice.
COPY (VALUES ('1 000102030405060708090a0b0c0d0e0f'), ('2 00')) TO '/tmp/pg/public.keys';
SELECT uidgen_public(0);
COPY (VALUES ('1 000102030405060708090a0b0c0d0e0f'),
             ('1 000102030405060708090a0b0c0d0e0f')) TO '/tmp/pg/public.keys';
SELECT uidgen_public(0);

-- A query cannot name the key file.
SET uidgen.public_key_file = '/tmp/pg/other.keys';
SELECT set_config('uidgen.public_key_file', '/tmp/pg/other.keys', false);
SHOW uidgen.public_key_file;
COPY (SELECT 1) TO PROGRAM 'rm -f /tmp/pg/public.keys';
