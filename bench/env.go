package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/faultproxy"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// env is what a run opens once: stockd's target, the baselines, and
// whatever must be closed or removed afterwards.
type env struct {
	implementations []implementation
	verifier        verifier
	database        Database
	appliers        int
	// analyze, when set, refreshes the planner's statistics after seeding.
	analyze func(ctx context.Context) error
	// slow, when set, switches the database latency of the proxy in front
	// of PostgreSQL on (for warm-up and measurement) or off (for seeding,
	// checking and verifying, which would otherwise take as many delayed
	// round trips as they read pages).
	slow    func(on bool)
	closers []func() error
}

// slowDown switches the database latency on or off, if there is one.
func (e *env) slowDown(on bool) {
	if e.slow != nil {
		e.slow(on)
	}
}

// analyzeTables are stockd's tables and the baselines', by unqualified
// name: the connection's search_path picks the schema.
var analyzeTables = []string{"skus", "positions", "reservations", "ledger", "idempotency_keys", "bench_inventory", "bench_ledger"}

func (e *env) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		_ = e.closers[i]() // nothing useful to do with a failed close at the end of a run
	}
}

func openEnv(ctx context.Context, cfg Config) (_ *env, err error) {
	e := &env{}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	databaseURL := cfg.DatabaseURL
	if databaseURL == "" && cfg.Target == TargetEngine {
		dir, err := os.MkdirTemp("", "stockd-bench-")
		if err != nil {
			return nil, fmt.Errorf("temporary database: %w", err)
		}
		e.closers = append(e.closers, func() error { return os.RemoveAll(dir) })
		databaseURL = "sqlite://" + filepath.Join(dir, "bench.db")
	}
	e.database = Database{Kind: "none"}
	if databaseURL != "" {
		e.database = describeDatabase(ctx, databaseURL)
	}
	if cfg.DatabaseLatency > 0 {
		if databaseURL, err = e.slowDatabase(databaseURL, cfg.DatabaseLatency); err != nil {
			return nil, err
		}
	}
	var s store.Store
	if databaseURL != "" {
		if s, err = storeurl.Open(ctx, databaseURL); err != nil {
			return nil, err
		}
		if err := s.Migrate(ctx); err != nil {
			return nil, errors.Join(fmt.Errorf("migrate: %w", err), s.Close())
		}
	}
	switch cfg.Target {
	case TargetEngine:
		e.appliers = cfg.Appliers
		if e.appliers == 0 {
			e.appliers = 1 // SQLite has one writer
			if storeurl.IsPostgres(databaseURL) {
				e.appliers = 2 // overlap one batch's commit flush with the next batch's work, as serve does
			}
		}
		t := newEngineTarget(s, engine.Config{Store: s, Appliers: e.appliers, BatchSizeMax: cfg.BatchSizeMax}, cfg.RequestTimeout)
		e.closers = append(e.closers, t.Close)
		e.implementations = append(e.implementations, implementation{name: t.Name(), target: t})
		e.verifier = storeVerifier{s}
	case TargetHTTP:
		t := newHTTPTarget(cfg.URL, cfg.APIKey, ConcurrencyMax)
		e.closers = append(e.closers, t.Close)
		e.implementations = append(e.implementations, implementation{name: t.Name(), target: t})
		if s != nil {
			e.closers = append(e.closers, s.Close)
			e.verifier = storeVerifier{s}
		}
	}
	if storeurl.IsPostgres(databaseURL) && !cfg.SkipAnalyze {
		db, err := sql.Open("pgx", databaseURL)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		e.closers = append(e.closers, db.Close)
		e.analyze = func(ctx context.Context) error {
			for _, t := range analyzeTables {
				var exists bool
				if err := db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, t).Scan(&exists); err != nil {
					return err
				}
				if !exists {
					continue // no baseline ran here yet
				}
				if _, err := db.ExecContext(ctx, "ANALYZE "+t); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return e, e.openBaselines(ctx, cfg, databaseURL)
}

// engineTarget is the run's in-process engine target, if it has one.
func (e *env) engineTarget() (*engineTarget, bool) {
	for _, impl := range e.implementations {
		if t, ok := impl.target.(*engineTarget); ok {
			return t, true
		}
	}
	return nil, false
}

// openBaselines adds each configured baseline, or the reason it cannot run.
func (e *env) openBaselines(ctx context.Context, cfg Config, databaseURL string) error {
	var db *sql.DB
	var d *dialect
	var dbErr error
	for _, name := range cfg.Baselines {
		impl := implementation{name: name, baseline: true}
		switch name {
		case BaselineNaiveUpdate, BaselineSelectForUpdate:
			if databaseURL == "" {
				impl.skip = "no --database-url"
				break
			}
			if db == nil && dbErr == nil {
				db, d, dbErr = openBaselineDB(ctx, databaseURL, cfg.BaselineConns)
				if dbErr == nil {
					e.closers = append(e.closers, db.Close)
				}
			}
			if dbErr != nil {
				return fmt.Errorf("baseline database: %w", dbErr)
			}
			table := sqlTable{db: db, d: d}
			if name == BaselineNaiveUpdate {
				impl.target = &naiveUpdate{table}
			} else {
				impl.target = &selectForUpdate{table}
			}
		case BaselineGate:
			if cfg.Target == TargetHTTP {
				g := newHTTPGateTarget(cfg.URL, cfg.APIKey)
				e.closers = append(e.closers, g.Close)
				impl.target = g
				break
			}
			et, ok := e.engineTarget()
			if !ok {
				impl.skip = "needs --target engine or http"
				break
			}
			g, err := openGateTarget(ctx, cfg.RedisURL, cfg.BaselineConns, et)
			if err != nil {
				impl.skip = err.Error()
				break
			}
			e.closers = append(e.closers, g.Close)
			impl.target = g
		case BaselineRedisLua:
			r, err := openRedisLua(ctx, cfg.RedisURL, cfg.BaselineConns)
			if err != nil {
				impl.skip = err.Error()
				break
			}
			e.closers = append(e.closers, r.Close)
			impl.target = r
		}
		e.implementations = append(e.implementations, impl)
	}
	return nil
}

// slowDatabase starts a proxy that delays every answer of the PostgreSQL
// at databaseURL by latency, and returns the URL through it.
func (e *env) slowDatabase(databaseURL string, latency time.Duration) (string, error) {
	if !storeurl.IsPostgres(databaseURL) {
		return "", errors.New("database latency needs a postgres:// database url")
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("database url: %w", err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		return "", fmt.Errorf("latency proxy: %w", err)
	}
	e.slow = func(on bool) {
		if on {
			proxy.SetLatency(latency)
		} else {
			proxy.SetLatency(0)
		}
	}
	e.closers = append(e.closers, proxy.Close)
	u.Host = proxy.Addr()
	return u.String(), nil
}

// describeDatabase reads what the report should say about the database;
// what it cannot read stays empty.
func describeDatabase(ctx context.Context, databaseURL string) Database {
	d := Database{Kind: "sqlite", URL: redact(databaseURL)}
	if !storeurl.IsPostgres(databaseURL) {
		return d
	}
	d.Kind = "postgres"
	db, err := sql.Open("pgx", databaseURL)
	if err != nil {
		return d
	}
	defer db.Close()
	_ = db.QueryRowContext(ctx, `SELECT version(), current_setting('synchronous_commit'), current_setting('fsync'), current_setting('autovacuum')`).
		Scan(&d.Version, &d.SynchronousCommit, &d.Fsync, &d.Autovacuum)
	return d
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable url)"
	}
	return u.Redacted()
}

// storeVerifier audits stockd's whole books: the engine target's, or the
// http target's when --database-url names its database.
type storeVerifier struct{ s store.Store }

func (v storeVerifier) Verify(ctx context.Context) (string, bool, error) {
	rep, err := audit.Verify(ctx, v.s)
	if err != nil {
		return "", false, err
	}
	if rep.Clean() {
		return "clean", true, nil
	}
	detail := fmt.Sprintf("%d differences", rep.Count)
	if len(rep.Differences) > 0 {
		d := rep.Differences[0]
		detail += fmt.Sprintf(" (first: %s at %s)", d.Check, d.Position.SKU)
	}
	return detail, false, nil
}
