package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const discrepancyColumns = `id, kind, sku, location, pool, subject, expected, actual, evidence, status,
    first_seen, last_seen, first_run, last_run, closed_at, COALESCE(closed_by_run, 0)`

const (
	queryReconcileCursor = `SELECT seq FROM reconcile_cursors WHERE pass = ?`

	queryReconcileRunInsert = `
INSERT INTO reconcile_runs (pass, started_at, finished_at, cursor_from, cursor_to, positions_checked, findings, opened, closed)
VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)
RETURNING id`

	queryReconcileRunCounts = `UPDATE reconcile_runs SET opened = ?, closed = ? WHERE id = ?`

	queryDiscrepancyRefresh = `
UPDATE discrepancies SET expected = ?, actual = ?, evidence = ?, last_seen = ?, last_run = ?
WHERE status = 'open' AND kind = ? AND sku = ? AND location = ? AND pool = ? AND subject = ?`

	queryDiscrepancyInsert = `
INSERT INTO discrepancies (kind, sku, location, pool, subject, expected, actual, evidence, status, first_seen, last_seen, first_run, last_run)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)`

	// queryDiscrepancyCloseAll closes, of the kinds in a JSON array, what
	// this run did not refresh.
	queryDiscrepancyCloseAll = `
UPDATE discrepancies SET status = 'closed', closed_at = ?, closed_by_run = ?
WHERE status = 'open' AND last_run <> ? AND kind IN (SELECT value FROM json_each(?))`

	// queryDiscrepancyCloseAt does the same at the positions of a JSON array
	// of [sku, location, pool] triples.
	queryDiscrepancyCloseAt = queryDiscrepancyCloseAll + `
    AND (sku, location, pool) IN (SELECT k.value ->> '$[0]', k.value ->> '$[1]', k.value ->> '$[2]' FROM json_each(?) AS k)`

	queryReconcileCursorAdvance = `
INSERT INTO reconcile_cursors (pass, seq, updated_at) VALUES (?, ?, ?)
ON CONFLICT (pass) DO UPDATE SET seq = max(seq, excluded.seq), updated_at = excluded.updated_at`

	queryDiscrepancyGet = `SELECT ` + discrepancyColumns + ` FROM discrepancies WHERE id = ?`

	queryDiscrepancyList = `
SELECT ` + discrepancyColumns + `
FROM discrepancies
WHERE id > ? AND (? = '' OR status = ?) AND (? = '' OR kind = ?) AND (? = '' OR sku = ?)
  AND (? = 0 OR first_run = ? OR closed_by_run = ?)
ORDER BY id
LIMIT ?`

	queryDiscrepancyOpenCounts = `SELECT kind, count(*) FROM discrepancies WHERE status = 'open' GROUP BY kind`

	queryLedgerEachAfter = `SELECT ` + ledgerColumns + ` FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?`

	queryPositionGet = `
SELECT ` + positionColumns + `
FROM positions p JOIN locations l ON l.id = p.location
WHERE p.sku = ? AND p.location = ? AND p.pool = ?`
)

// ReconcileCursor implements store.Store.ReconcileCursor.
func (s *Store) ReconcileCursor(ctx context.Context, pass string) (int64, error) {
	var seq int64
	err := s.reader.QueryRowContext(ctx, queryReconcileCursor, pass).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read cursor of the %s pass: %w", pass, interpretError(err))
	}
	return seq, nil
}

// ReconcileRecord implements store.Store.ReconcileRecord on the writer
// connection, in one transaction.
func (s *Store) ReconcileRecord(ctx context.Context, p store.ReconcileRecordParams) (stockd.ReconcileRun, error) {
	run := p.Run
	sqlTx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return run, fmt.Errorf("record %s run: begin: %w", run.Pass, interpretError(err))
	}
	defer sqlTx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if err := recordRun(ctx, sqlTx, &run, p); err != nil {
		return run, fmt.Errorf("record %s run: %w", run.Pass, interpretError(err))
	}
	if err := sqlTx.Commit(); err != nil {
		return run, fmt.Errorf("record %s run: commit: %w", run.Pass, interpretError(err))
	}
	return run, nil
}

