// Package testdb lists the storage backends tests run against: SQLite
// always, PostgreSQL when STOCKD_TEST_POSTGRES_URL is set (each test in a
// fresh schema). Tests loop over Backends so that every behaviour is
// checked on both databases.
//
// It is the home of the test stores: the backends' own packages carry no
// test code, so that the service binary does not link package testing.
package testdb

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres"
	"github.com/stockd/stockd/store/postgres/pgtest"
	"github.com/stockd/stockd/store/sqlite"
)

// Backend makes fresh, migrated stores of one kind.
type Backend struct {
	Name string
	// New returns an empty migrated store, closed when t ends. It skips t
	// when the backend's database is not configured.
	New func(t testing.TB) store.Store
}

// Backends returns every backend, SQLite first.
func Backends() []Backend {
	return []Backend{
		{Name: "sqlite", New: func(t testing.TB) store.Store { return newSQLiteStore(t) }},
		{Name: "postgres", New: func(t testing.TB) store.Store { return newPostgresStore(t) }},
	}
}

// Each runs fn as a subtest per backend.
func Each(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}

// newSQLiteStore opens a fresh, migrated store in a file under t.TempDir,
// closed when t ends.
func newSQLiteStore(t testing.TB) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "stockd.db"))
	if err != nil {
		t.Fatalf("open test store: %v", err)
	}
	// Registered after t.TempDir's own cleanup, so it runs before the
	// directory is removed.
	closeWhenDone(t, s)
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate test store: %v", err)
	}
	return s
}

// newPostgresStore returns a migrated store in a fresh schema of the
// database named by STOCKD_TEST_POSTGRES_URL, closed and dropped when t
// ends. It skips t when the variable is unset and fails t when the database
// cannot be reached, so CI with a database never silently skips.
func newPostgresStore(t testing.TB) *postgres.Store {
	t.Helper()
	// Closed before pgtest drops the schema: cleanups run last first.
	s, err := postgres.Open(t.Context(), pgtest.NewDatabaseURL(t), postgres.Config{})
	if err != nil {
		t.Fatalf("open test store: %v", err)
	}
	closeWhenDone(t, s)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate test schema: %v", err)
	}
	return s
}

func closeWhenDone(t testing.TB, s store.Store) {
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close test store: %v", err)
		}
	})
}
