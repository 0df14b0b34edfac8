// Package sqlite is the embedded backend of the storage seam: one SQLite
// file through modernc.org/sqlite (pure Go), in WAL mode with
// synchronous=FULL and foreign keys on.
//
// Every batch is written by one writer connection whose transactions begin
// IMMEDIATE: SQLite allows one writer at a time anyway, and holding the write
// lock from the first read of a batch to its commit makes the batch's reads
// its locks. Reads that decide nothing (the HTTP GETs, the audit) run on a
// separate read-only pool beside the writer, which WAL allows. A background
// checkpointer (checkpoint.go) copies the WAL into the database file, so
// that no commit does.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/stockd/stockd/store"
)

var _ store.Store = (*Store)(nil)

const (
	// busyTimeout is how long a statement waits for a lock held by another
	// connection (another process, or a checkpoint) before SQLITE_BUSY, which
	// the engine retries.
	busyTimeout = 5 * time.Second
	// readConnectionsMax bounds the read-only pool.
	readConnectionsMax = 4
	// urlScheme prefixes the database URLs ParseURL accepts.
	urlScheme = "sqlite://"
)

// Store is one SQLite database file holding the books.
type Store struct {
	// writer has exactly one connection: every Begin queues for it.
	writer *sql.DB
	// reader is the read-only pool for the Store's read methods.
	reader *sql.DB
	// checkpoints is the connection of the checkpointer's PASSIVE passes.
	checkpoints  *sql.DB
	checkpointer *checkpointer
	// statements are Write's statements, prepared on the writer.
	statements *writeStatements
	// relays are the relay leases held in this process (relay.go).
	relays relayLeases
}

// ParseURL returns the file path of a database URL: sqlite://stockd.db is the
// relative path stockd.db, sqlite:///var/lib/stockd/stockd.db the absolute
// path /var/lib/stockd/stockd.db.
func ParseURL(databaseURL string) (path string, err error) {
	path, ok := strings.CutPrefix(databaseURL, urlScheme)
	if !ok {
		return "", fmt.Errorf("database url %q: want %sPATH", databaseURL, urlScheme)
	}
	if err := checkPath(path); err != nil {
		return "", fmt.Errorf("database url %q: %w", databaseURL, err)
	}
	return path, nil
}

// checkPath rejects what Open cannot serve. An in-memory database is one per
// connection, so the writer and the read pool would see different books; a
// query string would be parsed as driver parameters.
func checkPath(path string) error {
	switch {
	case path == "":
		return errors.New("empty path")
	case strings.HasPrefix(path, ":memory:"), strings.HasPrefix(path, "file:"):
		return errors.New("only a plain file path is supported")
	case strings.ContainsAny(path, "?#"):
		return errors.New("path must not contain '?' or '#'")
	}
	return nil
}

// checkDirectory refuses a path whose directory is missing: SQLite's own
// word for it is "unable to open database file (14)", which names neither
// the file nor the cause.
func checkDirectory(path string) error {
	dir := filepath.Dir(path)
	if info, err := os.Stat(dir); err != nil {
		return fmt.Errorf("directory %q does not exist: create it first (mkdir -p %s)", dir, dir)
	} else if !info.IsDir() {
		return fmt.Errorf("%q is not a directory", dir)
	}
	return nil
}

// ErrNoDatabase is returned by OpenExisting for a path that holds no file.
var ErrNoDatabase = errors.New("no database file")

// OpenExisting opens the database file at path, refusing a path where no
// file exists rather than creating an empty database there: a command that
// only reads the books (verify) on a mistyped path must say so, not report
// an empty ledger as clean and leave a stray file behind.
func OpenExisting(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("database path %q: %w: run stockd migrate (or serve) to create one", path, ErrNoDatabase)
	}
	return Open(ctx, path)
}

// Open opens (creating if needed) the database file at path and checks both
// connection pools. It does not migrate: call Migrate.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, checkpointConfig{})
}

func open(ctx context.Context, path string, checkpoints checkpointConfig) (*Store, error) {
	if err := checkPath(path); err != nil {
		return nil, fmt.Errorf("database path %q: %w", path, err)
	}
	if err := checkDirectory(path); err != nil {
		return nil, fmt.Errorf("database path %q: %w", path, err)
	}
	writer, err := openPool(ctx, path, writerParams(), 1)
	if err != nil {
		return nil, fmt.Errorf("open writer connection: %w", err)
	}
	// The writer has created the file and switched it to WAL, so the
	// read-only connections find a database they can share.
	reader, err := openPool(ctx, path, readerParams(), readConnectionsMax)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open read connections: %w", err), writer.Close())
	}
	checkpointPool, err := openPool(ctx, path, connectionParams(), 1)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open checkpoint connection: %w", err), reader.Close(), writer.Close())
	}
	return &Store{
		writer:       writer,
		reader:       reader,
		checkpoints:  checkpointPool,
		checkpointer: startCheckpointer(checkpointPool, writer, checkpoints),
		statements:   newWriteStatements(writer),
	}, nil
}

// connectionParams are the pragmas every connection runs when it opens, so
// that a connection database/sql replaces behind our back has them too.
func connectionParams() url.Values {
	return url.Values{"_pragma": {
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"foreign_keys(1)",
		"journal_mode(WAL)",
		// FULL syncs the WAL at every commit: an acknowledged batch survives
		// a power loss, which NORMAL does not promise.
		"synchronous(FULL)",
	}}
}

func writerParams() url.Values {
	v := connectionParams()
	// BEGIN IMMEDIATE takes the write lock at the start of the batch, so a
	// transaction never fails half-way upgrading a read lock to a write lock.
	v.Set("_txlock", "immediate")
	// The checkpointer (checkpoint.go) copies the WAL into the database
	// file, so that no commit does.
	v.Add("_pragma", "wal_autocheckpoint(0)")
	// A statement of Write changes many rows, so SQLite keeps a statement
	// journal to undo it alone; past 64 KiB it spills to a temporary file,
	// a pwrite per page. In memory it is bounded by one statement's pages
	// (statementRowsMax rows).
	v.Add("_pragma", "temp_store(MEMORY)")
	return v
}

func readerParams() url.Values {
	v := connectionParams()
	v.Add("_pragma", "query_only(1)")
	return v
}

func openPool(ctx context.Context, path string, params url.Values, connectionsMax int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", path+"?"+params.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(connectionsMax)
	db.SetMaxIdleConns(connectionsMax)
	// Connections live as long as the store: each holds its page cache and
	// prepared statements.
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return db, nil
}

// Close stops the checkpointer and closes the pools. Begin must not be
// called after Close. The writer is closed last: the last connection to
// close checkpoints the WAL into the database file and removes it.
func (s *Store) Close() error {
	s.checkpointer.Close()
	return errors.Join(s.statements.Close(), s.reader.Close(), s.checkpoints.Close(), s.writer.Close())
}

// Begin starts the transaction of one batch on the writer connection,
// waiting for the batch before it to finish.
func (s *Store) Begin(ctx context.Context) (store.Tx, error) {
	// The error is not the batch's: before Migrate has created the tables
	// the statements cannot be prepared, and the batch prepares its own
	// (writeStatements.get).
	_ = s.statements.prepareAll(ctx)
	sqlTx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin immediate: %w", interpretError(err))
	}
	return &tx{sqlTx: sqlTx, statements: s.statements}, nil
}
