package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// SQLSTATE codes this backend interprets.
const (
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	codeUniqueViolation      = "23505"
	codeCheckViolation       = "23514"
)

// interpretError turns driver errors into the seam's sentinels, matching
// SQLSTATE codes, never message text:
//   - a serialization failure, a deadlock or a unique key another
//     transaction inserted first mean the batch lost a race the database
//     caught and nothing was applied: store.ErrRetry;
//   - no rows is stockd.ErrNotFound;
//   - a CHECK violation means the domain let a counter go negative, a bug a
//     retry would only repeat, so it is reported as such.
//
// The original error stays in the chain.
func interpretError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %w", stockd.ErrNotFound, err)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case codeSerializationFailure, codeDeadlockDetected, codeUniqueViolation:
		return fmt.Errorf("%w: %w", store.ErrRetry, err)
	case codeCheckViolation:
		return fmt.Errorf("postgres: books guard %s rejected a write (a bug, not a conflict): %w", pgErr.ConstraintName, err)
	}
	return err
}
