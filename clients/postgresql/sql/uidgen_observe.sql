-- uidgen_observe(): every ID minted after it is greater. Needs the module
-- loaded with the default layout (tests/shell/postgresql.sh).
-- The last ID of a fresh ID's tick (every node, slot and sequence bit
-- set), observed: the IDs after it are greater, cached or not.
CREATE TEMP TABLE o AS SELECT uidgen_next() | 4194303 AS top;
SELECT uidgen_observe(top) FROM o;
SELECT bool_and(id > (SELECT top FROM o)) AS all_greater FROM uidgen_next(1000) AS id;
SELECT uidgen_next() > (SELECT top FROM o) AS greater;
-- An ID from the past: accepted, moves nothing.
SELECT uidgen_observe(0);
-- Far ahead, negative, NULL.
SELECT uidgen_observe(9223372036854775807);
SELECT uidgen_observe(-1);
SELECT uidgen_observe(NULL);
-- The upgrade from 1.0 (2.0's) adds it and the public form.
DROP EXTENSION uidgen;
CREATE EXTENSION uidgen VERSION '1.0';
SELECT count(*) FROM pg_proc WHERE proname IN ('uidgen_observe', 'uidgen_public', 'uidgen_private');
ALTER EXTENSION uidgen UPDATE TO '1.1';
SELECT count(*) FROM pg_proc WHERE proname IN ('uidgen_observe', 'uidgen_public', 'uidgen_private');
