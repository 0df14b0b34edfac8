package sqlite

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// migrationFiles are the schema changes, numbered by file name
// (0001_books.sql, 0002_...); each is applied once, in number order.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations sorted by version. A file
// whose name does not start with a number, or two files with one number,
// is a build mistake and fails every Migrate.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	all := make([]migration, 0, len(names))
	for _, name := range names {
		base := path.Base(name)
		number, _, ok := strings.Cut(base, "_")
		if !ok {
			return nil, fmt.Errorf("migration %q: name must be NNNN_description.sql", base)
		}
		version, err := strconv.Atoi(number)
		if err != nil || version <= 0 {
			return nil, fmt.Errorf("migration %q: name must start with a positive number", base)
		}
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", base, err)
		}
		all = append(all, migration{version: version, name: base, sql: string(body)})
	}
	slices.SortFunc(all, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	for i := 1; i < len(all); i++ {
		if all[i].version == all[i-1].version {
			return nil, fmt.Errorf("migrations %q and %q share version %d", all[i-1].name, all[i].name, all[i].version)
		}
	}
	return all, nil
}

// Migrate applies the embedded migrations not yet applied, each in its own
// transaction together with its row in schema_migrations. It is idempotent,
// and safe to run from two processes at once: each migration's BEGIN
// IMMEDIATE waits for the other, then finds the version applied.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.MigrateApplied(ctx)
	return err
}

// MigrateApplied implements store.Store.MigrateApplied.
func (s *Store) MigrateApplied(ctx context.Context) ([]string, error) {
	all, err := migrations()
	if err != nil {
		return nil, err
	}
	if _, err := s.writer.ExecContext(ctx, queryMigrationsTableCreate); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", interpretError(err))
	}
	var applied []string
	for _, m := range all {
		done, err := s.migrateOne(ctx, m)
		if err != nil {
			return applied, fmt.Errorf("migration %s: %w", m.name, err)
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
	sqlTx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("begin: %w", interpretError(err))
	}
	t := &tx{sqlTx: sqlTx, statements: s.statements}
	defer func() {
		if rollbackErr := t.Rollback(ctx); rollbackErr != nil && err == nil {
			err = rollbackErr
		}
	}()
	var applied bool
	if err := sqlTx.QueryRowContext(ctx, queryMigrationApplied, m.version).Scan(&applied); err != nil {
		return false, fmt.Errorf("read schema_migrations: %w", interpretError(err))
	}
	if applied {
		return false, nil
	}
	if _, err := sqlTx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("apply: %w", interpretError(err))
	}
	if _, err := sqlTx.ExecContext(ctx, queryMigrationInsert, m.version, unixMicros(time.Now())); err != nil {
		return false, fmt.Errorf("record: %w", interpretError(err))
	}
	return true, t.Commit(ctx)
}
