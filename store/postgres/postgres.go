// Package postgres is the PostgreSQL backend of the storage seam, on pgx v5
// with a pgxpool and the extended protocol. Its SQL lives in queries.go and
// migrations/; its schema works inside any schema the connection's
// search_path selects.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockd/stockd/store"
)

// Config configures a Store. Zero values mean the documented default.
type Config struct {
	// MaxConns caps the pool's connections. Defaults to pgxpool's default,
	// the larger of 4 and the number of CPUs.
	MaxConns int32
}

// Store is the books in one PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
}

var _ store.Store = (*Store)(nil)

// ErrNotDurable is what CheckDurability returns when an acknowledged commit
// could be lost in a crash.
var ErrNotDurable = errors.New("postgres: durability is off")

// Open connects to the database at url (a postgres:// URL or key=value
// string; a search_path parameter selects the schema) and checks that it
// answers. It does not migrate: call Migrate.
func Open(ctx context.Context, url string, cfg Config) (*Store, error) {
	poolConfig, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse database url: %w", err)
	}
	// The simple protocol interpolates arguments into the SQL text on the
	// client and cannot carry the typed arrays the bulk statements take.
	if poolConfig.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol {
		return nil, errors.New("postgres: default_query_exec_mode=simple_protocol is not supported; use the extended protocol")
	}
	if cfg.MaxConns > 0 {
		poolConfig.MaxConns = cfg.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolConfig)
	if err != nil {
		return nil, fmt.Errorf("postgres: create pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == codeInvalidCatalogName {
			name := poolConfig.ConnConfig.Database
			return nil, fmt.Errorf("postgres: database %q does not exist: create it (createdb %s, or CREATE DATABASE %s as a role that may), then run stockd migrate: %w", name, name, name, err)
		}
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := checkServerVersion(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool}, nil
}

// serverVersionMin is the oldest PostgreSQL stockd runs on: a batch's reads
// set plan_cache_mode (queries_pipeline.go), which PostgreSQL 12 added; on
// an older server every batch would fail.
const serverVersionMin = 120000

// checkServerVersion refuses a server older than serverVersionMin at start,
// rather than on the first batch.
func checkServerVersion(ctx context.Context, pool *pgxpool.Pool) error {
	var version int
	if err := pool.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		return fmt.Errorf("postgres: read server version: %w", err)
	}
	if version < serverVersionMin {
		return fmt.Errorf("postgres: server version %d is older than PostgreSQL 12 (%d), which stockd needs", version, serverVersionMin)
	}
	return nil
}

// Close closes every connection of the pool, waiting for those in use.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// CheckDurability returns an error wrapping ErrNotDurable when fsync or
// synchronous_commit is off: with either, the server acknowledges commits a
// crash can lose, so a reservation the caller was told about could vanish.
// serve refuses to start on it unless overridden for a benchmark.
func (s *Store) CheckDurability(ctx context.Context) error {
	var fsync, synchronousCommit string
	if err := s.pool.QueryRow(ctx, queryDurabilitySettings).Scan(&fsync, &synchronousCommit); err != nil {
		return fmt.Errorf("postgres: read durability settings: %w", err)
	}
	var off []string
	if fsync == "off" {
		off = append(off, "fsync=off")
	}
	if synchronousCommit == "off" {
		off = append(off, "synchronous_commit=off")
	}
	if len(off) > 0 {
		return fmt.Errorf("%w (%s): a crash can lose acknowledged commits", ErrNotDurable, strings.Join(off, ", "))
	}
	return nil
}
