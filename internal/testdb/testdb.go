// Package testdb lists the storage backends tests run against: SQLite
// always, PostgreSQL when STOCKD_TEST_POSTGRES_URL is set (each test in a
// fresh schema). Tests loop over Backends so that every behaviour is
// checked on both databases.
package testdb

import (
	"testing"

	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres"
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
		{Name: "sqlite", New: func(t testing.TB) store.Store { return sqlite.NewTestStore(t) }},
		{Name: "postgres", New: func(t testing.TB) store.Store { return postgres.NewTestStore(t) }},
	}
}

// Each runs fn as a subtest per backend.
func Each(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}
