package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockd/stockd"
)

// Write applies a batch's writes in one round trip: every statement is
// queued on one pgx.Batch and pipelined, each bulk statement taking one
// array per column. Statements with nothing to write are left out.
//
// The order matters:
//   - catalogue rows first, then new positions (they reference both);
//   - positions are created with a plain INSERT: the transaction found them
//     missing under lock, so a concurrent creator surfaces as a unique
//     violation and the batch is retried against the committed row;
//   - the ledger goes last, behind pg_advisory_xact_lock(ledgerLockKey).
//
// Why the ledger lock: the ledger is also the outbox, read with
// /v1/events?after=SEQ. A bigserial hands out seq when a row is inserted,
// not when it commits, so without the lock a transaction holding seq 10
// could commit after one holding seq 11; a reader that already moved past
// 11 would never see 10. Holding one transaction-scoped lock from seq
// assignment until commit (PostgreSQL releases it after the commit is
// visible) makes seq visible in commit order. It serialises only that last
// step: nothing after the lock can wait on another transaction, since only
// the lock holder has uncommitted ledger rows, and idempotency records are
// written before it, because their insert can wait on a concurrent
// transaction storing the same key and must not do so while every other
// writer waits behind the lock.
//
// Each UPDATE must touch exactly the rows it names: fewer means the batch
// was decided on rows this transaction did not lock, a bug.
func (t *Tx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	batch := &pgx.Batch{}
	queueSKUs(batch, w.SKUs)
	queueLocations(batch, w.Locations)
	queueSKUsUpdate(batch, w.SKUsUpdated)
	queueLocationsUpdate(batch, w.LocationsUpdated)
	if len(w.NewPositions) > 0 {
		var c positionKeyColumns
		for _, p := range w.NewPositions {
			c.add(p.PositionKey)
		}
		batch.Queue(queryPositionsInsert, c.skus, c.locations, c.pools)
	}
	queuePositionsUpdate(batch, w.Positions)
	// Rows that existed are updated before new ones are inserted, so that
	// a reservation released in the batch frees its order for one created
	// after it (the unique index reservations_order_id).
	freeing, existing, created := w.ReservationsUpdatedSplit()
	// A statement checks the unique index row by row in an order of its
	// own: the rows that free an order id go in one of their own, first.
	if err := queueReservationsUpdate(batch, freeing); err != nil {
		return err
	}
	if err := queueReservationsUpdate(batch, existing); err != nil {
		return err
	}
	if err := queueReservationsInsert(batch, w.ReservationsNew); err != nil {
		return err
	}
	if err := queueReservationsUpdate(batch, created); err != nil {
		return err
	}
	queueReferences(batch, w.References)
	queueDocuments(batch, w.Documents)
	if err := queueExceptions(batch, w.Exceptions, w.ExceptionsUpdated); err != nil {
		return err
	}
	queueIdempotency(batch, w.Idempotency)
	if len(w.Ledger) > 0 {
		batch.Queue(queryAdvisoryXactLock, ledgerLockKey)
		queueLedger(batch, w.Ledger)
	}
	if batch.Len() == 0 {
		return nil
	}
	if err := t.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("postgres: write batch: %w", interpretError(err))
	}
	return nil
}

// expectRows fails a queued statement that did not touch want rows.
func expectRows(what string, want int) func(pgconn.CommandTag) error {
	return func(tag pgconn.CommandTag) error {
		if got := tag.RowsAffected(); got != int64(want) {
			return fmt.Errorf("%s touched %d rows, want %d", what, got, want)
		}
		return nil
	}
}

func queueSKUs(batch *pgx.Batch, skus []stockd.SKU) {
	if len(skus) == 0 {
		return
	}
	c := skuColumnsOf(skus)
	batch.Queue(querySKUsInsert, c.ids, c.names, c.units, c.deductions, c.thresholds, c.bundles, c.createdAt)
}

func queueSKUsUpdate(batch *pgx.Batch, skus []stockd.SKU) {
	if len(skus) == 0 {
		return
	}
	c := skuColumnsOf(skus)
	batch.Queue(querySKUsUpdate, c.ids, c.names, c.units, c.deductions, c.thresholds).
		Exec(expectRows("update skus", len(skus)))
}

type skuArrays struct {
	ids, names, units, deductions []string
	thresholds                    []int64
	bundles                       []bool
	createdAt                     []time.Time
}

