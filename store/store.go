// Package store is the storage seam: what the engine, the HTTP reads and the
// audit need from a database. Two backends implement it (store/postgres,
// store/sqlite) and one conformance suite (store/storetest) holds them to
// the same behaviour; the business flows run on both are engine/flowtest's.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stockd/stockd"
)

// ErrRetry marks a transaction that lost a race the database detected
// (serialization failure, deadlock, a unique key inserted concurrently).
// Nothing was applied; the whole batch may be tried again.
var ErrRetry = errors.New("transaction conflict, retry")

// ErrUnavailable marks a failure of the database rather than of the
// request: a connection refused or lost, a server shutting down or out of
// resources, a full disk, an I/O error. Nothing can be said about the
// request until the database answers again; callers answer 503.
var ErrUnavailable = errors.New("database unavailable")

// ErrRejected marks a write the database refused for what it holds: a
// value it cannot store, a CHECK or trigger that fired. The same write
// would fail again, so the engine does not retry it; it splits the batch
// until the one command whose data the database refuses stands alone,
// and applies the others.
var ErrRejected = errors.New("database refused the write")

// Store is one database holding the books.
type Store interface {
	// Migrate applies the embedded migrations not yet applied.
	Migrate(ctx context.Context) error
	// MigrateApplied is Migrate that also names the migrations this call
	// applied (file names, in order), for an operator to read.
	MigrateApplied(ctx context.Context) ([]string, error)
	// Begin starts the read-write transaction that applies one batch.
	Begin(ctx context.Context) (Tx, error)
	Close() error

	SKUGet(ctx context.Context, id string) (stockd.SKU, error)
	// SKUList returns SKUs with id > after, by id, at most limit (bounded
	// by stockd.PageSizeMax).
	SKUList(ctx context.Context, after string, limit int) ([]stockd.SKU, error)
	LocationList(ctx context.Context) ([]stockd.Location, error)
	// PositionListBySKU returns the SKU's positions ordered by location
	// priority, location and pool.
	PositionListBySKU(ctx context.Context, sku string) ([]stockd.Position, error)
	ReservationGet(ctx context.Context, id string) (stockd.Reservation, error)
	ReservationGetByKey(ctx context.Context, key string) (stockd.Reservation, error)
	// DocumentGet returns one document, or an error wrapping
	// stockd.ErrNotFound.
	DocumentGet(ctx context.Context, key stockd.DocKey) (stockd.Document, error)
	// DocumentList returns documents of p.Kind with ID > p.After in ID
	// order, at most p.Limit (stockd.PageSizeDefault when zero, never above
	// stockd.PageSizeMax).
	DocumentList(ctx context.Context, p DocumentListParams) ([]stockd.Document, error)
	// ReservationListDue returns ids of pending reservations whose deadline
	// is at or before now, oldest deadline first, at most limit.
	ReservationListDue(ctx context.Context, now time.Time, limit int) ([]string, error)
	// IdempotencyGet returns the stored answers for those keys that have
	// one, read outside any batch.
	IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error)
	// LedgerList returns entries with Seq > after in Seq order, at most
	// limit, only of sku when sku is not empty. Entries appear in Seq order
	// of commit: a reader that saw Seq n never later finds an entry below n.
	LedgerList(ctx context.Context, p LedgerListParams) ([]stockd.LedgerEntry, error)
	// LedgerSales sums the units sku sold (see stockd.SalesBucketWidth)
	// per quarter-hour of UTC time in [from, to), in time order, leaving
	// out quarter-hours without sales; the span is at most
	// stockd.DemandDaysMax days.
	LedgerSales(ctx context.Context, sku string, from, to time.Time) ([]stockd.SalesBucket, error)

	// AuditRead runs fn with reads that all see one consistent snapshot of
	// the books, so verify on a live database never reports a batch half
	// seen. It never writes.
	AuditRead(ctx context.Context, fn func(AuditReader) error) error
	// HealthWrite writes and commits one row in a transaction of its own,
	// so that health can tell whether writes reach the disk: a full disk, a
	// read-only standby, a lost connection.
	HealthWrite(ctx context.Context, at time.Time) error
	// ConcurrentWriters reports whether batches may run in parallel
	// transactions (PostgreSQL) or queue for one writer (SQLite).
	ConcurrentWriters() bool

	// API keys and the audit trail are written outside batches: they change
	// no stock, and an admin action should neither wait behind the hot path
	// nor slow it down.

	// AuditEventInsert appends one event to the audit trail, which refuses
	// every change and deletion after that.
	AuditEventInsert(ctx context.Context, e stockd.AuditEvent) error
	// AuditEventList returns events with ID > p.After in ID order, at most
	// p.Limit (stockd.PageSizeDefault when zero, never above
	// stockd.PageSizeMax).
	AuditEventList(ctx context.Context, p AuditEventListParams) ([]stockd.AuditEvent, error)
	// KeyCount counts every key ever created, revoked keys included, so
	// that revoking the last key never turns authentication off.
	KeyCount(ctx context.Context) (int, error)
	// KeyCreate stores a new key with the hash of its secret. When p.KeysMax
	// keys (revoked included) exist already, it stores nothing and returns
	// an error wrapping stockd.ErrLimitReached; the count and the insert are
	// one atomic step.
	KeyCreate(ctx context.Context, p KeyCreateParams) error
	// KeyGetByHash returns the key whose secret hashes to hash, revoked or
	// not, or an error wrapping stockd.ErrNotFound.
	KeyGetByHash(ctx context.Context, hash stockd.APIKeyHash) (stockd.APIKey, error)
	// KeyList returns every key, revoked included, by creation time then id,
	// at most stockd.APIKeysMax.
	KeyList(ctx context.Context) ([]stockd.APIKey, error)
	// KeyRevoke marks a key revoked at p.At, unless it is already (the first
	// revocation time stays), and returns it; an unknown id is an error
	// wrapping stockd.ErrNotFound.
	KeyRevoke(ctx context.Context, p KeyRevokeParams) (stockd.APIKey, error)

	// Listings (issue 9).

	// ReservationList returns reservations with ID > p.After in ID order
	// that pass every filter p sets, at most p.Limit
	// (stockd.PageSizeDefault when zero, never above stockd.PageSizeMax).
	ReservationList(ctx context.Context, p ReservationListParams) ([]stockd.Reservation, error)
	// PositionListBySKUs returns the positions of these SKUs (at most
	// stockd.PageSizeMax of them), ordered by SKU, then as
	// PositionListBySKU orders them.
	PositionListBySKUs(ctx context.Context, skus []string) ([]stockd.Position, error)
}

