package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const ledgerArchiveColumns = `before, cut_seq, path, sha256, entries, positions, started_at, finished_at`

const (
	// queryLedgerArchiveCutSeq: the first entry created at or after the
	// cut bounds it, whatever the order of clocks; without one the whole
	// ledger lies before it.
	queryLedgerArchiveCutSeq = `
SELECT COALESCE(
    (SELECT seq FROM ledger WHERE created_at >= ? ORDER BY seq LIMIT 1) - 1,
    (SELECT max(seq) FROM ledger),
    0)`

	queryLedgerArchiveList = `SELECT ` + ledgerArchiveColumns + ` FROM ledger_archives ORDER BY before LIMIT ?`

	queryLedgerArchiveGet = `SELECT ` + ledgerArchiveColumns + ` FROM ledger_archives WHERE before = ?`

	queryLedgerArchiveInsert = `
INSERT INTO ledger_archives (before, cut_seq, path, started_at) VALUES (?, ?, ?, ?)
ON CONFLICT (before) DO NOTHING
RETURNING ` + ledgerArchiveColumns

	queryLedgerArchiveSeal = `
UPDATE ledger_archives SET sha256 = ?, entries = ? WHERE before = ? AND sha256 = ''
RETURNING ` + ledgerArchiveColumns

	queryLedgerArchiveFinish = `
UPDATE ledger_archives SET finished_at = ?, positions = ? WHERE before = ? AND sha256 <> '' AND finished_at IS NULL
RETURNING ` + ledgerArchiveColumns

	queryLedgerArchiveEach = `SELECT ` + ledgerColumns + ` FROM ledger WHERE seq <= ? ORDER BY seq`

	// queryLedgerArchiveNth: where a step that deletes ? + 1 entries ends.
	queryLedgerArchiveNth = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = ? AND location = ? AND pool = ? AND seq <= ?
ORDER BY seq
LIMIT 1 OFFSET ?`

	queryLedgerArchiveDelete = `DELETE FROM ledger WHERE sku = ? AND location = ? AND pool = ? AND seq <= ?`

	queryLedgerCheckpointInsert = `
INSERT INTO ledger (seq, business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
    on_hand, reserved, committed, quarantined, in_transit, incoming, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

	queryLedgerCursorList = `
SELECT 'relay:' || name, seq FROM relay_cursors
UNION ALL SELECT 'webhook:' || id, cursor FROM webhooks
UNION ALL SELECT 'reconcile:' || pass, seq FROM reconcile_cursors
UNION ALL SELECT 'alert', ledger_seq FROM alert_cursor
ORDER BY 1`
)

func scanLedgerArchive(row rowScanner) (stockd.LedgerArchive, error) {
	var a stockd.LedgerArchive
	var before, started int64
	var finished sql.NullInt64
	if err := row.Scan(&before, &a.CutSeq, &a.Path, &a.SHA256, &a.Entries, &a.Positions, &started, &finished); err != nil {
		return a, err
	}
	a.Before, a.StartedAt = timeFromUnixMicros(before), timeFromUnixMicros(started)
	if finished.Valid {
		a.FinishedAt = timeFromUnixMicros(finished.Int64)
	}
	return a, nil
}

// LedgerArchiveCutSeq implements store.Store.LedgerArchiveCutSeq.
func (s *Store) LedgerArchiveCutSeq(ctx context.Context, before time.Time) (int64, error) {
	var seq int64
	if err := s.reader.QueryRowContext(ctx, queryLedgerArchiveCutSeq, unixMicros(before)).Scan(&seq); err != nil {
		return 0, fmt.Errorf("ledger cut before %s: %w", before.Format(time.RFC3339), interpretError(err))
	}
	return seq, nil
}

// LedgerArchiveList implements store.Store.LedgerArchiveList.
func (s *Store) LedgerArchiveList(ctx context.Context) ([]stockd.LedgerArchive, error) {
	all, err := queryAll(ctx, s.reader, queryLedgerArchiveList, scanLedgerArchive, stockd.LedgerArchivesMax)
	if err != nil {
		return nil, fmt.Errorf("list ledger archives: %w", err)
	}
	return all, nil
}

// archiveState turns no row into store.ErrArchiveState, the state
// naming what the missing row means.
func archiveState(a stockd.LedgerArchive, err error) func(what, state string) (stockd.LedgerArchive, error) {
	return func(what, state string) (stockd.LedgerArchive, error) {
		if errors.Is(err, stockd.ErrNotFound) {
			return a, fmt.Errorf("%s: %w: %s", what, store.ErrArchiveState, state)
		}
		if err != nil {
			return a, fmt.Errorf("%s: %w", what, err)
		}
		return a, nil
	}
}

// LedgerArchiveStart implements store.Store.LedgerArchiveStart.
func (s *Store) LedgerArchiveStart(ctx context.Context, p store.LedgerArchiveStartParams) (stockd.LedgerArchive, error) {
	a, err := queryOne(ctx, s.writer, queryLedgerArchiveInsert, scanLedgerArchive, unixMicros(p.Before), p.CutSeq, p.Path, unixMicros(p.At))
	return archiveState(a, err)("start ledger archive before "+p.Before.Format(time.RFC3339), "started already")
}

// LedgerArchiveEach implements store.Store.LedgerArchiveEach from one read
// transaction.
func (s *Store) LedgerArchiveEach(ctx context.Context, cutSeq int64, fn func(stockd.LedgerEntry) error) error {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("read ledger to archive: begin: %w", interpretError(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to undo
	return queryEach(ctx, tx, queryLedgerArchiveEach, scanLedgerEntry, fn, cutSeq)
}

// LedgerArchiveSeal implements store.Store.LedgerArchiveSeal.
func (s *Store) LedgerArchiveSeal(ctx context.Context, p store.LedgerArchiveSealParams) (stockd.LedgerArchive, error) {
	a, err := queryOne(ctx, s.writer, queryLedgerArchiveSeal, scanLedgerArchive, p.SHA256, p.Entries, unixMicros(p.Before))
	return archiveState(a, err)("seal ledger archive before "+p.Before.Format(time.RFC3339), "unknown or sealed already")
}

// LedgerArchiveCheckpoint implements store.Store.LedgerArchiveCheckpoint
// on the writer connection: the guard row inserted first and deleted
// last, so that the ledger's delete trigger lets this transaction's
// deletes through and no other's.
func (s *Store) LedgerArchiveCheckpoint(ctx context.Context, p store.LedgerArchiveCheckpointParams) (store.LedgerArchiveCheckpointResult, error) {
	var res store.LedgerArchiveCheckpointResult
	if err := store.CheckLedgerArchiveCheckpoint(p); err != nil {
		return res, err
	}
	what := "checkpoint ledger archive before " + p.Before.Format(time.RFC3339)
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("%s: begin: %w", what, interpretError(err))
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	a, err := archiveState(queryOne(ctx, tx, queryLedgerArchiveGet, scanLedgerArchive, unixMicros(p.Before)))(what, "unknown")
	if err != nil {
		return res, err
	}
	if !a.Sealed() || a.Finished() {
		return res, fmt.Errorf("%s: %w: sealed %t, finished %t", what, store.ErrArchiveState, a.Sealed(), a.Finished())
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_archive_guard (id) VALUES (1)`); err != nil {
		return res, fmt.Errorf("%s: guard: %w", what, interpretError(err))
	}
	step := func(k stockd.PositionKey, budget int64) (deleted int64, complete bool, err error) {
		last, ok, err := found(queryOne(ctx, tx, queryLedgerArchiveLast, scanLedgerEntry, k.SKU, k.Location, k.Pool, a.CutSeq))
		if err != nil || !ok {
			return 0, err == nil, err
		}
		cp := stockd.Checkpoint(a.Before, last)
		if last.BusinessType == cp.BusinessType && last.BusinessID == cp.BusinessID {
			return 0, true, nil // replaced by an earlier run
		}
		end, ok, err := found(queryOne(ctx, tx, queryLedgerArchiveNth, scanLedgerEntry, k.SKU, k.Location, k.Pool, a.CutSeq, budget-1))
		if err != nil {
			return 0, false, err
		}
		if !ok || end.Seq == last.Seq {
			end, complete = last, true
		}
		r, err := tx.ExecContext(ctx, queryLedgerArchiveDelete, k.SKU, k.Location, k.Pool, end.Seq)
		if err != nil {
			return 0, false, fmt.Errorf("delete: %w", interpretError(err))
		}
		if deleted, err = r.RowsAffected(); err != nil {
			return 0, false, fmt.Errorf("delete: %w", interpretError(err))
		}
		cp = stockd.Checkpoint(a.Before, end)
		d, c := cp.Delta, cp.After
		if _, err := tx.ExecContext(ctx, queryLedgerCheckpointInsert, cp.Seq, cp.BusinessType, cp.BusinessID, k.SKU, k.Location, k.Pool,
			d.OnHand, d.Reserved, d.Committed, d.Quarantined, d.InTransit, d.Incoming,
			c.OnHand, c.Reserved, c.Committed, c.Quarantined, c.InTransit, c.Incoming, unixMicros(cp.CreatedAt)); err != nil {
			return 0, false, fmt.Errorf("insert checkpoint: %w", interpretError(err))
		}
		return deleted, complete, nil
	}
	res.Done = true
	budget := p.EntriesBudget()
	for _, k := range p.Positions {
		// A step needs room for the checkpoint an earlier one left and
		// one entry more.
		if budget < 2 {
			res.Done = false
			break
		}
		deleted, complete, err := step(k, budget)
		if err != nil {
			return store.LedgerArchiveCheckpointResult{}, fmt.Errorf("%s: %s/%s/%s: %w", what, k.SKU, k.Location, k.Pool, err)
		}
		budget -= deleted
		res.Deleted += deleted
		if !complete {
			res.Done = false
			break
		}
		if deleted > 0 {
			res.Replaced++
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM ledger_archive_guard`); err != nil {
		return store.LedgerArchiveCheckpointResult{}, fmt.Errorf("%s: guard: %w", what, interpretError(err))
	}
	if err := tx.Commit(); err != nil {
		return store.LedgerArchiveCheckpointResult{}, fmt.Errorf("%s: commit: %w", what, interpretError(err))
	}
	return res, nil
}

// LedgerArchiveFinish implements store.Store.LedgerArchiveFinish.
func (s *Store) LedgerArchiveFinish(ctx context.Context, p store.LedgerArchiveFinishParams) (stockd.LedgerArchive, error) {
	a, err := queryOne(ctx, s.writer, queryLedgerArchiveFinish, scanLedgerArchive, unixMicros(p.At), p.Positions, unixMicros(p.Before))
	return archiveState(a, err)("finish ledger archive before "+p.Before.Format(time.RFC3339), "unknown, not sealed or finished already")
}

// LedgerCursorList implements store.Store.LedgerCursorList.
func (s *Store) LedgerCursorList(ctx context.Context) ([]stockd.LedgerCursor, error) {
	all, err := queryAll(ctx, s.reader, queryLedgerCursorList, func(row rowScanner) (stockd.LedgerCursor, error) {
		var c stockd.LedgerCursor
		err := row.Scan(&c.Consumer, &c.Seq)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("list ledger cursors: %w", err)
	}
	return all, nil
}

// queryLedgerArchiveLast walks ledger_sku_seq backwards from the cut. It
// counts event-only entries, unlike queryLedgerLast: every entry at or
// below the cut is archived, and an event's counters are a copy of the
// position's, so the checkpoint's counters are the same either way.
const queryLedgerArchiveLast = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = ? AND location = ? AND pool = ? AND seq <= ?
ORDER BY seq DESC
LIMIT 1`
