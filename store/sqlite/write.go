package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stockd/stockd"
)

// Write applies a batch's writes in the order foreign keys need: new SKUs
// and locations and their changes, new positions, then counters,
// reservations, documents, ledger entries and idempotency records.
//
// Each statement is prepared once per Write and executed once per row: a
// batch can hold stockd.BatchSizeMax commands, each writing several rows,
// and a prepare costs about what a row does.
func (t *tx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	freeing, holding, created := w.ReservationsUpdatedSplit()
	// One row at a time, in this order: the rows that free an order id first.
	existing := append(freeing, holding...)
	var docsNew, docsChanged []stockd.Document
	for _, d := range w.Documents {
		if d.Version == 1 {
			docsNew = append(docsNew, d)
		} else {
			docsChanged = append(docsChanged, d)
		}
	}
	steps := []struct {
		what  string
		query string
		rows  int
		args  func(i int) ([]any, error)
	}{
		{"insert skus", querySKUInsert, len(w.SKUs), func(i int) ([]any, error) {
			s := &w.SKUs[i]
			return []any{s.ID, s.Name, s.Unit, s.Deduction, s.ApprovalThreshold, s.Bundle, unixMicros(s.CreatedAt)}, nil
		}},
		{"update skus", querySKUUpdate, len(w.SKUsUpdated), func(i int) ([]any, error) {
			s := &w.SKUsUpdated[i]
			return []any{s.Name, s.Unit, s.Deduction, s.ApprovalThreshold, s.ID}, nil
		}},
		{"insert locations", queryLocationInsert, len(w.Locations), func(i int) ([]any, error) {
			l := &w.Locations[i]
			return []any{l.ID, l.Name, l.Priority, l.Inactive, unixMicros(l.CreatedAt)}, nil
		}},
		{"update locations", queryLocationUpdate, len(w.LocationsUpdated), func(i int) ([]any, error) {
			l := &w.LocationsUpdated[i]
			return []any{l.Name, l.Priority, l.Inactive, l.ID}, nil
		}},
		{"insert positions", queryPositionInsert, len(w.NewPositions), func(i int) ([]any, error) {
			k := &w.NewPositions[i].PositionKey
			return []any{k.SKU, k.Location, k.Pool}, nil
		}},
		{"update positions", queryPositionUpdate, len(w.Positions), func(i int) ([]any, error) {
			p := &w.Positions[i]
			return []any{p.OnHand, p.Reserved, p.Committed, p.Quarantined, p.InTransit, p.Incoming, p.SKU, p.Location, p.Pool}, nil
		}},
		// Rows that existed are updated before new ones are inserted, so
		// that a reservation released in the batch frees its order for one
		// created after it (the unique index reservations_order_id).
		{"update reservations", queryReservationUpdate, len(existing), func(i int) ([]any, error) {
			return reservationUpdateArgs(&existing[i])
		}},
		{"insert reservations", queryReservationInsert, len(w.ReservationsNew), func(i int) ([]any, error) {
			r := &w.ReservationsNew[i]
			lines, err := json.Marshal(r.Lines)
			if err != nil {
				return nil, fmt.Errorf("encode lines of reservation %q: %w", r.ID, err)
			}
			// lines is bound as a string: a []byte would be a BLOB, which
			// the STRICT TEXT column refuses.
			return []any{r.ID, r.Key, string(r.Status), string(lines),
				unixMicros(r.ExpiresAt), unixMicros(r.CreatedAt), unixMicros(r.UpdatedAt), r.ReleaseReason, r.CustomerID, r.OrderID}, nil
		}},
		{"update new reservations", queryReservationUpdate, len(created), func(i int) ([]any, error) {
			return reservationUpdateArgs(&created[i])
		}},
		{"insert references", queryReferenceInsert, len(w.References), func(i int) ([]any, error) {
			r := &w.References[i]
			return []any{r.BusinessType, r.Reference, r.SKU, r.BusinessID, unixMicros(r.CreatedAt)}, nil
		}},
		{"insert documents", queryDocumentInsert, len(docsNew), func(i int) ([]any, error) {
			d := &docsNew[i]
			return []any{d.Kind, d.ID, string(d.Body), unixMicros(d.CreatedAt), unixMicros(d.UpdatedAt)}, nil
		}},
		{"update documents", queryDocumentUpdate, len(docsChanged), func(i int) ([]any, error) {
			d := &docsChanged[i]
			return []any{d.Version, string(d.Body), unixMicros(d.UpdatedAt), d.Kind, d.ID, d.Version}, nil
		}},
		{"insert ledger entries", queryLedgerInsert, len(w.Ledger), func(i int) ([]any, error) {
			e := &w.Ledger[i]
			return []any{e.BusinessType, e.BusinessID, e.Position.SKU, e.Position.Location, e.Position.Pool,
				e.Delta.OnHand, e.Delta.Reserved, e.Delta.Committed, e.Delta.Quarantined, e.Delta.InTransit, e.Delta.Incoming,
				e.After.OnHand, e.After.Reserved, e.After.Committed, e.After.Quarantined, e.After.InTransit, e.After.Incoming,
				e.ReservationID, e.Actor, e.Reason, e.Approver, e.Reference, unixMicros(e.CreatedAt)}, nil
		}},
		{"insert idempotency records", queryIdempotencyInsert, len(w.Idempotency), func(i int) ([]any, error) {
			r := &w.Idempotency[i]
			return []any{r.Key, r.RequestHash, r.Result, unixMicros(r.CreatedAt)}, nil
		}},
	}
	for _, step := range steps {
		if err := t.execEachRow(ctx, step.query, step.rows, step.args); err != nil {
			return fmt.Errorf("%s: %w", step.what, err)
		}
	}
	return t.writeExceptions(ctx, w.Exceptions, w.ExceptionsUpdated)
}

func reservationUpdateArgs(r *stockd.Reservation) ([]any, error) {
	lines, err := json.Marshal(r.Lines)
	if err != nil {
		return nil, fmt.Errorf("encode lines of reservation %q: %w", r.ID, err)
	}
	return []any{string(r.Status), unixMicros(r.UpdatedAt), r.ReleaseReason, string(lines), unixMicros(r.ExpiresAt), r.ID}, nil
}

// execEachRow prepares query once and executes it for rows rows, each of
// which must change exactly one row: every statement of Write inserts or
// updates by primary key, so any other count is a bug (an update of a row
// that vanished) and fails the batch.
func (t *tx) execEachRow(ctx context.Context, query string, rows int, args func(i int) ([]any, error)) (err error) {
	if rows == 0 {
		return nil
	}
	stmt, err := t.sqlTx.PrepareContext(ctx, query)
	if err != nil {
		return fmt.Errorf("prepare: %w", interpretError(err))
	}
	defer func() {
		if closeErr := stmt.Close(); closeErr != nil {
			err = errors.Join(err, fmt.Errorf("close statement: %w", closeErr))
		}
	}()
	for i := range rows {
		values, err := args(i)
		if err != nil {
			return err
		}
		result, err := stmt.ExecContext(ctx, values...)
		if err != nil {
			return fmt.Errorf("row %d: %w", i, interpretError(err))
		}
		changed, err := result.RowsAffected()
		if err != nil {
			return fmt.Errorf("row %d: rows affected: %w", i, err)
		}
		if changed != 1 {
			return fmt.Errorf("row %d: changed %d rows, want 1", i, changed)
		}
	}
	return nil
}
