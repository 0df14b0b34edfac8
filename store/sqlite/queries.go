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
	skuColumns         = `id, name, unit, deduction, approval_threshold, bundle, created_at, alert_line`
	locationColumns    = `id, name, priority, inactive, created_at`
	positionColumns    = `p.sku, p.location, p.pool, p.on_hand, p.reserved, p.committed, p.quarantined, p.in_transit, p.incoming, l.priority`
	reservationColumns = `id, COALESCE(key, ''), status, lines, expires_at, created_at, updated_at, release_reason, customer_id, order_id`
	ledgerColumns      = `seq, business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
    on_hand, reserved, committed, quarantined, in_transit, incoming,
    reservation_id, actor, reason, approver, reference, created_at`
	documentColumns    = `kind, id, version, body, created_at, updated_at`
	idempotencyColumns = `key, request_hash, result, created_at, pruned_at`
)

// Reads, on the read-only pool or inside the batch transaction.
const (
	querySKUGet = `SELECT ` + skuColumns + ` FROM skus WHERE id = ?`

	// querySKUList pages through SKUs by id, served by the primary key.
	querySKUList = `SELECT ` + skuColumns + ` FROM skus WHERE id > ? ORDER BY id LIMIT ?`

	querySKUsGet = `SELECT ` + skuColumns + ` FROM skus WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`

	queryLocationList = `SELECT ` + locationColumns + ` FROM locations ORDER BY priority, id`

	queryPositionListBySKU = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = ?
ORDER BY l.priority, p.location, p.pool`

	queryPositionListBySKUs = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku IN (SELECT value FROM json_each(?))
ORDER BY p.sku, l.priority, p.location, p.pool`

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

	// queryReservationsByOrder is served by the partial unique index
	// reservations_order_id, whose predicate it repeats.
	queryReservationsByOrder = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE order_id IN (SELECT value FROM json_each(?))
  AND order_id <> '' AND status IN ('pending', 'confirmed', 'fulfilled')
ORDER BY id`

	// queryReferencesGet takes a JSON array of [type, reference, sku].
	queryReferencesGet = `
SELECT business_type, reference, sku, business_id, created_at
FROM business_references
WHERE (business_type, reference, sku) IN (
    SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?))
ORDER BY business_type, reference, sku`

	// The reservation listings: one query per index that serves the most
	// selective filter given (order, customer, status, else the primary
	// key), the other filters checked on the rows it yields. ?1 is the
	// anchor's value, ?2 the cursor, ?3-?7 the filters, ?8 the limit.
	queryReservationListAll        = `SELECT ` + reservationColumns + ` FROM reservations WHERE ?1 = '' AND id > ?2` + reservationFilters
	queryReservationListByOrder    = `SELECT ` + reservationColumns + ` FROM reservations WHERE order_id = ?1 AND order_id <> '' AND id > ?2` + reservationFilters
	queryReservationListByCustomer = `SELECT ` + reservationColumns + ` FROM reservations WHERE customer_id = ?1 AND customer_id <> '' AND id > ?2` + reservationFilters
	queryReservationListByStatus   = `SELECT ` + reservationColumns + ` FROM reservations WHERE status = ?1 AND id > ?2` + reservationFilters

	reservationFilters = `
  AND (?3 = '' OR status = ?3)
  AND (?4 = '' OR customer_id = ?4)
  AND (?5 = '' OR order_id = ?5)
  AND created_at < ?6
  AND (?7 = '' OR EXISTS (SELECT 1 FROM json_each(lines) WHERE value ->> 'sku' = ?7))
ORDER BY id
LIMIT ?8`

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

	// The filtered ledger reads: one query per index that serves the most
	// selective filter given (business id, reservation, SKU, else seq),
	// the other filters checked on the rows that index yields. ?1 is the
	// anchor's value, ?2 the cursor, ?3-?9 the filters, ?10 the limit.
	queryLedgerFilteredAll         = `SELECT ` + ledgerColumns + ` FROM ledger WHERE ?1 = '' AND seq > ?2` + ledgerFilters
	queryLedgerFilteredBySKU       = `SELECT ` + ledgerColumns + ` FROM ledger WHERE sku = ?1 AND seq > ?2` + ledgerFilters
	queryLedgerFilteredByBusiness  = `SELECT ` + ledgerColumns + ` FROM ledger WHERE business_id = ?1 AND seq > ?2` + ledgerFilters
	queryLedgerFilteredByReservant = `SELECT ` + ledgerColumns + ` FROM ledger WHERE reservation_id = ?1 AND reservation_id <> '' AND seq > ?2` + ledgerFilters

	ledgerFilters = `
  AND (?3 = '' OR sku = ?3)
  AND (?4 = '' OR business_type = ?4)
  AND (?5 = '' OR business_id = ?5)
  AND (?6 = '' OR reservation_id = ?6)
  AND (?7 = '' OR location = ?7)
  AND created_at >= ?8 AND created_at < ?9
