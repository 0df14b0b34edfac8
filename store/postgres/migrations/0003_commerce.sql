-- Commerce depth (issue 4): SKU settings, switchable locations, in-transit
-- and incoming books kept apart from available, the approver of an
-- adjustment, the customer of a reservation, and documents.

ALTER TABLE skus
    ADD COLUMN deduction text NOT NULL DEFAULT 'at_order'
        CHECK (deduction IN ('at_order', 'at_payment', 'at_shipment')),
    ADD COLUMN approval_threshold bigint NOT NULL DEFAULT 0 CHECK (approval_threshold >= 0),
    -- Fixed at creation: no statement updates it.
    ADD COLUMN bundle boolean NOT NULL DEFAULT false;

ALTER TABLE locations ADD COLUMN inactive boolean NOT NULL DEFAULT false;

-- Neither is part of available: the CHECK on available stays as it was.
ALTER TABLE positions
    ADD COLUMN in_transit bigint NOT NULL DEFAULT 0 CHECK (in_transit >= 0),
    ADD COLUMN incoming   bigint NOT NULL DEFAULT 0 CHECK (incoming >= 0);

-- Adding columns with constant defaults rewrites no row, so the ledger's
-- immutability triggers are not involved.
ALTER TABLE ledger
    ADD COLUMN d_in_transit bigint NOT NULL DEFAULT 0,
    ADD COLUMN d_incoming   bigint NOT NULL DEFAULT 0,
    ADD COLUMN in_transit   bigint NOT NULL DEFAULT 0,
    ADD COLUMN incoming     bigint NOT NULL DEFAULT 0,
    ADD COLUMN approver     text NOT NULL DEFAULT '';

ALTER TABLE reservations ADD COLUMN customer_id text NOT NULL DEFAULT '';

-- Documents: versioned JSON records of what is not a counter (pools,
-- bundles, purchase limits and their usage, transfers, purchase orders,
-- approvals). The domain package gives them meaning; a batch locks the ones
-- it reads, after reservations and before positions.
CREATE TABLE documents (
    kind       text COLLATE "C" NOT NULL,
    id         text COLLATE "C" NOT NULL,
    version    bigint NOT NULL CHECK (version >= 1),
    body       jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (kind, id)
);
