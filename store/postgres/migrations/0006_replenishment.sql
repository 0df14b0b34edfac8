-- Imported daily demand (POST /v1/demand-history, stockd import demand):
-- the sales of business days before the ledger knew the SKU. One row per
-- (SKU, business date); an import of the same day replaces the row, never
-- the ledger's own sales, which the computation adds to it. Replenishment
-- settings are documents (kinds replenishment and replenishment_defaults),
-- written by the engine's batch like every other.
CREATE TABLE demand_history (
    sku         text COLLATE "C" NOT NULL REFERENCES skus (id),
    date        date NOT NULL,
    quantity    bigint NOT NULL CHECK (quantity >= 0 AND quantity <= 1000000000000),
    imported_at timestamptz NOT NULL,
    PRIMARY KEY (sku, date)
);
