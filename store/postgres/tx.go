package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Tx is one batch's READ COMMITTED transaction. Correctness does not come
// from the isolation level but from the row locks the engine takes first
// (reservations, then positions, each sorted): every decision is made on
// locked rows, and READ COMMITTED never aborts a transaction that waited.
type Tx struct {
	tx pgx.Tx
}

var _ store.Tx = (*Tx)(nil)

// Begin starts the transaction that applies one batch.
func (s *Store) Begin(ctx context.Context) (store.Tx, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: queryBatchBegin})
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", interpretError(err))
	}
	return &Tx{tx: tx}, nil
}

// ReservationsLock reads and locks the reservations with these ids in id
// order; unknown ids are left out.
func (t *Tx) ReservationsLock(ctx context.Context, ids []string) ([]stockd.Reservation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "lock reservations", scanReservation, queryReservationsLock, ids)
}

// PositionsEnsure creates, at zero and in key order, the positions that do
// not exist yet and whose SKU and location do. keys are sorted.
func (t *Tx) PositionsEnsure(ctx context.Context, keys []stockd.PositionKey) error {
	if len(keys) == 0 {
		return nil
	}
	var c positionKeyColumns
	for _, k := range keys {
		c.add(k)
	}
	if _, err := t.tx.Exec(ctx, queryPositionsEnsure, c.skus, c.locations, c.pools); err != nil {
		return fmt.Errorf("postgres: ensure positions: %w", interpretError(err))
	}
	return nil
}

// PositionsLock reads and locks every position of these SKUs in key order,
// with each location's priority.
func (t *Tx) PositionsLock(ctx context.Context, skus []string) ([]stockd.Position, error) {
	if len(skus) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "lock positions", scanPosition, queryPositionsLock, skus)
}

// DocumentsLock reads and locks the documents with these keys in key
// order; missing ones are left out.
func (t *Tx) DocumentsLock(ctx context.Context, keys []stockd.DocKey) ([]stockd.Document, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	kinds, ids := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		kinds[i], ids[i] = k.Kind, k.ID
	}
	return list(ctx, t.tx, "lock documents", scanDocument, queryDocumentsLock, kinds, ids)
}

// SKUsGet returns those of ids that exist. A SKU is never deleted, and a
// change to its settings locks its positions first, which this batch holds.
func (t *Tx) SKUsGet(ctx context.Context, ids []string) ([]stockd.SKU, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "read skus", scanSKU, querySKUsGet, ids)
}

// LocationList returns every location by priority, then id.
func (t *Tx) LocationList(ctx context.Context) ([]stockd.Location, error) {
	return list(ctx, t.tx, "list locations", scanLocation, queryLocationList)
}

// IdempotencyGet returns the stored answers for those keys that have one. A
// key another transaction is storing right now is not seen; that
// transaction's insert and this one's then collide on the primary key, and
// the loser retries and replays.
func (t *Tx) IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "read idempotency keys", scanIdempotencyRecord, queryIdempotencyGet, keys)
}

// ReservationsByOrder returns the reservations holding these orders,
// unlocked.
func (t *Tx) ReservationsByOrder(ctx context.Context, orders []string) ([]stockd.Reservation, error) {
	if len(orders) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "read reservations by order", scanReservation, queryReservationsByOrder, orders)
}

// ReferencesGet returns those of keys some document took, unlocked.
func (t *Tx) ReferencesGet(ctx context.Context, keys []stockd.ReferenceKey) ([]stockd.BusinessReference, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	types, refs, skus := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		types[i], refs[i], skus[i] = k.BusinessType, k.Reference, k.SKU
	}
	return list(ctx, t.tx, "read references", scanReference, queryReferencesGet, types, refs, skus)
}

// BatchRowsRead sends the batch's last round of reads in one pipelined
// round trip: the server runs them in queue order, so the positions are
// created and locked (in key order) before the unlocked reads beside them,
// as when each was a round trip of its own, but the position locks are no
// longer held across up to six more round trips before the write. Reads
// with nothing to read are left out.
func (t *Tx) BatchRowsRead(ctx context.Context, touches *stockd.Touches) (*stockd.BatchRows, error) {
	var rows stockd.BatchRows
	batch := &pgx.Batch{}
	if len(touches.Ensure) > 0 {
		var c positionKeyColumns
		for _, k := range touches.Ensure {
			c.add(k)
		}
		batch.Queue(queryPositionsEnsure, c.skus, c.locations, c.pools)
	}
	if len(touches.SKUs) > 0 {
		queueList(batch, &rows.Positions, scanPosition, queryPositionsLock, touches.SKUs)
		queueList(batch, &rows.SKUs, scanSKU, querySKUsGet, touches.SKUs)
	}
	queueList(batch, &rows.Locations, scanLocation, queryLocationList)
	if len(touches.Keys) > 0 {
		queueList(batch, &rows.Records, scanIdempotencyRecord, queryIdempotencyGet, touches.Keys)
	}
	if len(touches.Orders) > 0 {
		queueList(batch, &rows.Holders, scanReservation, queryReservationsByOrder, touches.Orders)
	}
	if n := len(touches.References); n > 0 {
		types, refs, skus := make([]string, n), make([]string, n), make([]string, n)
		for i, k := range touches.References {
			types[i], refs[i], skus[i] = k.BusinessType, k.Reference, k.SKU
		}
		queueList(batch, &rows.References, scanReference, queryReferencesGet, types, refs, skus)
	}
	if n := len(touches.ExceptionKeys); n > 0 {
		kinds, ids := make([]string, n), make([]string, n)
		for i, k := range touches.ExceptionKeys {
			kinds[i], ids[i] = k.Kind, k.ReservationID
		}
		queueList(batch, &rows.Exceptions, scanException, queryExceptionsByKey, kinds, ids)
	}
	// The reads are done: the writes go back to cached plans (see
	// queryBatchBegin).
	batch.Queue(queryBatchWritePlans)
	if err := t.tx.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("postgres: read batch rows: %w", interpretError(err))
	}
	return &rows, nil
}

// queueList queues a query whose rows, scanned, are appended to dst when
// the batch's results are read.
func queueList[T any](batch *pgx.Batch, dst *[]T, scan func(scanner) (T, error), sql string, args ...any) {
	batch.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return err
			}
			*dst = append(*dst, v)
		}
		return rows.Err()
	})
}

// Commit commits the batch.
func (t *Tx) Commit(ctx context.Context) error {
	if err := t.tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit: %w", interpretError(err))
	}
	return nil
}

// Rollback ends the transaction if Commit did not; after Commit it does
// nothing.
func (t *Tx) Rollback(ctx context.Context) error {
	err := t.tx.Rollback(ctx)
	if err == nil || errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return fmt.Errorf("postgres: rollback: %w", err)
}
