package postgres

// The SQL of this backend. Names read query<Noun><Verb>, like the seam's
// methods. Bulk statements take one array per column and unnest them, so a
// batch of any size is one statement with a fixed text: prepared once per
// connection, never re-planned for a new row count.

// Advisory lock keys. Advisory locks are database-wide, so the keys are
// fixed numbers ("stockd" in ASCII, then a counter) unlikely to collide with
// another application's.
const (
	// migrationLockKey serialises Migrate across processes.
	migrationLockKey int64 = 0x73746f636b640001
	// ledgerLockKey serialises the last step of every writing transaction:
	// ledger sequence assignment until commit (see Tx.Write).
	ledgerLockKey int64 = 0x73746f636b640002
)

const queryAdvisoryXactLock = `SELECT pg_advisory_xact_lock($1)`

const queryDurabilitySettings = `SELECT current_setting('fsync'), current_setting('synchronous_commit')`

// Migrations.

const queryMigrationsTableCreate = `
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)`

const queryMigrationApplied = `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`

const queryMigrationRecord = `INSERT INTO schema_migrations (version) VALUES ($1)`

// SKUs and locations.

const skuColumns = `id, name, unit, deduction, approval_threshold, bundle, created_at, alert_line`

const querySKUGet = `SELECT ` + skuColumns + ` FROM skus WHERE id = $1`

// querySKUList pages through SKUs by id, served by the primary key.
const querySKUList = `SELECT ` + skuColumns + ` FROM skus WHERE id > $1 ORDER BY id LIMIT $2`

const querySKUsGet = `SELECT ` + skuColumns + ` FROM skus WHERE id = ANY($1::text[]) ORDER BY id`

const querySKUsInsert = `
INSERT INTO skus (id, name, unit, deduction, approval_threshold, bundle, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::bool[], $7::timestamptz[])`

const querySKUsUpdate = `
UPDATE skus s
SET name = u.name, unit = u.unit, deduction = u.deduction, approval_threshold = u.approval_threshold
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[]) AS u (id, name, unit, deduction, approval_threshold)
WHERE s.id = u.id`

const locationColumns = `id, name, priority, inactive, created_at`

// queryLocationList orders locations the way placement tries them.
const queryLocationList = `SELECT ` + locationColumns + ` FROM locations ORDER BY priority, id`

const queryLocationsInsert = `
INSERT INTO locations (id, name, priority, inactive, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::int4[], $4::bool[], $5::timestamptz[])`

const queryLocationsUpdate = `
UPDATE locations l
SET name = u.name, priority = u.priority, inactive = u.inactive
FROM unnest($1::text[], $2::text[], $3::int4[], $4::bool[]) AS u (id, name, priority, inactive)
WHERE l.id = u.id`

// Positions.

const positionColumns = `p.sku, p.location, p.pool, p.on_hand, p.reserved, p.committed, p.quarantined, p.in_transit, p.incoming, l.priority`

// queryPositionsEnsure creates missing positions at zero, in key order, only
// where the SKU, the location and the pool exist: an unknown one is the
// engine's business answer to give, not a foreign key error or an empty
// position left behind by a refused command.
const queryPositionsEnsure = `
INSERT INTO positions (sku, location, pool)
SELECT k.sku, k.location, k.pool
FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS k (sku, location, pool, ord)
WHERE EXISTS (SELECT 1 FROM skus s WHERE s.id = k.sku)
  AND EXISTS (SELECT 1 FROM locations l WHERE l.id = k.location)
  AND (k.pool = 'normal' OR EXISTS (SELECT 1 FROM documents d WHERE d.kind = 'pool' AND d.id = k.pool))
ORDER BY k.ord
ON CONFLICT DO NOTHING`

// queryPositionsLock locks every position of the SKUs in key order: the
// LockRows step runs above the sort, so rows are locked in that order.
const queryPositionsLock = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = ANY($1::text[])
ORDER BY p.sku, p.location, p.pool
FOR UPDATE OF p`

const queryPositionListBySKU = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = $1
ORDER BY l.priority, p.location, p.pool`

const queryPositionListBySKUs = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = ANY($1::text[])
ORDER BY p.sku, l.priority, p.location, p.pool`

const queryPositionEach = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
ORDER BY p.sku, p.location, p.pool`

// queryPositionsInsert has no ON CONFLICT: a position created here was
// missing when this transaction looked, so a concurrent creator is a
// conflict the batch must be retried for.
const queryPositionsInsert = `
INSERT INTO positions (sku, location, pool)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`

