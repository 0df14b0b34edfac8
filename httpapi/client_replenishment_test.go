package httpapi

import (
	"errors"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestClientReplenishment: the seed's example through the typed client:
// settings, imported history, the figures and the list.
func TestClientReplenishment(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		c := NewClient(h.url)
		ctx := t.Context()
		h.seed(60, "CT")
		lead, multiple := 7.0, int64(50)
		sku, err := c.UpdateSKU(ctx, UpdateSKUParams{SKU: "CT", Replenishment: stockd.ReplenishmentSettings{LeadTimeDays: &lead, OrderMultiple: &multiple}})
		if err != nil || *sku.Replenishment.OrderMultiple != 50 {
			t.Fatalf("update: %+v, %v", sku, err)
		}
		rows := make([]stockd.DemandDay, len(seedHistory))
		for i, q := range seedHistory {
			rows[i] = stockd.DemandDay{SKU: "CT", Date: "2026-01-" + twoDigits(i+1), Quantity: q}
		}
		if got, err := c.ImportDemandHistory(ctx, rows); err != nil || got.Rows != 30 {
			t.Fatalf("import: %+v, %v", got, err)
		}
		r, err := c.GetReplenishment(ctx, "CT", "2026-01-30")
		if err != nil {
			t.Fatal(err)
		}
		wantSeedFigures(t, r, "history")
		page, err := c.ListReplenishment(ctx, ListReplenishmentParams{AsOf: "2026-01-30", Status: "critical", Limit: 10})
		if err != nil || len(page.SKUs) != 1 || page.SKUs[0].ReorderPoint != 118 || page.NextAfter != "" {
			t.Fatalf("list: %+v, %v", page, err)
		}
		level := 0.99
		d, err := c.UpdateReplenishmentDefaults(ctx, "", stockd.ReplenishmentDefaults{ReplenishmentSettings: stockd.ReplenishmentSettings{ServiceLevel: &level}})
		if err != nil || d.ServiceLevel != 0.99 {
			t.Fatalf("defaults: %+v, %v", d, err)
		}
		if r, err := c.GetReplenishment(ctx, "CT", "2026-01-30"); err != nil || r.ServiceLevel != 0.99 || r.SafetyStock <= 16 {
			t.Fatalf("at 99 %%: %+v, %v", r, err)
		}
		var apiErr *stockd.Error
		if _, err := c.GetReplenishment(ctx, "nowhere", ""); !errors.As(err, &apiErr) || apiErr.Code != stockd.CodeUnknownSKU {
			t.Fatalf("unknown: %v", err)
		}
	})
}

func twoDigits(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }
