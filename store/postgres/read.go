package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Reads outside a batch run on the pool, each in its own implicit
// transaction, always on the primary this pool connects to.

// SKUGet returns the SKU, or an error wrapping stockd.ErrNotFound.
func (s *Store) SKUGet(ctx context.Context, id string) (stockd.SKU, error) {
	sku, err := scanSKU(s.pool.QueryRow(ctx, querySKUGet, id))
	if err != nil {
		return stockd.SKU{}, fmt.Errorf("postgres: get sku %q: %w", id, interpretError(err))
	}
	return sku, nil
}

// SKUList implements store.Store.SKUList.
func (s *Store) SKUList(ctx context.Context, after string, limit int) ([]stockd.SKU, error) {
	return list(ctx, s.pool, "list skus", scanSKU, querySKUList, after, min(max(limit, 1), stockd.PageSizeMax))
}

// LocationList returns every location by priority, then id.
func (s *Store) LocationList(ctx context.Context) ([]stockd.Location, error) {
	return list(ctx, s.pool, "list locations", scanLocation, queryLocationList)
}

// PositionListBySKU returns the SKU's positions by location priority,
// location and pool.
func (s *Store) PositionListBySKU(ctx context.Context, sku string) ([]stockd.Position, error) {
	return list(ctx, s.pool, "list positions", scanPosition, queryPositionListBySKU, sku)
}

// ReservationGet returns the reservation, or an error wrapping
// stockd.ErrNotFound.
func (s *Store) ReservationGet(ctx context.Context, id string) (stockd.Reservation, error) {
	r, err := scanReservation(s.pool.QueryRow(ctx, queryReservationGet, id))
	if err != nil {
		return stockd.Reservation{}, fmt.Errorf("postgres: get reservation %q: %w", id, interpretError(err))
	}
	return r, nil
}

// ReservationGetByKey returns the reservation made under an idempotency key,
// or an error wrapping stockd.ErrNotFound.
func (s *Store) ReservationGetByKey(ctx context.Context, key string) (stockd.Reservation, error) {
	r, err := scanReservation(s.pool.QueryRow(ctx, queryReservationGetByKey, key))
	if err != nil {
		return stockd.Reservation{}, fmt.Errorf("postgres: get reservation by key: %w", interpretError(err))
	}
	return r, nil
}

// DocumentGet returns one document, or an error wrapping
// stockd.ErrNotFound.
func (s *Store) DocumentGet(ctx context.Context, key stockd.DocKey) (stockd.Document, error) {
	d, err := scanDocument(s.pool.QueryRow(ctx, queryDocumentGet, key.Kind, key.ID))
	if err != nil {
		return stockd.Document{}, fmt.Errorf("postgres: get document %s/%s: %w", key.Kind, key.ID, interpretError(err))
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
	return list(ctx, s.pool, "list documents", scanDocument, queryDocumentList, p.Kind, p.After, limit)
}

// ReservationListDue returns ids of pending reservations due at now, oldest
// deadline first, at most limit.
func (s *Store) ReservationListDue(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil // PostgreSQL refuses a negative LIMIT
	}
	return list(ctx, s.pool, "list due reservations", scanString, queryReservationListDue, now.UTC(), limit)
}

// LedgerList returns a page of the ledger after p.After in seq order. A
// limit of zero or less means stockd.PageSizeDefault; above
// stockd.PageSizeMax it is capped. Tx.Write makes seq visible in commit
// order, so paging by seq never skips an entry.
func (s *Store) LedgerList(ctx context.Context, p store.LedgerListParams) ([]stockd.LedgerEntry, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	if p.Filtered() {
		query, anchor := ledgerFilteredQuery(p)
		from, to := p.TimeRange()
		return list(ctx, s.pool, "list ledger", scanLedgerEntry, query, anchor, p.After,
			p.SKU, p.Type, p.BusinessID, p.ReservationID, p.Location, from, to, limit)
	}
	if p.SKU == "" {
		return list(ctx, s.pool, "list ledger", scanLedgerEntry, queryLedgerList, p.After, limit)
	}
	return list(ctx, s.pool, "list ledger", scanLedgerEntry, queryLedgerListBySKU, p.SKU, p.After, limit)
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

// AuditRead runs fn in one read-only REPEATABLE READ transaction: every
// stream sees the same snapshot.
func (s *Store) AuditRead(ctx context.Context, fn func(store.AuditReader) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin audit snapshot: %w", interpretError(err))
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to undo
	return fn(auditReader{q: tx})
}

// ConcurrentWriters is true: batches lock rows, not the database.
func (s *Store) ConcurrentWriters() bool { return true }

type auditReader struct{ q querier }

// PositionEach streams every position in key order.
func (a auditReader) PositionEach(ctx context.Context, fn func(stockd.Position) error) error {
	return each(ctx, a.q, "read positions", scanPosition, fn, queryPositionEach)
}

// LedgerEachByPosition streams the ledger by SKU, location, pool, then seq.
func (a auditReader) LedgerEachByPosition(ctx context.Context, fn func(stockd.LedgerEntry) error) error {
	return each(ctx, a.q, "read ledger", scanLedgerEntry, fn, queryLedgerEachByPosition)
}

// ReservationOpenEach streams pending and confirmed reservations by id.
func (a auditReader) ReservationOpenEach(ctx context.Context, fn func(stockd.Reservation) error) error {
	return each(ctx, a.q, "read open reservations", scanReservation, fn, queryReservationOpenEach)
}

// queryDocumentEach reads one kind's documents for the audit, which checks
// in_transit and incoming against the transfers and purchase orders.
const queryDocumentEach = `SELECT ` + documentColumns + ` FROM documents WHERE kind = $1 ORDER BY id`

// DocumentEach streams every document of kind by id.
func (a auditReader) DocumentEach(ctx context.Context, kind string, fn func(stockd.Document) error) error {
	return each(ctx, a.q, "read documents of kind "+kind, scanDocument, fn, queryDocumentEach, kind)
}

// IdempotencyGet returns the stored answers for those keys that have one,
// outside any batch: the engine asks before refusing a sold-out request
// without a transaction, so a retry is still a replay.
func (s *Store) IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return list(ctx, s.pool, "read idempotency keys", scanIdempotencyRecord, queryIdempotencyGet, keys)
}

// ReservationList returns a page of reservations that pass p's filters.
func (s *Store) ReservationList(ctx context.Context, p store.ReservationListParams) ([]stockd.Reservation, error) {
	query, anchor := reservationListQuery(p)
	return list(ctx, s.pool, "list reservations", scanReservation, query, anchor, p.After,
		string(p.Status), p.CustomerID, p.OrderID, p.Before(), p.SKU, store.PageLimit(p.Limit))
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
		return nil, fmt.Errorf("postgres: positions of %d skus: at most %d", len(skus), stockd.PageSizeMax)
	}
	return list(ctx, s.pool, "list positions", scanPosition, queryPositionListBySKUs, skus)
}
