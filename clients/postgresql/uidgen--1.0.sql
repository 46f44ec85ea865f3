-- SPDX-License-Identifier: LGPL-2.1-or-later
-- uidgen for PostgreSQL: the SQL interface (C in uidgen_pg.c).
\echo Use "CREATE EXTENSION uidgen" to load this file. \quit

-- A fresh ID, from the backend's libuidgen handle (per-thread cache).
-- Usable as a column default: id bigint PRIMARY KEY DEFAULT uidgen_next().
CREATE FUNCTION uidgen_next() RETURNS bigint
	AS 'MODULE_PATHNAME', 'uidgen_next_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

-- n fresh IDs, in the order they were issued.
CREATE FUNCTION uidgen_next(n int) RETURNS SETOF bigint
	AS 'MODULE_PATHNAME', 'uidgen_next_n_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1000;

-- The parts of an ID, by the layout the device reports (UIDGEN_IOC_INFO).
-- time is the start of the ID's tick, to the microsecond.
CREATE FUNCTION uidgen_decode(id bigint,
	OUT "time" timestamptz, OUT node int, OUT slot int, OUT seq int)
	AS 'MODULE_PATHNAME', 'uidgen_decode_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION uidgen_time(id bigint) RETURNS timestamptz
	AS 'MODULE_PATHNAME', 'uidgen_time_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- The smallest ID whose tick starts at or after t: IDs issued in [t1, t2)
-- are exactly id >= uidgen_min_id(t1) AND id < uidgen_min_id(t2), a range
-- scan of the key's index with no timestamp column.
CREATE FUNCTION uidgen_min_id(t timestamptz) RETURNS bigint
	AS 'MODULE_PATHNAME', 'uidgen_min_id_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- The lossless, order-keeping UUIDv7 of an ID (Documentation/uuid.rst),
-- and back.
CREATE FUNCTION uidgen_to_uuid(id bigint) RETURNS uuid
	AS 'MODULE_PATHNAME', 'uidgen_to_uuid_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION uidgen_from_uuid(u uuid) RETURNS bigint
	AS 'MODULE_PATHNAME', 'uidgen_from_uuid_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