const queryPositionsUpdate = `
UPDATE positions p
SET on_hand = u.on_hand, reserved = u.reserved, committed = u.committed, quarantined = u.quarantined,
    in_transit = u.in_transit, incoming = u.incoming
FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::int8[], $8::int8[], $9::int8[])
    AS u (sku, location, pool, on_hand, reserved, committed, quarantined, in_transit, incoming)
WHERE p.sku = u.sku AND p.location = u.location AND p.pool = u.pool`

// Reservations. key is NULL for a reservation made without an idempotency
// key and reads back as ''.

const reservationColumns = `id, COALESCE(key, ''), status, lines, expires_at, created_at, updated_at, release_reason, customer_id, order_id`

const queryReservationsLock = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE id = ANY($1::text[])
ORDER BY id
FOR UPDATE`

// The reservation listings: one query per index that serves the most
// selective filter given (order, customer, status, else the primary key),
// the other filters checked on the rows it yields. $1 is the anchor's
// value, $2 the cursor, $3-$7 the filters, $8 the limit.
const (
	queryReservationListAll        = `SELECT ` + reservationColumns + ` FROM reservations WHERE $1::text = '' AND id > $2` + reservationFilters
	queryReservationListByOrder    = `SELECT ` + reservationColumns + ` FROM reservations WHERE order_id = $1 AND order_id <> '' AND id > $2` + reservationFilters
	queryReservationListByCustomer = `SELECT ` + reservationColumns + ` FROM reservations WHERE customer_id = $1 AND customer_id <> '' AND id > $2` + reservationFilters
	queryReservationListByStatus   = `SELECT ` + reservationColumns + ` FROM reservations WHERE status = $1 AND id > $2` + reservationFilters

	reservationFilters = `
  AND ($3::text = '' OR status = $3)
  AND ($4::text = '' OR customer_id = $4)
  AND ($5::text = '' OR order_id = $5)
  AND created_at < $6
  AND ($7::text = '' OR lines @> jsonb_build_array(jsonb_build_object('sku', $7::text)))
ORDER BY id
LIMIT $8`
)

const queryReservationGet = `SELECT ` + reservationColumns + ` FROM reservations WHERE id = $1`

const queryReservationGetByKey = `SELECT ` + reservationColumns + ` FROM reservations WHERE key = $1`

// queryReservationListDue is served by the partial index
// reservations_pending_expires_at.
const queryReservationListDue = `
SELECT id FROM reservations
WHERE status = 'pending' AND expires_at <= $1
ORDER BY expires_at
LIMIT $2`

const queryReservationOpenEach = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE status IN ('pending', 'confirmed')
ORDER BY id`

const queryReservationsInsert = `
INSERT INTO reservations (id, key, status, lines, expires_at, created_at, updated_at, release_reason, customer_id, order_id)
SELECT r.id, NULLIF(r.key, ''), r.status, r.lines::jsonb, r.expires_at, r.created_at, r.updated_at, r.release_reason, r.customer_id, r.order_id
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[], $8::text[], $9::text[], $10::text[])
    AS r (id, key, status, lines, expires_at, created_at, updated_at, release_reason, customer_id, order_id)`

// queryReservationsByOrder reads without a lock: a concurrent insert for
// the same order meets the unique index reservations_order_id, whose
// predicate this repeats so that the index serves it.
const queryReservationsByOrder = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE order_id = ANY($1::text[])
  AND order_id <> '' AND status IN ('pending', 'confirmed', 'fulfilled')
ORDER BY id`

const queryReferencesGet = `
SELECT r.business_type, r.reference, r.sku, r.business_id, r.created_at
FROM business_references r
JOIN unnest($1::text[], $2::text[], $3::text[]) AS k (business_type, reference, sku)
    ON r.business_type = k.business_type AND r.reference = k.reference AND r.sku = k.sku
ORDER BY r.business_type, r.reference, r.sku`

const queryReferencesInsert = `
INSERT INTO business_references (business_type, reference, sku, business_id, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`

const queryReservationsUpdate = `
UPDATE reservations r
SET status = u.status, updated_at = u.updated_at, release_reason = u.release_reason, lines = u.lines::jsonb,
    expires_at = u.expires_at
FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::timestamptz[])
    AS u (id, status, updated_at, release_reason, lines, expires_at)
