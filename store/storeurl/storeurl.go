// Package storeurl opens the store a database URL names: postgres://… (or
// postgresql://…) for PostgreSQL, sqlite://PATH for an SQLite file. The
// service's commands and the benchmark accept the same URLs, so they share
// this one reading of them rather than each keeping a copy.
package storeurl

import (
	"context"
	"fmt"
	"strings"

	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres"
	"github.com/stockd/stockd/store/sqlite"
)

// Prefixes of the URLs Open accepts.
const (
	postgresScheme   = "postgres://"
	postgresqlScheme = "postgresql://"
	sqliteScheme     = "sqlite://"
)

// The backends a URL can name.
const (
	backendPostgres = "postgres"
	backendSQLite   = "sqlite"
)

// IsPostgres reports whether databaseURL names a PostgreSQL database.
func IsPostgres(databaseURL string) bool {
	return strings.HasPrefix(databaseURL, postgresScheme) || strings.HasPrefix(databaseURL, postgresqlScheme)
}

// IsSQLite reports whether databaseURL names an SQLite file (its path may
// still be refused: see Open).
func IsSQLite(databaseURL string) bool {
	return strings.HasPrefix(databaseURL, sqliteScheme)
}

// Open opens the database databaseURL names. It does not migrate: each
// caller decides (serve and migrate do; verify reads the books as it finds
// them).
func Open(ctx context.Context, databaseURL string) (store.Store, error) {
	loc, err := parse(databaseURL)
	if err != nil {
		return nil, err
	}
	switch loc.backend {
	case backendPostgres:
		s, err := postgres.Open(ctx, loc.target, postgres.Config{})
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		return s, nil
	default:
		s, err := sqlite.Open(ctx, loc.target)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", loc.target, err)
		}
		return s, nil
	}
}

// OpenExisting opens the database databaseURL names, as Open does, but
// refuses an SQLite path that holds no file instead of creating an empty
// database there: for commands that read books that must already exist
// (verify, keys).
func OpenExisting(ctx context.Context, databaseURL string) (store.Store, error) {
	loc, err := parse(databaseURL)
	if err != nil {
		return nil, err
	}
	if loc.backend == backendSQLite {
		s, err := sqlite.OpenExisting(ctx, loc.target)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", loc.target, err)
		}
		return s, nil
	}
	return Open(ctx, databaseURL)
}

// location is what a database URL names: the backend, and what that
// backend's Open takes (the whole URL for PostgreSQL, which pgx parses; the
// file path for SQLite).
type location struct {
	backend string
	target  string
}

// parse reads databaseURL without opening anything, so that its refusals can
// be tested apart from any database.
func parse(databaseURL string) (location, error) {
	switch {
	case IsPostgres(databaseURL):
		return location{backend: backendPostgres, target: databaseURL}, nil
	case IsSQLite(databaseURL):
		path, err := sqlite.ParseURL(databaseURL)
		if err != nil {
			return location{}, err
		}
		return location{backend: backendSQLite, target: path}, nil
	}
	return location{}, fmt.Errorf("database url %q: want postgres://… or sqlite://PATH", databaseURL)
}
