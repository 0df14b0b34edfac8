package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// hourKinds are what the hour pass checks, everywhere.
var hourKinds = []string{stockd.DiscrepancyOverdueHold, stockd.DiscrepancyUnshipped, stockd.DiscrepancyOverdueApproval, stockd.DiscrepancyRelayLag}

// Hour looks, in one snapshot, for what the workers and the operators left
// behind: pending holds past their deadline plus HoldGrace (the expiry
// worker is behind or stuck), reservations confirmed more than
// UnshippedAge ago and not shipped, and approvals still pending past their
// expiry; and the relays and enabled webhooks (RelayNames, Webhooks) more
// than RelayLagEventsMax events or RelayLagMax behind the ledger. It reads
// the open reservations and the approvals, and of the ledger only its
// last seq and the first entry after each cursor.
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
	lag, err := r.relayLag(ctx, run.StartedAt)
	if err != nil {
		return Result{}, fmt.Errorf("hour pass: %w", err)
	}
	findings = append(findings, lag...)
	findings, cut := capFindings(findings)
	var scopes []store.ReconcileScope
	if !cut {
		kinds := hourKinds
		if len(r.cfg.RelayNames) == 0 && !r.cfg.Webhooks {
			// Relays not checked (stockd reconcile from the command line
			// knows none): what a serve's pass found stays open.
			kinds = hourKinds[:len(hourKinds)-1]
		}
		scopes = []store.ReconcileScope{{Kinds: kinds, All: true}}
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

// relayLag compares each relay's and enabled webhook's cursor with the
// ledger's last seq, and the age of the first event past the cursor with
// now: a consumer more than RelayLagEventsMax events or RelayLagMax behind
// is a relay_lag finding, its subject the consumer.
func (r *Reconciler) relayLag(ctx context.Context, now time.Time) ([]stockd.Finding, error) {
	if len(r.cfg.RelayNames) == 0 && !r.cfg.Webhooks {
		return nil, nil
	}
	last, err := r.cfg.Store.LedgerSeqMax(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the ledger's last seq: %w", err)
	}
	type consumer struct {
		subject string
		cursor  int64
	}
	var consumers []consumer
	for _, name := range r.cfg.RelayNames {
		cursor, err := r.cfg.Store.RelayCursorGet(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("read the cursor of relay %s: %w", name, err)
		}
		consumers = append(consumers, consumer{subject: "relay:" + name, cursor: cursor})
	}
	if r.cfg.Webhooks {
		hooks, err := r.cfg.Store.WebhookList(ctx)
		if err != nil {
			return nil, fmt.Errorf("read webhooks: %w", err)
		}
		for _, w := range hooks {
			if !w.Disabled() { // a disabled endpoint is dead-lettered, on purpose
				consumers = append(consumers, consumer{subject: "webhook:" + w.ID, cursor: w.Cursor})
			}
		}
	}
	var findings []stockd.Finding
	for _, c := range consumers {
		behind := last - c.cursor
		if behind <= 0 {
			continue
		}
		next, err := r.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: c.cursor, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("read the ledger after %s's cursor: %w", c.subject, err)
		}
		var age time.Duration
		oldest := now
		if len(next) == 1 {
			oldest = next[0].CreatedAt
			age = now.Sub(oldest)
		}
		if behind <= r.cfg.RelayLagEventsMax && age <= r.cfg.RelayLagMax {
			continue
		}
		findings = append(findings, stockd.Finding{Kind: stockd.DiscrepancyRelayLag, Subject: c.subject,
			Evidence: fmt.Sprintf("%s is %d events behind the ledger (cursor %d, last seq %d); its oldest undelivered event is %s old (written %s); bounds %d events and %s",
				c.subject, behind, c.cursor, last, age.Round(time.Second), oldest.Format(time.RFC3339), r.cfg.RelayLagEventsMax, r.cfg.RelayLagMax)})
	}
	return findings, nil
}
