package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const (
	// campaignsShownMax bounds the campaigns the page shows, and
	// poolPagesMax the pages of pool documents it reads to find them.
	campaignsShownMax = 20
	poolPagesMax      = 10
	// campaignLedgerScanMax bounds the ledger entries one page reads to
	// sum what campaigns were allocated and shipped; past it the figures
	// are marked as lower bounds.
	campaignLedgerScanMax = 20_000
)

// campaignRow is one campaign's progress. Allocated is the net stock
// allocations moved into the pool; Sold what its orders confirmed
// (committed now, plus fulfilled); Reserved what pending orders hold;
// Left what is still available.
type campaignRow struct {
	Pool      stockd.Pool
	State     string
	Allocated int64
	Sold      int64
	Reserved  int64
	Left      int64
	SKUs      int
	TimeLeft  string
	Partial   bool
	Bar       template.HTML
}

type campaignsPage struct {
	Campaigns []campaignRow
	More      bool
}

func (h *Handler) campaigns(w http.ResponseWriter, r *http.Request, v *visitor) {
	ctx := r.Context()
	now := h.now()
	pools, more, err := h.campaignPools(ctx)
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	page := campaignsPage{More: more}
	budget := campaignLedgerScanMax
	for _, p := range pools {
		row, err := h.campaignProgress(ctx, p, now, &budget)
		if err != nil {
			h.storeFailed(w, r, v, err)
			return
		}
		page.Campaigns = append(page.Campaigns, row)
	}
	h.render(w, r, v, http.StatusOK, "campaigns", page)
}

// campaignPools reads the first campaignsShownMax campaign pools by name.
func (h *Handler) campaignPools(ctx context.Context) (pools []stockd.Pool, more bool, err error) {
	after := ""
	for range poolPagesMax {
		docs, err := h.store.DocumentList(ctx, store.DocumentListParams{Kind: stockd.DocPool, After: after, Limit: stockd.PageSizeDefault})
		if err != nil {
			return nil, false, err
		}
		for _, d := range docs {
			var p stockd.Pool
			if err := json.Unmarshal(d.Body, &p); err != nil {
				return nil, false, fmt.Errorf("pool %s: %w", d.ID, err)
			}
			if p.Kind != stockd.PoolCampaign {
				continue
			}
			if len(pools) == campaignsShownMax {
				return pools, true, nil
			}
			pools = append(pools, p)
		}
		if len(docs) < stockd.PageSizeDefault {
			return pools, false, nil
		}
		after = docs[len(docs)-1].ID
	}
	return pools, true, nil
}

// campaignProgress sums the pool's positions, and its ledger entries
// within the budget left.
func (h *Handler) campaignProgress(ctx context.Context, p stockd.Pool, now time.Time, budget *int) (campaignRow, error) {
	row := campaignRow{Pool: p, State: p.State(now), TimeLeft: timeLeft(p, now)}
	doc, err := h.store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocPoolStock, ID: p.ID})
	if isNotFound(err) {
		row.Bar = progressBar(0, 0, 0)
		return row, nil // nothing allocated yet
	}
	if err != nil {
		return row, err
	}
	var ps stockd.PoolStock
	if err := json.Unmarshal(doc.Body, &ps); err != nil {
		return row, fmt.Errorf("pool stock %s: %w", p.ID, err)
	}
	skus := map[string]bool{}
	for _, item := range ps.Positions {
		skus[item.SKU] = true
	}
	row.SKUs = len(skus)
	for sku := range skus {
		positions, err := h.store.PositionListBySKU(ctx, sku)
		if err != nil {
			return row, err
		}
		for _, pos := range positions {
			if pos.Pool != p.ID {
				continue
			}
			row.Sold += pos.Committed
			row.Reserved += pos.Reserved
			row.Left += pos.Available()
		}
		partial, err := h.campaignLedger(ctx, sku, p.ID, &row, budget)
		if err != nil {
			return row, err
		}
		row.Partial = row.Partial || partial
	}
	row.Bar = progressBar(row.Sold, row.Reserved, max(row.Left, 0))
	return row, nil
}

// campaignLedger adds the allocations into pool and the units shipped from
// it, reading sku's ledger while the budget lasts; partial reports that it
// ran out.
func (h *Handler) campaignLedger(ctx context.Context, sku, pool string, row *campaignRow, budget *int) (partial bool, err error) {
	var after int64
	for {
		if *budget <= 0 {
			return true, nil
		}
		limit := min(stockd.PageSizeMax, *budget)
		entries, err := h.store.LedgerList(ctx, store.LedgerListParams{SKU: sku, After: after, Limit: limit})
		if err != nil {
			return false, err
		}
		*budget -= len(entries)
		for _, e := range entries {
			if e.Position.Pool != pool {
				continue
			}
			switch e.BusinessType {
			case stockd.BusinessAllocation:
				row.Allocated += e.Delta.OnHand
			case stockd.BusinessFulfil, stockd.BusinessShipment:
				row.Sold -= e.Delta.OnHand
			}
		}
		if len(entries) < limit {
			return false, nil
		}
		after = entries[len(entries)-1].Seq
	}
}

// timeLeft says how long the campaign still sells, or why it does not.
func timeLeft(p stockd.Pool, now time.Time) string {
	switch p.State(now) {
	case stockd.PoolStateClosed:
		return "closed"
	case stockd.PoolStateEnded:
		return "ended"
	case stockd.PoolStateNotOpen:
		return "opens in " + roughDuration(p.StartsAt.Sub(now))
	}
	if p.EndsAt == nil {
		return "no end set"
	}
	return roughDuration(p.EndsAt.Sub(now))
}

// roughDuration writes d to the minute: "2d 3h", "3h 05m", "12m".
func roughDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	days, hours, minutes := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("%dh %02dm", hours, minutes)
	}
	return fmt.Sprintf("%dm", minutes)
}
