-- uidgen for PostgreSQL with a node ID pending (node_id=5 given at load,
-- its floor unknown): an error saying what to run, and the backend lives on.
SELECT uidgen_next();
SELECT count(*) FROM uidgen_next(3);
SELECT uidgen_to_uuid(0);
SELECT 'still here' AS backend;
