package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// The Store's reads run on the read-only pool. Each sees the last commit
// before it started; none decides anything, so none needs the writer.

// SKUGet returns one SKU, or stockd.ErrNotFound.
func (s *Store) SKUGet(ctx context.Context, id string) (stockd.SKU, error) {
	sku, err := queryOne(ctx, s.reader, querySKUGet, scanSKU, id)
	if err != nil {
		return stockd.SKU{}, fmt.Errorf("get sku %q: %w", id, err)
	}
	return sku, nil
}

// SKUList implements store.Store.SKUList.
func (s *Store) SKUList(ctx context.Context, after string, limit int) ([]stockd.SKU, error) {
	skus, err := queryAll(ctx, s.reader, querySKUList, scanSKU, after, min(max(limit, 1), stockd.PageSizeMax))
	if err != nil {
		return nil, fmt.Errorf("list skus after %q: %w", after, err)
	}
	return skus, nil
}

// LocationList returns every location, by priority then id.
func (s *Store) LocationList(ctx context.Context) ([]stockd.Location, error) {
	return locationList(ctx, s.reader)
}

func locationList(ctx context.Context, q querier) ([]stockd.Location, error) {
	locations, err := queryAll(ctx, q, queryLocationList, scanLocation)
	if err != nil {
		return nil, fmt.Errorf("list locations: %w", err)
	}
	return locations, nil
}

// PositionListBySKU returns the SKU's positions ordered by location
// priority, location and pool.
func (s *Store) PositionListBySKU(ctx context.Context, sku string) ([]stockd.Position, error) {
	positions, err := queryAll(ctx, s.reader, queryPositionListBySKU, scanPosition, sku)
	if err != nil {
		return nil, fmt.Errorf("list positions of sku %q: %w", sku, err)
	}
	return positions, nil
}

// ReservationGet returns one reservation, or stockd.ErrNotFound.
func (s *Store) ReservationGet(ctx context.Context, id string) (stockd.Reservation, error) {
	r, err := queryOne(ctx, s.reader, queryReservationGet, scanReservation, id)
	if err != nil {
		return stockd.Reservation{}, fmt.Errorf("get reservation %q: %w", id, err)
	}
	return r, nil
}

// ReservationGetByKey returns the reservation made under an idempotency
// key, or stockd.ErrNotFound.
func (s *Store) ReservationGetByKey(ctx context.Context, key string) (stockd.Reservation, error) {
	if key == "" {
		// Reservations made without a key store NULL: none has the empty key.
		return stockd.Reservation{}, fmt.Errorf("get reservation by empty key: %w", stockd.ErrNotFound)
	}
	r, err := queryOne(ctx, s.reader, queryReservationGetByKey, scanReservation, key)
	if err != nil {
		return stockd.Reservation{}, fmt.Errorf("get reservation by key %q: %w", key, err)
	}
	return r, nil
}

// DocumentGet returns one document, or an error wrapping
// stockd.ErrNotFound.
func (s *Store) DocumentGet(ctx context.Context, key stockd.DocKey) (stockd.Document, error) {
	d, err := queryOne(ctx, s.reader, queryDocumentGet, scanDocument, key.Kind, key.ID)
	if err != nil {
		return stockd.Document{}, fmt.Errorf("get document %s/%s: %w", key.Kind, key.ID, err)
	}
	return d, nil
}

// DocumentList returns a page of one kind's documents in id order.
func (s *Store) DocumentList(ctx context.Context, p store.DocumentListParams) ([]stockd.Document, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	docs, err := queryAll(ctx, s.reader, queryDocumentList, scanDocument, p.Kind, p.After, limit)
	if err != nil {
		return nil, fmt.Errorf("list documents of kind %q: %w", p.Kind, err)
	}
	return docs, nil
}

// ReservationListDue returns ids of pending reservations whose deadline is
// at or before now, oldest deadline first, at most limit.
func (s *Store) ReservationListDue(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		// SQLite reads a negative LIMIT as no limit at all.
		return nil, nil
	}
	ids, err := queryAll(ctx, s.reader, queryReservationListDue, scanString, unixMicros(now), limit)
	if err != nil {
		return nil, fmt.Errorf("list due reservations: %w", err)
	}
	return ids, nil
}

