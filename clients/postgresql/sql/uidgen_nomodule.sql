-- uidgen for PostgreSQL with no module loaded (no /dev/uid): an error
-- saying to load it, and the backend lives on.
SELECT uidgen_next();
SELECT uidgen_time(1);
SELECT uidgen_to_uuid(1);
SELECT 'still here' AS backend;
