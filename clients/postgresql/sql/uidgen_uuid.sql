-- uidgen for PostgreSQL: the UUIDv7 view (Documentation/uuid.rst). Needs the
-- module loaded with the default layout.
SET timezone = 'UTC';

-- Known values, computed apart from libuidgen (Documentation/uuid.rst).
SELECT uidgen_to_uuid(120772217587765248);
SELECT uidgen_from_uuid('01a22b21-6ca0-7000-8e10-000000000000');
SELECT uidgen_to_uuid(0), uidgen_to_uuid(9223372036854775807);

-- Fresh and random IDs: round trip, v7 bits, ms field, order.
CREATE TABLE ids AS
  SELECT uidgen_next() AS id FROM generate_series(1, 5000)
  UNION ALL
  SELECT (random() * 9223372036854775807)::bigint FROM generate_series(1, 5000)
  UNION ALL
  SELECT (random() * 16777216)::bigint << 22 | 4194303 FROM generate_series(1, 2000);
CREATE TABLE u AS SELECT id, uidgen_to_uuid(id) AS u FROM ids;
SELECT count(*) FILTER (WHERE uidgen_from_uuid(u) <> id) AS lost FROM u;
SELECT count(*) FILTER (WHERE substr(u::text, 15, 1) <> '7') AS not_v7,
       count(*) FILTER (WHERE substr(u::text, 20, 1) NOT IN ('8', '9', 'a', 'b')) AS bad_variant
  FROM u;
SELECT count(*) FILTER (WHERE ('x' || substr(replace(u::text, '-', ''), 1, 12))::bit(48)::bigint
			<> floor(extract(epoch FROM uidgen_time(id)) * 1000)) AS ms_differs
  FROM u;
SELECT count(*) AS out_of_order FROM (
  SELECT row_number() OVER (ORDER BY id, u) AS a, row_number() OVER (ORDER BY u, id) AS b FROM u
) s WHERE a <> b;
-- An index on the UUID is in ID order too.
CREATE INDEX ON u (u);
SELECT count(*) AS out_of_order FROM (
  SELECT id, lag(id) OVER (ORDER BY u) AS prev FROM u
) s WHERE prev > id;
DROP TABLE u, ids;

-- UUIDs no ID maps to are refused, with what they are.
SELECT uidgen_from_uuid('3f2504e0-4f89-41d3-9a0c-0305e82c3301');
SELECT uidgen_from_uuid('01a22b21-6ca0-7cc3-98c4-dc0c0c07398f');
SELECT uidgen_from_uuid('00000000-0000-7000-8000-000000000000');
SELECT uidgen_to_uuid(-1);
