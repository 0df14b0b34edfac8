-- Reconciliation: what the passes find, never a change of stock. A run is
-- one pass; a discrepancy is one finding kept open across runs until a run
-- that checks it no longer sees it; a cursor is how far a pass has read
-- the ledger.

CREATE TABLE reconcile_runs (
    id                bigserial PRIMARY KEY,
    pass              text NOT NULL CHECK (pass IN ('minute', 'hour', 'day', 'count')),
    started_at        timestamptz NOT NULL,
    finished_at       timestamptz NOT NULL,
    cursor_from       bigint NOT NULL DEFAULT 0,
    cursor_to         bigint NOT NULL DEFAULT 0,
    positions_checked integer NOT NULL CHECK (positions_checked >= 0),
    findings          integer NOT NULL CHECK (findings >= 0),
    opened            integer NOT NULL CHECK (opened >= 0),
    closed            integer NOT NULL CHECK (closed >= 0)
);

CREATE TABLE reconcile_cursors (
    pass       text COLLATE "C" PRIMARY KEY,
    seq        bigint NOT NULL CHECK (seq >= 0),
    updated_at timestamptz NOT NULL
);

CREATE TABLE discrepancies (
    id            bigserial PRIMARY KEY,
    kind          text COLLATE "C" NOT NULL,
    sku           text COLLATE "C" NOT NULL DEFAULT '',
    location      text COLLATE "C" NOT NULL DEFAULT '',
    pool          text COLLATE "C" NOT NULL DEFAULT '',
    subject       text COLLATE "C" NOT NULL DEFAULT '',
    expected      jsonb NOT NULL,
    actual        jsonb NOT NULL,
    evidence      text NOT NULL DEFAULT '',
    status        text NOT NULL CHECK (status IN ('open', 'closed')),
    first_seen    timestamptz NOT NULL,
    last_seen     timestamptz NOT NULL,
    first_run     bigint NOT NULL REFERENCES reconcile_runs (id),
    last_run      bigint NOT NULL REFERENCES reconcile_runs (id),
    closed_at     timestamptz,
    closed_by_run bigint REFERENCES reconcile_runs (id),
    CHECK ((status = 'open') = (closed_at IS NULL))
);

-- One open discrepancy per thing seen: a run refreshes it rather than
-- opening another.
CREATE UNIQUE INDEX discrepancies_open ON discrepancies (kind, sku, location, pool, subject) WHERE status = 'open';
CREATE INDEX discrepancies_status_id ON discrepancies (status, id);
CREATE INDEX discrepancies_sku_id ON discrepancies (sku, id);
