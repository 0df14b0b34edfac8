package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const ledgerArchiveColumns = `before, cut_seq, path, sha256, entries, positions, started_at, finished_at`

const (
	// queryLedgerArchiveCutSeq: the first entry created at or after the
	// cut bounds it, whatever the order of clocks; without one the whole
	// ledger lies before it. It walks the primary key from the oldest
	// entry, over the entries to archive only.
	queryLedgerArchiveCutSeq = `
SELECT COALESCE(
    (SELECT seq FROM ledger WHERE created_at >= $1 ORDER BY seq LIMIT 1) - 1,
    (SELECT max(seq) FROM ledger),
    0)`

	queryLedgerArchiveList = `SELECT ` + ledgerArchiveColumns + ` FROM ledger_archives ORDER BY before LIMIT $1`

	queryLedgerArchiveLock = `SELECT ` + ledgerArchiveColumns + ` FROM ledger_archives WHERE before = $1 FOR UPDATE`

	queryLedgerArchiveInsert = `
INSERT INTO ledger_archives (before, cut_seq, path, started_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (before) DO NOTHING
RETURNING ` + ledgerArchiveColumns

	queryLedgerArchiveSeal = `
UPDATE ledger_archives SET sha256 = $2, entries = $3 WHERE before = $1 AND sha256 = ''
RETURNING ` + ledgerArchiveColumns

	queryLedgerArchiveFinish = `
UPDATE ledger_archives SET finished_at = $2, positions = $3 WHERE before = $1 AND sha256 <> '' AND finished_at IS NULL
RETURNING ` + ledgerArchiveColumns

	queryLedgerArchiveEach = `SELECT ` + ledgerColumns + ` FROM ledger WHERE seq <= $1 ORDER BY seq`

	// queryLedgerArchiveNth walks ledger_sku_seq forwards from the
	// position's first entry: where a step that deletes $5 + 1 entries
	// ends.
	queryLedgerArchiveNth = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = $1 AND location = $2 AND pool = $3 AND seq <= $4
ORDER BY seq
OFFSET $5
LIMIT 1`

	queryLedgerArchiveDelete = `DELETE FROM ledger WHERE sku = $1 AND location = $2 AND pool = $3 AND seq <= $4`

	queryLedgerCheckpointInsert = `
INSERT INTO ledger (seq, business_type, business_id, sku, location, pool,
    d_on_hand, d_reserved, d_committed, d_quarantined, d_in_transit, d_incoming,
    on_hand, reserved, committed, quarantined, in_transit, incoming, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`

	queryLedgerCursorList = `
SELECT 'relay:' || name, seq FROM relay_cursors
UNION ALL SELECT 'webhook:' || id, cursor FROM webhooks
UNION ALL SELECT 'reconcile:' || pass, seq FROM reconcile_cursors
UNION ALL SELECT 'alert', ledger_seq FROM alert_cursor
ORDER BY 1`
)

func scanLedgerArchive(row scanner) (stockd.LedgerArchive, error) {
	var a stockd.LedgerArchive
	var finished *time.Time
	if err := row.Scan(&a.Before, &a.CutSeq, &a.Path, &a.SHA256, &a.Entries, &a.Positions, &a.StartedAt, &finished); err != nil {
		return a, err
	}
	a.Before, a.StartedAt = a.Before.UTC(), a.StartedAt.UTC()
	if finished != nil {
		a.FinishedAt = finished.UTC()
	}
	return a, nil
}

// LedgerArchiveCutSeq implements store.Store.LedgerArchiveCutSeq.
func (s *Store) LedgerArchiveCutSeq(ctx context.Context, before time.Time) (int64, error) {
	var seq int64
	if err := s.pool.QueryRow(ctx, queryLedgerArchiveCutSeq, before.UTC()).Scan(&seq); err != nil {
		return 0, fmt.Errorf("postgres: ledger cut before %s: %w", before.Format(time.RFC3339), interpretError(err))
	}
	return seq, nil
}

// LedgerArchiveList implements store.Store.LedgerArchiveList.
func (s *Store) LedgerArchiveList(ctx context.Context) ([]stockd.LedgerArchive, error) {
	return list(ctx, s.pool, "list ledger archives", scanLedgerArchive, queryLedgerArchiveList, stockd.LedgerArchivesMax)
}

// LedgerArchiveStart implements store.Store.LedgerArchiveStart.
func (s *Store) LedgerArchiveStart(ctx context.Context, p store.LedgerArchiveStartParams) (stockd.LedgerArchive, error) {
	a, err := scanLedgerArchive(s.pool.QueryRow(ctx, queryLedgerArchiveInsert, p.Before.UTC(), p.CutSeq, p.Path, p.At.UTC()))
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("postgres: start ledger archive before %s: %w: started already", p.Before.Format(time.RFC3339), store.ErrArchiveState)
	}
	if err != nil {
		return a, fmt.Errorf("postgres: start ledger archive before %s: %w", p.Before.Format(time.RFC3339), interpretError(err))
	}
	return a, nil
}

// LedgerArchiveEach implements store.Store.LedgerArchiveEach from one
// repeatable-read snapshot.
func (s *Store) LedgerArchiveEach(ctx context.Context, cutSeq int64, fn func(stockd.LedgerEntry) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("postgres: read ledger to archive: begin: %w", interpretError(err))
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to undo
	return each(ctx, tx, "read ledger to archive", scanLedgerEntry, fn, queryLedgerArchiveEach, cutSeq)
}

// LedgerArchiveSeal implements store.Store.LedgerArchiveSeal.
func (s *Store) LedgerArchiveSeal(ctx context.Context, p store.LedgerArchiveSealParams) (stockd.LedgerArchive, error) {
	a, err := scanLedgerArchive(s.pool.QueryRow(ctx, queryLedgerArchiveSeal, p.Before.UTC(), p.SHA256, p.Entries))
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("postgres: seal ledger archive before %s: %w: unknown or sealed already", p.Before.Format(time.RFC3339), store.ErrArchiveState)
	}
	if err != nil {
		return a, fmt.Errorf("postgres: seal ledger archive before %s: %w", p.Before.Format(time.RFC3339), interpretError(err))
	}
	return a, nil
}

// LedgerArchiveCheckpoint implements store.Store.LedgerArchiveCheckpoint:
// the archive's row locked (two archive processes take turns), then per
// position its last entry at or below the cut read, its entries there
// deleted and its checkpoint inserted, all under SET LOCAL stockd.archive,
// which the ledger's delete trigger checks.
func (s *Store) LedgerArchiveCheckpoint(ctx context.Context, p store.LedgerArchiveCheckpointParams) (store.LedgerArchiveCheckpointResult, error) {
	var res store.LedgerArchiveCheckpointResult
	if err := store.CheckLedgerArchiveCheckpoint(p); err != nil {
		return res, err
	}
	what := "checkpoint ledger archive before " + p.Before.Format(time.RFC3339)
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadWrite})
	if err != nil {
		return res, fmt.Errorf("postgres: %s: begin: %w", what, interpretError(err))
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	a, err := scanLedgerArchive(tx.QueryRow(ctx, queryLedgerArchiveLock, p.Before.UTC()))
	if errors.Is(err, pgx.ErrNoRows) {
		return res, fmt.Errorf("postgres: %s: %w: unknown", what, store.ErrArchiveState)
	}
	if err != nil {
		return res, fmt.Errorf("postgres: %s: %w", what, interpretError(err))
	}
	if !a.Sealed() || a.Finished() {
		return res, fmt.Errorf("postgres: %s: %w: sealed %t, finished %t", what, store.ErrArchiveState, a.Sealed(), a.Finished())
	}
	if _, err := tx.Exec(ctx, `SET LOCAL stockd.archive = 'on'`); err != nil {
		return res, fmt.Errorf("postgres: %s: %w", what, interpretError(err))
	}
	step := func(k stockd.PositionKey, budget int64) (deleted int64, complete bool, err error) {
		last, err := scanLedgerEntry(tx.QueryRow(ctx, queryLedgerArchiveLast, k.SKU, k.Location, k.Pool, a.CutSeq))
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, true, nil
		}
		if err != nil {
			return 0, false, err
		}
		cp := stockd.Checkpoint(a.Before, last)
		if last.BusinessType == cp.BusinessType && last.BusinessID == cp.BusinessID {
			return 0, true, nil // replaced by an earlier run
		}
		end, err := scanLedgerEntry(tx.QueryRow(ctx, queryLedgerArchiveNth, k.SKU, k.Location, k.Pool, a.CutSeq, budget-1))
		switch {
		case errors.Is(err, pgx.ErrNoRows) || err == nil && end.Seq == last.Seq:
			end, complete = last, true
		case err != nil:
			return 0, false, err
		}
		tag, err := tx.Exec(ctx, queryLedgerArchiveDelete, k.SKU, k.Location, k.Pool, end.Seq)
		if err != nil {
			return 0, false, fmt.Errorf("delete: %w", err)
		}
		cp = stockd.Checkpoint(a.Before, end)
		d, c := cp.Delta, cp.After
		if _, err := tx.Exec(ctx, queryLedgerCheckpointInsert, cp.Seq, cp.BusinessType, cp.BusinessID, k.SKU, k.Location, k.Pool,
			d.OnHand, d.Reserved, d.Committed, d.Quarantined, d.InTransit, d.Incoming,
			c.OnHand, c.Reserved, c.Committed, c.Quarantined, c.InTransit, c.Incoming, cp.CreatedAt); err != nil {
			return 0, false, fmt.Errorf("insert checkpoint: %w", err)
		}
		return tag.RowsAffected(), complete, nil
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
			return store.LedgerArchiveCheckpointResult{}, fmt.Errorf("postgres: %s: %s/%s/%s: %w", what, k.SKU, k.Location, k.Pool, interpretError(err))
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
	if err := tx.Commit(ctx); err != nil {
		return store.LedgerArchiveCheckpointResult{}, fmt.Errorf("postgres: %s: commit: %w", what, interpretError(err))
	}
	return res, nil
}

// LedgerArchiveFinish implements store.Store.LedgerArchiveFinish.
func (s *Store) LedgerArchiveFinish(ctx context.Context, p store.LedgerArchiveFinishParams) (stockd.LedgerArchive, error) {
	a, err := scanLedgerArchive(s.pool.QueryRow(ctx, queryLedgerArchiveFinish, p.Before.UTC(), p.At.UTC(), p.Positions))
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("postgres: finish ledger archive before %s: %w: unknown, not sealed or finished already", p.Before.Format(time.RFC3339), store.ErrArchiveState)
	}
	if err != nil {
		return a, fmt.Errorf("postgres: finish ledger archive before %s: %w", p.Before.Format(time.RFC3339), interpretError(err))
	}
	return a, nil
}

// LedgerCursorList implements store.Store.LedgerCursorList.
func (s *Store) LedgerCursorList(ctx context.Context) ([]stockd.LedgerCursor, error) {
	return list(ctx, s.pool, "list ledger cursors", func(row scanner) (stockd.LedgerCursor, error) {
		var c stockd.LedgerCursor
		err := row.Scan(&c.Consumer, &c.Seq)
		return c, err
	}, queryLedgerCursorList)
}

// queryLedgerArchiveLast walks ledger_sku_seq backwards from the cut. It
// counts event-only entries, unlike queryLedgerLast: every entry at or
// below the cut is archived, and an event's counters are a copy of the
// position's, so the checkpoint's counters are the same either way.
const queryLedgerArchiveLast = `
SELECT ` + ledgerColumns + `
FROM ledger
WHERE sku = $1 AND location = $2 AND pool = $3 AND seq <= $4
ORDER BY seq DESC
LIMIT 1`