WHERE r.id = u.id`

// Ledger.

const ledgerColumns = `seq, business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
    on_hand, reserved, committed, quarantined, in_transit, incoming,
    reservation_id, actor, reason, approver, reference, created_at`

const queryLedgerList = `SELECT ` + ledgerColumns + ` FROM ledger WHERE seq > $1 ORDER BY seq LIMIT $2`

// queryLedgerListBySKU is served by the index ledger_sku_seq.
const queryLedgerListBySKU = `SELECT ` + ledgerColumns + ` FROM ledger WHERE sku = $1 AND seq > $2 ORDER BY seq LIMIT $3`

// The filtered ledger reads: one query per index that serves the most
// selective filter given (business id, reservation, SKU, else seq), the
// other filters checked on the rows that index yields. $1 is the anchor's
// value, $2 the cursor, $3-$9 the filters, $10 the limit.
const (
	queryLedgerFilteredAll         = `SELECT ` + ledgerColumns + ` FROM ledger WHERE $1::text = '' AND seq > $2` + ledgerFilters
	queryLedgerFilteredBySKU       = `SELECT ` + ledgerColumns + ` FROM ledger WHERE sku = $1 AND seq > $2` + ledgerFilters
	queryLedgerFilteredByBusiness  = `SELECT ` + ledgerColumns + ` FROM ledger WHERE business_id = $1 AND seq > $2` + ledgerFilters
	queryLedgerFilteredByReservant = `SELECT ` + ledgerColumns + ` FROM ledger WHERE reservation_id = $1 AND reservation_id <> '' AND seq > $2` + ledgerFilters

	ledgerFilters = `
  AND ($3::text = '' OR sku = $3)
  AND ($4::text = '' OR business_type = $4)
  AND ($5::text = '' OR business_id = $5)
  AND ($6::text = '' OR reservation_id = $6)
  AND ($7::text = '' OR location = $7)
  AND created_at >= $8 AND created_at < $9
ORDER BY seq
LIMIT $10`
)

// queryLedgerSales sums sold units per quarter-hour (stockd.SalesBucketWidth)
// of sku in [$2, $3), of location $4 unless empty: confirmed and refunded
// units move committed, a direct shipment takes on_hand. Served by the
// partial index ledger_sales (sku, created_at) with or without a location,
// which is filtered on the rows the index found (EXPLAIN in
// TestLedgerSalesUsesIndex).
const queryLedgerSales = `
SELECT date_bin('15 minutes', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
       sum(CASE WHEN business_type = 'shipment' THEN -d_on_hand ELSE d_committed END)::bigint
FROM ledger
WHERE sku = $1 AND created_at >= $2 AND created_at < $3
  AND ($4::text = '' OR location = $4)
  AND business_type IN ('confirm', 'refund', 'shipment')
GROUP BY bucket
ORDER BY bucket`

const queryLedgerEachByPosition = `SELECT ` + ledgerColumns + ` FROM ledger ORDER BY sku, location, pool, seq`

// queryLedgerInsert assigns seq in the order of the arrays, which is the
// order the batch decided the changes in.
const queryLedgerInsert = `
INSERT INTO ledger (business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
    on_hand, reserved, committed, quarantined, in_transit, incoming,
    reservation_id, actor, reason, approver, reference, created_at)
SELECT e.business_type, e.business_id, e.sku, e.location, e.pool,
    e.d_on_hand, e.d_reserved, e.d_committed, e.d_quarantined, e.d_in_transit, e.d_incoming,
    e.on_hand, e.reserved, e.committed, e.quarantined, e.in_transit, e.incoming,
    e.reservation_id, e.actor, e.reason, e.approver, e.reference, e.created_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
    $6::int8[], $7::int8[], $8::int8[], $9::int8[], $10::int8[], $11::int8[],
    $12::int8[], $13::int8[], $14::int8[], $15::int8[], $16::int8[], $17::int8[],
    $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::timestamptz[])
    WITH ORDINALITY AS e (business_type, business_id, sku, location, pool,
        d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
        on_hand, reserved, committed, quarantined, in_transit, incoming,
        reservation_id, actor, reason, approver, reference, created_at, ord)
