// Package store is the storage seam: what the engine, the HTTP reads and the
// audit need from a database. Two backends implement it (store/postgres,
// store/sqlite) and one conformance suite (store/storetest) holds them to
// the same behaviour; the business flows run on both are engine/flowtest's.
package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/stockd/stockd"
)

// ErrRetry marks a transaction that lost a race the database detected
// (serialization failure, deadlock, a unique key inserted concurrently).
// Nothing was applied; the whole batch may be tried again.
var ErrRetry = errors.New("transaction conflict, retry")

// The causes of ErrRetry: a backend wraps one of them beside ErrRetry, so
// that the engine counts its retries by cause (stockd_batch_retries_total)
// without knowing any database's error codes. A conflict of no known cause
// wraps ErrRetry alone.
var (
	// ErrSerialization is a serialization failure (PostgreSQL 40001).
	ErrSerialization = errors.New("serialization failure")
	// ErrDeadlock is a deadlock the database broke (PostgreSQL 40P01).
	ErrDeadlock = errors.New("deadlock detected")
	// ErrBusy is a lock held by another connection past the busy timeout
	// (SQLite SQLITE_BUSY, SQLITE_LOCKED).
	ErrBusy = errors.New("database busy")
	// ErrUniqueKey is a unique key another transaction inserted first.
	ErrUniqueKey = errors.New("unique key taken by another transaction")
)

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
	// IdempotencyPrune cuts the stored answers created before
	// p.CreatedBefore and not pruned yet down to their outcome
	// (stockd.PruneAnswer), oldest first, at most p.Limit of them in one
	// transaction, marks them pruned at p.Now and returns how many it
	// pruned. Keys and request hashes stay: a pruned key is still spent.
	// Rows another transaction holds are skipped, not waited for.
	IdempotencyPrune(ctx context.Context, p *IdempotencyPruneParams) (int, error)
	// LedgerList returns entries with Seq > after in Seq order, at most
	// limit, only of sku when sku is not empty. Entries appear in Seq order
	// of commit: a reader that saw Seq n never later finds an entry below n.
	LedgerList(ctx context.Context, p LedgerListParams) ([]stockd.LedgerEntry, error)
	// LedgerSales sums the units sku sold (see stockd.SalesBucketWidth)
	// per quarter-hour of UTC time in [from, to), in time order, leaving
	// out quarter-hours without sales; the span is at most
	// stockd.DemandDaysMax days. A non-empty location keeps only that
	// location's sales.
	LedgerSales(ctx context.Context, sku, location string, from, to time.Time) ([]stockd.SalesBucket, error)

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

	// Reconciliation records what the passes find; it never changes stock.
	// Its writes run outside batches, like the audit trail's.

	// ReconcileCursor returns the ledger seq the pass has checked up to, 0
	// before its first run.
	ReconcileCursor(ctx context.Context, pass string) (int64, error)
	// ReconcileRecord records one run in one transaction: the run itself,
	// each finding (refreshing the open discrepancy of the same kind,
	// position and subject, or opening one), the closing of every open
	// discrepancy within p.Scopes that the run did not find, and the pass's
	// cursor when p.Run.CursorTo is above it. It returns the run with its
	// id and what it opened and closed.
	ReconcileRecord(ctx context.Context, p ReconcileRecordParams) (stockd.ReconcileRun, error)
	// DiscrepancyGet returns one discrepancy, or an error wrapping
	// stockd.ErrNotFound.
	DiscrepancyGet(ctx context.Context, id int64) (stockd.Discrepancy, error)
	// DiscrepancyList returns discrepancies with ID > p.After matching the
	// filters, in ID order, at most p.Limit (stockd.PageSizeDefault when
	// zero, never above stockd.PageSizeMax).
	DiscrepancyList(ctx context.Context, p DiscrepancyListParams) ([]stockd.Discrepancy, error)
	// DiscrepancyOpenCounts counts the open discrepancies by kind.
	DiscrepancyOpenCounts(ctx context.Context) (map[string]int64, error)
	// LedgerLastAsOf returns the position's last entry created at or
	// before at, and false when it has none: its counters are the
	// position's as of at.
	LedgerLastAsOf(ctx context.Context, k stockd.PositionKey, at time.Time) (stockd.LedgerEntry, bool, error)

	// Imported demand (stockd.DemandDay) is written outside batches too: it
	// changes no stock, only what the replenishment computation reads.

	// DemandHistoryPut stores rows (at most stockd.DemandHistoryRowsMax,
	// each (SKU, date) at most once, SKUs that exist) in one statement: all
	// of them or none. A row replaces the one imported before for its SKU
	// and date.
	DemandHistoryPut(ctx context.Context, p DemandHistoryPutParams) error
	// DemandHistoryList returns the imported demand of p.SKU on the dates
	// from p.From to p.To inclusive (YYYY-MM-DD), by date; the span is at
	// most stockd.DemandDaysMax days.
	DemandHistoryList(ctx context.Context, p DemandHistoryListParams) ([]stockd.DemandDay, error)

	// Alerts (package alert) are written outside batches too: they change
	// no stock, and the worker that writes them follows the books.

	// AlertOpenGet returns the open alert of sku, or an error wrapping
	// stockd.ErrNotFound.
	AlertOpenGet(ctx context.Context, sku string) (stockd.Alert, error)
	// AlertGet returns one alert, or an error wrapping stockd.ErrNotFound.
	AlertGet(ctx context.Context, id int64) (stockd.Alert, error)
	// AlertList returns alerts with ID > p.After in ID order that match
	// every filter p sets, at most p.Limit (stockd.PageSizeDefault when
	// zero, never above stockd.PageSizeMax).
	AlertList(ctx context.Context, p AlertListParams) ([]stockd.Alert, error)
	// AlertOpenCounts counts the open alerts by level (levels with none
	// are left out), for the stockd_alerts_open gauge.
	AlertOpenCounts(ctx context.Context) (map[string]int64, error)
	// AlertNoticeList returns the notices of one business date, of sku
	// unless it is empty, by SKU, level, tier and kind, at most
	// stockd.PageSizeMax.
	AlertNoticeList(ctx context.Context, businessDate, sku string) ([]stockd.AlertNotice, error)
	// AlertWrite applies one decision of the alert worker in one
	// transaction: it resolves p.Resolve, saves p.Save (inserted when its ID
	// is 0) and inserts those of p.Notices not already stored (the dedup).
	// Each alert is written only over the Version it was read at; when
	// another write came first nothing is written and the error wraps
	// stockd.ErrAlertChanged.
	AlertWrite(ctx context.Context, p AlertWriteParams) (AlertWriteResult, error)
	// AlertAck acknowledges an alert (stockd.Alert.Acknowledged: the first
	// acknowledgement stands) and returns it; an unknown id is an error
	// wrapping stockd.ErrNotFound.
	AlertAck(ctx context.Context, p AlertAckParams) (stockd.Alert, error)
	// AlertDeliveryInsert appends one attempt to the delivery log.
	AlertDeliveryInsert(ctx context.Context, d stockd.AlertDelivery) error
	// AlertDeliveryList returns the delivery log of one alert by id, at
	// most stockd.PageSizeMax.
	AlertDeliveryList(ctx context.Context, alertID int64) ([]stockd.AlertDelivery, error)
	// AlertCursorGet returns the ledger Seq the alert worker has evaluated
	// up to, 0 before its first pass; AlertCursorSet stores it.
	AlertCursorGet(ctx context.Context) (int64, error)
	AlertCursorSet(ctx context.Context, seq int64) error
	// AlertDigestMark records that the digest of businessDate goes out at
	// at, and reports whether this call recorded it (false: it was already).
	AlertDigestMark(ctx context.Context, businessDate string, at time.Time) (bool, error)
	// SKUAlertLineSet caches the SKU's alert line (stockd.SKU.AlertLine,
	// at least 0) on its row, writing only when it differs from the one
	// stored, and reports whether it wrote. An unknown SKU writes nothing.
	SKUAlertLineSet(ctx context.Context, sku string, line int64) (bool, error)

	// Listings (issue 9).

	// ReservationList returns reservations with ID > p.After in ID order
	// that pass every filter p sets, at most p.Limit
	// (stockd.PageSizeDefault when zero, never above stockd.PageSizeMax).
	ReservationList(ctx context.Context, p ReservationListParams) ([]stockd.Reservation, error)
	// PositionListBySKUs returns the positions of these SKUs (at most
	// stockd.PageSizeMax of them), ordered by SKU, then as
	// PositionListBySKU orders them.
	PositionListBySKUs(ctx context.Context, skus []string) ([]stockd.Position, error)

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

	// The ledger archive (stockd ledger archive) moves the entries before
	// a month's start to a file and leaves one checkpoint entry per
	// position in their place. The ledger's delete trigger lets a DELETE
	// through only inside LedgerArchiveCheckpoint's transaction, and only
	// of entries at or below the cut of a sealed, unfinished archive.

	// LedgerArchiveCutSeq returns the highest seq n such that every entry
	// with seq <= n was created before before, 0 when there is none.
	LedgerArchiveCutSeq(ctx context.Context, before time.Time) (int64, error)
	// LedgerArchiveList returns every archive record by Before, at most
	// stockd.LedgerArchivesMax.
	LedgerArchiveList(ctx context.Context) ([]stockd.LedgerArchive, error)
	// LedgerArchiveStart records a new archive of p.Before at p.CutSeq. A
	// record of p.Before that exists already is an error wrapping
	// ErrArchiveState.
	LedgerArchiveStart(ctx context.Context, p LedgerArchiveStartParams) (stockd.LedgerArchive, error)
	// LedgerArchiveEach streams the entries with seq <= cutSeq in seq
	// order, from one snapshot.
	LedgerArchiveEach(ctx context.Context, cutSeq int64, fn func(stockd.LedgerEntry) error) error
	// LedgerArchiveSeal records the sha256 and entry count of the archive's
	// file, once: an archive sealed already (or unknown) is an error
	// wrapping ErrArchiveState and keeps its sha256.
	LedgerArchiveSeal(ctx context.Context, p LedgerArchiveSealParams) (stockd.LedgerArchive, error)
	// LedgerArchiveCheckpoint replaces, in one transaction, the entries
	// with seq <= the archive's cut of each of p.Positions (at most
	// stockd.LedgerArchivePositionsPerTransactionMax), in order, with one
	// stockd.Checkpoint, deleting at most p.EntriesMax entries: a position
	// with more left than that is replaced up to the entry where the
	// budget ends (a checkpoint there, an opening balance as good as the
	// final one) and the call returns, not Done, for the next to go on. A
	// position that holds its checkpoint already, or no entry at or below
	// the cut, is left as it is. An archive not sealed, or finished, is an
	// error wrapping ErrArchiveState.
	LedgerArchiveCheckpoint(ctx context.Context, p LedgerArchiveCheckpointParams) (LedgerArchiveCheckpointResult, error)
	// LedgerArchiveFinish marks the archive finished at p.At with the
	// positions it checkpointed.
	LedgerArchiveFinish(ctx context.Context, p LedgerArchiveFinishParams) (stockd.LedgerArchive, error)
	// LedgerCursorList returns the cursor of every consumer of the ledger
	// the database knows: each relay, each webhook endpoint (disabled ones
	// included: a redelivery resumes from their cursor), each
	// reconciliation pass and the alert worker. A consumer that never ran
	// has none.
	LedgerCursorList(ctx context.Context) ([]stockd.LedgerCursor, error)

	// Exceptions (stockd.Exception) are written by batches, through the
	// engine; these read them.

	// ExceptionGet returns one exception, or an error wrapping
	// stockd.ErrNotFound.
	ExceptionGet(ctx context.Context, id string) (stockd.Exception, error)
	// ExceptionList returns exceptions with ID > p.After matching the
	// filters, in ID order (handling order), at most p.Limit
	// (stockd.PageSizeDefault when zero, never above stockd.PageSizeMax).
	ExceptionList(ctx context.Context, p ExceptionListParams) ([]stockd.Exception, error)
	// ExceptionOpenCounts counts the open exceptions by kind.
	ExceptionOpenCounts(ctx context.Context) (map[string]int64, error)
}

