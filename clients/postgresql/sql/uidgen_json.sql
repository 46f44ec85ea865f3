-- uidgen for PostgreSQL: IDs in JSON (Documentation/clients.rst, "IDs in
-- JSON and JavaScript"). PostgreSQL writes a bigint into JSON as a number,
-- which JavaScript reads as a double and rounds above 2^53; an ID goes into
-- JSON as text, id::text. Known IDs: needs no module.

-- The trap: to_json() of an ID above 2^53 is a number, and the double a
-- JavaScript reader makes of it (float8 here: the same IEEE rounding, and
-- its text the same shortest digits as JavaScript's String()) is another
-- number: 120772217587765250, as node's JSON.parse() gives.
SELECT to_json(120772217587765249::bigint) AS as_number,
       json_typeof(to_json(120772217587765249::bigint)) AS type,
       (to_json(120772217587765249::bigint)::text)::float8::text::numeric AS what_javascript_reads;
-- The documented spelling: id::text is a JSON string, exact.
SELECT to_json(120772217587765249::bigint::text) AS as_string,
       json_typeof(to_json(120772217587765249::bigint::text)) AS type;

-- IDs of every width up to 63 bits, the edges of 2^53 among them.
CREATE TABLE orders (id bigint PRIMARY KEY, item text);
INSERT INTO orders
  SELECT (random() * 9223372036854775807)::bigint >> (i % 63), 'item ' || i
    FROM generate_series(1, 20000) i
  ON CONFLICT DO NOTHING;
INSERT INTO orders VALUES (9007199254740991, 'max safe'), (9007199254740992, '2^53'),
  (9007199254740993, '2^53 + 1'), (9223372036854775807, 'last') ON CONFLICT DO NOTHING;
SELECT count(*) FILTER (WHERE id > 9007199254740991) > 2000 AS many_above_2_53 FROM orders;

-- json_build_object with id::text: every ID a string that reads back exact.
SELECT count(*) FILTER (WHERE json_typeof(j->'id') <> 'string') AS not_string,
       count(*) FILTER (WHERE (j->>'id')::bigint <> id) AS lost
  FROM (SELECT id, json_build_object('id', id::text, 'item', item) AS j FROM orders) s;
-- A whole row (to_jsonb makes the bigint a number): put the text over it.
SELECT count(*) FILTER (WHERE jsonb_typeof(j->'id') <> 'string') AS not_string,
       count(*) FILTER (WHERE (j->>'id')::bigint <> id) AS lost,
       count(*) FILTER (WHERE j->>'item' <> item) AS item_lost
  FROM (SELECT id, item, to_jsonb(o) || jsonb_build_object('id', o.id::text) AS j
          FROM orders o) s;
-- json_agg of the text too; without it, what the numbers would lose.
SELECT json_typeof(json_agg(id::text ORDER BY id)->0) AS agg_type FROM orders;
SELECT count(*) FILTER (WHERE (to_json(id)::text)::float8::text::numeric <> id) > 1000 AS numbers_would_round,
       count(*) FILTER (WHERE id <= 9007199254740991
                          AND (to_json(id)::text)::float8::text::numeric <> id) AS rounded_below_2_53
  FROM orders;
DROP TABLE orders;
