package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stockd/stockd"
)

// Write applies a batch's writes in the order foreign keys need: new SKUs
// and locations, new positions, then counters, reservations, ledger entries
// and idempotency records.
//
// Each statement is prepared once per Write and executed once per row: a
// batch can hold stockd.BatchSizeMax commands, each writing several rows,
// and a prepare costs about what a row does.
func (t *tx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	steps := []struct {
		what  string
		query string
		rows  int
		args  func(i int) ([]any, error)
	}{
		{"insert skus", querySKUInsert, len(w.SKUs), func(i int) ([]any, error) {
			s := &w.SKUs[i]
			return []any{s.ID, s.Name, s.Unit, unixMicros(s.CreatedAt)}, nil
		}},
		{"insert locations", queryLocationInsert, len(w.Locations), func(i int) ([]any, error) {
			l := &w.Locations[i]
			return []any{l.ID, l.Name, l.Priority, unixMicros(l.CreatedAt)}, nil
		}},
		{"insert positions", queryPositionInsert, len(w.NewPositions), func(i int) ([]any, error) {
			k := &w.NewPositions[i].PositionKey
			return []any{k.SKU, k.Location, k.Pool}, nil
		}},
		{"update positions", queryPositionUpdate, len(w.Positions), func(i int) ([]any, error) {
			p := &w.Positions[i]
			return []any{p.OnHand, p.Reserved, p.Committed, p.Quarantined, p.SKU, p.Location, p.Pool}, nil
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
				unixMicros(r.ExpiresAt), unixMicros(r.CreatedAt), unixMicros(r.UpdatedAt), r.ReleaseReason}, nil
		}},
		{"update reservations", queryReservationUpdate, len(w.ReservationsUpdated), func(i int) ([]any, error) {
			r := &w.ReservationsUpdated[i]
			return []any{string(r.Status), unixMicros(r.UpdatedAt), r.ReleaseReason, r.ID}, nil
		}},
		{"insert ledger entries", queryLedgerInsert, len(w.Ledger), func(i int) ([]any, error) {
			e := &w.Ledger[i]
			return []any{e.BusinessType, e.BusinessID, e.Position.SKU, e.Position.Location, e.Position.Pool,
				e.Delta.OnHand, e.Delta.Reserved, e.Delta.Committed, e.Delta.Quarantined,
				e.After.OnHand, e.After.Reserved, e.After.Committed, e.After.Quarantined,
				e.ReservationID, e.Actor, e.Reason, e.Reference, unixMicros(e.CreatedAt)}, nil
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
	return nil
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