// ErrArchiveState is the answer of a ledger archive method called on an
// archive in the wrong state: started twice, sealed twice, checkpointed
// before its file is sealed or after it finished, or unknown.
var ErrArchiveState = errors.New("ledger archive in another state")

// LedgerArchiveStartParams is a new archive: the cut, the file and when.
type LedgerArchiveStartParams struct {
	Before time.Time
	CutSeq int64
	Path   string
	At     time.Time
}

// LedgerArchiveSealParams is what the archive's file holds.
type LedgerArchiveSealParams struct {
	Before  time.Time
	SHA256  string
	Entries int64
}

// LedgerArchiveCheckpointParams names the archive and the positions one
// transaction replaces.
type LedgerArchiveCheckpointParams struct {
	Before    time.Time
	Positions []stockd.PositionKey
	// EntriesMax bounds the entries the transaction deletes. Defaults to
	// stockd.LedgerArchiveEntriesPerTransactionMax; at least 2, so that
	// every step gets past the checkpoint an earlier step left.
	EntriesMax int
}

// EntriesBudget is EntriesMax with its default.
func (p LedgerArchiveCheckpointParams) EntriesBudget() int64 {
	if p.EntriesMax == 0 {
		return stockd.LedgerArchiveEntriesPerTransactionMax
	}
	return int64(p.EntriesMax)
}

