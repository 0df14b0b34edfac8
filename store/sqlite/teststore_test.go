package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// newTestStore opens a fresh, migrated store in a file under t.TempDir and
// closes it when the test ends. internal/testdb has the same for other
// packages' tests; this package's tests cannot import it, since it imports
// this package.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "stockd.db"))
	if err != nil {
		t.Fatalf("open test store: %v", err)
	}
	// Registered after t.TempDir's own cleanup, so it runs before the
	// directory is removed.
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close test store: %v", err)
		}
	})
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate test store: %v", err)
	}
	return s
}
