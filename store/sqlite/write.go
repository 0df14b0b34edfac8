package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stockd/stockd"
)

// statementRowsMax bounds the rows one statement of Write carries (its
// parameters are rows × columns, under SQLite's 32,766). Rows are written in
// statements of statementRowsMax, 16, 4 and 1 rows, so a table's rows take
// at most rows/statementRowsMax + 9 statements, and each statement text is
// one of four per table, prepared once per writer connection.
const statementRowsMax = 64

// Write applies a batch's writes in the order foreign keys need: new SKUs
// and locations and their changes, new positions, then counters,
// reservations, documents, ledger entries and idempotency records.
//
// Each step writes its rows through multi-row statements (execRows): a
// statement per row spent as much in database/sql and in starting and
// ending the statement as in the B-tree writes it made.
func (t *tx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	freeing, holding, created := w.ReservationsUpdatedSplit()
	var docsNew, docsChanged []stockd.Document
	for _, d := range w.Documents {
		if d.Version == 1 {
			docsNew = append(docsNew, d)
		} else {
			docsChanged = append(docsChanged, d)
		}
	}
	steps := []struct {
		what      string
		statement *rowsStatement
		rows      int
		args      func(i int, values []any) ([]any, error)
	}{
		{"insert skus", &writeSKUInsert, len(w.SKUs), func(i int, values []any) ([]any, error) {
			s := &w.SKUs[i]
			return append(values, s.ID, s.Name, s.Unit, s.Deduction, s.ApprovalThreshold, s.Bundle, unixMicros(s.CreatedAt)), nil
		}},
		{"update skus", &writeSKUUpdate, len(w.SKUsUpdated), func(i int, values []any) ([]any, error) {
			s := &w.SKUsUpdated[i]
			return append(values, s.Name, s.Unit, s.Deduction, s.ApprovalThreshold, s.ID), nil
		}},
		{"insert locations", &writeLocationInsert, len(w.Locations), func(i int, values []any) ([]any, error) {
			l := &w.Locations[i]
			return append(values, l.ID, l.Name, l.Priority, l.Inactive, unixMicros(l.CreatedAt)), nil
		}},
		{"update locations", &writeLocationUpdate, len(w.LocationsUpdated), func(i int, values []any) ([]any, error) {
			l := &w.LocationsUpdated[i]
			return append(values, l.Name, l.Priority, l.Inactive, l.ID), nil
		}},
		{"insert positions", &writePositionInsert, len(w.NewPositions), func(i int, values []any) ([]any, error) {
			k := &w.NewPositions[i].PositionKey
			return append(values, k.SKU, k.Location, k.Pool), nil
		}},
		{"update positions", &writePositionUpdate, len(w.Positions), func(i int, values []any) ([]any, error) {
			p := &w.Positions[i]
			return append(values, p.OnHand, p.Reserved, p.Committed, p.Quarantined, p.InTransit, p.Incoming, p.SKU, p.Location, p.Pool), nil
		}},
		// Rows that existed are updated before new ones are inserted, so
		// that a reservation released in the batch frees its order for one
		// created after it (the unique index reservations_order_id); and
		// those that free their order id first, in statements of their own,
		// so that one that takes an order id back finds it free.
		{"update reservations freeing their order", &writeReservationUpdate, len(freeing), func(i int, values []any) ([]any, error) {
			return reservationUpdateArgs(values, &freeing[i])
		}},
		{"update reservations", &writeReservationUpdate, len(holding), func(i int, values []any) ([]any, error) {
			return reservationUpdateArgs(values, &holding[i])
		}},
		{"insert reservations", &writeReservationInsert, len(w.ReservationsNew), func(i int, values []any) ([]any, error) {
			r := &w.ReservationsNew[i]
			lines, err := json.Marshal(r.Lines)
			if err != nil {
				return nil, fmt.Errorf("encode lines of reservation %q: %w", r.ID, err)
			}
			// lines is bound as a string: a []byte would be a BLOB, which
			// the STRICT TEXT column refuses.
			return append(values, r.ID, r.Key, string(r.Status), string(lines),
				unixMicros(r.ExpiresAt), unixMicros(r.CreatedAt), unixMicros(r.UpdatedAt), r.ReleaseReason, r.CustomerID, r.OrderID), nil
		}},
		{"update new reservations", &writeReservationUpdate, len(created), func(i int, values []any) ([]any, error) {
			return reservationUpdateArgs(values, &created[i])
		}},
		{"insert references", &writeReferenceInsert, len(w.References), func(i int, values []any) ([]any, error) {
			r := &w.References[i]
			return append(values, r.BusinessType, r.Reference, r.SKU, r.BusinessID, unixMicros(r.CreatedAt)), nil
		}},
		{"insert documents", &writeDocumentInsert, len(docsNew), func(i int, values []any) ([]any, error) {
			d := &docsNew[i]
			return append(values, d.Kind, d.ID, string(d.Body), unixMicros(d.CreatedAt), unixMicros(d.UpdatedAt)), nil
		}},
		{"update documents", &writeDocumentUpdate, len(docsChanged), func(i int, values []any) ([]any, error) {
			d := &docsChanged[i]
			return append(values, d.Version, string(d.Body), unixMicros(d.UpdatedAt), d.Kind, d.ID), nil
		}},
		{"insert ledger entries", &writeLedgerInsert, len(w.Ledger), func(i int, values []any) ([]any, error) {
			e := &w.Ledger[i]
			return append(values, e.BusinessType, e.BusinessID, e.Position.SKU, e.Position.Location, e.Position.Pool,
				e.Delta.OnHand, e.Delta.Reserved, e.Delta.Committed, e.Delta.Quarantined, e.Delta.InTransit, e.Delta.Incoming,
				e.After.OnHand, e.After.Reserved, e.After.Committed, e.After.Quarantined, e.After.InTransit, e.After.Incoming,
				e.ReservationID, e.Actor, e.Reason, e.Approver, e.Reference, unixMicros(e.CreatedAt)), nil
		}},
		{"insert idempotency records", &writeIdempotencyInsert, len(w.Idempotency), func(i int, values []any) ([]any, error) {
			r := &w.Idempotency[i]
			return append(values, r.Key, r.RequestHash, r.Result, unixMicros(r.CreatedAt)), nil
		}},
	}
	var values []any
	for _, step := range steps {
		var err error
		if values, err = t.execRows(ctx, values, step.statement, step.rows, step.args); err != nil {
			return fmt.Errorf("%s: %w", step.what, err)
		}
	}
	return t.writeExceptions(ctx, w.Exceptions, w.ExceptionsUpdated)
}

