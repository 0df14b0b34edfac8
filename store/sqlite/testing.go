package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// NewTestStore opens a fresh, migrated store in a file under t.TempDir and
// closes it when the test ends. The conformance suite and the engine's
// tests use it, so it lives outside _test files.
func NewTestStore(t testing.TB) *Store {
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