// ReservationListParams selects a page of reservations. Every filter left
// empty (or zero) selects all: of Status, with a line of SKU, of
// CustomerID, of OrderID, created before CreatedBefore.
type ReservationListParams struct {
	After string
	Limit int

	Status        stockd.ReservationStatus
	SKU           string
	CustomerID    string
	OrderID       string
	CreatedBefore time.Time
}

// Before is CreatedBefore, or the end of year 9999 when it is zero.
func (p ReservationListParams) Before() time.Time {
	if p.CreatedBefore.IsZero() {
		return time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	}
	return p.CreatedBefore
}

// PageLimit is limit bounded to (0, stockd.PageSizeMax], zero meaning
// stockd.PageSizeDefault.
func PageLimit(limit int) int {
	if limit <= 0 {
		return stockd.PageSizeDefault
	}
	return min(limit, stockd.PageSizeMax)
}

// DocumentListParams selects a page of documents of one kind.
type DocumentListParams struct {
	Kind  string
	After string
	Limit int
}

// AuditEventListParams selects a page of the audit trail.
type AuditEventListParams struct {
	After int64
	Limit int
}

// KeyCreateParams is a new key and the hash of its secret.
type KeyCreateParams struct {
	Key  stockd.APIKey
	Hash stockd.APIKeyHash
	// KeysMax bounds the keys the database may hold. Defaults to
	// stockd.APIKeysMax.
	KeysMax int
}

// KeyRevokeParams names the key to revoke and when.
type KeyRevokeParams struct {
	ID string
	At time.Time
}

// LedgerListParams selects a page of the ledger. Every filter left empty
// (or zero) selects all: entries of SKU, of business type Type, of the
// business document BusinessID, of the reservation ReservationID, at
// Location, created in [From, To).
type LedgerListParams struct {
	SKU   string
	After int64
	Limit int

	Type          string
	BusinessID    string
	ReservationID string
	Location      string
	From, To      time.Time
}

// Filtered reports whether p filters by more than its SKU.
func (p LedgerListParams) Filtered() bool {
	return p.Type != "" || p.BusinessID != "" || p.ReservationID != "" || p.Location != "" || !p.From.IsZero() || !p.To.IsZero()
}

// TimeRange is [From, To) with the open ends filled: from the Unix epoch
// (no entry is older) to the end of year 9999 (no time is later).
func (p LedgerListParams) TimeRange() (from, to time.Time) {
	from, to = p.From, p.To
	if from.IsZero() {
		from = time.Unix(0, 0).UTC()
	}
	if to.IsZero() {
		to = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	}
	return from, to
}

// AuditReader streams the whole books from one snapshot. Each method
// stops at fn's first error and returns it.
type AuditReader interface {
	PositionEach(ctx context.Context, fn func(stockd.Position) error) error
	// LedgerEachByPosition streams the ledger ordered by SKU, location,
	// pool, then Seq.
	LedgerEachByPosition(ctx context.Context, fn func(stockd.LedgerEntry) error) error
	// ReservationOpenEach streams pending and confirmed reservations.
	ReservationOpenEach(ctx context.Context, fn func(stockd.Reservation) error) error
	// DocumentEach streams every document of kind, by id.
	DocumentEach(ctx context.Context, kind string, fn func(stockd.Document) error) error
}

// Tx is one batch's transaction: stockd.LoadBatch locks and reads through
// it (in the order BatchReader describes), then the engine calls Write and
// Commit.
type Tx interface {
	stockd.BatchReader
	// Write applies a batch's writes: new SKUs and locations, new positions,
	// then counters, reservations, ledger entries and idempotency records.
	Write(ctx context.Context, w *stockd.BatchWrites) error
	Commit(ctx context.Context) error
	// Rollback ends the transaction if Commit did not; it is safe to call
	// after Commit.
	Rollback(ctx context.Context) error
}

// CheckSalesSpan refuses a sales read that is empty, reversed, or longer
// than stockd.DemandDaysMax days plus one (a business day may be 25 hours).
func CheckSalesSpan(from, to time.Time) error {
	if !from.Before(to) || to.Sub(from) > (stockd.DemandDaysMax+1)*24*time.Hour {
		return fmt.Errorf("sales from %s to %s: want a span of at most %d days", from.Format(time.RFC3339), to.Format(time.RFC3339), stockd.DemandDaysMax)
	}
	return nil
}
