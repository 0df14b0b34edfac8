-- Where each relay has published the ledger up to, translated from
-- store/postgres/migrations/0007_relay.sql; times are INTEGER unix
-- microseconds UTC, as in 0001.
CREATE TABLE relay_cursors (
    name       TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    updated_at INTEGER NOT NULL
) STRICT;
