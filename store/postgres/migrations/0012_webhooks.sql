-- Webhook endpoints (package dispatch delivers the ledger to them, each
-- from a cursor of its own) and a delivery log bounded per endpoint. The
-- secret is kept in clear: HMAC signing needs it; reads never return it.
CREATE TABLE webhooks (
    id              text COLLATE "C" PRIMARY KEY,
    url             text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    event_types     text[] NOT NULL,
    secret          text NOT NULL,
    created_at      timestamptz NOT NULL,
    disabled_at     timestamptz,
    disabled_reason text NOT NULL DEFAULT '',
    failures        integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    cursor          bigint NOT NULL DEFAULT 0 CHECK (cursor >= 0),
    generation      bigint NOT NULL DEFAULT 0
);

CREATE TABLE webhook_deliveries (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id  text COLLATE "C" NOT NULL REFERENCES webhooks (id),
    seq         bigint NOT NULL,
    attempt     integer NOT NULL CHECK (attempt >= 1),
    status      integer NOT NULL,
    ok          boolean NOT NULL,
    error       text NOT NULL,
    duration_us bigint NOT NULL CHECK (duration_us >= 0),
    at          timestamptz NOT NULL
);

CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
