package reconcile

import (
	"context"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/store"
)

// dayKinds are what verify checks, everywhere.
var dayKinds = []string{
	stockd.DiscrepancyLedgerChain, stockd.DiscrepancyLedgerSum, stockd.DiscrepancyLedgerLast, stockd.DiscrepancyNegative,
	stockd.DiscrepancyReservations, stockd.DiscrepancyInbound, stockd.DiscrepancyMissingPosition,
}

// Day runs the full verify (audit.Verify, one snapshot of the whole books)
// and records it as a run whose differences are discrepancies. It is the
// pass that sees a drift no ledger entry touched since.
func (r *Reconciler) Day(ctx context.Context) (Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PassTimeout)
	defer cancel()
	run := stockd.ReconcileRun{Pass: stockd.PassDay, StartedAt: r.now()}
	rep, err := audit.Verify(ctx, r.cfg.Store)
	if err != nil {
		return Result{}, fmt.Errorf("day pass: %w", err)
	}
	run.PositionsChecked = rep.Positions
	findings := make([]stockd.Finding, 0, len(rep.Differences))
	for _, d := range rep.Differences {
		findings = append(findings, findingOf(d))
	}
	findings, cut := capFindings(findings)
	var scopes []store.ReconcileScope
	// A report that lists fewer differences than it counted must not close
	// the ones it left out.
	if !cut && rep.Count == len(rep.Differences) {
		scopes = []store.ReconcileScope{{Kinds: dayKinds, All: true}}
	}
	recorded, err := r.record(ctx, run, findings, scopes)
	if err != nil {
		return Result{}, fmt.Errorf("day pass: %w", err)
	}
	var res Result
	res.add(recorded, findings)
	return res, nil
}
