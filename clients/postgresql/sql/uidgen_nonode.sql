-- uidgen for PostgreSQL with the module loaded but no node ID: an error
-- saying what to run, and the backend lives on.
SET timezone = 'UTC';
SELECT uidgen_next();
SELECT count(*) FROM uidgen_next(3);
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT uidgen_next(), v int);
INSERT INTO t (v) VALUES (1);
DROP TABLE t;
-- Decoding needs only the layout.
SELECT * FROM uidgen_decode(120772217587765248);
SELECT 'still here' AS backend;
