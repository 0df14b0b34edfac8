package sqlite

import (
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// primaryCodeMask keeps the primary result code of an extended one: the
// driver turns extended result codes on, so SQLITE_BUSY may arrive as
// SQLITE_BUSY_SNAPSHOT and the like.
const primaryCodeMask = 0xff

// interpretError turns driver errors into the seam's sentinels, by result
// code, never by message text:
//   - no row is stockd.ErrNotFound;
//   - a lock held elsewhere (SQLITE_BUSY, SQLITE_LOCKED) or a unique key
//     someone else inserted first is store.ErrRetry: nothing was applied and
//     the batch may run again;
//   - CHECK, NOT NULL, foreign key and trigger violations, a value too big
//     or of the wrong type are store.ErrRejected: bugs or data the database
//     refuses, which retrying would refuse again;
//   - a full disk, an I/O error, a file that cannot be opened or written
//     are store.ErrUnavailable.
func interpretError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return stockd.ErrNotFound
	}
	var sqliteErr *sqlite.Error
	if !errors.As(err, &sqliteErr) {
		return err
	}
	code := sqliteErr.Code()
	switch code & primaryCodeMask {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %w: %w", store.ErrRetry, store.ErrBusy, err)
	case sqlite3.SQLITE_CONSTRAINT:
		if code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
			return fmt.Errorf("%w: %w: %w", store.ErrRetry, store.ErrUniqueKey, err)
		}
		return fmt.Errorf("%w: %w", store.ErrRejected, err)
	case sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_RANGE:
		return fmt.Errorf("%w: %w", store.ErrRejected, err)
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY,
		sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_PROTOCOL:
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}
