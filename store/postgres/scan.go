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

// querier is what the pool and a transaction share: reads run on either.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// scanner is a pgx.Row or pgx.Rows positioned on a row.
type scanner interface {
	Scan(dest ...any) error
}

func scanSKU(row scanner) (stockd.SKU, error) {
	var s stockd.SKU
	if err := row.Scan(&s.ID, &s.Name, &s.Unit, &s.Deduction, &s.ApprovalThreshold, &s.Bundle, &s.CreatedAt, &s.AlertLine); err != nil {
		return stockd.SKU{}, err
	}
	s.CreatedAt = s.CreatedAt.UTC()
	return s, nil
}

func scanLocation(row scanner) (stockd.Location, error) {
	var l stockd.Location
	if err := row.Scan(&l.ID, &l.Name, &l.Priority, &l.Inactive, &l.CreatedAt); err != nil {
		return stockd.Location{}, err
	}
	l.CreatedAt = l.CreatedAt.UTC()
	return l, nil
}

// scanPosition reads positionColumns.
func scanPosition(row scanner) (stockd.Position, error) {
	var p stockd.Position
	err := row.Scan(&p.SKU, &p.Location, &p.Pool, &p.OnHand, &p.Reserved, &p.Committed, &p.Quarantined,
		&p.InTransit, &p.Incoming, &p.Priority)
	return p, err
}

// scanReservation reads reservationColumns.
func scanReservation(row scanner) (stockd.Reservation, error) {
	var r stockd.Reservation
	var lines []byte
	err := row.Scan(&r.ID, &r.Key, &r.Status, &lines, &r.ExpiresAt, &r.CreatedAt, &r.UpdatedAt, &r.ReleaseReason, &r.CustomerID, &r.OrderID)
	if err != nil {
		return stockd.Reservation{}, err
	}
	if err := json.Unmarshal(lines, &r.Lines); err != nil {
		return stockd.Reservation{}, fmt.Errorf("decode lines of reservation %q: %w", r.ID, err)
	}
	r.ExpiresAt = r.ExpiresAt.UTC()
	r.CreatedAt = r.CreatedAt.UTC()
	r.UpdatedAt = r.UpdatedAt.UTC()
	return r, nil
}

// scanLedgerEntry reads ledgerColumns.
func scanLedgerEntry(row scanner) (stockd.LedgerEntry, error) {
	var e stockd.LedgerEntry
	err := row.Scan(&e.Seq, &e.BusinessType, &e.BusinessID, &e.Position.SKU, &e.Position.Location, &e.Position.Pool,
		&e.Delta.OnHand, &e.Delta.Reserved, &e.Delta.Committed, &e.Delta.Quarantined, &e.Delta.InTransit, &e.Delta.Incoming,
		&e.After.OnHand, &e.After.Reserved, &e.After.Committed, &e.After.Quarantined, &e.After.InTransit, &e.After.Incoming,
		&e.ReservationID, &e.Actor, &e.Reason, &e.Approver, &e.Reference, &e.CreatedAt)
	if err != nil {
		return stockd.LedgerEntry{}, err
	}
	e.CreatedAt = e.CreatedAt.UTC()
	return e, nil
}

// list runs a query and scans every row; for bounded results only. what
// names the read in errors.
func list[T any](ctx context.Context, q querier, what string, scan func(scanner) (T, error), sql string, args ...any) ([]T, error) {
	var all []T
	err := each(ctx, q, what, scan, func(v T) error {
		all = append(all, v)
		return nil
	}, sql, args...)
	return all, err
}

// each streams a query's rows to fn as they arrive, never holding them all,
// and stops at fn's first error, which it returns unchanged. Database errors
// are interpreted and wrapped with what.
func each[T any](ctx context.Context, q querier, what string, scan func(scanner) (T, error), fn func(T) error, sql string, args ...any) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, interpretError(err))
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return fmt.Errorf("postgres: %s: %w", what, interpretError(err))
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: %s: %w", what, interpretError(err))
	}
	return nil
}

func scanString(row scanner) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

func scanIdempotencyRecord(row scanner) (stockd.IdempotencyRecord, error) {
	var r stockd.IdempotencyRecord
	var prunedAt *time.Time
	if err := row.Scan(&r.Key, &r.RequestHash, &r.Result, &r.CreatedAt, &prunedAt); err != nil {
		return stockd.IdempotencyRecord{}, err
	}
	r.CreatedAt = r.CreatedAt.UTC()
	if prunedAt != nil {
		r.PrunedAt = prunedAt.UTC()
	}
	return r, nil
}

// scanDocument reads documentColumns.
func scanDocument(row scanner) (stockd.Document, error) {
	var d stockd.Document
	if err := row.Scan(&d.Kind, &d.ID, &d.Version, &d.Body, &d.CreatedAt, &d.UpdatedAt); err != nil {
		return stockd.Document{}, err
	}
	d.CreatedAt = d.CreatedAt.UTC()
	d.UpdatedAt = d.UpdatedAt.UTC()
	return d, nil
}

// scanReference reads a business_references row.
func scanReference(row scanner) (stockd.BusinessReference, error) {
	var r stockd.BusinessReference
	err := row.Scan(&r.BusinessType, &r.Reference, &r.SKU, &r.BusinessID, &r.CreatedAt)
	r.CreatedAt = r.CreatedAt.UTC()
	return r, err
}
