-- uidgen for PostgreSQL under another layout: ts_bits=50 node_bits=3
-- slot_bits=2 seq_bits=8 tick_us=250 epoch_ms=1735689600000, node ID 3.
-- The extension reads it from the device; nothing is hard-coded.
SET timezone = 'UTC';
SELECT DISTINCT (uidgen_decode(id)).node FROM uidgen_next(500) AS id;
SELECT abs(extract(epoch FROM uidgen_time(uidgen_next()) - clock_timestamp())) < 2
  AS near_now;
-- tick 123456789013 (250 us each), node 5, slot 2, seq 77.
SELECT * FROM uidgen_decode(1011358015600205);
SELECT uidgen_time(1011358015600205);
SELECT uidgen_to_uuid(1011358015600205);
SELECT uidgen_from_uuid('019b4ecf-c285-7400-ac9a-000000000000');
SELECT uidgen_min_id('2025-12-24 05:23:17.25325+00'), uidgen_min_id('2025-12-24 05:23:17.253251+00');
-- Mid-tick: 2 us after a tick start is no UUID of this layout.
SELECT uidgen_from_uuid('019b4ecf-c285-7408-ac9a-000000000000');
SELECT count(*) FILTER (WHERE uidgen_from_uuid(uidgen_to_uuid(id)) <> id) AS lost
  FROM uidgen_next(2000) AS id;