ORDER BY e.ord`

// Documents.

const documentColumns = `kind, id, version, body, created_at, updated_at`

// queryDocumentsLock locks documents in (kind, id) order, the lock order
// the engine sorted the keys in.
const queryDocumentsLock = `
SELECT d.kind, d.id, d.version, d.body, d.created_at, d.updated_at
FROM documents d
JOIN unnest($1::text[], $2::text[]) AS k (kind, id) ON d.kind = k.kind AND d.id = k.id
ORDER BY d.kind, d.id
FOR UPDATE OF d`

const queryDocumentGet = `SELECT ` + documentColumns + ` FROM documents WHERE kind = $1 AND id = $2`

const queryDocumentList = `
SELECT ` + documentColumns + `
FROM documents
WHERE kind = $1 AND id > $2
ORDER BY id
LIMIT $3`

// queryDocumentsInsert has no ON CONFLICT: a document the batch found
// missing under lock but that exists now was created by a concurrent batch,
// which this one must be retried against.
const queryDocumentsInsert = `
INSERT INTO documents (kind, id, version, body, created_at, updated_at)
SELECT d.kind, d.id, 1, d.body::jsonb, d.created_at, d.updated_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
    AS d (kind, id, body, created_at, updated_at)`

// queryDocumentsUpdate writes the next version of locked documents; the
// version guard asserts that nothing else wrote them meanwhile.
const queryDocumentsUpdate = `
UPDATE documents d
SET version = u.version, body = u.body::jsonb, updated_at = u.updated_at
FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::timestamptz[])
    AS u (kind, id, version, body, updated_at)