func reservationUpdateArgs(values []any, r *stockd.Reservation) ([]any, error) {
	lines, err := json.Marshal(r.Lines)
	if err != nil {
		return nil, fmt.Errorf("encode lines of reservation %q: %w", r.ID, err)
	}
	return append(values, string(r.Status), unixMicros(r.UpdatedAt), r.ReleaseReason, string(lines), unixMicros(r.ExpiresAt), r.ID), nil
}

// statementRows is how many rows the next statement of execRows carries
// when rows are left: the largest of statementRowsMax, 16, 4 and 1 that fits.
func statementRows(left int) int {
	for _, rows := range [...]int{statementRowsMax, 16, 4} {
		if left >= rows {
			return rows
		}
	}
	return 1
}

// execRows writes rows rows through statement, the arguments of row i
// appended by args, as few statements as statementRows allows. Each row
// must change exactly one row: every statement of Write inserts or updates
// by primary key, so any other count is a bug (an update of a row that
// vanished, the same key twice) and fails the batch. values is scratch
// space, returned for the next call.
func (t *tx) execRows(ctx context.Context, values []any, statement *rowsStatement, rows int, args func(i int, values []any) ([]any, error)) ([]any, error) {
	for first := 0; first < rows; {
		n := statementRows(rows - first)
		stmt, err := t.statements.get(ctx, t.sqlTx, statement, n)
		if err != nil {
			return values, err
		}
		values = values[:0]
		for i := first; i < first+n; i++ {
			if values, err = args(i, values); err != nil {
				return values, err
			}
		}
		result, err := stmt.ExecContext(ctx, values...)
		if err != nil {
			return values, fmt.Errorf("rows %d to %d: %w", first, first+n-1, interpretError(err))
		}
		changed, err := result.RowsAffected()
		if err != nil {
			return values, fmt.Errorf("rows %d to %d: rows affected: %w", first, first+n-1, err)
		}
		if changed != int64(n) {
			return values, fmt.Errorf("rows %d to %d: changed %d rows, want %d", first, first+n-1, changed, n)
		}
		first += n
	}
	return values, nil
}