func skuColumnsOf(skus []stockd.SKU) skuArrays {
	var c skuArrays
	for _, s := range skus {
		c.ids = append(c.ids, s.ID)
		c.names = append(c.names, s.Name)
		c.units = append(c.units, s.Unit)
		c.deductions = append(c.deductions, s.Deduction)
		c.thresholds = append(c.thresholds, s.ApprovalThreshold)
		c.bundles = append(c.bundles, s.Bundle)
		c.createdAt = append(c.createdAt, s.CreatedAt)
	}
	return c
}

func queueLocations(batch *pgx.Batch, locations []stockd.Location) {
	if len(locations) == 0 {
		return
	}
	c := locationColumnsOf(locations)
	batch.Queue(queryLocationsInsert, c.ids, c.names, c.priorities, c.inactive, c.createdAt)
}

func queueLocationsUpdate(batch *pgx.Batch, locations []stockd.Location) {
	if len(locations) == 0 {
		return
	}
	c := locationColumnsOf(locations)
	batch.Queue(queryLocationsUpdate, c.ids, c.names, c.priorities, c.inactive).
		Exec(expectRows("update locations", len(locations)))
}

type locationArrays struct {
	ids, names []string
	priorities []int32
	inactive   []bool
	createdAt  []time.Time
}

func locationColumnsOf(locations []stockd.Location) locationArrays {
	var c locationArrays
	for _, l := range locations {
		c.ids = append(c.ids, l.ID)
		c.names = append(c.names, l.Name)
		c.priorities = append(c.priorities, int32(l.Priority))
		c.inactive = append(c.inactive, l.Inactive)
		c.createdAt = append(c.createdAt, l.CreatedAt)
	}
	return c
}

func queuePositionsUpdate(batch *pgx.Batch, positions []stockd.Position) {
	if len(positions) == 0 {
		return
	}
	var keys positionKeyColumns
	var counters counterColumns
	for _, p := range positions {
		keys.add(p.PositionKey)
		counters.add(p.Counters)
	}
	batch.Queue(queryPositionsUpdate, keys.skus, keys.locations, keys.pools,
		counters.onHand, counters.reserved, counters.committed, counters.quarantined,
		counters.inTransit, counters.incoming,
	).Exec(expectRows("update positions", len(positions)))
}

func queueReservationsInsert(batch *pgx.Batch, reservations []stockd.Reservation) error {
	if len(reservations) == 0 {
		return nil
	}
	n := len(reservations)
	ids, keys, statuses, lines, reasons, customers, orders := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	expiresAt, createdAt, updatedAt := make([]time.Time, n), make([]time.Time, n), make([]time.Time, n)
	for i, r := range reservations {
		encoded, err := json.Marshal(r.Lines)
		if err != nil {
			return fmt.Errorf("postgres: encode lines of reservation %q: %w", r.ID, err)
		}
		ids[i], keys[i], statuses[i], lines[i], reasons[i], customers[i], orders[i] = r.ID, r.Key, string(r.Status), string(encoded), r.ReleaseReason, r.CustomerID, r.OrderID
		expiresAt[i], createdAt[i], updatedAt[i] = r.ExpiresAt, r.CreatedAt, r.UpdatedAt
	}
	batch.Queue(queryReservationsInsert, ids, keys, statuses, lines, expiresAt, createdAt, updatedAt, reasons, customers, orders)
	return nil
}

// queueReservationsUpdate writes status and lines: refunds and returns
// change what a line holds without changing its status.
func queueReservationsUpdate(batch *pgx.Batch, reservations []stockd.Reservation) error {
	if len(reservations) == 0 {
		return nil
	}
	n := len(reservations)
	ids, statuses, reasons, lines := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	updatedAt, expiresAt := make([]time.Time, n), make([]time.Time, n)
	for i, r := range reservations {
		encoded, err := json.Marshal(r.Lines)
		if err != nil {
			return fmt.Errorf("postgres: encode lines of reservation %q: %w", r.ID, err)
		}
		ids[i], statuses[i], reasons[i], lines[i] = r.ID, string(r.Status), r.ReleaseReason, string(encoded)
		updatedAt[i], expiresAt[i] = r.UpdatedAt, r.ExpiresAt
	}
	batch.Queue(queryReservationsUpdate, ids, statuses, updatedAt, reasons, lines, expiresAt).
		Exec(expectRows("update reservations", n))
	return nil
}

