package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store/storeurl"
)

// TestReplenishByLocation: `stockd replenish --by-location` prints one row
// per (SKU, location) for a SKU with demand_by_location, each from that
// location's own sales and stock, and the SKU-wide row as location "*"
// for a SKU without it; --status filters the rows by their own level.
func TestReplenishByLocation(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		s, err := storeurl.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		h := flowtest.NewHarness(t, s)
		h.Clock.Set(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
		h.SKU("tea")
		h.SKU("cup")
		h.Location("north", 5)
		h.Receive("tea", "default", 400)
		h.Receive("tea", "north", 100)
		h.Receive("cup", "default", 50)
		on, lead := true, 7.0
		h.MustDo(stockd.Command{Op: &stockd.SKUUpdate{ID: "tea", Replenishment: stockd.ReplenishmentSettings{DemandByLocation: &on, LeadTimeDays: &lead}}})
		for range 30 {
			h.MustDo(stockd.Command{Op: &stockd.Reserve{Commit: true, Lines: []stockd.LineRequest{
				{SKU: "tea", Location: "default", Quantity: 10}, {SKU: "tea", Location: "north", Quantity: 2}}}})
			h.Clock.Advance(24 * time.Hour)
		}
		out, err := runStockd(t, "replenish", "--as-of", "2026-01-30", "--by-location", "--csv", "--database-url", dbURL)
		if err != nil {
			t.Fatalf("replenish --by-location: %v\n%s", err, out)
		}
		// d̄ 10 and 2 with σ 0: SS 0, ROP 70 at default (100 left: ok),
		// and at north the slow mover's Poisson-gamma floor over 14.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "sku,location,level,source,mean_daily") ||
			!strings.HasPrefix(lines[1], "cup,*,slow_moving,history,0.00,") ||
			!strings.HasPrefix(lines[2], "tea,default,ok,history,10.00,0.00,7.00,0.00,0,70,100,") ||
			!strings.HasPrefix(lines[3], "tea,north,") || !strings.Contains(lines[3], ",history,2.00,0.00,7.00,0.00,0,") {
			t.Fatalf("replenish --by-location --csv:\n%s", out)
		}
		out, err = runStockd(t, "replenish", "--as-of", "2026-01-30", "--by-location", "--status", "ok", "--database-url", dbURL)
		if err != nil || !strings.Contains(out, "LOCATION") || !strings.Contains(out, "default") || strings.Contains(out, "cup") {
			t.Fatalf("replenish --by-location --status ok: %v\n%s", err, out)
		}
	})
}