// rowsStatement is a statement that writes many rows: head, then row once
// per row, comma-separated, then tail. Its text depends on the row count
// only, never on input.
type rowsStatement struct {
	head, row, tail string
}

func (s *rowsStatement) text(rows int) string {
	return s.head + s.row + strings.Repeat(", "+s.row, rows-1) + s.tail
}

// writeStatements holds Write's statements, prepared on the writer pool
// (one connection) once and kept until Close: a 64-row statement takes
// about as long to prepare as to run. They are prepared before a batch
// begins, since the batch holds the one connection; before Migrate has
// created the tables they cannot be, and each batch prepares its own.
type writeStatements struct {
	writer *sql.DB
	// preparing serialises prepareAll. A batch never takes it: prepareAll
	// waits for the writer connection, which a batch holds.
	preparing sync.Mutex
	// prepared has one entry per statement of writeRowsStatements and row
	// count of statementRows once prepareAll succeeded; nil before.
	prepared atomic.Pointer[map[writeStatementKey]*sql.Stmt]
}

type writeStatementKey struct {
	statement *rowsStatement
	rows      int
}

func newWriteStatements(writer *sql.DB) *writeStatements {
	return &writeStatements{writer: writer}
}

// prepareAll prepares every statement unless done already. It must be
// called outside any batch, since it needs the writer connection.
func (w *writeStatements) prepareAll(ctx context.Context) error {
	if w.prepared.Load() != nil {
		return nil
	}
	w.preparing.Lock()
	defer w.preparing.Unlock()
	if w.prepared.Load() != nil {
		return nil
	}
	prepared := make(map[writeStatementKey]*sql.Stmt)
	for _, statement := range writeRowsStatements {
		for _, rows := range [...]int{statementRowsMax, 16, 4, 1} {
			stmt, err := w.writer.PrepareContext(ctx, statement.text(rows))
			if err != nil {
				err = fmt.Errorf("prepare %d-row statement: %w", rows, interpretError(err))
				for _, s := range prepared {
					err = errors.Join(err, s.Close())
				}
				return err
			}
			prepared[writeStatementKey{statement, rows}] = stmt
		}
	}
	w.prepared.Store(&prepared)
	return nil
}

// get returns statement for rows rows in sqlTx: the one prepareAll
// prepared, or else one prepared now, which sqlTx's end closes.
func (w *writeStatements) get(ctx context.Context, sqlTx *sql.Tx, statement *rowsStatement, rows int) (*sql.Stmt, error) {
	if prepared := w.prepared.Load(); prepared != nil {
		if stmt, ok := (*prepared)[writeStatementKey{statement, rows}]; ok {
			return sqlTx.StmtContext(ctx, stmt), nil
		}
	}
	stmt, err := sqlTx.PrepareContext(ctx, statement.text(rows))
	if err != nil {
		return nil, fmt.Errorf("prepare %d-row statement: %w", rows, interpretError(err))
	}
	return stmt, nil
}

// Close closes the prepared statements; no batch may run during or after
// it.
func (w *writeStatements) Close() error {
	w.preparing.Lock()
	defer w.preparing.Unlock()
	prepared := w.prepared.Swap(nil)
	if prepared == nil {
		return nil
	}
	var errs []error
	for _, stmt := range *prepared {
		errs = append(errs, stmt.Close())
	}
	return errors.Join(errs...)
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
