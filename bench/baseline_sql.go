package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the "sqlite" database/sql driver

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store/sqlite"
	"github.com/stockd/stockd/store/storeurl"
)

// dialect holds one database's SQL for the baselines. The baselines keep
// to their own tables (bench_inventory, bench_ledger), so they never touch
// stockd's books.
type dialect struct {
	name   string
	create []string
	// seed inserts one row per SKU of a JSON array, each with stock.
	seed string
	// naiveOne is the whole single-line reservation as one statement, where
	// the database can say it in one (PostgreSQL); empty otherwise.
	naiveOne   string
	naiveLine  string // conditional decrement of one line
	selectLine string // read (and lock) one line's row
	updateLine string // unconditional decrement, after the check in Go
	ledger     string
	check      string
	cleanup    []string
}

var postgresDialect = dialect{
	name: "postgres",
	create: []string{
		`CREATE TABLE IF NOT EXISTS bench_inventory (
    sku       text COLLATE "C" PRIMARY KEY,
    available bigint NOT NULL CHECK (available >= 0))`,
		`CREATE TABLE IF NOT EXISTS bench_ledger (
    id          bigserial PRIMARY KEY,
    sku         text COLLATE "C" NOT NULL,
    quantity    bigint NOT NULL,
    request_key text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now())`,
	},
	seed: `INSERT INTO bench_inventory (sku, available) SELECT value, $2 FROM json_array_elements_text($1::json)`,
	naiveOne: `
WITH taken AS (
    UPDATE bench_inventory SET available = available - $2
    WHERE sku = $1 AND available >= $2
    RETURNING sku)
INSERT INTO bench_ledger (sku, quantity, request_key) SELECT sku, $2, $3 FROM taken`,
	naiveLine:  `UPDATE bench_inventory SET available = available - $2 WHERE sku = $1 AND available >= $2`,
	selectLine: `SELECT available FROM bench_inventory WHERE sku = $1 FOR UPDATE`,
	updateLine: `UPDATE bench_inventory SET available = available - $2 WHERE sku = $1`,
	ledger:     `INSERT INTO bench_ledger (sku, quantity, request_key) VALUES ($1, $2, $3)`,
	check: `
SELECT i.sku, i.available, COALESCE(l.taken, 0)::bigint
FROM bench_inventory i
LEFT JOIN (SELECT sku, sum(quantity) AS taken FROM bench_ledger WHERE sku LIKE $1 || '-%' GROUP BY sku) l ON l.sku = i.sku
WHERE i.sku LIKE $1 || '-%'`,
	cleanup: []string{
		`DELETE FROM bench_ledger WHERE sku LIKE $1 || '-%'`,
		`DELETE FROM bench_inventory WHERE sku LIKE $1 || '-%'`,
	},
}

// sqliteDialect: no FOR UPDATE (the transaction began IMMEDIATE and holds
// the database's one write lock), ? placeholders.
var sqliteDialect = dialect{
	name: "sqlite",
	create: []string{
		`CREATE TABLE IF NOT EXISTS bench_inventory (
    sku       TEXT PRIMARY KEY,
    available INTEGER NOT NULL CHECK (available >= 0))`,
		`CREATE TABLE IF NOT EXISTS bench_ledger (
    id          INTEGER PRIMARY KEY,
    sku         TEXT NOT NULL,
    quantity    INTEGER NOT NULL,
    request_key TEXT NOT NULL,
    created_at  TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)`,
	},
	seed:       `INSERT INTO bench_inventory (sku, available) SELECT value, ? FROM json_each(?)`,
	naiveLine:  `UPDATE bench_inventory SET available = available - ?2 WHERE sku = ?1 AND available >= ?2`,
	selectLine: `SELECT available FROM bench_inventory WHERE sku = ?`,
	updateLine: `UPDATE bench_inventory SET available = available - ?2 WHERE sku = ?1`,
	ledger:     `INSERT INTO bench_ledger (sku, quantity, request_key) VALUES (?, ?, ?)`,
	check: `
SELECT i.sku, i.available, COALESCE(l.taken, 0)
FROM bench_inventory i
LEFT JOIN (SELECT sku, sum(quantity) AS taken FROM bench_ledger WHERE sku LIKE ?1 || '-%' GROUP BY sku) l ON l.sku = i.sku
WHERE i.sku LIKE ?1 || '-%'`,
	cleanup: []string{
		`DELETE FROM bench_ledger WHERE sku LIKE ? || '-%'`,
		`DELETE FROM bench_inventory WHERE sku LIKE ? || '-%'`,
	},
}

// openBaselineDB opens the database of the SQL baselines: the same one as
// stockd's, with the same durability settings.
func openBaselineDB(ctx context.Context, databaseURL string, connsMax int) (*sql.DB, *dialect, error) {
	var db *sql.DB
	var d *dialect
	switch {
	case storeurl.IsPostgres(databaseURL):
		var err error
		if db, err = sql.Open("pgx", databaseURL); err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(connsMax)
		db.SetMaxIdleConns(connsMax)
		d = &postgresDialect
	case storeurl.IsSQLite(databaseURL):
		path, err := sqlite.ParseURL(databaseURL)
		if err != nil {
			return nil, nil, err
		}
		// The pragmas of store/sqlite: WAL, synchronous=FULL, a busy
		// timeout; transactions begin IMMEDIATE. One connection: SQLite
		// has one writer, and more connections only wait on its lock.
		params := url.Values{"_pragma": {"busy_timeout(5000)", "journal_mode(WAL)", "synchronous(FULL)"}, "_txlock": {"immediate"}}
		if db, err = sql.Open("sqlite", path+"?"+params.Encode()); err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(1)
		d = &sqliteDialect
	default:
		return nil, nil, fmt.Errorf("database url %q: want postgres://… or sqlite://PATH", databaseURL)
	}
	if err := db.PingContext(ctx); err != nil {
		return nil, nil, errors.Join(err, db.Close())
	}
	for _, q := range d.create {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, nil, errors.Join(fmt.Errorf("create baseline tables: %w", err), db.Close())
		}
	}
	return db, d, nil
}