WHERE d.kind = u.kind AND d.id = u.id AND d.version = u.version - 1`

// Idempotency keys.

const queryIdempotencyGet = `
SELECT key, request_hash, result, created_at, pruned_at
FROM idempotency_keys
WHERE key = ANY($1::text[])`

const queryIdempotencyInsert = `
INSERT INTO idempotency_keys (key, request_hash, result, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::timestamptz[])`

// queryIdempotencyPruneClaim locks the oldest unpruned answers created
// before $1, at most $2, through the partial index of migration 0017.
// SKIP LOCKED: a second server pruning at the same time takes other rows
// instead of waiting behind these.
const queryIdempotencyPruneClaim = `
SELECT key, result
FROM idempotency_keys
WHERE pruned_at IS NULL AND created_at < $1
ORDER BY created_at
LIMIT $2
FOR UPDATE SKIP LOCKED`

// queryIdempotencyPrune writes the outcomes of the claimed rows.
const queryIdempotencyPrune = `
UPDATE idempotency_keys AS i
SET result = u.result, pruned_at = $3
FROM unnest($1::text[], $2::bytea[]) AS u (key, result)
WHERE i.key = u.key AND i.pruned_at IS NULL`

// API keys and the audit trail.

// keysLockKey serialises KeyCreate's count and insert across connections
// and processes, so that concurrent creations cannot pass the bound
// together; only key creation takes it.
const keysLockKey int64 = 0x73746f636b640003

const apiKeyColumns = `id, name, prefix, scopes, created_at, revoked_at`

// queryKeyInsert inserts nothing when the table holds the bound given as
// the last parameter already.
const queryKeyInsert = `
INSERT INTO api_keys (id, name, prefix, hash, scopes, created_at)
SELECT $1, $2, $3, $4, $5, $6
WHERE (SELECT count(*) FROM api_keys) < $7`

const queryKeyGetByHash = `SELECT ` + apiKeyColumns + ` FROM api_keys WHERE hash = $1`

const queryKeyList = `SELECT ` + apiKeyColumns + ` FROM api_keys ORDER BY created_at, id LIMIT $1`

const queryKeyCount = `SELECT count(*) FROM api_keys`

// queryKeyRevoke keeps the first revocation time.
const queryKeyRevoke = `
UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2)
WHERE id = $1
RETURNING ` + apiKeyColumns

const auditEventColumns = `id, at, key_id, action, resource, outcome, detail`

const queryAuditEventInsert = `
INSERT INTO audit_events (at, key_id, action, resource, outcome, detail)
VALUES ($1, $2, $3, $4, $5, $6)`

// queryAuditEventList pages by id. Ids are drawn before commit, so an
// event committed late can appear below an id a reader has passed; the
// trail is for audit reads, not a cursor-exact feed like the ledger.
const queryAuditEventList = `SELECT ` + auditEventColumns + ` FROM audit_events WHERE id > $1 ORDER BY id LIMIT $2`

const queryHealthWrite = `
INSERT INTO health_probe (id, probed_at) VALUES (1, $1)
ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`

// relayLockClass is the first key of the relays' advisory locks (the
// two-integer form, apart from the one-bigint locks above); the second is
// a hash of the schema and the relay's name, so that two schemas of one
// database elect their leaders apart.
const relayLockClass int32 = 0x72656c61

const queryRelayLockTry = `SELECT pg_try_advisory_lock($1, hashtext(current_schema() || '.' || $2))`

const queryRelayUnlock = `SELECT pg_advisory_unlock($1, hashtext(current_schema() || '.' || $2))`

const queryRelayCursorGet = `SELECT coalesce((SELECT seq FROM relay_cursors WHERE name = $1), 0)`

// queryRelayCursorAdvance never moves a cursor back.
const queryRelayCursorAdvance = `
INSERT INTO relay_cursors (name, seq, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (name) DO UPDATE SET seq = greatest(relay_cursors.seq, excluded.seq), updated_at = excluded.updated_at`

const queryLedgerSeqMax = `SELECT coalesce(max(seq), 0) FROM ledger`

// Webhooks: mutations run in one transaction with their idempotency record.
const (
	webhookColumns = `id, url, event_types, created_at, disabled_at, disabled_reason, failures, cursor, generation`

	// queryWebhookInsert inserts unless $6 endpoints exist already; the
	// caller holds webhooksLockKey, so concurrent inserts cannot pass the
	// bound together.
	queryWebhookInsert = `
INSERT INTO webhooks (id, url, event_types, secret, created_at, cursor)
SELECT $1, $2, $3, $4, $5, $7
WHERE (SELECT count(*) FROM webhooks) < $6`

	queryWebhookGet = `SELECT ` + webhookColumns + ` FROM webhooks WHERE id = $1`

	queryWebhookList = `SELECT ` + webhookColumns + ` FROM webhooks ORDER BY created_at, id LIMIT $1`

	queryWebhookTargets = `
SELECT ` + webhookColumns + `, secret FROM webhooks
WHERE disabled_at IS NULL ORDER BY created_at, id LIMIT $1`

	queryWebhookRedeliver = `
UPDATE webhooks SET cursor = $2, failures = 0, disabled_at = NULL, disabled_reason = '', generation = generation + 1
WHERE id = $1
RETURNING ` + webhookColumns

	// queryWebhookDisable keeps the first time and reason.
	queryWebhookDisable = `
UPDATE webhooks SET disabled_at = coalesce(disabled_at, $2),
    disabled_reason = CASE WHEN disabled_at IS NULL THEN $3 ELSE disabled_reason END,
    generation = generation + 1
WHERE id = $1
RETURNING ` + webhookColumns

	// queryWebhookSucceeded and queryWebhookFailed answer no row when the
	// endpoint moved since the attempt began.
	queryWebhookSucceeded = `
UPDATE webhooks SET cursor = $4, failures = 0
WHERE id = $1 AND generation = $2 AND cursor = $3
RETURNING ` + webhookColumns

	queryWebhookFailed = `
UPDATE webhooks SET failures = failures + 1,
    disabled_at = CASE WHEN failures + 1 >= $4 THEN $5 ELSE disabled_at END,
    disabled_reason = CASE WHEN failures + 1 >= $4 THEN $6 ELSE disabled_reason END,
    generation = CASE WHEN failures + 1 >= $4 THEN generation + 1 ELSE generation END
WHERE id = $1 AND generation = $2 AND cursor = $3 AND disabled_at IS NULL
RETURNING ` + webhookColumns

	queryWebhookSkip = `
UPDATE webhooks SET cursor = $4
WHERE id = $1 AND generation = $2 AND cursor = $3`

	queryWebhookDeliveryInsert = `
INSERT INTO webhook_deliveries (webhook_id, seq, attempt, status, ok, error, duration_us, at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

	// queryWebhookDeliveryPrune keeps the newest $2 attempts of $1.
	queryWebhookDeliveryPrune = `
DELETE FROM webhook_deliveries
WHERE webhook_id = $1 AND id <= (
    SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`

	webhookDeliveryColumns = `id, webhook_id, seq, attempt, status, ok, error, duration_us, at`

	queryWebhookDeliveryList = `
SELECT ` + webhookDeliveryColumns + ` FROM webhook_deliveries
WHERE webhook_id = $1 AND id > $2 ORDER BY id LIMIT $3`
)

// webhooksLockKey serialises WebhookCreate's count and insert.
const webhooksLockKey int64 = 0x73746f636b640012

// querySKUAlertLineSet writes the cached alert line only when it changed,
// so an unchanged evaluation takes no row lock and writes no tuple.
const querySKUAlertLineSet = `UPDATE skus SET alert_line = $2 WHERE id = $1 AND alert_line <> $2`
