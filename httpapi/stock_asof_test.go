package httpapi

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stockd/stockd/internal/testdb"
)

// TestStockAsOf: GET /v1/stock/{sku}?as_of= answers the counters the
// ledger had booked by then, position by position.
func TestStockAsOf(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		first := h.clock.Now()
		h.clock.Advance(time.Hour)
		h.must("POST", "/v1/locations", "loc-L1", `{"location":"L1","priority":2}`, http.StatusCreated, nil)
		h.must("POST", "/v1/receipts", "rcv-L1", `{"sku":"A","location":"L1","quantity":5}`, http.StatusOK, nil)
		h.must("POST", "/v1/reservations", "order", `{"lines":[{"sku":"A","quantity":3}],"commit":true}`, http.StatusCreated, nil)
		asOf := func(at time.Time) Stock {
			t.Helper()
			var s Stock
			h.must("GET", "/v1/stock/A?as_of="+url.QueryEscape(at.UTC().Format(time.RFC3339Nano)), "", "", http.StatusOK, &s)
			return s
		}
		then := asOf(first.Add(time.Minute))
		if len(then.Positions) != 1 || then.Totals.OnHand != 10 || then.Totals.Committed != 0 || then.Totals.Available != 10 {
			t.Fatalf("stock an hour ago = %+v, want 10 on hand at default only", then)
		}
		now := asOf(h.clock.Now())
		var current Stock
		h.must("GET", "/v1/stock/A", "", "", http.StatusOK, &current)
		if now.Totals != current.Totals || len(now.Positions) != 2 {
			t.Fatalf("stock as of now = %+v, want the current %+v", now.Totals, current.Totals)
		}
		if before := asOf(first.Add(-time.Second)); len(before.Positions) != 0 || before.Totals.OnHand != 0 {
			t.Fatalf("stock before the first receipt = %+v, want none", before)
		}
		h.refuse("GET", "/v1/stock/A?as_of=yesterday", "", "", http.StatusBadRequest, "invalid_input")
		h.refuse("GET", "/v1/stock/A?as_of="+url.QueryEscape(h.clock.Now().Add(time.Hour).Format(time.RFC3339)), "", "", http.StatusBadRequest, "invalid_input")
		viaClient, err := NewClient(h.url, fastRetries).StockAsOf(t.Context(), "A", first.Add(time.Minute))
		if err != nil || viaClient.Totals != then.Totals {
			t.Fatalf("client StockAsOf = %+v, %v; want %+v", viaClient.Totals, err, then.Totals)
		}
		for _, fault := range []string{faultInternal, faultDown} {
			h.sendHeaders("GET", "/v1/stock/A?as_of="+url.QueryEscape(first.Format(time.RFC3339)), nil, map[string]string{headerTestFault: fault})
		}
	})
}
