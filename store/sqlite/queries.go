package sqlite

// The SQL of this backend, one named constant per statement. Variable-length
// id lists are passed as one JSON array parameter and expanded with
// json_each, so no statement text is ever built from input.
//
// Times are INTEGER unix microseconds UTC. The partial index on due
// reservations is only used when the query repeats its predicate literally,
// hence status = 'pending' rather than a parameter.

const (
	queryMigrationsTableCreate = `
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    applied_at INTEGER NOT NULL
) STRICT`
	queryMigrationApplied = `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)`
	queryMigrationInsert  = `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`
)

// Columns read back into domain types, in the order the scan functions of
// scan.go expect them.
const (
	skuColumns         = `id, name, unit, created_at`
	locationColumns    = `id, name, priority, created_at`
	positionColumns    = `p.sku, p.location, p.pool, p.on_hand, p.reserved, p.committed, p.quarantined, l.priority`
	reservationColumns = `id, COALESCE(key, ''), status, lines, expires_at, created_at, updated_at, release_reason`
	ledgerColumns      = `seq, business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined,
    on_hand, reserved, committed, quarantined,
    reservation_id, actor, reason, reference, created_at`
	idempotencyColumns = `key, request_hash, result, created_at`
)

// Reads, on the read-only pool or inside the batch transaction.
const (
	querySKUGet = `SELECT ` + skuColumns + ` FROM skus WHERE id = ?`

	querySKUsExisting = `SELECT id FROM skus WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`

	queryLocationList = `SELECT ` + locationColumns + ` FROM locations ORDER BY priority, id`

	queryPositionListBySKU = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = ?
ORDER BY l.priority, p.location, p.pool`

	// queryPositionsLock needs no lock clause: the one writer connection
	// already serialises every batch.
	queryPositionsLock = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku IN (SELECT value FROM json_each(?))
ORDER BY p.sku, p.location, p.pool`

	queryPositionEach = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
ORDER BY p.sku, p.location, p.pool`

	queryReservationGet      = `SELECT ` + reservationColumns + ` FROM reservations WHERE id = ?`
	queryReservationGetByKey = `SELECT ` + reservationColumns + ` FROM reservations WHERE key = ?`

	queryReservationsLock = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE id IN (SELECT value FROM json_each(?))
ORDER BY id`

	queryReservationListDue = `
SELECT id FROM reservations
WHERE status = 'pending' AND expires_at <= ?
ORDER BY expires_at
LIMIT ?`

	queryReservationOpenEach = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE status IN ('pending', 'confirmed')
ORDER BY id`

	queryLedgerList = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE seq > ?
ORDER BY seq
LIMIT ?`

	// queryLedgerListBySKU is a query of its own, not an optional filter,
	// so that the planner always uses ledger_sku_seq.
	queryLedgerListBySKU = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = ? AND seq > ?
ORDER BY seq
LIMIT ?`

	queryLedgerEachByPosition = `
SELECT ` + ledgerColumns + `
FROM ledger
ORDER BY sku, location, pool, seq`

	queryIdempotencyGet = `
SELECT ` + idempotencyColumns + `
FROM idempotency_keys
WHERE key IN (SELECT value FROM json_each(?))`
)

// Writes, inside the batch transaction.
const (
	// queryPositionsEnsure creates the missing positions among a JSON array
	// of position keys. The EXISTS guards skip keys whose SKU or location is
	// unknown: OR IGNORE does not cover foreign key violations.
	queryPositionsEnsure = `
INSERT OR IGNORE INTO positions (sku, location, pool)
SELECT k.value ->> 'sku', k.value ->> 'location', k.value ->> 'pool'
FROM json_each(?) AS k
WHERE EXISTS (SELECT 1 FROM skus WHERE id = k.value ->> 'sku')
  AND EXISTS (SELECT 1 FROM locations WHERE id = k.value ->> 'location')`

	querySKUInsert = `INSERT INTO skus (id, name, unit, created_at) VALUES (?, ?, ?, ?)`

	queryLocationInsert = `INSERT INTO locations (id, name, priority, created_at) VALUES (?, ?, ?, ?)`

	// queryPositionInsert is a plain INSERT: a position the batch believed
	// new but that exists means another writer got there first.
	queryPositionInsert = `INSERT INTO positions (sku, location, pool) VALUES (?, ?, ?)`

	queryPositionUpdate = `
UPDATE positions SET on_hand = ?, reserved = ?, committed = ?, quarantined = ?
WHERE sku = ? AND location = ? AND pool = ?`

	queryReservationInsert = `
INSERT INTO reservations (id, key, status, lines, expires_at, created_at, updated_at, release_reason)
VALUES (?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?)`

	queryReservationUpdate = `
UPDATE reservations SET status = ?, updated_at = ?, release_reason = ?
WHERE id = ?`

	queryLedgerInsert = `
INSERT INTO ledger (
    business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined,
    on_hand, reserved, committed, quarantined,
    reservation_id, actor, reason, reference, created_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

	queryIdempotencyInsert = `INSERT INTO idempotency_keys (key, request_hash, result, created_at) VALUES (?, ?, ?, ?)`
)

// API keys and the audit trail. Writes run on the writer connection, which
// makes queryKeyInsert's count and insert one atomic step.
const (
	apiKeyColumns     = `id, name, prefix, scopes, created_at, revoked_at`
	auditEventColumns = `id, at, key_id, action, resource, outcome, detail`

	// queryKeyInsert inserts nothing when the table holds the bound given
	// as the last parameter already.
	queryKeyInsert = `
INSERT INTO api_keys (id, name, prefix, hash, scopes, created_at)
SELECT ?, ?, ?, ?, ?, ?
WHERE (SELECT count(*) FROM api_keys) < ?`

	queryKeyGetByHash = `SELECT ` + apiKeyColumns + ` FROM api_keys WHERE hash = ?`

	queryKeyList = `SELECT ` + apiKeyColumns + ` FROM api_keys ORDER BY created_at, id LIMIT ?`

	queryKeyCount = `SELECT count(*) FROM api_keys`

	// queryKeyRevoke keeps the first revocation time.
	queryKeyRevoke = `
UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?)
WHERE id = ?
RETURNING ` + apiKeyColumns

	queryAuditEventInsert = `
INSERT INTO audit_events (at, key_id, action, resource, outcome, detail)
VALUES (?, ?, ?, ?, ?, ?)`

	queryAuditEventList = `
SELECT ` + auditEventColumns + `
FROM audit_events
WHERE id > ?
ORDER BY id
LIMIT ?`
)
