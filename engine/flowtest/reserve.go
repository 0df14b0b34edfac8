package flowtest

import (
	"strings"
	"testing"

	"github.com/stockd/stockd"
)

// reserveWith submits a reservation of lines with the options set by opt.
func (h *Harness) reserveWith(opt func(*stockd.Reserve), lines ...stockd.LineRequest) stockd.Result {
	h.T.Helper()
	r := &stockd.Reserve{Lines: lines}
	if opt != nil {
		opt(r)
	}
	return h.Do(stockd.Command{Op: r})
}

func strategy(s string) func(*stockd.Reserve) { return func(r *stockd.Reserve) { r.Strategy = s } }

func customer(id string) func(*stockd.Reserve) { return func(r *stockd.Reserve) { r.CustomerID = id } }

func at(sku, location string, q int64) stockd.LineRequest {
	return stockd.LineRequest{SKU: sku, Location: location, Quantity: q}
}

func inPool(sku, pool string, q int64) stockd.LineRequest {
	return stockd.LineRequest{SKU: sku, Pool: pool, Quantity: q}
}

// wantLines fails t unless the reservation holds exactly want, in order.
func wantLines(t *testing.T, res stockd.Result, want ...stockd.ReservationLine) *stockd.Reservation {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("reserve: %v, want lines %+v", res.Err, want)
	}
	got := res.Reservation.Lines
	if len(got) != len(want) {
		t.Fatalf("lines = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines = %+v, want %+v", got, want)
		}
	}
	return res.Reservation
}

func held(sku, location, pool string, q int64) stockd.ReservationLine {
	return stockd.ReservationLine{SKU: sku, Location: location, Pool: pool, Quantity: q}
}

// testOrderStrategies: priority, single_location and split place lines that
// name no location; inactive locations are never chosen and refuse lines
// naming them; a line landing where another line of the order is merges.
func testOrderStrategies(t *testing.T, h *Harness) {
	for _, s := range []string{"a", "c", "d", "e", "f"} {
		h.SKU(s)
	}
	h.Location("near", 1)
	h.Location("far", 5)
	h.MustDo(stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: "off", Priority: 0, Inactive: true}}})
	h.Receive("a", "near", 3)
	h.Receive("a", "far", 5)
	h.Receive("a", "off", 10)
	h.Receive("c", "near", 1)
	h.Receive("c", "far", 1)
	h.Receive("d", "far", 1)
	h.Receive("d", "off", 5)
	h.Receive("e", "near", 1)
	h.Receive("f", "far", 1)

	WantCode(t, h.Reserve(at("a", "off", 1)), stockd.CodeLocationInactive)

	// split: 3 at near, the rest at far; the inactive location is skipped.
	r1 := wantLines(t, h.reserveWith(strategy(stockd.StrategySplit), line("a", 4)),
		held("a", "near", "normal", 3), held("a", "far", "normal", 1))
	entries, err := h.Store.LedgerList(ctx, storeLedger("a", 0, 100))
	if err != nil {
		t.Fatal(err)
	}
	reserves := 0
	for _, e := range entries {
		if e.ReservationID == r1.ID && e.BusinessType == stockd.BusinessReserve {
			reserves++
		}
	}
	if reserves != 2 {
		t.Fatalf("split reservation wrote %d reserve entries, want 2", reserves)
	}
	// priority: the line whole at the first location that holds it.
	wantLines(t, h.Reserve(line("a", 4)), held("a", "far", "normal", 4))
	// Only the inactive location has more: nothing is placed there.
	short := h.Reserve(line("a", 1))
	WantCode(t, short, stockd.CodeInsufficientStock)
	if l := short.Err.Lines; len(l) != 1 || l[0].Available != 0 {
		t.Fatalf("shortfall = %+v, want a with 0 available", l)
	}
	WantCode(t, h.reserveWith(strategy(stockd.StrategySplit), line("a", 1)), stockd.CodeInsufficientStock)

	// single_location: far holds c and d, near only c.
	wantLines(t, h.reserveWith(strategy(stockd.StrategySingleLocation), line("c", 1), line("d", 1)),
		held("c", "far", "normal", 1), held("d", "far", "normal", 1))
	// No location holds e and f together: refused, not split over two
	// parcels; each line says the most one location holds.
	apart := h.reserveWith(strategy(stockd.StrategySingleLocation), line("e", 1), line("f", 1))
	WantCode(t, apart, stockd.CodeInsufficientStock)
	if l := apart.Err.Lines; len(l) != 2 || l[0].Available != 1 || l[1].Available != 1 || !strings.Contains(apart.Err.Message, "single") {
		t.Fatalf("single_location refusal: %+v", apart.Err)
	}
	wantLines(t, h.reserveWith(strategy(stockd.StrategyPriority), line("e", 1), line("f", 1)),
		held("e", "near", "normal", 1), held("f", "far", "normal", 1))
	// A line without location landing on a named line's position merges.
	h.Receive("c", "near", 2)
	wantLines(t, h.Reserve(at("c", "near", 1), line("c", 2)), held("c", "near", "normal", 3))
	h.Verify()
}

// testOrderDeductionTiming: an at_payment SKU is held only by a reservation
// that commits at once; an at_shipment SKU is never held.
func testOrderDeductionTiming(t *testing.T, h *Harness) {
	for _, s := range []stockd.SKU{{ID: "pay", Deduction: stockd.DeductionAtPayment}, {ID: "ship", Deduction: stockd.DeductionAtShipment}} {
		h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: s}})
		h.Receive(s.ID, "default", 5)
	}
	commit := func(r *stockd.Reserve) { r.Commit = true }
	WantCode(t, h.Reserve(line("pay", 1)), stockd.CodeDeductionTiming)
	if res := h.reserveWith(commit, line("pay", 1)); res.Err != nil || res.Reservation.Status != stockd.StatusConfirmed {
		t.Fatalf("commit of an at_payment SKU = %+v, want confirmed", res)
	}
	WantCode(t, h.Reserve(line("ship", 1)), stockd.CodeDeductionTiming)
	WantCode(t, h.reserveWith(commit, line("ship", 1)), stockd.CodeDeductionTiming)
	if c := h.Counters("ship", "default"); c.Available() != 5 {
		t.Fatalf("at_shipment counters = %+v, want nothing held", c)
	}
	if c := h.Counters("pay", "default"); c.Committed != 1 || c.Reserved != 0 {
		t.Fatalf("at_payment counters = %+v, want 1 committed", c)
	}
	h.Verify()
}
