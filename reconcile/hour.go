package reconcile

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// hourKinds are what the hour pass checks, everywhere.
var hourKinds = []string{stockd.DiscrepancyOverdueHold, stockd.DiscrepancyUnshipped, stockd.DiscrepancyOverdueApproval}

// Hour looks, in one snapshot, for what the workers and the operators left
// behind: pending holds past their deadline plus HoldGrace (the expiry
// worker is behind or stuck), reservations confirmed more than
// UnshippedAge ago and not shipped, and approvals still pending past their
// expiry. It reads the open reservations and the approvals, not the
// ledger.
func (r *Reconciler) Hour(ctx context.Context) (Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PassTimeout)
	defer cancel()
	run := stockd.ReconcileRun{Pass: stockd.PassHour, StartedAt: r.now()}
	var findings []stockd.Finding
	err := r.cfg.Store.AuditRead(ctx, func(a store.AuditReader) error {
		var err error
		findings, err = r.hourFindings(ctx, a, &run)
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("hour pass: %w", err)
	}
	findings, cut := capFindings(findings)
	var scopes []store.ReconcileScope
	if !cut {
		scopes = []store.ReconcileScope{{Kinds: hourKinds, All: true}}
	}
	recorded, err := r.record(ctx, run, findings, scopes)
	if err != nil {
		return Result{}, fmt.Errorf("hour pass: %w", err)
	}
	var res Result
	res.add(recorded, findings)
	return res, nil
}

func (r *Reconciler) hourFindings(ctx context.Context, a store.AuditReader, run *stockd.ReconcileRun) ([]stockd.Finding, error) {
	var findings []stockd.Finding
	now := run.StartedAt
	err := a.ReservationOpenEach(ctx, func(res stockd.Reservation) error {
		run.PositionsChecked++
		var held stockd.Counters
		for _, l := range res.Lines {
			if res.Status == stockd.StatusPending {
				held.Reserved += l.Unshipped()
			} else {
				held.Committed += l.Unshipped()
			}
		}
		switch {
		case res.Status == stockd.StatusPending && !now.Before(res.ExpiresAt.Add(r.cfg.HoldGrace)):
			findings = append(findings, stockd.Finding{Kind: stockd.DiscrepancyOverdueHold, Subject: res.ID, Actual: held,
				Evidence: fmt.Sprintf("reservation %s is pending %s past its deadline %s: the expiry worker is behind or stopped",
					res.ID, now.Sub(res.ExpiresAt).Round(1e9), res.ExpiresAt.Format("2006-01-02T15:04:05Z07:00"))})
		case res.Status == stockd.StatusConfirmed && !now.Before(res.UpdatedAt.Add(r.cfg.UnshippedAge)):
			findings = append(findings, stockd.Finding{Kind: stockd.DiscrepancyUnshipped, Subject: res.ID, Actual: held,
				Evidence: fmt.Sprintf("reservation %s was confirmed or last shipped %s ago and has %d units not shipped", res.ID, now.Sub(res.UpdatedAt).Round(1e9), held.Committed)})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read open reservations: %w", err)
	}
	err = a.DocumentEach(ctx, stockd.DocApproval, func(d stockd.Document) error {
		var ap stockd.Approval
		if err := json.Unmarshal(d.Body, &ap); err != nil {
			return fmt.Errorf("approval %s: %w", d.ID, err)
		}
		if ap.Status != stockd.ApprovalPending || now.Before(ap.ExpiresAt) {
			return nil
		}
		change := ap.Change()
		findings = append(findings, stockd.Finding{Kind: stockd.DiscrepancyOverdueApproval, Subject: ap.ID,
			Position: stockd.PositionKey{SKU: ap.Adjustment.SKU, Location: ap.Adjustment.Location, Pool: ap.Adjustment.Pool},
			Actual:   change,
			Evidence: fmt.Sprintf("approval %s requested by %s is pending past its expiry %s", ap.ID, ap.RequestedBy, ap.ExpiresAt.Format("2006-01-02T15:04:05Z07:00"))})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read approvals: %w", err)
	}
	return findings, nil
}