// queueReferences inserts the business document numbers the batch took;
// one a concurrent batch took first is a unique violation, and the batch
// is retried against it.
func queueReferences(batch *pgx.Batch, refs []stockd.BusinessReference) {
	if len(refs) == 0 {
		return
	}
	n := len(refs)
	types, references, skus, ids, createdAt := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
	for i, r := range refs {
		types[i], references[i], skus[i], ids[i], createdAt[i] = r.BusinessType, r.Reference, r.SKU, r.BusinessID, r.CreatedAt
	}
	batch.Queue(queryReferencesInsert, types, references, skus, ids, createdAt)
}

// queueDocuments inserts the batch's new documents and writes the next
// version of the changed ones.
func queueDocuments(batch *pgx.Batch, docs []stockd.Document) {
	var ins, upd documentArrays
	for _, d := range docs {
		if d.Version == 1 {
			ins.add(d)
		} else {
			upd.add(d)
		}
	}
	if len(ins.kinds) > 0 {
		batch.Queue(queryDocumentsInsert, ins.kinds, ins.ids, ins.bodies, ins.createdAt, ins.updatedAt)
	}
	if len(upd.kinds) > 0 {
		batch.Queue(queryDocumentsUpdate, upd.kinds, upd.ids, upd.versions, upd.bodies, upd.updatedAt).
			Exec(expectRows("update documents", len(upd.kinds)))
	}
}

type documentArrays struct {
	kinds, ids, bodies   []string
	versions             []int64
	createdAt, updatedAt []time.Time
}

func (c *documentArrays) add(d stockd.Document) {
	c.kinds = append(c.kinds, d.Kind)
	c.ids = append(c.ids, d.ID)
	c.bodies = append(c.bodies, string(d.Body))
	c.versions = append(c.versions, d.Version)
	c.createdAt = append(c.createdAt, d.CreatedAt)
	c.updatedAt = append(c.updatedAt, d.UpdatedAt)
}

func queueIdempotency(batch *pgx.Batch, records []stockd.IdempotencyRecord) {
	if len(records) == 0 {
		return
	}
	n := len(records)
	keys, hashes, results, createdAt := make([]string, n), make([]string, n), make([][]byte, n), make([]time.Time, n)
	for i, r := range records {
		keys[i], hashes[i], results[i], createdAt[i] = r.Key, r.RequestHash, r.Result, r.CreatedAt
	}
	batch.Queue(queryIdempotencyInsert, keys, hashes, results, createdAt)
}

func queueLedger(batch *pgx.Batch, entries []stockd.LedgerEntry) {
	n := len(entries)
	var keys positionKeyColumns
	var delta, after counterColumns
	businessTypes, businessIDs := make([]string, n), make([]string, n)
	reservationIDs, actors, reasons, approvers, references := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	createdAt := make([]time.Time, n)
	for i, e := range entries {
		keys.add(e.Position)
		delta.add(e.Delta)
		after.add(e.After)
		businessTypes[i], businessIDs[i] = e.BusinessType, e.BusinessID
		reservationIDs[i], actors[i], reasons[i], approvers[i], references[i] = e.ReservationID, e.Actor, e.Reason, e.Approver, e.Reference
		createdAt[i] = e.CreatedAt
	}
	batch.Queue(queryLedgerInsert, businessTypes, businessIDs, keys.skus, keys.locations, keys.pools,
		delta.onHand, delta.reserved, delta.committed, delta.quarantined, delta.inTransit, delta.incoming,
		after.onHand, after.reserved, after.committed, after.quarantined, after.inTransit, after.incoming,
		reservationIDs, actors, reasons, approvers, references, createdAt)
}

// positionKeyColumns holds position keys as one array per column.
type positionKeyColumns struct {
	skus, locations, pools []string
}

func (c *positionKeyColumns) add(k stockd.PositionKey) {
	c.skus = append(c.skus, k.SKU)
	c.locations = append(c.locations, k.Location)
	c.pools = append(c.pools, k.Pool)
}

// counterColumns holds counters as one array per column.
type counterColumns struct {
	onHand, reserved, committed, quarantined, inTransit, incoming []int64
}

func (c *counterColumns) add(v stockd.Counters) {
	c.onHand = append(c.onHand, v.OnHand)
	c.reserved = append(c.reserved, v.Reserved)
	c.committed = append(c.committed, v.Committed)
	c.quarantined = append(c.quarantined, v.Quarantined)
	c.inTransit = append(c.inTransit, v.InTransit)
	c.incoming = append(c.incoming, v.Incoming)
}
