package reconcile

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/store"
)

// minuteKinds are what the minute pass checks at every position it checks.
var minuteKinds = []string{
	stockd.DiscrepancyNegative, stockd.DiscrepancyLedgerLast, stockd.DiscrepancyReservations,
	stockd.DiscrepancyMissingPosition, stockd.DiscrepancyDuplicateEvent,
}

// The ledger kinds of a drift: the minute pass follows the chain only
// from its cursor, so a drift it once saw is carried by every later entry
// of the position, and not seeing it again proves nothing until a
// reconciliation entry acknowledges it (or the day pass's full sum no
// longer sees it). A chain break is acknowledged by the entry alone; a
// sum only once the snapshot was compared after it.
var (
	chainKinds = []string{stockd.DiscrepancyLedgerChain}
	sumKinds   = []string{stockd.DiscrepancyLedgerSum}
)

// Minute checks the positions the ledger changed since the pass's cursor,
// one snapshot per batch of at most BatchEntries entries, at most
// BatchesPerPass batches, pausing BatchPause between them. Each batch is
// one recorded run that advances the cursor.
func (r *Reconciler) Minute(ctx context.Context) (Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PassTimeout)
	defer cancel()
	var res Result
	// carried are positions a reconciliation entry acknowledged in a batch
	// that could not compare them (their last entry lay beyond it): the
	// batch that does compares them as acknowledged.
	carried := map[stockd.PositionKey]bool{}
	cursor, err := r.cfg.Store.ReconcileCursor(ctx, stockd.PassMinute)
	if err != nil {
		return res, fmt.Errorf("minute pass: %w", err)
	}
	for i := range r.cfg.BatchesPerPass {
		if i > 0 {
			if err := r.pause(ctx); err != nil {
				return res, fmt.Errorf("minute pass: %w", err)
			}
		}
		b, err := r.minuteBatch(ctx, cursor, carried)
		if err != nil {
			return res, fmt.Errorf("minute pass after seq %d: %w", cursor, err)
		}
		if b.entries == 0 && i > 0 {
			break
		}
		run, err := r.record(ctx, b.run, b.findings, b.scopes())
		if err != nil {
			return res, fmt.Errorf("minute pass: %w", err)
		}
		res.add(run, b.findings)
		if b.entries < r.cfg.BatchEntries {
			break
		}
		cursor = b.run.CursorTo
	}
	return res, nil
}

// minuteBatch is what one batch of the minute pass saw.
type minuteBatch struct {
	run      stockd.ReconcileRun
	entries  int
	findings []stockd.Finding
	cut      bool
	carried  map[stockd.PositionKey]bool
	// checked are the positions whose snapshot was compared;
	// acknowledged, those where a reconciliation entry restarted the chain,
	// and rebalanced those of them that were also checked.
	checked, acknowledged, rebalanced []stockd.PositionKey
}

func (b *minuteBatch) scopes() []store.ReconcileScope {
	if b.cut {
		return nil
	}
	return []store.ReconcileScope{
		{Kinds: minuteKinds, Positions: b.checked},
		{Kinds: chainKinds, Positions: b.acknowledged},
		{Kinds: sumKinds, Positions: b.rebalanced},
	}
}

func (r *Reconciler) minuteBatch(ctx context.Context, cursor int64, carried map[stockd.PositionKey]bool) (*minuteBatch, error) {
	b := &minuteBatch{run: stockd.ReconcileRun{Pass: stockd.PassMinute, StartedAt: r.now(), CursorFrom: cursor, CursorTo: cursor}, carried: carried}
	err := r.cfg.Store.AuditRead(ctx, func(a store.AuditReader) error {
		return b.read(ctx, a, r.cfg.BatchEntries)
	})
	if err != nil {
		return nil, err
	}
	b.findings, b.cut = capFindings(b.findings)
	b.run.PositionsChecked = len(b.checked)
	return b, nil
}

