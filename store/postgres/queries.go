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

const querySKUGet = `SELECT id, name, unit, created_at FROM skus WHERE id = $1`

const querySKUsExisting = `SELECT id FROM skus WHERE id = ANY($1::text[])`

const querySKUsInsert = `
INSERT INTO skus (id, name, unit, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[])`

// queryLocationList orders locations the way placement tries them.
const queryLocationList = `SELECT id, name, priority, created_at FROM locations ORDER BY priority, id`

const queryLocationsInsert = `
INSERT INTO locations (id, name, priority, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::int4[], $4::timestamptz[])`

// Positions.

const positionColumns = `p.sku, p.location, p.pool, p.on_hand, p.reserved, p.committed, p.quarantined, l.priority`

// queryPositionsEnsure creates missing positions at zero, in key order, only
// where the SKU and the location exist: an unknown one is the engine's
// business answer to give, not a foreign key error.
const queryPositionsEnsure = `
INSERT INTO positions (sku, location, pool)
SELECT k.sku, k.location, k.pool
FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS k (sku, location, pool, ord)
WHERE EXISTS (SELECT 1 FROM skus s WHERE s.id = k.sku)
  AND EXISTS (SELECT 1 FROM locations l WHERE l.id = k.location)
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
SET on_hand = u.on_hand, reserved = u.reserved, committed = u.committed, quarantined = u.quarantined
FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::int8[])
    AS u (sku, location, pool, on_hand, reserved, committed, quarantined)
WHERE p.sku = u.sku AND p.location = u.location AND p.pool = u.pool`

// Reservations. key is NULL for a reservation made without an idempotency
// key and reads back as ''.

const reservationColumns = `id, COALESCE(key, ''), status, lines, expires_at, created_at, updated_at, release_reason`

const queryReservationsLock = `
SELECT ` + reservationColumns + `
FROM reservations
WHERE id = ANY($1::text[])
ORDER BY id
FOR UPDATE`

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
INSERT INTO reservations (id, key, status, lines, expires_at, created_at, updated_at, release_reason)
SELECT r.id, NULLIF(r.key, ''), r.status, r.lines::jsonb, r.expires_at, r.created_at, r.updated_at, r.release_reason
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[], $8::text[])
    AS r (id, key, status, lines, expires_at, created_at, updated_at, release_reason)`

const queryReservationsUpdate = `
UPDATE reservations r
SET status = u.status, updated_at = u.updated_at, release_reason = u.release_reason
FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS u (id, status, updated_at, release_reason)
WHERE r.id = u.id`

// Ledger.

const ledgerColumns = `seq, business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined,
    on_hand, reserved, committed, quarantined,
    reservation_id, actor, reason, reference, created_at`

const queryLedgerList = `SELECT ` + ledgerColumns + ` FROM ledger WHERE seq > $1 ORDER BY seq LIMIT $2`

// queryLedgerListBySKU is served by the index ledger_sku_seq.
const queryLedgerListBySKU = `SELECT ` + ledgerColumns + ` FROM ledger WHERE sku = $1 AND seq > $2 ORDER BY seq LIMIT $3`

const queryLedgerEachByPosition = `SELECT ` + ledgerColumns + ` FROM ledger ORDER BY sku, location, pool, seq`

// queryLedgerInsert assigns seq in the order of the arrays, which is the
// order the batch decided the changes in.
const queryLedgerInsert = `
INSERT INTO ledger (business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined,
    on_hand, reserved, committed, quarantined,
    reservation_id, actor, reason, reference, created_at)
SELECT e.business_type, e.business_id, e.sku, e.location, e.pool,
    e.d_on_hand, e.d_reserved, e.d_committed, e.d_quarantined,
    e.on_hand, e.reserved, e.committed, e.quarantined,
    e.reservation_id, e.actor, e.reason, e.reference, e.created_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
    $6::int8[], $7::int8[], $8::int8[], $9::int8[],
    $10::int8[], $11::int8[], $12::int8[], $13::int8[],
    $14::text[], $15::text[], $16::text[], $17::text[], $18::timestamptz[])
    WITH ORDINALITY AS e (business_type, business_id, sku, location, pool,
        d_on_hand, d_reserved, d_committed, d_quarantined,
        on_hand, reserved, committed, quarantined,
        reservation_id, actor, reason, reference, created_at, ord)
ORDER BY e.ord`

// Idempotency keys.

const queryIdempotencyGet = `
SELECT key, request_hash, result, created_at
FROM idempotency_keys
WHERE key = ANY($1::text[])`

const queryIdempotencyInsert = `
INSERT INTO idempotency_keys (key, request_hash, result, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::timestamptz[])`

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
