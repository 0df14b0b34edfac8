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

	// The relay (package relay) publishes the ledger to a broker from a
	// cursor kept here, under a leadership only one process holds.

	// LedgerSeqMax returns the highest seq in the ledger, 0 when it is
	// empty: with a relay's cursor, how far behind the relay is.
	LedgerSeqMax(ctx context.Context) (int64, error)
	// RelayCursorGet returns the seq up to which the named relay has
	// published, 0 when it never has. Any replica may read it.
	RelayCursorGet(ctx context.Context, name string) (int64, error)
	// RelayLeaseTry takes the named relay's leadership, or returns an
	// error wrapping ErrLeaseHeld when another holder has it. On
	// PostgreSQL it is a session advisory lock on a connection of its own,
	// shared by every process on the database; on SQLite it holds within
	// this process only (one process serves a SQLite file).
	RelayLeaseTry(ctx context.Context, name string) (RelayLease, error)

	// Webhooks (package dispatch) deliver the ledger to HTTP endpoints,
	// each from a cursor of its own. They change no stock: written outside
	// batches, each mutation with its idempotency record in one
	// transaction (a key already stored is an error wrapping ErrRetry).

	// WebhookCreate stores a new endpoint, from its Cursor, and its
	// secret. When p.WebhooksMax
	// endpoints exist already, it stores nothing and returns an error
	// wrapping stockd.ErrLimitReached.
	WebhookCreate(ctx context.Context, p WebhookCreateParams) error
	// WebhookGet returns one endpoint, never its secret, or an error
	// wrapping stockd.ErrNotFound.
	WebhookGet(ctx context.Context, id string) (stockd.Webhook, error)
	// WebhookList returns every endpoint by creation time then id, at most
	// stockd.WebhooksMax.
	WebhookList(ctx context.Context) ([]stockd.Webhook, error)
	// WebhookTargets returns the enabled endpoints with their secrets: for
	// the dispatcher only, never for an answer.
	WebhookTargets(ctx context.Context) ([]WebhookTarget, error)
	// WebhookRedeliver moves the endpoint's cursor to p.FromSeq-1 (back or
	// forward), clears its failures, enables it and bumps its generation.
	WebhookRedeliver(ctx context.Context, p WebhookRedeliverParams) (stockd.Webhook, error)
	// WebhookDisable disables the endpoint with p.Reason, unless it is
	// already (the first time and reason stay), and bumps its generation.
	WebhookDisable(ctx context.Context, p WebhookDisableParams) (stockd.Webhook, error)
	// WebhookAttempt logs one delivery attempt, keeping the newest
	// stockd.WebhookDeliveriesKept per endpoint, and, when the endpoint's
	// generation and cursor are still p.Generation and p.Cursor, moves the
	// cursor to p.Delivery.Seq on success or counts a failure (disabling
	// the endpoint at p.FailuresMax). Otherwise it returns an error
	// wrapping ErrWebhookMoved, with the attempt logged and nothing else
	// changed.
	WebhookAttempt(ctx context.Context, p WebhookAttemptParams) (stockd.Webhook, error)
	// WebhookSkip moves the cursor from p.Cursor to p.To over events of
	// types the endpoint does not take, under the same guard as
	// WebhookAttempt.
	WebhookSkip(ctx context.Context, p WebhookSkipParams) error
	// WebhookDeliveryList returns the endpoint's logged attempts with ID >
	// p.After in ID order, at most p.Limit (stockd.PageSizeDefault when
	// zero, never above stockd.PageSizeMax).
	WebhookDeliveryList(ctx context.Context, p WebhookDeliveryListParams) ([]stockd.WebhookDelivery, error)
}

// ErrWebhookMoved is WebhookAttempt's and WebhookSkip's answer when the
// endpoint was redelivered or disabled since the caller read it.
var ErrWebhookMoved = errors.New("webhook cursor moved")

// WebhookTarget is an enabled endpoint and its signing secret.
type WebhookTarget struct {
	Webhook stockd.Webhook
	Secret  string
}

// WebhookAnswer renders the idempotency record of a webhook mutation from
// the endpoint as the mutation left it. Nil stores none.
type WebhookAnswer func(stockd.Webhook) (stockd.IdempotencyRecord, error)

// WebhookCreateParams is a new endpoint and its secret.
type WebhookCreateParams struct {
	Webhook stockd.Webhook
	Secret  string
	// WebhooksMax defaults to stockd.WebhooksMax.
	WebhooksMax int
	Answer      WebhookAnswer
}

// WebhookRedeliverParams names the endpoint and the first seq to deliver
// again.
type WebhookRedeliverParams struct {
	ID      string
	FromSeq int64
	Answer  WebhookAnswer
}

// WebhookDisableParams names the endpoint, when and why.
type WebhookDisableParams struct {
	ID     string
	At     time.Time
	Reason string
	Answer WebhookAnswer
}

// WebhookAttemptParams is one attempt and the state it was made from.
type WebhookAttemptParams struct {
	Delivery   stockd.WebhookDelivery
	Generation int64
	Cursor     int64
	// FailuresMax disables the endpoint at that many consecutive failures.
	FailuresMax int
}

// WebhookSkipParams moves a cursor over events the endpoint does not take.
type WebhookSkipParams struct {
	ID         string
	Generation int64
	Cursor     int64
	To         int64
}

// WebhookDeliveryListParams selects a page of an endpoint's delivery log.
type WebhookDeliveryListParams struct {
	ID    string
	After int64
	Limit int
}

// ErrLeaseHeld is RelayLeaseTry's answer while another holder leads.
var ErrLeaseHeld = errors.New("relay lease held by another holder")

// ErrLeaseLost marks a lease that no longer holds: its connection failed or
// it was released. The holder must stop publishing at once.
var ErrLeaseLost = errors.New("relay lease lost")

// RelayLease is one relay's leadership and its cursor. The cursor is
// written through the lease itself (on PostgreSQL on the connection that
// holds the lock), so a holder that lost the lease cannot move it.
type RelayLease interface {
	// Cursor returns the seq up to which the relay has published.
	Cursor(ctx context.Context) (int64, error)
	// CursorAdvance records seq as published. It never moves the cursor
	// back. An error wrapping ErrLeaseLost means leadership is gone.
	CursorAdvance(ctx context.Context, seq int64, at time.Time) error
	// Check confirms that the lease still holds, with a round trip to the
	// database; an error wrapping ErrLeaseLost means it does not.
	Check(ctx context.Context) error
	// Release gives leadership up. It is safe to call more than once.
	Release(ctx context.Context) error
}

// RelayNameValid reports whether name may name a relay: 1 to 64 printable
// ASCII characters.
func RelayNameValid(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x21 || name[i] > 0x7e {
			return false
		}
	}
	return true
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

// LedgerListParams selects a page of the ledger.
type LedgerListParams struct {
	SKU   string
	After int64
	Limit int
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
