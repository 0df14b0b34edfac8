package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const discrepancyColumns = `id, kind, sku, location, pool, subject, expected, actual, evidence, status,
    first_seen, last_seen, first_run, last_run, closed_at, COALESCE(closed_by_run, 0)`

const (
	queryReconcileCursor = `SELECT seq FROM reconcile_cursors WHERE pass = $1`

	queryReconcileRunInsert = `
INSERT INTO reconcile_runs (pass, started_at, finished_at, cursor_from, cursor_to, positions_checked, findings, opened, closed)
VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0)
RETURNING id`

	queryReconcileRunCounts = `UPDATE reconcile_runs SET opened = $1, closed = $2 WHERE id = $3`

	queryDiscrepancyRefresh = `
UPDATE discrepancies SET expected = $1, actual = $2, evidence = $3, last_seen = $4, last_run = $5
WHERE status = 'open' AND kind = $6 AND sku = $7 AND location = $8 AND pool = $9 AND subject = $10`

	// queryDiscrepanciesOpenLock locks the open discrepancies a run may
	// refresh or close, in id order: a batch approving a correction locks
	// its discrepancy by id too (queries_correction.go), so taking them in
	// findings order could deadlock with it.
	queryDiscrepanciesOpenLock = `
SELECT id FROM discrepancies WHERE status = 'open' ORDER BY id FOR UPDATE`

	queryDiscrepancyInsert = `
INSERT INTO discrepancies (kind, sku, location, pool, subject, expected, actual, evidence, status, first_seen, last_seen, first_run, last_run)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9, $9, $10, $10)`

	// queryDiscrepancyCloseAll closes, of the kinds given, what this run
	// did not refresh.
	queryDiscrepancyCloseAll = `
UPDATE discrepancies SET status = 'closed', closed_at = $1, closed_by_run = $2
WHERE status = 'open' AND last_run <> $2 AND kind = ANY($3::text[])`

	// queryDiscrepancyCloseAt does the same at the positions of three
	// parallel arrays.
	queryDiscrepancyCloseAt = queryDiscrepancyCloseAll + `
    AND (sku, location, pool) IN (SELECT * FROM unnest($4::text[], $5::text[], $6::text[]))`

	queryReconcileCursorAdvance = `
INSERT INTO reconcile_cursors (pass, seq, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (pass) DO UPDATE SET seq = GREATEST(reconcile_cursors.seq, excluded.seq), updated_at = excluded.updated_at`

	queryDiscrepancyGet = `SELECT ` + discrepancyColumns + ` FROM discrepancies WHERE id = $1`

	queryDiscrepancyList = `
SELECT ` + discrepancyColumns + `
FROM discrepancies
WHERE id > $1 AND ($2 = '' OR status = $2) AND ($3 = '' OR kind = $3) AND ($4 = '' OR sku = $4)
  AND ($6::int8 = 0 OR first_run = $6 OR closed_by_run = $6)
ORDER BY id
LIMIT $5`

	queryDiscrepancyOpenCounts = `SELECT kind, count(*) FROM discrepancies WHERE status = 'open' GROUP BY kind`

	queryLedgerEachAfter = `SELECT ` + ledgerColumns + ` FROM ledger WHERE seq > $1 ORDER BY seq LIMIT $2`

	queryPositionGet = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = $1 AND p.location = $2 AND p.pool = $3`
)

// ReconcileCursor implements store.Store.ReconcileCursor.
func (s *Store) ReconcileCursor(ctx context.Context, pass string) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, queryReconcileCursor, pass).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: read cursor of the %s pass: %w", pass, interpretError(err))
	}
	return seq, nil
}

// ReconcileRecord implements store.Store.ReconcileRecord in one
// transaction.
func (s *Store) ReconcileRecord(ctx context.Context, p store.ReconcileRecordParams) (stockd.ReconcileRun, error) {
	run := p.Run
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return run, fmt.Errorf("postgres: record %s run: begin: %w", run.Pass, interpretError(err))
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if err := recordRun(ctx, tx, &run, p); err != nil {
		return run, fmt.Errorf("postgres: record %s run: %w", run.Pass, interpretError(err))
	}
	if err := tx.Commit(ctx); err != nil {
		return run, fmt.Errorf("postgres: record %s run: commit: %w", run.Pass, interpretError(err))
	}
	return run, nil
}

func recordRun(ctx context.Context, tx pgx.Tx, run *stockd.ReconcileRun, p store.ReconcileRecordParams) error {
	run.Findings = len(p.Findings)
	finished := run.FinishedAt.UTC()
	err := tx.QueryRow(ctx, queryReconcileRunInsert, run.Pass, run.StartedAt.UTC(), finished,
		run.CursorFrom, run.CursorTo, run.PositionsChecked, run.Findings).Scan(&run.ID)
	if err != nil {
		return fmt.Errorf("insert run: %w", err)
	}
	if _, err := tx.Exec(ctx, queryDiscrepanciesOpenLock); err != nil {
		return fmt.Errorf("lock open discrepancies: %w", err)
	}
	for _, f := range p.Findings {
		expected, err := json.Marshal(f.Expected)
		if err != nil {
			return fmt.Errorf("encode expected counters: %w", err)
		}
		actual, err := json.Marshal(f.Actual)
		if err != nil {
			return fmt.Errorf("encode actual counters: %w", err)
		}
		k := f.Position
		tag, err := tx.Exec(ctx, queryDiscrepancyRefresh, expected, actual, f.Evidence, finished, run.ID,
			f.Kind, k.SKU, k.Location, k.Pool, f.Subject)
		if err != nil {
			return fmt.Errorf("refresh %s discrepancy: %w", f.Kind, err)
		}
		if tag.RowsAffected() > 0 {
			continue
		}
		if _, err := tx.Exec(ctx, queryDiscrepancyInsert, f.Kind, k.SKU, k.Location, k.Pool, f.Subject,
			expected, actual, f.Evidence, finished, run.ID); err != nil {
			return fmt.Errorf("open %s discrepancy: %w", f.Kind, err)
		}
		run.Opened++
	}
	for _, sc := range p.Scopes {
		closed, err := closeScope(ctx, tx, run, finished, sc)
		if err != nil {
			return err
		}
		run.Closed += closed
	}
	if _, err := tx.Exec(ctx, queryReconcileRunCounts, run.Opened, run.Closed, run.ID); err != nil {
		return fmt.Errorf("count run: %w", err)
	}
	if run.CursorTo > run.CursorFrom {
		if _, err := tx.Exec(ctx, queryReconcileCursorAdvance, run.Pass, run.CursorTo, finished); err != nil {
			return fmt.Errorf("advance cursor: %w", err)
		}
	}
	return nil
}

func closeScope(ctx context.Context, tx pgx.Tx, run *stockd.ReconcileRun, finished time.Time, sc store.ReconcileScope) (int, error) {
	var args []any
	query := queryDiscrepancyCloseAll
	if sc.All {
		args = []any{finished, run.ID, sc.Kinds}
	} else {
		if len(sc.Positions) == 0 {
			return 0, nil
		}
		skus, locations, pools := make([]string, len(sc.Positions)), make([]string, len(sc.Positions)), make([]string, len(sc.Positions))
		for i, k := range sc.Positions {
			skus[i], locations[i], pools[i] = k.SKU, k.Location, k.Pool
		}
		query = queryDiscrepancyCloseAt
		args = []any{finished, run.ID, sc.Kinds, skus, locations, pools}
	}
	tag, err := tx.Exec(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("close discrepancies: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// DiscrepancyGet implements store.Store.DiscrepancyGet.
func (s *Store) DiscrepancyGet(ctx context.Context, id int64) (stockd.Discrepancy, error) {
	d, err := scanDiscrepancy(s.pool.QueryRow(ctx, queryDiscrepancyGet, id))
	if err != nil {
		return d, fmt.Errorf("postgres: get discrepancy %d: %w", id, interpretError(err))
	}
	return d, nil
}

// DiscrepancyList implements store.Store.DiscrepancyList.
func (s *Store) DiscrepancyList(ctx context.Context, p store.DiscrepancyListParams) ([]stockd.Discrepancy, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	return list(ctx, s.pool, "list discrepancies", scanDiscrepancy, queryDiscrepancyList, p.After, p.Status, p.Kind, p.SKU, limit, p.Run)
}

// DiscrepancyOpenCounts implements store.Store.DiscrepancyOpenCounts.
func (s *Store) DiscrepancyOpenCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := each(ctx, s.pool, "count open discrepancies", func(row scanner) (struct{}, error) {
		var kind string
		var n int64
		err := row.Scan(&kind, &n)
		counts[kind] = n
		return struct{}{}, err
	}, func(struct{}) error { return nil }, queryDiscrepancyOpenCounts)
	if err != nil {
		return nil, err
	}
	return counts, nil
}

func scanDiscrepancy(row scanner) (stockd.Discrepancy, error) {
	var d stockd.Discrepancy
	var expected, actual []byte
	err := row.Scan(&d.ID, &d.Kind, &d.Position.SKU, &d.Position.Location, &d.Position.Pool, &d.Subject,
		&expected, &actual, &d.Evidence, &d.Status, &d.FirstSeen, &d.LastSeen, &d.FirstRun, &d.LastRun, &d.ClosedAt, &d.ClosedByRun)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(expected, &d.Expected); err != nil {
		return d, fmt.Errorf("decode expected counters of discrepancy %d: %w", d.ID, err)
	}
	if err := json.Unmarshal(actual, &d.Actual); err != nil {
		return d, fmt.Errorf("decode actual counters of discrepancy %d: %w", d.ID, err)
	}
	d.FirstSeen, d.LastSeen = d.FirstSeen.UTC(), d.LastSeen.UTC()
	if d.ClosedAt != nil {
		t := d.ClosedAt.UTC()
		d.ClosedAt = &t
	}
	return d, nil
}

// LedgerEachAfter implements store.AuditReader.LedgerEachAfter.
func (a auditReader) LedgerEachAfter(ctx context.Context, after int64, limit int, fn func(stockd.LedgerEntry) error) error {
	if limit <= 0 {
		return nil // PostgreSQL refuses a negative LIMIT
	}
	return each(ctx, a.q, "read ledger after a cursor", scanLedgerEntry, fn, queryLedgerEachAfter, after, limit)
}

// LedgerLast implements store.AuditReader.LedgerLast.
func (a auditReader) LedgerLast(ctx context.Context, k stockd.PositionKey, atOrBefore int64) (stockd.LedgerEntry, bool, error) {
	e, err := scanLedgerEntry(a.q.QueryRow(ctx, queryLedgerLast, k.SKU, k.Location, k.Pool, atOrBefore))
	return found(e, err, "read last ledger entry")
}

// LedgerLastAsOf implements store.Store.LedgerLastAsOf.
func (s *Store) LedgerLastAsOf(ctx context.Context, k stockd.PositionKey, at time.Time) (stockd.LedgerEntry, bool, error) {
	e, err := scanLedgerEntry(s.pool.QueryRow(ctx, queryLedgerLastAsOf, k.SKU, k.Location, k.Pool, at.UTC()))
	return found(e, err, "read ledger as of "+at.Format(time.RFC3339Nano))
}

// PositionGet implements store.AuditReader.PositionGet.
func (a auditReader) PositionGet(ctx context.Context, k stockd.PositionKey) (stockd.Position, bool, error) {
	p, err := scanPosition(a.q.QueryRow(ctx, queryPositionGet, k.SKU, k.Location, k.Pool))
	return found(p, err, "read position")
}

// found turns no row into false.
func found[T any](v T, err error, what string) (T, bool, error) {
	if errors.Is(err, pgx.ErrNoRows) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("postgres: %s: %w", what, interpretError(err))
	}
	return v, true, nil
}

// queryLedgerLast walks ledger_sku_seq backwards from atOrBefore.
var queryLedgerLast = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = $1 AND location = $2 AND pool = $3 AND seq <= $4
  AND ` + notEventOnly + `
ORDER BY seq DESC
LIMIT 1`

// queryLedgerLastAsOf walks ledger_sku_seq backwards from the newest
// entry: a count is of recent stock, so few entries are passed over.
var queryLedgerLastAsOf = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = $1 AND location = $2 AND pool = $3 AND created_at <= $4
  AND ` + notEventOnly + `
ORDER BY seq DESC
LIMIT 1`

// notEventOnly leaves out event-only entries (stockd.EventOnly): their
// counters are a copy of the position's, not a change, so they are never
// the entry a chain starts from nor the books as of a time.
var notEventOnly = "business_type NOT IN ('" + strings.Join(stockd.EventOnlyTypes(), "', '") + "')"