// read checks, in one snapshot, the positions of the next limit entries.
func (b *minuteBatch) read(ctx context.Context, a store.AuditReader, limit int) error {
	byPosition := map[stockd.PositionKey][]stockd.LedgerEntry{}
	booked := map[string]bool{}
	err := a.LedgerEachAfter(ctx, b.run.CursorFrom, limit, func(e stockd.LedgerEntry) error {
		b.run.CursorTo = e.Seq
		b.entries++
		if stockd.EventOnly(e.BusinessType) {
			// An event changes no position (audit.Chain.Add says why);
			// the schema's UNIQUE keeps it once per crossing or record.
			return nil
		}
		byPosition[e.Position] = append(byPosition[e.Position], e)
		// The schema's UNIQUE constraint forbids it; this sees it should
		// the constraint ever be lost.
		event := e.BusinessType + "\x00" + e.BusinessID + "\x00" + e.Position.SKU + "\x00" + e.Position.Location + "\x00" + e.Position.Pool
		if booked[event] {
			b.findings = append(b.findings, stockd.Finding{Kind: stockd.DiscrepancyDuplicateEvent, Position: e.Position,
				Subject: e.BusinessType + ":" + e.BusinessID, Actual: e.Delta,
				Evidence: fmt.Sprintf("entry %d books %s %q at the position a second time", e.Seq, e.BusinessType, e.BusinessID)})
		}
		booked[event] = true
		return nil
	})
	if err != nil || b.entries == 0 {
		return err
	}
	open := map[stockd.PositionKey]*stockd.Counters{}
	for k := range byPosition {
		open[k] = &stockd.Counters{}
	}
	var elsewhere stockd.Counters
	err = a.ReservationOpenEach(ctx, func(res stockd.Reservation) error {
		return audit.OpenHeld(res, func(k stockd.PositionKey) *stockd.Counters {
			if c, ok := open[k]; ok {
				return c
			}
			return &elsewhere
		})
	})
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(byPosition) {
		if err := b.checkPosition(ctx, a, k, byPosition[k], *open[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkPosition follows the position's chain from the last entry before
// the window through the window's entries, then compares the snapshot,
// unless the position has entries beyond a full window: those are checked
// by the batch that reads its last entry.
func (b *minuteBatch) checkPosition(ctx context.Context, a store.AuditReader, k stockd.PositionKey, entries []stockd.LedgerEntry, open stockd.Counters) error {
	var chain audit.Chain
	prev, ok, err := a.LedgerLast(ctx, k, b.run.CursorFrom)
	if err != nil {
		return err
	}
	if ok {
		chain = audit.ChainFrom(prev.After)
	}
	reconciled := b.carried[k]
	for _, e := range entries {
		chain.Add(e)
		// A checkpoint opens the chain as a reconciliation does (the
		// archive waits for this pass's cursor, so one shows up here only
		// for a pass that never ran before the archive).
		reconciled = reconciled || e.BusinessType == stockd.BusinessReconciliation || e.BusinessType == stockd.BusinessCheckpoint
	}
	if reconciled {
		b.acknowledged = append(b.acknowledged, k)
	}
	last, _, err := a.LedgerLast(ctx, k, math.MaxInt64)
	if err != nil {
		return err
	}
	if last.Seq > b.run.CursorTo {
		b.add(chain.Breaks())
		if reconciled {
			b.carried[k] = true
		}
		return nil
	}
	delete(b.carried, k)
	b.checked = append(b.checked, k)
	if reconciled {
		b.rebalanced = append(b.rebalanced, k)
	}
	position, ok, err := a.PositionGet(ctx, k)
	if err != nil {
		return err
	}
	if !ok {
		b.add(chain.Breaks())
		b.findings = append(b.findings, stockd.Finding{Kind: stockd.DiscrepancyMissingPosition, Position: k, Expected: chain.Last(),
			Evidence: fmt.Sprintf("ledger entry %d names a position the snapshot lacks", last.Seq)})
		return nil
	}
	b.add(audit.CheckPosition(k, position.Counters, &chain, open))
	return nil
}

// add turns the audit's differences into findings.
func (b *minuteBatch) add(diffs []audit.Difference) {
	for _, d := range diffs {
		b.findings = append(b.findings, findingOf(d))
	}
}

// findingOf is the finding of one audit difference; a chain break is about
// its entry.
func findingOf(d audit.Difference) stockd.Finding {
	f := stockd.Finding{Kind: d.Check, Position: d.Position, Expected: d.Expected, Actual: d.Snapshot, Evidence: d.Detail}
	if d.Seq != 0 {
		f.Subject = strconv.FormatInt(d.Seq, 10)
	}
	if len(f.Evidence) > stockd.DiscrepancyEvidenceLengthMax {
		f.Evidence = f.Evidence[:stockd.DiscrepancyEvidenceLengthMax]
	}
	return f
}
