package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/archive"
	"github.com/stockd/stockd/store"
)

// Count compares each row of a physical count with the on_hand the ledger
// held at the row's location (every pool together) as of the row's
// counted_at, so that a count taken while orders kept shipping is still
// compared with what was on the shelf when it was counted. A mismatch is
// a count_mismatch discrepancy about that time; a matching count closes
// the open mismatches of its position. Rows are checked first: a bad row
// or an unknown SKU (a *stockd.Error) records nothing.
func (r *Reconciler) Count(ctx context.Context, rows []stockd.CountRow) (Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PassTimeout)
	defer cancel()
	run := stockd.ReconcileRun{Pass: stockd.PassCount, StartedAt: r.now(), PositionsChecked: len(rows)}
	if verr := stockd.NormalizeCount(rows, run.StartedAt); verr != nil {
		return Result{}, verr
	}
	// A count from before the ledger's archive cut would be compared with
	// a ledger that no longer holds the entries of its time.
	archives, err := r.cfg.Store.LedgerArchiveList(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("count: %w", err)
	}
	cut, archived := archive.Cut(archives)
	var findings []stockd.Finding
	var counted []stockd.PositionKey
	for i, row := range rows {
		if archived && row.CountedAt.Before(cut) {
			return Result{}, stockd.InvalidField("counted_at", "row %d: %s lies before %s, where the ledger is archived: a count that old cannot be compared",
				i+1, row.CountedAt.Format(time.RFC3339), cut.Format(time.RFC3339))
		}
		f, err := r.countRow(ctx, row)
		if err != nil {
			var verr *stockd.Error
			if errors.As(err, &verr) {
				verr.Message = fmt.Sprintf("row %d: %s", i+1, verr.Message)
				return Result{}, verr
			}
			return Result{}, fmt.Errorf("count row %d: %w", i+1, err)
		}
		if f != nil {
			findings = append(findings, *f)
		}
		counted = append(counted, stockd.PositionKey{SKU: row.SKU, Location: row.Location, Pool: stockd.PoolDefault})
	}
	recorded, err := r.record(ctx, run, findings, []store.ReconcileScope{{Kinds: []string{stockd.DiscrepancyCount}, Positions: counted}})
	if err != nil {
		return Result{}, fmt.Errorf("count: %w", err)
	}
	var res Result
	res.add(recorded, findings)
	return res, nil
}

// countRow returns the row's mismatch, or nil when the ledger agrees.
func (r *Reconciler) countRow(ctx context.Context, row stockd.CountRow) (*stockd.Finding, error) {
	if _, err := r.cfg.Store.SKUGet(ctx, row.SKU); errors.Is(err, stockd.ErrNotFound) {
		return nil, stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", row.SKU)
	} else if err != nil {
		return nil, err
	}
	positions, err := r.cfg.Store.PositionListBySKU(ctx, row.SKU)
	if err != nil {
		return nil, err
	}
	var onHand int64
	var seq int64
	for _, p := range positions {
		if p.Location != row.Location {
			continue
		}
		e, ok, err := r.cfg.Store.LedgerLastAsOf(ctx, p.PositionKey, row.CountedAt)
		if err != nil {
			return nil, err
		}
		if ok {
			onHand += e.After.OnHand
			seq = max(seq, e.Seq)
		}
	}
	if onHand == row.CountedOnHand {
		return nil, nil
	}
	at := row.CountedAt.Format(time.RFC3339Nano)
	return &stockd.Finding{
		Kind: stockd.DiscrepancyCount, Position: stockd.PositionKey{SKU: row.SKU, Location: row.Location, Pool: stockd.PoolDefault},
		Subject: at, Expected: stockd.Counters{OnHand: onHand}, Actual: stockd.Counters{OnHand: row.CountedOnHand},
		Evidence: fmt.Sprintf("counted %d at %s; the ledger held %d there then (up to entry %d)", row.CountedOnHand, at, onHand, seq),
	}, nil
}