// LedgerArchiveCheckpointResult is what one checkpoint transaction did.
type LedgerArchiveCheckpointResult struct {
	// Replaced counts the positions it finished; Deleted the entries it
	// deleted.
	Replaced int
	Deleted  int64
	// Done is true when every position named holds its checkpoint.
	Done bool
}

// LedgerArchiveFinishParams closes an archive.
type LedgerArchiveFinishParams struct {
	Before    time.Time
	Positions int64
	At        time.Time
}

// CheckLedgerArchiveCheckpoint refuses a checkpoint call beyond the bounds
// LedgerArchiveCheckpoint promises to hold to.
func CheckLedgerArchiveCheckpoint(p LedgerArchiveCheckpointParams) error {
	if len(p.Positions) == 0 || len(p.Positions) > stockd.LedgerArchivePositionsPerTransactionMax {
		return fmt.Errorf("ledger archive checkpoint: %d positions, want 1 to %d", len(p.Positions), stockd.LedgerArchivePositionsPerTransactionMax)
	}
	if !stockd.MonthStart(p.Before) {
		return fmt.Errorf("ledger archive checkpoint: cut %s is not a month's start", p.Before.Format(time.RFC3339))
	}
	if p.EntriesMax != 0 && (p.EntriesMax < 2 || p.EntriesMax > stockd.LedgerArchiveEntriesPerTransactionMax) {
		return fmt.Errorf("ledger archive checkpoint: %d entries per transaction, want 2 to %d", p.EntriesMax, stockd.LedgerArchiveEntriesPerTransactionMax)
	}
	return nil
}

