-- uidgen for PostgreSQL with four IDs per 10-second tick (tests/shell/
-- postgresql.sh loads seq_bits=2 slot_bits=0 tick_us=10000000): waiting for
-- a tick goes on in the backend, on its latch, so it ends in IDs when the
-- tick comes and in an error when the statement is cancelled.
-- Five IDs: the fifth waits for a tick to begin (the wait succeeds), which
-- leaves the next statement at the start of a tick with 3 IDs left in it.
SELECT count(*) FROM uidgen_next(5);
SELECT clock_timestamp() AS t0 \gset
-- Three IDs, then a wait of about 10 s, cancelled after 0.5 s.
SET statement_timeout = '500ms';
SELECT count(*) FROM uidgen_next(100);
RESET statement_timeout;
-- Cancelled promptly: not at the tick's end, 10 s on.
SELECT clock_timestamp() - :'t0'::timestamptz < interval '5 s' AS cancelled_promptly;
SELECT 'still here' AS backend;
