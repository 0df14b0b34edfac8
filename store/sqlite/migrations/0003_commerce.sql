-- Commerce depth, translated from store/postgres/migrations/0003_commerce.sql:
-- SKU settings, switchable locations, in-transit and incoming books kept
-- apart from available, the approver of an adjustment, the customer of a
-- reservation, and documents. ADD COLUMN with a constant default rewrites
-- no row, so the ledger's immutability triggers do not fire.

ALTER TABLE skus ADD COLUMN deduction TEXT NOT NULL DEFAULT 'at_order'
    CHECK (deduction IN ('at_order', 'at_payment', 'at_shipment'));
ALTER TABLE skus ADD COLUMN approval_threshold INTEGER NOT NULL DEFAULT 0 CHECK (approval_threshold >= 0);
-- Fixed at creation: no statement updates it.
ALTER TABLE skus ADD COLUMN bundle INTEGER NOT NULL DEFAULT 0 CHECK (bundle IN (0, 1));

ALTER TABLE locations ADD COLUMN inactive INTEGER NOT NULL DEFAULT 0 CHECK (inactive IN (0, 1));

-- Neither is part of available: the CHECK on available stays as it was.
ALTER TABLE positions ADD COLUMN in_transit INTEGER NOT NULL DEFAULT 0 CHECK (in_transit >= 0);
ALTER TABLE positions ADD COLUMN incoming INTEGER NOT NULL DEFAULT 0 CHECK (incoming >= 0);

ALTER TABLE ledger ADD COLUMN d_in_transit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN d_incoming INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN in_transit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN incoming INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN approver TEXT NOT NULL DEFAULT '';

ALTER TABLE reservations ADD COLUMN customer_id TEXT NOT NULL DEFAULT '';

-- Documents: versioned JSON records of what is not a counter (pools,
-- bundles, purchase limits and their usage, transfers, purchase orders,
-- approvals).
CREATE TABLE documents (
    kind       TEXT NOT NULL,
    id         TEXT NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1),
    body       TEXT NOT NULL CHECK (json_valid(body)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;
