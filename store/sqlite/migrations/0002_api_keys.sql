-- API keys and the audit trail, translated from
-- store/postgres/migrations/0002_api_keys.sql. Differences, and why:
--   * scopes is a JSON array in TEXT: SQLite has no array type.
--   * Times are INTEGER unix microseconds UTC, as in 0001.
--   * audit_events.id is INTEGER PRIMARY KEY AUTOINCREMENT: with one writer
--     connection, id order is insert order, and an id is never reused.

-- Only the SHA-256 of a secret is kept: a copy of this table lets no one
-- call the API. Keys are revoked, never deleted, so that the actors of the
-- ledger and of the audit trail keep naming a key that exists.
CREATE TABLE api_keys (
    id         TEXT NOT NULL PRIMARY KEY,
    name       TEXT NOT NULL,
    prefix     TEXT NOT NULL,
    hash       BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
    scopes     TEXT NOT NULL CHECK (json_valid(scopes) AND json_array_length(scopes) >= 1),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;

-- Append-only, like the ledger: triggers refuse every change and deletion.
CREATE TABLE audit_events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       INTEGER NOT NULL,
    key_id   TEXT NOT NULL DEFAULT '',
    action   TEXT NOT NULL,
    resource TEXT NOT NULL DEFAULT '',
    outcome  TEXT NOT NULL,
    detail   TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
    SELECT RAISE(ABORT, 'audit events are immutable');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
    SELECT RAISE(ABORT, 'audit events are immutable');
END;
