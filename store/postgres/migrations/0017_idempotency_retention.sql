-- Retention of idempotency answers: past the retention, the expiry
-- worker's pruner cuts an answer down to its outcome and sets pruned_at.
-- The key row stays for ever: the books name the key, and a late retry
-- must find it spent rather than apply again.
ALTER TABLE idempotency_keys ADD COLUMN pruned_at timestamptz;

-- The pruner's scan: only unpruned answers, oldest first. Pruned rows
-- leave the index, so it stays the size of the retention window.
CREATE INDEX idempotency_keys_unpruned_by_created ON idempotency_keys (created_at)
    WHERE pruned_at IS NULL;