// ExceptionListParams selects a page of exceptions; empty filters match
// everything.
type ExceptionListParams struct {
	Kind   string
	Status string
	After  string
	Limit  int
}

// AlertListParams selects a page of alerts; empty filters match all.
type AlertListParams struct {
	Level  string
	Status stockd.AlertStatus
	SKU    string
	After  int64
	Limit  int
}

// AlertWriteParams is one decision of the alert worker. Notices whose
// AlertID is 0 belong to Save.
type AlertWriteParams struct {
	Resolve *stockd.Alert
	Save    *stockd.Alert
	Notices []stockd.AlertNotice
}

// AlertWriteResult is what AlertWrite stored: Save with its ID and
// Version, and the notices that were new.
type AlertWriteResult struct {
	Saved    stockd.Alert
	Inserted []stockd.AlertNotice
}

// AlertAckParams names the alert, the acknowledging key and the time.
type AlertAckParams struct {
	ID    int64
	KeyID string
	At    time.Time
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

// ReconcileRecordParams is one run and what it saw.
type ReconcileRecordParams struct {
	Run      stockd.ReconcileRun
	Findings []stockd.Finding
	// Scopes is what the run checked: an open discrepancy it did not find
	// closes only if it lies within one of them.
	Scopes []ReconcileScope
}

// ReconcileScope is what one run checked: these kinds, at these
// positions, or everywhere when All.
type ReconcileScope struct {
	Kinds     []string
	Positions []stockd.PositionKey
	All       bool
}

// Covers reports whether the scope checked kind at k.
func (s ReconcileScope) Covers(kind string, k stockd.PositionKey) bool {
	if !slices.Contains(s.Kinds, kind) {
		return false
	}
	return s.All || slices.Contains(s.Positions, k)
}

// DiscrepancyListParams selects a page of discrepancies; empty filters
// match everything.
type DiscrepancyListParams struct {
	Status string
	Kind   string
	SKU    string
	After  int64
	Limit  int
	// Run, when not 0, selects the discrepancies that run opened or
	// closed: what the reconciler notices on the ledger after recording it.
	Run int64
}

// DemandHistoryPutParams are the rows of one import and its time.
type DemandHistoryPutParams struct {
	Rows []stockd.DemandDay
	At   time.Time
}

// DemandHistoryListParams selects one SKU's imported demand by date.
type DemandHistoryListParams struct {
	SKU      string
	From, To string
}

// CheckDemandHistoryRows refuses a write beyond the bounds
// DemandHistoryPut promises to hold to.
func CheckDemandHistoryRows(rows []stockd.DemandDay) error {
	if len(rows) == 0 || len(rows) > stockd.DemandHistoryRowsMax {
		return fmt.Errorf("demand history: %d rows, want 1 to %d", len(rows), stockd.DemandHistoryRowsMax)
	}
	seen := make(map[[2]string]bool, len(rows))
	for _, r := range rows {
		if err := stockd.ValidDemandDay(r); err != nil {
			return fmt.Errorf("demand history: %w", err)
		}
		k := [2]string{r.SKU, r.Date}
		if seen[k] {
			return fmt.Errorf("demand history: %s on %s twice", r.SKU, r.Date)
		}
		seen[k] = true
	}
	return nil
}

// CheckDemandHistorySpan refuses a read of malformed dates, reversed, or
// longer than stockd.DemandDaysMax days.
func CheckDemandHistorySpan(from, to string) error {
	f, ferr := time.Parse(stockd.DateLayout, from)
	t, terr := time.Parse(stockd.DateLayout, to)
	if ferr != nil || terr != nil || t.Before(f) || t.Sub(f) >= stockd.DemandDaysMax*24*time.Hour {
		return fmt.Errorf("demand history from %q to %q: want dates YYYY-MM-DD at most %d days apart", from, to, stockd.DemandDaysMax)
	}
	return nil
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

	// What the minute pass reads of the positions changed since its cursor.

	// LedgerEachAfter streams at most limit entries with Seq > after, in Seq
	// order.
	LedgerEachAfter(ctx context.Context, after int64, limit int, fn func(stockd.LedgerEntry) error) error
	// LedgerLast returns the position's last entry with Seq <= atOrBefore,
	// and false when it has none.
	LedgerLast(ctx context.Context, k stockd.PositionKey, atOrBefore int64) (stockd.LedgerEntry, bool, error)
	// PositionGet returns the position, and false when it does not exist.
	PositionGet(ctx context.Context, k stockd.PositionKey) (stockd.Position, bool, error)
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

// IdempotencyPruneParams selects the answers IdempotencyPrune prunes.
type IdempotencyPruneParams struct {
	// CreatedBefore: answers created at or after it are kept whole.
	CreatedBefore time.Time
	// Limit bounds the answers pruned, 1 to stockd.IdempotencyPruneBatchMax.
	Limit int
	// Now is recorded as the answers' pruned_at.
	Now time.Time
}

// Check refuses params a caller must never send: they are bugs.
func (p *IdempotencyPruneParams) Check() error {
	if p.Limit < 1 || p.Limit > stockd.IdempotencyPruneBatchMax {
		return fmt.Errorf("idempotency prune limit %d: want 1 to %d", p.Limit, stockd.IdempotencyPruneBatchMax)
	}
	if p.CreatedBefore.IsZero() || p.Now.IsZero() {
		return errors.New("idempotency prune: CreatedBefore and Now are required")
	}
	return nil
}
