-- Reconciliation, translated from store/postgres/migrations/0008_reconcile.sql:
-- the same tables, columns and constraints; times are INTEGER unix
-- microseconds UTC and JSON is TEXT checked by json_valid, as in 0001.

CREATE TABLE reconcile_runs (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    pass              TEXT NOT NULL CHECK (pass IN ('minute', 'hour', 'day', 'count')),
    started_at        INTEGER NOT NULL,
    finished_at       INTEGER NOT NULL,
    cursor_from       INTEGER NOT NULL DEFAULT 0,
    cursor_to         INTEGER NOT NULL DEFAULT 0,
    positions_checked INTEGER NOT NULL CHECK (positions_checked >= 0),
    findings          INTEGER NOT NULL CHECK (findings >= 0),
    opened            INTEGER NOT NULL CHECK (opened >= 0),
    closed            INTEGER NOT NULL CHECK (closed >= 0)
) STRICT;

CREATE TABLE reconcile_cursors (
    pass       TEXT NOT NULL PRIMARY KEY,
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE discrepancies (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT NOT NULL,
    sku           TEXT NOT NULL DEFAULT '',
    location      TEXT NOT NULL DEFAULT '',
    pool          TEXT NOT NULL DEFAULT '',
    subject       TEXT NOT NULL DEFAULT '',
    expected      TEXT NOT NULL CHECK (json_valid(expected)),
    actual        TEXT NOT NULL CHECK (json_valid(actual)),
    evidence      TEXT NOT NULL DEFAULT '',
    status        TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL,
    first_run     INTEGER NOT NULL REFERENCES reconcile_runs (id),
    last_run      INTEGER NOT NULL REFERENCES reconcile_runs (id),
    closed_at     INTEGER,
    closed_by_run INTEGER REFERENCES reconcile_runs (id),
    CHECK ((status = 'open') = (closed_at IS NULL))
) STRICT;

CREATE UNIQUE INDEX discrepancies_open ON discrepancies (kind, sku, location, pool, subject) WHERE status = 'open';
CREATE INDEX discrepancies_status_id ON discrepancies (status, id);
CREATE INDEX discrepancies_sku_id ON discrepancies (sku, id);
