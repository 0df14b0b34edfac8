package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one embedded file: migrations/NNNN_name.sql, version NNNN.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	all := make([]migration, 0, len(names))
	seen := map[int]string{}
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		number, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(number)
		if !ok || err != nil || version <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", name)
		}
		if other, dup := seen[version]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, name, version)
		}
		seen[version] = name
		body, err := migrationFiles.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		all = append(all, migration{version: version, name: name, sql: string(body)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].version < all[j].version })
	return all, nil
}

// Migrate applies the embedded migrations not yet applied, each in its own
// transaction. Every transaction first takes one advisory lock, so processes
// migrating at once apply each migration exactly once; the others wait,
// find it recorded in schema_migrations and skip it.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.MigrateApplied(ctx)
	return err
}

// MigrateApplied implements store.Store.MigrateApplied.
func (s *Store) MigrateApplied(ctx context.Context) ([]string, error) {
	all, err := migrations()
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	var applied []string
	for _, m := range all {
		done, err := s.migrateOne(ctx, m)
		if err != nil {
			return applied, fmt.Errorf("postgres: migration %s: %w", m.name, err)
		}
		if done {
			applied = append(applied, m.name)
		}
	}
	return applied, nil
}

// migrateOne applies m unless schema_migrations records it; done says
// whether this call applied it.
func (s *Store) migrateOne(ctx context.Context, m migration) (done bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, queryAdvisoryXactLock, migrationLockKey); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		// Created under the lock: two concurrent CREATE TABLE IF NOT EXISTS
		// can both miss the table and collide on the catalog.
		if _, err := tx.Exec(ctx, queryMigrationsTableCreate); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var applied bool
		if err := tx.QueryRow(ctx, queryMigrationApplied, m.version).Scan(&applied); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		if applied {
			return nil
		}
		done = true
		// A migration file holds many statements; pgx sends an Exec without
		// arguments as one simple-protocol query, which allows that. The
		// pool's default stays the extended protocol.
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		if _, err := tx.Exec(ctx, queryMigrationRecord, m.version); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		return nil
	})
	return done && err == nil, err
}