// LedgerList returns entries with Seq > p.After in Seq order, at most
// p.Limit (stockd.PageSizeDefault when zero, never above
// stockd.PageSizeMax), only of p.SKU when it is not empty.
func (s *Store) LedgerList(ctx context.Context, p store.LedgerListParams) ([]stockd.LedgerEntry, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	var entries []stockd.LedgerEntry
	var err error
	switch {
	case p.Filtered():
		query, anchor := ledgerFilteredQuery(p)
		from, to := p.TimeRange()
		entries, err = queryAll(ctx, s.reader, query, scanLedgerEntry, anchor, p.After,
			p.SKU, p.Type, p.BusinessID, p.ReservationID, p.Location, unixMicros(from), unixMicros(to), limit)
	case p.SKU == "":
		entries, err = queryAll(ctx, s.reader, queryLedgerList, scanLedgerEntry, p.After, limit)
	default:
		entries, err = queryAll(ctx, s.reader, queryLedgerListBySKU, scanLedgerEntry, p.SKU, p.After, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("list ledger after %d: %w", p.After, err)
	}
	return entries, nil
}

// ledgerFilteredQuery picks the query whose index serves p's most
// selective filter, and that filter's value.
func ledgerFilteredQuery(p store.LedgerListParams) (query, anchor string) {
	switch {
	case p.BusinessID != "":
		return queryLedgerFilteredByBusiness, p.BusinessID
	case p.ReservationID != "":
		return queryLedgerFilteredByReservant, p.ReservationID
	case p.SKU != "":
		return queryLedgerFilteredBySKU, p.SKU
	}
	return queryLedgerFilteredAll, ""
}

// AuditRead runs fn in one read transaction on a reader connection: in WAL
// mode it reads one snapshot from its first statement to its end.
func (s *Store) AuditRead(ctx context.Context, fn func(store.AuditReader) error) error {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin audit snapshot: %w", interpretError(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to undo
	return fn(auditReader{q: tx})
}

// ConcurrentWriters is false: SQLite has one writer.
func (s *Store) ConcurrentWriters() bool { return false }

type auditReader struct{ q querier }

// PositionEach streams every position, by SKU, location and pool.
func (a auditReader) PositionEach(ctx context.Context, fn func(stockd.Position) error) error {
	return queryEach(ctx, a.q, queryPositionEach, scanPosition, fn)
}

// LedgerEachByPosition streams the ledger ordered by SKU, location, pool,
// then Seq.
func (a auditReader) LedgerEachByPosition(ctx context.Context, fn func(stockd.LedgerEntry) error) error {
	return queryEach(ctx, a.q, queryLedgerEachByPosition, scanLedgerEntry, fn)
}

// ReservationOpenEach streams pending and confirmed reservations, by id.
func (a auditReader) ReservationOpenEach(ctx context.Context, fn func(stockd.Reservation) error) error {
	return queryEach(ctx, a.q, queryReservationOpenEach, scanReservation, fn)
}

// queryDocumentEach reads one kind's documents for the audit, which checks
// in_transit and incoming against the transfers and purchase orders.
const queryDocumentEach = `SELECT ` + documentColumns + ` FROM documents WHERE kind = ? ORDER BY id`

// DocumentEach streams every document of kind, by id.
func (a auditReader) DocumentEach(ctx context.Context, kind string, fn func(stockd.Document) error) error {
	if err := queryEach(ctx, a.q, queryDocumentEach, scanDocument, fn, kind); err != nil {
		return fmt.Errorf("read documents of kind %q: %w", kind, err)
	}
	return nil
}

func scanString(row rowScanner) (string, error) {
	var v string
	err := row.Scan(&v)
	return v, err
}

// IdempotencyGet returns the stored answers for those keys that have one,
// outside any batch: the engine asks before refusing a sold-out request
// without a transaction, so a retry is still a replay.
func (s *Store) IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	keyList, err := jsonArray(keys)
	if err != nil {
		return nil, err
	}
	records, err := queryAll(ctx, s.reader, queryIdempotencyGet, scanIdempotencyRecord, keyList)
	if err != nil {
		return nil, fmt.Errorf("read idempotency keys: %w", err)
	}
	return records, nil
}

// ReservationList returns a page of reservations that pass p's filters.
func (s *Store) ReservationList(ctx context.Context, p store.ReservationListParams) ([]stockd.Reservation, error) {
	query, anchor := reservationListQuery(p)
	reservations, err := queryAll(ctx, s.reader, query, scanReservation, anchor, p.After,
		string(p.Status), p.CustomerID, p.OrderID, unixMicros(p.Before()), p.SKU, store.PageLimit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("list reservations after %q: %w", p.After, err)
	}
	return reservations, nil
}

// reservationListQuery picks the query whose index serves p's most
// selective filter, and that filter's value.
func reservationListQuery(p store.ReservationListParams) (query, anchor string) {
	switch {
	case p.OrderID != "":
		return queryReservationListByOrder, p.OrderID
	case p.CustomerID != "":
		return queryReservationListByCustomer, p.CustomerID
	case p.Status != "":
		return queryReservationListByStatus, string(p.Status)
	}
	return queryReservationListAll, ""
}

// PositionListBySKUs returns the positions of these SKUs.
func (s *Store) PositionListBySKUs(ctx context.Context, skus []string) ([]stockd.Position, error) {
	if len(skus) == 0 {
		return nil, nil
	}
	if len(skus) > stockd.PageSizeMax {
		return nil, fmt.Errorf("positions of %d skus: at most %d", len(skus), stockd.PageSizeMax)
	}
	skuList, err := jsonArray(skus)
	if err != nil {
		return nil, err
	}
	positions, err := queryAll(ctx, s.reader, queryPositionListBySKUs, scanPosition, skuList)
	if err != nil {
		return nil, fmt.Errorf("list positions of %d skus: %w", len(skus), err)
	}
	return positions, nil
}
