package expiry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// A campaign closes itself at its end: from ends_at no reservation can take
// its stock, and what is left should go back on sale as normal stock at
// once, not when an operator remembers the close. The worker submits the
// same close an operator would; the pool's closed_at makes it happen once
// whichever replica's worker, or operator, gets there first.

// campaignSweepEvery is how many expiry passes go by between sweeps for
// ended campaigns: pools are few, but listing them every second is waste,
// and a close a few seconds after ends_at loses nothing (reservations are
// refused from ends_at on).
const campaignSweepEvery = 10

// poolPageSize bounds one page of the pool listing.
const poolPageSize = 500

// CloseEndedCampaigns closes every campaign pool whose window has ended
// and that is not closed yet, and returns how many it closed.
func (w *Worker) CloseEndedCampaigns(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.PassTimeout)
	defer cancel()
	now := w.cfg.Now()
	closed := 0
	for after := ""; ; {
		docs, err := w.cfg.Store.DocumentList(ctx, store.DocumentListParams{Kind: stockd.DocPool, After: after, Limit: poolPageSize})
		if err != nil {
			return closed, fmt.Errorf("list pools: %w", err)
		}
		for _, d := range docs {
			var p stockd.Pool
			if err := json.Unmarshal(d.Body, &p); err != nil {
				return closed, fmt.Errorf("pool %s: %w", d.ID, err)
			}
			if p.Kind != stockd.PoolCampaign || p.ClosedAt != nil || p.EndsAt == nil || now.Before(*p.EndsAt) {
				continue
			}
			if err := w.closeCampaign(ctx, p.ID); err != nil {
				return closed, err
			}
			closed++
		}
		if len(docs) < poolPageSize {
			return closed, nil
		}
		after = docs[len(docs)-1].ID
	}
}

func (w *Worker) closeCampaign(ctx context.Context, pool string) error {
	res, err := w.cfg.Engine.Submit(ctx, stockd.Command{Actor: "expiry", Op: &stockd.CampaignClose{Pool: pool}})
	if err != nil {
		return fmt.Errorf("close campaign %s: %w", pool, err)
	}
	if res.Err != nil {
		return fmt.Errorf("close campaign %s: %w", pool, res.Err)
	}
	w.cfg.Logger.Info("campaign ended: its leftovers went back to normal", "pool", pool)
	return nil
}