ORDER BY seq
LIMIT ?10`

	// queryLedgerSales sums sold units per bucket of ?1 microseconds
	// (stockd.SalesBucketWidth) of sku in [?3, ?4), of location ?5 unless
	// empty: confirmed and refunded units move committed, a direct shipment
	// takes on_hand. Served by the partial index ledger_sales, the location
	// filtered on the rows it found.
	queryLedgerSales = `
SELECT (created_at / ?1) * ?1 AS bucket,
       sum(CASE WHEN business_type = 'shipment' THEN -d_on_hand ELSE d_committed END)
FROM ledger
WHERE sku = ?2 AND created_at >= ?3 AND created_at < ?4
  AND (?5 = '' OR location = ?5)
  AND business_type IN ('confirm', 'refund', 'shipment')
GROUP BY bucket
ORDER BY bucket`

	queryLedgerEachByPosition = `
SELECT ` + ledgerColumns + `
FROM ledger
ORDER BY sku, location, pool, seq`

	// queryDocumentsLock takes a JSON array of [kind, id] pairs.
	queryDocumentsLock = `
SELECT ` + documentColumns + `
FROM documents
WHERE (kind, id) IN (SELECT k.value ->> '$[0]', k.value ->> '$[1]' FROM json_each(?) AS k)
ORDER BY kind, id`

	queryDocumentGet = `SELECT ` + documentColumns + ` FROM documents WHERE kind = ? AND id = ?`

	queryDocumentList = `
SELECT ` + documentColumns + `
FROM documents
WHERE kind = ? AND id > ?
ORDER BY id
LIMIT ?`

	queryIdempotencyGet = `
SELECT ` + idempotencyColumns + `
FROM idempotency_keys
WHERE key IN (SELECT value FROM json_each(?))`
)

// Writes, inside the batch transaction.
const (
	// queryPositionsEnsure creates the missing positions among a JSON array
	// of position keys. The EXISTS guards skip keys whose SKU, location or
	// pool is unknown: OR IGNORE does not cover foreign key violations, and
	// a refused command must leave no empty position behind.
	queryPositionsEnsure = `
INSERT OR IGNORE INTO positions (sku, location, pool)
SELECT k.value ->> 'sku', k.value ->> 'location', k.value ->> 'pool'
FROM json_each(?) AS k
WHERE EXISTS (SELECT 1 FROM skus WHERE id = k.value ->> 'sku')
  AND EXISTS (SELECT 1 FROM locations WHERE id = k.value ->> 'location')
  AND (k.value ->> 'pool' = 'normal'
    OR EXISTS (SELECT 1 FROM documents WHERE kind = 'pool' AND id = k.value ->> 'pool'))`

	queryIdempotencyInsert = `INSERT INTO idempotency_keys (key, request_hash, result, created_at) VALUES (?, ?, ?, ?)`
)

// The statements of Write (write.go): each writes many rows, one VALUES row
// of parameters per row. An UPDATE joins its VALUES rows, whose columns
// SQLite names column1, column2 and so on, by primary key.
var (
	writeSKUInsert = rowsStatement{
		head: `INSERT INTO skus (id, name, unit, deduction, approval_threshold, bundle, created_at) VALUES `,
		row:  `(?, ?, ?, ?, ?, ?, ?)`,
	}
	writeSKUUpdate = rowsStatement{
		head: `UPDATE skus SET name = v.column1, unit = v.column2, deduction = v.column3, approval_threshold = v.column4 FROM (VALUES `,
		row:  `(?, ?, ?, ?, ?)`,
		tail: `) AS v WHERE skus.id = v.column5`,
	}
	writeLocationInsert = rowsStatement{
		head: `INSERT INTO locations (id, name, priority, inactive, created_at) VALUES `,
		row:  `(?, ?, ?, ?, ?)`,
	}
	writeLocationUpdate = rowsStatement{
		head: `UPDATE locations SET name = v.column1, priority = v.column2, inactive = v.column3 FROM (VALUES `,
		row:  `(?, ?, ?, ?)`,
		tail: `) AS v WHERE locations.id = v.column4`,
	}
	// writePositionInsert is a plain INSERT: a position the batch believed
	// new but that exists means another writer got there first.
	writePositionInsert = rowsStatement{
		head: `INSERT INTO positions (sku, location, pool) VALUES `,
		row:  `(?, ?, ?)`,
	}
	writePositionUpdate = rowsStatement{
		head: `
