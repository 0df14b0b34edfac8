-- The books, translated from store/postgres/migrations/0001_books.sql: the
-- same tables, columns and constraints. Differences, and why:
--   * Times are INTEGER unix microseconds UTC: SQLite has no timestamp type,
--     and microseconds are what the engine keeps (and PostgreSQL stores).
--   * Tables are STRICT, so a value of the wrong type is an error instead of
--     being silently stored as text.
--   * ledger.seq is INTEGER PRIMARY KEY AUTOINCREMENT: with one writer
--     connection, seq order is commit order, and seq is never reused.
--   * Triggers RAISE(ABORT) where PostgreSQL calls a plpgsql function.
--     SQLite has no TRUNCATE; its "DELETE FROM ledger" fires the delete trigger.

CREATE TABLE skus (
    id         TEXT NOT NULL PRIMARY KEY,
    name       TEXT NOT NULL DEFAULT '',
    unit       TEXT NOT NULL DEFAULT 'piece',
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE locations (
    id         TEXT NOT NULL PRIMARY KEY,
    name       TEXT NOT NULL DEFAULT '',
    priority   INTEGER NOT NULL CHECK (priority >= 0),
    created_at INTEGER NOT NULL
) STRICT;

INSERT INTO locations (id, name, priority, created_at)
VALUES ('default', 'Default', 0, CAST(unixepoch('subsec') * 1000000 AS INTEGER));

-- The last line of defence: no counter and no derived available below zero.
-- WITHOUT ROWID clusters the rows by (sku, location, pool), the order every
-- batch locks and reads them in.
CREATE TABLE positions (
    sku         TEXT NOT NULL REFERENCES skus (id),
    location    TEXT NOT NULL REFERENCES locations (id),
    pool        TEXT NOT NULL,
    on_hand     INTEGER NOT NULL DEFAULT 0 CHECK (on_hand >= 0),
    reserved    INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    committed   INTEGER NOT NULL DEFAULT 0 CHECK (committed >= 0),
    quarantined INTEGER NOT NULL DEFAULT 0 CHECK (quarantined >= 0),
    CHECK (on_hand - reserved - committed - quarantined >= 0),
    PRIMARY KEY (sku, location, pool)
) STRICT, WITHOUT ROWID;

-- key is NULL for a reservation made without an idempotency key, so that
-- such reservations do not collide on the UNIQUE constraint.
CREATE TABLE reservations (
    id             TEXT NOT NULL PRIMARY KEY,
    key            TEXT UNIQUE,
    status         TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'released', 'expired', 'fulfilled')),
    lines          TEXT NOT NULL CHECK (json_valid(lines)),
    expires_at     INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    release_reason TEXT NOT NULL DEFAULT ''
) STRICT;

-- The expiry worker scans only what is due.
CREATE INDEX reservations_pending_expires_at ON reservations (expires_at) WHERE status = 'pending';

CREATE TABLE ledger (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    business_type  TEXT NOT NULL,
    business_id    TEXT NOT NULL,
    sku            TEXT NOT NULL,
    location       TEXT NOT NULL,
    pool           TEXT NOT NULL,
    d_on_hand      INTEGER NOT NULL,
    d_reserved     INTEGER NOT NULL,
    d_committed    INTEGER NOT NULL,
    d_quarantined  INTEGER NOT NULL,
    on_hand        INTEGER NOT NULL,
    reserved       INTEGER NOT NULL,
    committed      INTEGER NOT NULL,
    quarantined    INTEGER NOT NULL,
    reservation_id TEXT NOT NULL DEFAULT '',
    actor          TEXT NOT NULL DEFAULT '',
    reason         TEXT NOT NULL DEFAULT '',
    reference      TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    UNIQUE (business_type, business_id, sku, location, pool)
) STRICT;

CREATE INDEX ledger_sku_seq ON ledger (sku, seq);

CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger entries are immutable');
END;

CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger entries are immutable');
END;

CREATE TABLE idempotency_keys (
    key          TEXT NOT NULL PRIMARY KEY,
    request_hash TEXT NOT NULL,
    result       BLOB NOT NULL,
    created_at   INTEGER NOT NULL
) STRICT;
