-- Alerts, translated from store/postgres/migrations/0010_alerts.sql.
-- Differences, and why:
--   * body is TEXT holding JSON: SQLite has no jsonb.
--   * Times are INTEGER unix microseconds UTC, as in 0001.
--   * ids are INTEGER PRIMARY KEY AUTOINCREMENT: with one writer, id order
--     is insert order, and an id is never reused.
CREATE TABLE alerts (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    sku     TEXT NOT NULL,
    level   TEXT NOT NULL,
    status  TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    version INTEGER NOT NULL CHECK (version >= 1),
    body    TEXT NOT NULL CHECK (json_valid(body))
) STRICT;

CREATE UNIQUE INDEX alerts_open_sku ON alerts (sku) WHERE status = 'open';
CREATE INDEX alerts_sku ON alerts (sku, id);

CREATE TABLE alert_notices (
    sku           TEXT NOT NULL,
    level         TEXT NOT NULL,
    tier          INTEGER NOT NULL CHECK (tier >= 0),
    business_date TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('sent', 'digest')),
    alert_id      INTEGER NOT NULL REFERENCES alerts (id),
    at            INTEGER NOT NULL,
    PRIMARY KEY (sku, level, tier, business_date, kind)
) STRICT;
CREATE INDEX alert_notices_date ON alert_notices (business_date, kind, sku);

CREATE TABLE alert_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    alert_id    INTEGER NOT NULL,
    sink        TEXT NOT NULL,
    attempt     INTEGER NOT NULL CHECK (attempt >= 1),
    at          INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    delivered   INTEGER NOT NULL CHECK (delivered IN (0, 1)),
    error       TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_id, id);

CREATE TABLE alert_cursor (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    ledger_seq INTEGER NOT NULL CHECK (ledger_seq >= 0)
) STRICT;

CREATE TABLE alert_digests (
    business_date TEXT PRIMARY KEY,
    at            INTEGER NOT NULL
) STRICT;
