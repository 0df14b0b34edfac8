-- Demand for replenishment is read from the ledger's sales (confirmed,
-- refunded, directly shipped) per SKU over a time window; without this
-- index the read would scan every entry of the SKU. Partial, so that the
-- reservation and receipt entries of the hot path pay nothing for it.
CREATE INDEX ledger_sales ON ledger (sku, created_at)
    WHERE business_type IN ('confirm', 'refund', 'shipment');
