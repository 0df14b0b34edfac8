package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

var _ store.Tx = (*tx)(nil)

// tx is one batch's BEGIN IMMEDIATE transaction on the writer connection.
// It holds the database's write lock from Begin to Commit, so its reads
// need no lock clauses: no other batch can run in between.
type tx struct {
	sqlTx      *sql.Tx
	statements *writeStatements
}

// ReservationsLock reads the reservations with these ids, sorted by id;
// unknown ids are left out.
func (t *tx) ReservationsLock(ctx context.Context, ids []string) ([]stockd.Reservation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	idList, err := jsonArray(ids)
	if err != nil {
		return nil, err
	}
	reservations, err := queryAll(ctx, t.sqlTx, queryReservationsLock, scanReservation, idList)
	if err != nil {
		return nil, fmt.Errorf("read reservations: %w", err)
	}
	return reservations, nil
}

// BatchRowsRead reads one statement after the other: in process, there is
// no round trip to save.
func (t *tx) BatchRowsRead(ctx context.Context, touches *stockd.Touches) (*stockd.BatchRows, error) {
	return stockd.ReadBatchRowsInTurn(ctx, t, touches)
}

// PositionsEnsure creates, at zero, the positions that do not exist yet and
// whose SKU and location do.
func (t *tx) PositionsEnsure(ctx context.Context, keys []stockd.PositionKey) error {
	if len(keys) == 0 {
		return nil
	}
	keyList, err := jsonArray(keys)
	if err != nil {
		return err
	}
	if _, err := t.sqlTx.ExecContext(ctx, queryPositionsEnsure, keyList); err != nil {
		return fmt.Errorf("create missing positions: %w", interpretError(err))
	}
	return nil
}

// PositionsLock reads every position of these SKUs, sorted by SKU,
// location and pool, with the location's priority filled.
func (t *tx) PositionsLock(ctx context.Context, skus []string) ([]stockd.Position, error) {
	if len(skus) == 0 {
		return nil, nil
	}
	skuList, err := jsonArray(skus)
	if err != nil {
		return nil, err
	}
	positions, err := queryAll(ctx, t.sqlTx, queryPositionsLock, scanPosition, skuList)
	if err != nil {
		return nil, fmt.Errorf("read positions: %w", err)
	}
	return positions, nil
}

// SKUsGet returns those of ids that exist, sorted by id.
func (t *tx) SKUsGet(ctx context.Context, ids []string) ([]stockd.SKU, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	idList, err := jsonArray(ids)
	if err != nil {
		return nil, err
	}
	skus, err := queryAll(ctx, t.sqlTx, querySKUsGet, scanSKU, idList)
	if err != nil {
		return nil, fmt.Errorf("read skus: %w", err)
	}
	return skus, nil
}

// DocumentsLock reads the documents with these keys in key order; missing
// ones are left out.
func (t *tx) DocumentsLock(ctx context.Context, keys []stockd.DocKey) ([]stockd.Document, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	pairs := make([][2]string, len(keys))
	for i, k := range keys {
		pairs[i] = [2]string{k.Kind, k.ID}
	}
	keyList, err := jsonArray(pairs)
	if err != nil {
		return nil, err
	}
	docs, err := queryAll(ctx, t.sqlTx, queryDocumentsLock, scanDocument, keyList)
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	return docs, nil
}

// LocationList returns every location, by priority then id.
func (t *tx) LocationList(ctx context.Context) ([]stockd.Location, error) {
	return locationList(ctx, t.sqlTx)
}

// IdempotencyGet returns the stored answers for those keys that have one.
func (t *tx) IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	keyList, err := jsonArray(keys)
	if err != nil {
		return nil, err
	}
	records, err := queryAll(ctx, t.sqlTx, queryIdempotencyGet, scanIdempotencyRecord, keyList)
	if err != nil {
		return nil, fmt.Errorf("read idempotency keys: %w", err)
	}
	return records, nil
}

// ReservationsByOrder returns the reservations holding these orders.
func (t *tx) ReservationsByOrder(ctx context.Context, orders []string) ([]stockd.Reservation, error) {
	if len(orders) == 0 {
		return nil, nil
	}
	orderList, err := jsonArray(orders)
	if err != nil {
		return nil, err
	}
	reservations, err := queryAll(ctx, t.sqlTx, queryReservationsByOrder, scanReservation, orderList)
	if err != nil {
		return nil, fmt.Errorf("read reservations by order: %w", err)
	}
	return reservations, nil
}

// ReferencesGet returns those of keys some document took.
func (t *tx) ReferencesGet(ctx context.Context, keys []stockd.ReferenceKey) ([]stockd.BusinessReference, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	triples := make([][3]string, len(keys))
	for i, k := range keys {
		triples[i] = [3]string{k.BusinessType, k.Reference, k.SKU}
	}
	keyList, err := jsonArray(triples)
	if err != nil {
		return nil, err
	}
	refs, err := queryAll(ctx, t.sqlTx, queryReferencesGet, scanReference, keyList)
	if err != nil {
		return nil, fmt.Errorf("read references: %w", err)
	}
	return refs, nil
}

// Commit makes the batch durable: with synchronous=FULL the WAL is synced
// before Commit returns.
func (t *tx) Commit(ctx context.Context) error {
	if err := t.sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", interpretError(err))
	}
	return nil
}

// Rollback ends the transaction if Commit did not; after Commit, or after
// database/sql rolled back on a done context, it does nothing.
func (t *tx) Rollback(ctx context.Context) error {
	if err := t.sqlTx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", interpretError(err))
	}
	return nil
}
