-- Derived stock events (issue 12): stock_low is decided in the batch of the
-- change that crosses the SKU's alert line, max(ROP, SS, red_line) of the
-- replenishment computation. The alert worker caches the line here, and
-- writes it only when it changes, so the hot path, which reads the SKU row
-- anyway, needs no other read. 0 means no line yet (no low events).
-- A constant default rewrites no row.
ALTER TABLE skus ADD COLUMN alert_line bigint NOT NULL DEFAULT 0 CHECK (alert_line >= 0);
