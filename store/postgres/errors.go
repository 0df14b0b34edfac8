package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

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
	codeReadOnlyTransaction  = "25006"
	codeAdminShutdown        = "57P01"
	codeCrashShutdown        = "57P02"
	codeCannotConnectNow     = "57P03"
	codeRaiseException       = "P0001"
	codeInvalidCatalogName   = "3D000" // the database named does not exist
)

// SQLSTATE classes: the first two characters of a code.
const (
	classConnection           = "08"
	classDataException        = "22"
	classIntegrityConstraint  = "23"
	classInsufficientResource = "53"
	classProgramLimitExceeded = "54"
	classSystemError          = "58"
)

// interpretError turns driver errors into the seam's sentinels, matching
// SQLSTATE codes and error types, never message text:
//   - a serialization failure, a deadlock or a unique key another
//     transaction inserted first mean the batch lost a race the database
//     caught and nothing was applied: store.ErrRetry;
//   - no rows is stockd.ErrNotFound;
//   - a value PostgreSQL cannot store (a NUL byte in text, a number out
//     of range), a CHECK, NOT NULL or foreign key violation, a trigger's
//     refusal: store.ErrRejected. A CHECK violation means the domain let a
//     counter go negative, a bug a retry would only repeat;
//   - a connection refused or lost, a server shutting down, out of
//     resources or read-only (a standby after failover): store.ErrUnavailable.
//
// Context errors stay as they are: the caller's deadline, not the
// database, ended the wait. The original error stays in the chain.
func interpretError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %w", stockd.ErrNotFound, err)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		if unreachable(err) {
			return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
		}
		return err
	}
	switch code := pgErr.Code; {
	case code == codeSerializationFailure:
		return fmt.Errorf("%w: %w: %w", store.ErrRetry, store.ErrSerialization, err)
	case code == codeDeadlockDetected:
		return fmt.Errorf("%w: %w: %w", store.ErrRetry, store.ErrDeadlock, err)
	case code == codeUniqueViolation:
		return fmt.Errorf("%w: %w: %w", store.ErrRetry, store.ErrUniqueKey, err)
	case code == codeCheckViolation:
		return fmt.Errorf("%w: postgres: books guard %s rejected a write (a bug, not a conflict): %w", store.ErrRejected, pgErr.ConstraintName, err)
	case code == codeRaiseException, strings.HasPrefix(code, classDataException),
		strings.HasPrefix(code, classIntegrityConstraint), strings.HasPrefix(code, classProgramLimitExceeded):
		return fmt.Errorf("%w: %w", store.ErrRejected, err)
	case code == codeReadOnlyTransaction, code == codeAdminShutdown, code == codeCrashShutdown,
		code == codeCannotConnectNow, strings.HasPrefix(code, classConnection),
		strings.HasPrefix(code, classInsufficientResource), strings.HasPrefix(code, classSystemError):
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// unreachable reports whether err is the connection failing rather than a
// statement: no server to talk to, or one that went away mid-way.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed)
}
