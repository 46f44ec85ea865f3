-- SPDX-License-Identifier: LGPL-2.1-or-later
-- uidgen for PostgreSQL: 1.0 to 1.1, ALTER EXTENSION uidgen UPDATE.
\echo Use "ALTER EXTENSION uidgen UPDATE TO '1.1'" to load this file. \quit

-- Every ID this machine mints from now on is greater than id, an ID
-- minted anywhere (UIDGEN_IOC_OBSERVE): INSERT a row referencing another
-- machine's key after SELECT uidgen_observe(its id), and the new key sorts
-- after it. An ID too far ahead of this machine's clock is an error.
CREATE FUNCTION uidgen_observe(id bigint) RETURNS void
	AS 'MODULE_PATHNAME', 'uidgen_observe_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
