-- Alerts (issue 11): one row per episode of a SKU at a level, the notices
-- that dedup what is said per business date, the delivery log of the
-- sinks, and the alert worker's ledger cursor. None of it is stock: the
-- worker writes it outside batches.

-- body is the whole stockd.Alert as JSON (figures, history, ack and
-- resolution); the columns beside it are what lists filter on and what a
-- conditional write compares.
CREATE TABLE alerts (
    id      bigserial PRIMARY KEY,
    sku     text NOT NULL,
    level   text NOT NULL,
    status  text NOT NULL CHECK (status IN ('open', 'resolved')),
    version bigint NOT NULL CHECK (version >= 1),
    body    jsonb NOT NULL
);

-- At most one open episode per SKU: two workers evaluating one SKU at once
-- cannot open two.
CREATE UNIQUE INDEX alerts_open_sku ON alerts (sku) WHERE status = 'open';
CREATE INDEX alerts_sku ON alerts (sku, id);

-- The dedup: one notice per (SKU, level, tier, business date, kind); a
-- second insert of the same is ignored and therefore never delivered.
CREATE TABLE alert_notices (
    sku           text NOT NULL,
    level         text NOT NULL,
    tier          integer NOT NULL CHECK (tier >= 0),
    business_date text NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('sent', 'digest')),
    alert_id      bigint NOT NULL REFERENCES alerts (id),
    at            timestamptz NOT NULL,
    PRIMARY KEY (sku, level, tier, business_date, kind)
);
CREATE INDEX alert_notices_date ON alert_notices (business_date, kind, sku);

CREATE TABLE alert_deliveries (
    id          bigserial PRIMARY KEY,
    alert_id    bigint NOT NULL,
    sink        text NOT NULL,
    attempt     integer NOT NULL CHECK (attempt >= 1),
    at          timestamptz NOT NULL,
    status_code integer NOT NULL,
    delivered   boolean NOT NULL,
    error       text NOT NULL DEFAULT ''
);
CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_id, id);

-- How far the worker has followed the ledger: the SKUs of entries past it
-- are the ones whose stock changed.
CREATE TABLE alert_cursor (
    id         smallint PRIMARY KEY CHECK (id = 1),
    ledger_seq bigint NOT NULL CHECK (ledger_seq >= 0)
);

-- The daily digests sent, one per business date, so that a restarted
-- worker does not send one twice.
CREATE TABLE alert_digests (
    business_date text PRIMARY KEY,
    at            timestamptz NOT NULL
);