UPDATE positions SET on_hand = v.column1, reserved = v.column2, committed = v.column3,
    quarantined = v.column4, in_transit = v.column5, incoming = v.column6
FROM (VALUES `,
		row:  `(?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tail: `) AS v WHERE positions.sku = v.column7 AND positions.location = v.column8 AND positions.pool = v.column9`,
	}
	writeReservationInsert = rowsStatement{
		head: `INSERT INTO reservations (id, key, status, lines, expires_at, created_at, updated_at, release_reason, customer_id, order_id) VALUES `,
		row:  `(?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?)`,
	}
	writeReservationUpdate = rowsStatement{
		head: `
UPDATE reservations SET status = v.column1, updated_at = v.column2, release_reason = v.column3,
    lines = v.column4, expires_at = v.column5
FROM (VALUES `,
		row:  `(?, ?, ?, ?, ?, ?)`,
		tail: `) AS v WHERE reservations.id = v.column6`,
	}
	writeReferenceInsert = rowsStatement{
		head: `INSERT INTO business_references (business_type, reference, sku, business_id, created_at) VALUES `,
		row:  `(?, ?, ?, ?, ?)`,
	}
	writeDocumentInsert = rowsStatement{
		head: `INSERT INTO documents (kind, id, version, body, created_at, updated_at) VALUES `,
		row:  `(?, ?, 1, ?, ?, ?)`,
	}
	// writeDocumentUpdate writes the next version; the version guard
	// asserts that nothing else wrote the document meanwhile.
	writeDocumentUpdate = rowsStatement{
		head: `UPDATE documents SET version = v.column1, body = v.column2, updated_at = v.column3 FROM (VALUES `,
		row:  `(?, ?, ?, ?, ?)`,
		tail: `) AS v WHERE documents.kind = v.column4 AND documents.id = v.column5 AND documents.version = v.column1 - 1`,
	}
	// writeLedgerInsert inserts its rows in the order given, so seq, and
	// with it each position's chain of after-counters, follows the batch.
	writeLedgerInsert = rowsStatement{
		head: `
INSERT INTO ledger (
    business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
    on_hand, reserved, committed, quarantined, in_transit, incoming,
    reservation_id, actor, reason, approver, reference, created_at
) VALUES `,
		row: `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	}
	writeIdempotencyInsert = rowsStatement{
		head: `INSERT INTO idempotency_keys (key, request_hash, result, created_at) VALUES `,
		row:  `(?, ?, ?, ?)`,
	}

	// writeRowsStatements lists the statements above, for writeStatements.
	writeRowsStatements = []*rowsStatement{
		&writeSKUInsert, &writeSKUUpdate, &writeLocationInsert, &writeLocationUpdate,
		&writePositionInsert, &writePositionUpdate, &writeReservationInsert, &writeReservationUpdate,
		&writeReferenceInsert, &writeDocumentInsert, &writeDocumentUpdate, &writeLedgerInsert,
		&writeIdempotencyInsert,
	}
)

const (

	// queryIdempotencyPruneClaim reads the oldest unpruned answers created
	// before ?, at most ?, through the partial index of migration 0017.
	// No row lock is needed: it runs in a write transaction of the one
	// writer connection.
	queryIdempotencyPruneClaim = `
SELECT key, result
FROM idempotency_keys
WHERE pruned_at IS NULL AND created_at < ?
ORDER BY created_at
LIMIT ?`

	// queryIdempotencyPrune writes one claimed row's outcome.
	queryIdempotencyPrune = `UPDATE idempotency_keys SET result = ?, pruned_at = ? WHERE key = ? AND pruned_at IS NULL`
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

const queryHealthWrite = `
INSERT INTO health_probe (id, probed_at) VALUES (1, ?)
ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`

const queryRelayCursorGet = `SELECT coalesce((SELECT seq FROM relay_cursors WHERE name = ?), 0)`

// queryRelayCursorAdvance never moves a cursor back.
const queryRelayCursorAdvance = `
INSERT INTO relay_cursors (name, seq, updated_at) VALUES (?1, ?2, ?3)
ON CONFLICT (name) DO UPDATE SET seq = max(relay_cursors.seq, excluded.seq), updated_at = excluded.updated_at`

const queryLedgerSeqMax = `SELECT coalesce(max(seq), 0) FROM ledger`

// Webhooks. Mutations run on the writer connection, in one transaction
// with their idempotency record.
const (
	webhookColumns = `id, url, event_types, created_at, disabled_at, disabled_reason, failures, cursor, generation`

	// queryWebhookInsert inserts unless ?6 endpoints exist already.
	queryWebhookInsert = `
INSERT INTO webhooks (id, url, event_types, secret, created_at, cursor)
SELECT ?1, ?2, ?3, ?4, ?5, ?7
WHERE (SELECT count(*) FROM webhooks) < ?6`

	queryWebhookGet = `SELECT ` + webhookColumns + ` FROM webhooks WHERE id = ?`

	queryWebhookList = `SELECT ` + webhookColumns + ` FROM webhooks ORDER BY created_at, id LIMIT ?`

	queryWebhookTargets = `
SELECT ` + webhookColumns + `, secret FROM webhooks
WHERE disabled_at IS NULL ORDER BY created_at, id LIMIT ?`

	queryWebhookRedeliver = `
UPDATE webhooks SET cursor = ?2, failures = 0, disabled_at = NULL, disabled_reason = '', generation = generation + 1
WHERE id = ?1
RETURNING ` + webhookColumns

	// queryWebhookDisable keeps the first time and reason.
	queryWebhookDisable = `
UPDATE webhooks SET disabled_at = coalesce(disabled_at, ?2),
    disabled_reason = CASE WHEN disabled_at IS NULL THEN ?3 ELSE disabled_reason END,
    generation = generation + 1
WHERE id = ?1
RETURNING ` + webhookColumns

	// queryWebhookSucceeded and queryWebhookFailed answer no row when the
	// endpoint moved since the attempt began.
	queryWebhookSucceeded = `
UPDATE webhooks SET cursor = ?4, failures = 0
WHERE id = ?1 AND generation = ?2 AND cursor = ?3
RETURNING ` + webhookColumns

	queryWebhookFailed = `
UPDATE webhooks SET failures = failures + 1,
    disabled_at = CASE WHEN failures + 1 >= ?4 THEN ?5 ELSE disabled_at END,
    disabled_reason = CASE WHEN failures + 1 >= ?4 THEN ?6 ELSE disabled_reason END,
    generation = CASE WHEN failures + 1 >= ?4 THEN generation + 1 ELSE generation END
WHERE id = ?1 AND generation = ?2 AND cursor = ?3 AND disabled_at IS NULL
RETURNING ` + webhookColumns

	queryWebhookSkip = `
UPDATE webhooks SET cursor = ?4
WHERE id = ?1 AND generation = ?2 AND cursor = ?3`

	queryWebhookDeliveryInsert = `
INSERT INTO webhook_deliveries (webhook_id, seq, attempt, status, ok, error, duration_us, at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

	// queryWebhookDeliveryPrune keeps the newest ?2 attempts of ?1.
	queryWebhookDeliveryPrune = `
DELETE FROM webhook_deliveries
WHERE webhook_id = ?1 AND id <= (
    SELECT id FROM webhook_deliveries WHERE webhook_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)`

	webhookDeliveryColumns = `id, webhook_id, seq, attempt, status, ok, error, duration_us, at`

	queryWebhookDeliveryList = `
SELECT ` + webhookDeliveryColumns + ` FROM webhook_deliveries
WHERE webhook_id = ? AND id > ? ORDER BY id LIMIT ?`
)

// querySKUAlertLineSet writes the cached alert line only when it changed.
const querySKUAlertLineSet = `UPDATE skus SET alert_line = ? WHERE id = ? AND alert_line <> ?`
