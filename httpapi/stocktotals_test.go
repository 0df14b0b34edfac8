package httpapi

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd/internal/testdb"
)

// TestStockTotalsSellableNow: totals.available is what any buyer can take
// now; a channel's stock and that of campaigns not yet open or ended are
// listed apart with the reason, and still counted in on_hand.
func TestStockTotalsSellableNow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "T")
		at := func(d time.Duration) string { return h.clock.Now().Add(d).UTC().Format(time.RFC3339) }
		h.must("POST", "/v1/pools", "tot-web", `{"pool":"web","kind":"channel"}`, http.StatusCreated, nil)
		h.must("POST", "/v1/receipts", "tot-web-in", `{"sku":"T","pool":"web","quantity":2}`, http.StatusOK, nil)
		for _, c := range []struct {
			pool, starts, ends string
			quantity           string
		}{
			{"live", at(-time.Hour), at(10 * time.Hour), "5"},
			{"soon", at(5 * time.Hour), at(10 * time.Hour), "3"},
			{"over", at(-time.Hour), at(time.Hour), "1"},
		} {
			h.must("POST", "/v1/pools", "tot-"+c.pool, `{"pool":"`+c.pool+`","kind":"campaign","starts_at":"`+c.starts+`","ends_at":"`+c.ends+`"}`, http.StatusCreated, nil)
			h.must("POST", "/v1/allocations", "tot-alloc-"+c.pool, `{"sku":"T","from_pool":"normal","to_pool":"`+c.pool+`","quantity":`+c.quantity+`}`, http.StatusOK, nil)
		}
		h.clock.Advance(2 * time.Hour)
		var stock Stock
		h.must("GET", "/v1/stock/T", "", "", http.StatusOK, &stock)
		want := []PoolApart{{Pool: "over", State: "ended", Available: 1}, {Pool: "soon", State: "not_open", Available: 3}, {Pool: "web", State: "channel", Available: 2}}
		if stock.Totals.OnHand != 12 || stock.Totals.Available != 1+5 || !slices.Equal(stock.Apart, want) {
			t.Fatalf("totals %+v apart %+v, want on_hand 12, available 6 (normal 1, live 5), apart %+v", stock.Totals, stock.Apart, want)
		}
	})
}
