package sqlite

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stockd/stockd"
)

// statementRowsMax bounds the rows one statement of Write carries: a
// batch of stockd.BatchSizeMax commands may write several thousand ledger
// rows, and the JSON text of 1,024 of them is about 250 KB.
const statementRowsMax = 1024

// Write applies a batch's writes in the order foreign keys need: new SKUs
// and locations and their changes, new positions, then counters,
// reservations, documents, ledger entries and idempotency records.
//
// Each step writes all its rows with one statement (per statementRowsMax
// rows), the rows passed as one JSON array: a statement per row cost about
// as much in database/sql and the VDBE's per-statement work as the B-tree
// writes it made.
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
		what   string
		query  string
		rows   int
		encode func(i int, row *jsonRow) error
	}{
		{"insert skus", querySKUInsert, len(w.SKUs), func(i int, row *jsonRow) error {
			s := &w.SKUs[i]
			row.text(s.ID)
			row.text(s.Name)
			row.text(s.Unit)
			row.text(s.Deduction)
			row.integer(s.ApprovalThreshold)
			row.flag(s.Bundle)
			row.time(s.CreatedAt)
			return nil
		}},
		{"update skus", querySKUUpdate, len(w.SKUsUpdated), func(i int, row *jsonRow) error {
			s := &w.SKUsUpdated[i]
			row.text(s.Name)
			row.text(s.Unit)
			row.text(s.Deduction)
			row.integer(s.ApprovalThreshold)
			row.text(s.ID)
			return nil
		}},
		{"insert locations", queryLocationInsert, len(w.Locations), func(i int, row *jsonRow) error {
			l := &w.Locations[i]
			row.text(l.ID)
			row.text(l.Name)
			row.integer(int64(l.Priority))
			row.flag(l.Inactive)
			row.time(l.CreatedAt)
			return nil
		}},
		{"update locations", queryLocationUpdate, len(w.LocationsUpdated), func(i int, row *jsonRow) error {
			l := &w.LocationsUpdated[i]
			row.text(l.Name)
			row.integer(int64(l.Priority))
			row.flag(l.Inactive)
			row.text(l.ID)
			return nil
		}},
		{"insert positions", queryPositionInsert, len(w.NewPositions), func(i int, row *jsonRow) error {
			row.positionKey(w.NewPositions[i].PositionKey)
			return nil
		}},
		{"update positions", queryPositionUpdate, len(w.Positions), func(i int, row *jsonRow) error {
			p := &w.Positions[i]
			row.counters(p.Counters)
			row.positionKey(p.PositionKey)
			return nil
		}},
		// Rows that existed are updated before new ones are inserted, so
		// that a reservation released in the batch frees its order for one
		// created after it (the unique index reservations_order_id); and
		// those that free their order id first, in a statement of their
		// own, so that one that takes an order id back finds it free.
		{"update reservations freeing their order", queryReservationUpdate, len(freeing), func(i int, row *jsonRow) error {
			return row.reservationUpdate(&freeing[i])
		}},
		{"update reservations", queryReservationUpdate, len(holding), func(i int, row *jsonRow) error {
			return row.reservationUpdate(&holding[i])
		}},
		{"insert reservations", queryReservationInsert, len(w.ReservationsNew), func(i int, row *jsonRow) error {
			r := &w.ReservationsNew[i]
			lines, err := json.Marshal(r.Lines)
			if err != nil {
				return fmt.Errorf("encode lines of reservation %q: %w", r.ID, err)
			}
			row.text(r.ID)
			row.text(r.Key)
			row.text(string(r.Status))
			row.text(string(lines))
			row.time(r.ExpiresAt)
			row.time(r.CreatedAt)
			row.time(r.UpdatedAt)
			row.text(r.ReleaseReason)
			row.text(r.CustomerID)
			row.text(r.OrderID)
			return nil
		}},
		{"update new reservations", queryReservationUpdate, len(created), func(i int, row *jsonRow) error {
			return row.reservationUpdate(&created[i])
		}},
		{"insert references", queryReferenceInsert, len(w.References), func(i int, row *jsonRow) error {
			r := &w.References[i]
			row.text(r.BusinessType)
			row.text(r.Reference)
			row.text(r.SKU)
			row.text(r.BusinessID)
			row.time(r.CreatedAt)
			return nil
		}},
		{"insert documents", queryDocumentInsert, len(docsNew), func(i int, row *jsonRow) error {
			d := &docsNew[i]
			row.text(d.Kind)
			row.text(d.ID)
			row.text(string(d.Body))
			row.time(d.CreatedAt)
			row.time(d.UpdatedAt)
			return nil
		}},
		{"update documents", queryDocumentUpdate, len(docsChanged), func(i int, row *jsonRow) error {
			d := &docsChanged[i]
			row.integer(d.Version)
			row.text(string(d.Body))
			row.time(d.UpdatedAt)
			row.text(d.Kind)
			row.text(d.ID)
			return nil
		}},
		{"insert ledger entries", queryLedgerInsert, len(w.Ledger), func(i int, row *jsonRow) error {
			e := &w.Ledger[i]
			row.text(e.BusinessType)
			row.text(e.BusinessID)
			row.positionKey(e.Position)
			row.counters(e.Delta)
			row.counters(e.After)
			row.text(e.ReservationID)
			row.text(e.Actor)
			row.text(e.Reason)
			row.text(e.Approver)
			row.text(e.Reference)
			row.time(e.CreatedAt)
			return nil
		}},
		{"insert idempotency records", queryIdempotencyInsertRows, len(w.Idempotency), func(i int, row *jsonRow) error {
			r := &w.Idempotency[i]
			row.text(r.Key)
			row.text(r.RequestHash)
			row.hex(r.Result)
			row.time(r.CreatedAt)
			return nil
		}},
	}
	var buf []byte
	for _, step := range steps {
		var err error
		if buf, err = t.execRows(ctx, buf, step.query, step.rows, step.encode); err != nil {
			return fmt.Errorf("%s: %w", step.what, err)
		}
	}
	return t.writeExceptions(ctx, w.Exceptions, w.ExceptionsUpdated)
}