func recordRun(ctx context.Context, tx *sql.Tx, run *stockd.ReconcileRun, p store.ReconcileRecordParams) error {
	run.Findings = len(p.Findings)
	finished := unixMicros(run.FinishedAt)
	err := tx.QueryRowContext(ctx, queryReconcileRunInsert, run.Pass, unixMicros(run.StartedAt), finished,
		run.CursorFrom, run.CursorTo, run.PositionsChecked, run.Findings).Scan(&run.ID)
	if err != nil {
		return fmt.Errorf("insert run: %w", err)
	}
	for _, f := range p.Findings {
		expected, actual, err := countersJSON(f)
		if err != nil {
			return err
		}
		k := f.Position
		res, err := tx.ExecContext(ctx, queryDiscrepancyRefresh, expected, actual, f.Evidence, finished, run.ID,
			f.Kind, k.SKU, k.Location, k.Pool, f.Subject)
		if err != nil {
			return fmt.Errorf("refresh %s discrepancy: %w", f.Kind, err)
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			if err != nil {
				return fmt.Errorf("refresh %s discrepancy: %w", f.Kind, err)
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, queryDiscrepancyInsert, f.Kind, k.SKU, k.Location, k.Pool, f.Subject,
			expected, actual, f.Evidence, finished, finished, run.ID, run.ID); err != nil {
			return fmt.Errorf("open %s discrepancy: %w", f.Kind, err)
		}
		run.Opened++
	}
	for _, sc := range p.Scopes {
		closed, err := closeScope(ctx, tx, run, sc)
		if err != nil {
			return err
		}
		run.Closed += closed
	}
	if _, err := tx.ExecContext(ctx, queryReconcileRunCounts, run.Opened, run.Closed, run.ID); err != nil {
		return fmt.Errorf("count run: %w", err)
	}
	if run.CursorTo > run.CursorFrom {
		if _, err := tx.ExecContext(ctx, queryReconcileCursorAdvance, run.Pass, run.CursorTo, finished); err != nil {
			return fmt.Errorf("advance cursor: %w", err)
		}
	}
	return nil
}

func closeScope(ctx context.Context, tx *sql.Tx, run *stockd.ReconcileRun, sc store.ReconcileScope) (int, error) {
	kinds, err := jsonArray(sc.Kinds)
	if err != nil {
		return 0, err
	}
	finished := unixMicros(run.FinishedAt)
	var res sql.Result
	if sc.All {
		res, err = tx.ExecContext(ctx, queryDiscrepancyCloseAll, finished, run.ID, run.ID, kinds)
	} else {
		if len(sc.Positions) == 0 {
			return 0, nil
		}
		triples := make([][3]string, len(sc.Positions))
		for i, k := range sc.Positions {
			triples[i] = [3]string{k.SKU, k.Location, k.Pool}
		}
		var at string
		if at, err = jsonArray(triples); err != nil {
			return 0, err
		}
		res, err = tx.ExecContext(ctx, queryDiscrepancyCloseAt, finished, run.ID, run.ID, kinds, at)
	}
	if err != nil {
		return 0, fmt.Errorf("close discrepancies: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("close discrepancies: %w", err)
	}
	return int(n), nil
}

// countersJSON encodes a finding's counters as strings: a []byte would be
// a BLOB, which the STRICT TEXT columns refuse.
func countersJSON(f stockd.Finding) (expected, actual string, err error) {
	e, err := json.Marshal(f.Expected)
	if err != nil {
		return "", "", fmt.Errorf("encode expected counters: %w", err)
	}
	a, err := json.Marshal(f.Actual)
	if err != nil {
		return "", "", fmt.Errorf("encode actual counters: %w", err)
	}
	return string(e), string(a), nil
}

// DiscrepancyGet implements store.Store.DiscrepancyGet.
func (s *Store) DiscrepancyGet(ctx context.Context, id int64) (stockd.Discrepancy, error) {
	d, err := queryOne(ctx, s.reader, queryDiscrepancyGet, scanDiscrepancy, id)
	if err != nil {
		return d, fmt.Errorf("get discrepancy %d: %w", id, err)
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
	all, err := queryAll(ctx, s.reader, queryDiscrepancyList, scanDiscrepancy,
		p.After, p.Status, p.Status, p.Kind, p.Kind, p.SKU, p.SKU, p.Run, p.Run, p.Run, limit)
	if err != nil {
		return nil, fmt.Errorf("list discrepancies: %w", err)
	}
	return all, nil
}

// DiscrepancyOpenCounts implements store.Store.DiscrepancyOpenCounts.
func (s *Store) DiscrepancyOpenCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := queryEach(ctx, s.reader, queryDiscrepancyOpenCounts, func(row rowScanner) (struct{}, error) {
		var kind string
		var n int64
		err := row.Scan(&kind, &n)
		counts[kind] = n
		return struct{}{}, err
	}, func(struct{}) error { return nil })
	if err != nil {
		return nil, fmt.Errorf("count open discrepancies: %w", err)
	}
	return counts, nil
}

func scanDiscrepancy(row rowScanner) (stockd.Discrepancy, error) {
	var d stockd.Discrepancy
	var expected, actual string
	var firstSeen, lastSeen int64
	var closedAt sql.NullInt64
	err := row.Scan(&d.ID, &d.Kind, &d.Position.SKU, &d.Position.Location, &d.Position.Pool, &d.Subject,
		&expected, &actual, &d.Evidence, &d.Status, &firstSeen, &lastSeen, &d.FirstRun, &d.LastRun, &closedAt, &d.ClosedByRun)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal([]byte(expected), &d.Expected); err != nil {
		return d, fmt.Errorf("decode expected counters of discrepancy %d: %w", d.ID, err)
	}
	if err := json.Unmarshal([]byte(actual), &d.Actual); err != nil {
		return d, fmt.Errorf("decode actual counters of discrepancy %d: %w", d.ID, err)
	}
	d.FirstSeen, d.LastSeen = timeFromUnixMicros(firstSeen), timeFromUnixMicros(lastSeen)
	if closedAt.Valid {
		t := timeFromUnixMicros(closedAt.Int64)
		d.ClosedAt = &t
	}
	return d, nil
}

// LedgerEachAfter implements store.AuditReader.LedgerEachAfter.
func (a auditReader) LedgerEachAfter(ctx context.Context, after int64, limit int, fn func(stockd.LedgerEntry) error) error {
	return queryEach(ctx, a.q, queryLedgerEachAfter, scanLedgerEntry, fn, after, max(limit, 0))
}

// LedgerLast implements store.AuditReader.LedgerLast.
func (a auditReader) LedgerLast(ctx context.Context, k stockd.PositionKey, atOrBefore int64) (stockd.LedgerEntry, bool, error) {
	return found(queryOne(ctx, a.q, queryLedgerLast, scanLedgerEntry, k.SKU, k.Location, k.Pool, atOrBefore))
}

// LedgerLastAsOf implements store.Store.LedgerLastAsOf.
func (s *Store) LedgerLastAsOf(ctx context.Context, k stockd.PositionKey, at time.Time) (stockd.LedgerEntry, bool, error) {
	e, ok, err := found(queryOne(ctx, s.reader, queryLedgerLastAsOf, scanLedgerEntry, k.SKU, k.Location, k.Pool, unixMicros(at)))
	if err != nil {
		return e, false, fmt.Errorf("ledger of %s/%s/%s as of %s: %w", k.SKU, k.Location, k.Pool, at.Format(time.RFC3339Nano), err)
	}
	return e, ok, nil
}

// PositionGet implements store.AuditReader.PositionGet.
func (a auditReader) PositionGet(ctx context.Context, k stockd.PositionKey) (stockd.Position, bool, error) {
	return found(queryOne(ctx, a.q, queryPositionGet, scanPosition, k.SKU, k.Location, k.Pool))
}

// found turns stockd.ErrNotFound into false.
func found[T any](v T, err error) (T, bool, error) {
	if errors.Is(err, stockd.ErrNotFound) {
		return v, false, nil
	}
	return v, err == nil, err
}

// queryLedgerLast walks ledger_sku_seq backwards from atOrBefore.
var queryLedgerLast = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = ? AND location = ? AND pool = ? AND seq <= ?
  AND ` + notEventOnly + `
ORDER BY seq DESC
LIMIT 1`

// queryLedgerLastAsOf walks ledger_sku_seq backwards from the newest
// entry: a count is of recent stock, so few entries are passed over.
var queryLedgerLastAsOf = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = ? AND location = ? AND pool = ? AND created_at <= ?
  AND ` + notEventOnly + `
ORDER BY seq DESC
LIMIT 1`

// notEventOnly leaves out event-only entries (stockd.EventOnly): their
// counters are a copy of the position's, not a change, so they are never
// the entry a chain starts from nor the books as of a time.
var notEventOnly = "business_type NOT IN ('" + strings.Join(stockd.EventOnlyTypes(), "', '") + "')"
