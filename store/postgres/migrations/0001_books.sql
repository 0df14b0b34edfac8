-- The books: catalogue, positions with their four counters, reservations,
-- the immutable ledger (which is also the outbox of events) and stored
-- answers for idempotency keys.
--
-- Identifiers are COLLATE "C": byte order, the order Go's string comparison
-- sorts lock keys in, whatever the database's default collation. Every
-- ORDER BY that fixes a lock order then agrees with the engine's sort and is
-- served by the primary key index; comparisons are also cheaper.

CREATE TABLE skus (
    id         text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL DEFAULT '',
    unit       text NOT NULL DEFAULT 'piece',
    created_at timestamptz NOT NULL
);

CREATE TABLE locations (
    id         text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL DEFAULT '',
    priority   integer NOT NULL CHECK (priority >= 0),
    created_at timestamptz NOT NULL
);

INSERT INTO locations (id, name, priority, created_at) VALUES ('default', 'Default', 0, now());

-- The last line of defence: no counter and no derived available below zero.
CREATE TABLE positions (
    sku         text COLLATE "C" NOT NULL REFERENCES skus (id),
    location    text COLLATE "C" NOT NULL REFERENCES locations (id),
    pool        text COLLATE "C" NOT NULL,
    on_hand     bigint NOT NULL DEFAULT 0 CHECK (on_hand >= 0),
    reserved    bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    committed   bigint NOT NULL DEFAULT 0 CHECK (committed >= 0),
    quarantined bigint NOT NULL DEFAULT 0 CHECK (quarantined >= 0),
    CHECK (on_hand - reserved - committed - quarantined >= 0),
    PRIMARY KEY (sku, location, pool)
);

CREATE TABLE reservations (
    id             text COLLATE "C" PRIMARY KEY,
    -- NULL when the reservation was made without an idempotency key, so
    -- that such reservations never collide on ''.
    key            text COLLATE "C" UNIQUE,
    status         text NOT NULL CHECK (status IN ('pending', 'confirmed', 'released', 'expired', 'fulfilled')),
    lines          jsonb NOT NULL,
    expires_at     timestamptz NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    release_reason text NOT NULL DEFAULT ''
);

-- The expiry worker scans only what is due.
CREATE INDEX reservations_pending_expires_at ON reservations (expires_at) WHERE status = 'pending';

CREATE TABLE ledger (
    seq            bigserial PRIMARY KEY,
    business_type  text COLLATE "C" NOT NULL,
    business_id    text COLLATE "C" NOT NULL,
    sku            text COLLATE "C" NOT NULL,
    location       text COLLATE "C" NOT NULL,
    pool           text COLLATE "C" NOT NULL,
    d_on_hand      bigint NOT NULL,
    d_reserved     bigint NOT NULL,
    d_committed    bigint NOT NULL,
    d_quarantined  bigint NOT NULL,
    on_hand        bigint NOT NULL,
    reserved       bigint NOT NULL,
    committed      bigint NOT NULL,
    quarantined    bigint NOT NULL,
    reservation_id text NOT NULL DEFAULT '',
    actor          text NOT NULL DEFAULT '',
    reason         text NOT NULL DEFAULT '',
    reference      text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL,
    UNIQUE (business_type, business_id, sku, location, pool)
);

CREATE INDEX ledger_sku_seq ON ledger (sku, seq);

CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger entries are immutable' USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER ledger_no_update_delete BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();

CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();

CREATE TABLE idempotency_keys (
    key          text COLLATE "C" PRIMARY KEY,
    request_hash text NOT NULL,
    result       bytea NOT NULL,
    created_at   timestamptz NOT NULL
);