// execRows executes query, which writes the rows of a JSON array, for rows
// rows encoded by encode, statementRowsMax at a time. Each row must change
// exactly one row: every statement of Write inserts or updates by primary
// key, so any other count is a bug (an update of a row that vanished, the
// same key twice) and fails the batch. buf is scratch space, returned for
// the next call.
func (t *tx) execRows(ctx context.Context, buf []byte, query string, rows int, encode func(i int, row *jsonRow) error) ([]byte, error) {
	for first := 0; first < rows; first += statementRowsMax {
		end := min(first+statementRowsMax, rows)
		buf = append(buf[:0], '[')
		for i := first; i < end; i++ {
			if i > first {
				buf = append(buf, ',')
			}
			row := jsonRow{b: append(buf, '[')}
			if err := encode(i, &row); err != nil {
				return buf, err
			}
			buf = append(row.b, ']')
		}
		buf = append(buf, ']')
		// Bound as a string: json_each reads TEXT.
		result, err := t.sqlTx.ExecContext(ctx, query, string(buf))
		if err != nil {
			return buf, fmt.Errorf("rows %d to %d: %w", first, end-1, interpretError(err))
		}
		changed, err := result.RowsAffected()
		if err != nil {
			return buf, fmt.Errorf("rows %d to %d: rows affected: %w", first, end-1, err)
		}
		if want := int64(end - first); changed != want {
			return buf, fmt.Errorf("rows %d to %d: changed %d rows, want %d", first, end-1, changed, want)
		}
	}
	return buf, nil
}

// jsonRow appends one row of a statement's JSON array, value by value.
type jsonRow struct {
	b      []byte
	values int
}

func (r *jsonRow) next() {
	if r.values > 0 {
		r.b = append(r.b, ',')
	}
	r.values++
}

func (r *jsonRow) text(s string) {
	r.next()
	r.b = appendJSONString(r.b, s)
}

func (r *jsonRow) integer(v int64) {
	r.next()
	r.b = strconv.AppendInt(r.b, v, 10)
}

// flag writes a bool as the 0 or 1 of the INTEGER columns that hold them.
func (r *jsonRow) flag(v bool) {
	if v {
		r.integer(1)
	} else {
		r.integer(0)
	}
}

// time writes unix microseconds, as every time column holds them.
func (r *jsonRow) time(t time.Time) { r.integer(unixMicros(t)) }

// hex writes bytes as a hex string, for unhex() into a BLOB column.
func (r *jsonRow) hex(b []byte) {
	r.next()
	r.b = append(r.b, '"')
	r.b = hex.AppendEncode(r.b, b)
	r.b = append(r.b, '"')
}

func (r *jsonRow) positionKey(k stockd.PositionKey) {
	r.text(k.SKU)
	r.text(k.Location)
	r.text(k.Pool)
}

func (r *jsonRow) counters(c stockd.Counters) {
	r.integer(c.OnHand)
	r.integer(c.Reserved)
	r.integer(c.Committed)
	r.integer(c.Quarantined)
	r.integer(c.InTransit)
	r.integer(c.Incoming)
}

func (r *jsonRow) reservationUpdate(res *stockd.Reservation) error {
	lines, err := json.Marshal(res.Lines)
	if err != nil {
		return fmt.Errorf("encode lines of reservation %q: %w", res.ID, err)
	}
	r.text(string(res.Status))
	r.time(res.UpdatedAt)
	r.text(res.ReleaseReason)
	r.text(string(lines))
	r.time(res.ExpiresAt)
	r.text(res.ID)
	return nil
}

// appendJSONString appends s as a JSON string whose value SQLite reads back
// byte for byte: only the quote, the backslash and control characters are
// escaped. Other bytes, invalid UTF-8 included, are copied as they are,
// which SQLite's JSON parser keeps (encoding/json would replace invalid
// UTF-8 with U+FFFD, and a per-row bind stored it unchanged).
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
