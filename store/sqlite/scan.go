package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/stockd/stockd"
)

// Times are stored as INTEGER unix microseconds: the engine truncates to the
// microsecond, so a time survives the round trip exactly.
func unixMicros(t time.Time) int64 { return t.UnixMicro() }

func timeFromUnixMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// rowScanner is what *sql.Row and *sql.Rows have in common.
type rowScanner interface {
	Scan(dest ...any) error
}

// jsonArray encodes a list of ids or keys as the one parameter that
// json_each expands in queries.go.
func jsonArray[T any](values []T) (string, error) {
	b, err := json.Marshal(values)
	if err != nil {
		return "", fmt.Errorf("encode parameter list: %w", err)
	}
	return string(b), nil
}

func scanSKU(row rowScanner) (stockd.SKU, error) {
	var sku stockd.SKU
	var createdAtMicros int64
	if err := row.Scan(&sku.ID, &sku.Name, &sku.Unit, &sku.Deduction, &sku.ApprovalThreshold, &sku.Bundle, &createdAtMicros, &sku.AlertLine); err != nil {
		return stockd.SKU{}, err
	}
	sku.CreatedAt = timeFromUnixMicros(createdAtMicros)
	return sku, nil
}

func scanLocation(row rowScanner) (stockd.Location, error) {
	var loc stockd.Location
	var createdAtMicros int64
	if err := row.Scan(&loc.ID, &loc.Name, &loc.Priority, &loc.Inactive, &createdAtMicros); err != nil {
		return stockd.Location{}, err
	}
	loc.CreatedAt = timeFromUnixMicros(createdAtMicros)
	return loc, nil
}

func scanPosition(row rowScanner) (stockd.Position, error) {
	var p stockd.Position
	err := row.Scan(&p.SKU, &p.Location, &p.Pool,
		&p.OnHand, &p.Reserved, &p.Committed, &p.Quarantined, &p.InTransit, &p.Incoming, &p.Priority)
	return p, err
}

func scanReservation(row rowScanner) (stockd.Reservation, error) {
	var r stockd.Reservation
	var lines string
	var expiresAtMicros, createdAtMicros, updatedAtMicros int64
	err := row.Scan(&r.ID, &r.Key, &r.Status, &lines,
		&expiresAtMicros, &createdAtMicros, &updatedAtMicros, &r.ReleaseReason, &r.CustomerID, &r.OrderID)
	if err != nil {
		return stockd.Reservation{}, err
	}
	if err := json.Unmarshal([]byte(lines), &r.Lines); err != nil {
		return stockd.Reservation{}, fmt.Errorf("decode lines of reservation %q: %w", r.ID, err)
	}
	r.ExpiresAt = timeFromUnixMicros(expiresAtMicros)
	r.CreatedAt = timeFromUnixMicros(createdAtMicros)
	r.UpdatedAt = timeFromUnixMicros(updatedAtMicros)
	return r, nil
}

func scanLedgerEntry(row rowScanner) (stockd.LedgerEntry, error) {
	var e stockd.LedgerEntry
	var createdAtMicros int64
	err := row.Scan(&e.Seq, &e.BusinessType, &e.BusinessID,
		&e.Position.SKU, &e.Position.Location, &e.Position.Pool,
		&e.Delta.OnHand, &e.Delta.Reserved, &e.Delta.Committed, &e.Delta.Quarantined, &e.Delta.InTransit, &e.Delta.Incoming,
		&e.After.OnHand, &e.After.Reserved, &e.After.Committed, &e.After.Quarantined, &e.After.InTransit, &e.After.Incoming,
		&e.ReservationID, &e.Actor, &e.Reason, &e.Approver, &e.Reference, &createdAtMicros)
	if err != nil {
		return stockd.LedgerEntry{}, err
	}
	e.CreatedAt = timeFromUnixMicros(createdAtMicros)
	return e, nil
}

func scanIdempotencyRecord(row rowScanner) (stockd.IdempotencyRecord, error) {
	var rec stockd.IdempotencyRecord
	var createdAtMicros int64
	var prunedAtMicros sql.NullInt64
	if err := row.Scan(&rec.Key, &rec.RequestHash, &rec.Result, &createdAtMicros, &prunedAtMicros); err != nil {
		return stockd.IdempotencyRecord{}, err
	}
	rec.CreatedAt = timeFromUnixMicros(createdAtMicros)
	if prunedAtMicros.Valid {
		rec.PrunedAt = timeFromUnixMicros(prunedAtMicros.Int64)
	}
	return rec, nil
}

// scanDocument reads documentColumns.
func scanDocument(row rowScanner) (stockd.Document, error) {
	var d stockd.Document
	var body string
	var createdAtMicros, updatedAtMicros int64
	if err := row.Scan(&d.Kind, &d.ID, &d.Version, &body, &createdAtMicros, &updatedAtMicros); err != nil {
		return stockd.Document{}, err
	}
	d.Body = []byte(body)
	d.CreatedAt = timeFromUnixMicros(createdAtMicros)
	d.UpdatedAt = timeFromUnixMicros(updatedAtMicros)
	return d, nil
}

func scanReference(row rowScanner) (stockd.BusinessReference, error) {
	var r stockd.BusinessReference
	var createdAtMicros int64
	err := row.Scan(&r.BusinessType, &r.Reference, &r.SKU, &r.BusinessID, &createdAtMicros)
	r.CreatedAt = timeFromUnixMicros(createdAtMicros)
	return r, err
}
