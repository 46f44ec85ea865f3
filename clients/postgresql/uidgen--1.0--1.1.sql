-- SPDX-License-Identifier: LGPL-2.1-or-later
-- uidgen for PostgreSQL: 1.0 to 1.1, ALTER EXTENSION uidgen UPDATE.
\echo Use "ALTER EXTENSION uidgen UPDATE TO '1.1'" to load this file. \quit

-- The opaque public form of an ID (Documentation/public-ids.rst): 13
-- characters of 0-9A-Za-z that show neither the ID's time nor its order,
-- under the keys of the file uidgen.public_key_file names (server
-- configuration only), and back. Refused: a token of a key the file does
-- not hold, a check digit that does not match.
CREATE FUNCTION uidgen_public(id bigint) RETURNS text
	AS 'MODULE_PATHNAME', 'uidgen_public_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION uidgen_private(token text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'uidgen_private_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Every ID this machine mints from now on is greater than id, an ID
-- minted anywhere (UIDGEN_IOC_OBSERVE): INSERT a row referencing another
-- machine's key after SELECT uidgen_observe(its id), and the new key sorts
-- after it. An ID too far ahead of this machine's clock is an error.
CREATE FUNCTION uidgen_observe(id bigint) RETURNS void
	AS 'MODULE_PATHNAME', 'uidgen_observe_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
