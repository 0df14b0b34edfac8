-- Webhook endpoints and their delivery log, translated from
-- store/postgres/migrations/0012_webhooks.sql; times are INTEGER unix
-- microseconds UTC, event_types a JSON array.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    url             TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    event_types     TEXT NOT NULL,
    secret          TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    disabled_at     INTEGER,
    disabled_reason TEXT NOT NULL DEFAULT '',
    failures        INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    cursor          INTEGER NOT NULL DEFAULT 0 CHECK (cursor >= 0),
    generation      INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE webhook_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id  TEXT NOT NULL REFERENCES webhooks (id),
    seq         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL CHECK (attempt >= 1),
    status      INTEGER NOT NULL,
    ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
    error       TEXT NOT NULL,
    duration_us INTEGER NOT NULL CHECK (duration_us >= 0),
    at          INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
