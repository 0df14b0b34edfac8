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
//   - everything else, CHECK and trigger violations included, is returned as
//     is: those are bugs, and retrying would fail the same way.
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
	switch {
	case code&primaryCodeMask == sqlite3.SQLITE_BUSY,
		code&primaryCodeMask == sqlite3.SQLITE_LOCKED,
		code == sqlite3.SQLITE_CONSTRAINT_UNIQUE,
		code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return fmt.Errorf("%w: %w", store.ErrRetry, err)
	}
	return err
}
