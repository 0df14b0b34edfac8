package sqlite

import (
	"context"
	"database/sql"
)

// querier is what the read pool (*sql.DB) and a batch (*sql.Tx) share, so a
// read is written once for both.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryEach runs query and hands every row, scanned, to fn, stopping at the
// first error of either. It streams: rows are not collected.
func queryEach[T any](ctx context.Context, q querier, query string, scan func(rowScanner) (T, error), fn func(T) error, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return interpretError(err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return interpretError(err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return interpretError(err)
	}
	return interpretError(rows.Close())
}

// queryAll runs query and returns every row, scanned.
func queryAll[T any](ctx context.Context, q querier, query string, scan func(rowScanner) (T, error), args ...any) ([]T, error) {
	var all []T
	err := queryEach(ctx, q, query, scan, func(v T) error {
		all = append(all, v)
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	return all, nil
}

// queryOne runs a query for one row; no row is stockd.ErrNotFound.
func queryOne[T any](ctx context.Context, q querier, query string, scan func(rowScanner) (T, error), args ...any) (T, error) {
	v, err := scan(q.QueryRowContext(ctx, query, args...))
	return v, interpretError(err)
}
