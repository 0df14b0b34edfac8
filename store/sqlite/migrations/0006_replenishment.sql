-- Imported daily demand (POST /v1/demand-history, stockd import demand):
-- the sales of business days before the ledger knew the SKU. One row per
-- (SKU, business date); an import of the same day replaces the row, never
-- the ledger's own sales, which the computation adds to it. The date is
-- the business day's calendar date, YYYY-MM-DD, so it sorts as text.
-- Replenishment settings are documents (kinds replenishment and
-- replenishment_defaults), written by the engine's batch like every other.
CREATE TABLE demand_history (
    sku         TEXT NOT NULL REFERENCES skus (id),
    date        TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
    quantity    INTEGER NOT NULL CHECK (quantity >= 0 AND quantity <= 1000000000000),
    imported_at INTEGER NOT NULL,
    PRIMARY KEY (sku, date)
) STRICT, WITHOUT ROWID;
