package postgres

import (
	"testing"

	"github.com/stockd/stockd/store/postgres/pgtest"
)

// newTestStore returns a migrated Store in a fresh schema (see pgtest),
// closed and dropped when t ends. internal/testdb has the same for other
// packages' tests; this package's tests cannot import it, since it imports
// this package.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	s := openTestStore(t, pgtest.NewDatabaseURL(t))
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate test schema: %v", err)
	}
	return s
}

// openTestStore opens a Store on databaseURL, closed when t ends (before
// pgtest drops the schema, as cleanups run last first).
func openTestStore(t testing.TB, databaseURL string) *Store {
	t.Helper()
	s, err := Open(t.Context(), databaseURL, Config{})
	if err != nil {
		t.Fatalf("open test store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close test store: %v", err)
		}
	})
	return s
}
