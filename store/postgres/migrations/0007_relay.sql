-- Where each relay (package relay) has published the ledger up to: the
-- cursor is advanced only after the broker acknowledged every event up to
-- seq, by the process that holds the relay's advisory lock.
CREATE TABLE relay_cursors (
    name       text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    seq        bigint NOT NULL CHECK (seq >= 0),
    updated_at timestamptz NOT NULL
);