// sqlTable is what both SQL baselines share: their tables, seeding and
// checking.
type sqlTable struct {
	db    *sql.DB
	d     *dialect
	names []string
}

func (t *sqlTable) Setup(ctx context.Context, ds *Dataset) error {
	t.names = ds.SKUs
	list, err := json.Marshal(ds.SKUs)
	if err != nil {
		return err
	}
	args := []any{string(list), ds.Stock}
	if t.d == &sqliteDialect {
		args = []any{ds.Stock, string(list)}
	}
	if _, err := t.db.ExecContext(ctx, t.d.seed, args...); err != nil {
		return fmt.Errorf("seed bench_inventory: %w", err)
	}
	return nil
}

// Check compares each row with the stock less what the bench saw taken,
// and the ledger with what was taken: counter + successes == stock, never
// negative.
func (t *sqlTable) Check(ctx context.Context, ds *Dataset, want []Held) (CheckResult, error) {
	rows, err := t.db.QueryContext(ctx, t.d.check, ds.Prefix)
	if err != nil {
		return CheckResult{}, fmt.Errorf("read bench_inventory: %w", err)
	}
	defer rows.Close()
	got := make(map[string][2]int64, len(ds.SKUs))
	for rows.Next() {
		var sku string
		var available, ledger int64
		if err := rows.Scan(&sku, &available, &ledger); err != nil {
			return CheckResult{}, err
		}
		got[sku] = [2]int64{available, ledger}
	}
	if err := rows.Err(); err != nil {
		return CheckResult{}, err
	}
	return compareBooks(ds, want, func(i int) (stockd.Counters, bool) {
		g, ok := got[ds.SKUs[i]]
		taken := ds.Stock - g[0]
		if taken != g[1] {
			taken = -1 // the ledger disagrees with the counter: never matches
		}
		return stockd.Counters{OnHand: ds.Stock, Reserved: taken}, ok
	}), nil
}

func (t *sqlTable) Cleanup(ctx context.Context, ds *Dataset) error {
	for _, q := range t.d.cleanup {
		if _, err := t.db.ExecContext(ctx, q, ds.Prefix); err != nil {
			return fmt.Errorf("clean baseline tables: %w", err)
		}
	}
	return nil
}

// Close leaves the shared pool to its owner.
func (t *sqlTable) Close() error { return nil }

// inTx runs fn in one transaction; fn returning false rolls it back.
func (t *sqlTable) inTx(ctx context.Context, fn func(tx *sql.Tx) (bool, error)) (ok bool, err error) {
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if !ok || err != nil {
			err = errors.Join(err, ignoreDone(tx.Rollback()))
		}
	}()
	if ok, err = fn(tx); err != nil || !ok {
		return ok, err
	}
	return true, tx.Commit()
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

func (t *sqlTable) insertLedger(ctx context.Context, tx *sql.Tx, req *Request) error {
	for _, l := range req.Lines {
		if _, err := tx.ExecContext(ctx, t.d.ledger, t.names[l.SKU], l.Quantity, req.Key); err != nil {
			return err
		}
	}
	return nil
}

func outcome(ok bool, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, err
	}
	if !ok {
		return Outcome{Status: Rejected}, nil
	}
	return Outcome{Status: Won}, nil
}

// naiveUpdate is the seeds' method: per request one transaction with a
// conditional UPDATE (… AND available >= q) per line, in SKU order, and the
// ledger insert. On PostgreSQL a single line is one statement (a
// data-modifying CTE), the fastest way to say it: one round trip.
type naiveUpdate struct{ sqlTable }

func (b *naiveUpdate) Name() string { return BaselineNaiveUpdate }

func (b *naiveUpdate) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	if len(req.Lines) == 1 && b.d.naiveOne != "" {
		l := req.Lines[0]
		res, err := b.db.ExecContext(ctx, b.d.naiveOne, b.names[l.SKU], l.Quantity, req.Key)
		if err != nil {
			return Outcome{}, err
		}
		n, err := res.RowsAffected()
		return outcome(n == 1, err)
	}
	return outcome(b.inTx(ctx, func(tx *sql.Tx) (bool, error) {
		for _, l := range req.Lines {
			res, err := tx.ExecContext(ctx, b.d.naiveLine, b.names[l.SKU], l.Quantity)
			if err != nil {
				return false, err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return false, err
			}
		}
		return true, b.insertLedger(ctx, tx, req)
	}))
}

// selectForUpdate is the seeds' row-lock variant: per request BEGIN, SELECT
// … FOR UPDATE each line in SKU order, check in Go, UPDATE, ledger, COMMIT.
type selectForUpdate struct{ sqlTable }

func (b *selectForUpdate) Name() string { return BaselineSelectForUpdate }

func (b *selectForUpdate) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	return outcome(b.inTx(ctx, func(tx *sql.Tx) (bool, error) {
		for _, l := range req.Lines {
			var available int64
			if err := tx.QueryRowContext(ctx, b.d.selectLine, b.names[l.SKU]).Scan(&available); err != nil {
				return false, err
			}
			if available < l.Quantity {
				return false, nil
			}
		}
		for _, l := range req.Lines {
			if _, err := tx.ExecContext(ctx, b.d.updateLine, b.names[l.SKU], l.Quantity); err != nil {
				return false, err
			}
		}
		return true, b.insertLedger(ctx, tx, req)
	}))
}
