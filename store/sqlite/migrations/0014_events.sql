-- Derived stock events, translated from store/postgres/migrations/0014_events.sql:
-- the SKU's cached alert line (0: none yet), written by the alert worker
-- only when it changes, read by every batch with the SKU row.
ALTER TABLE skus ADD COLUMN alert_line INTEGER NOT NULL DEFAULT 0 CHECK (alert_line >= 0);
