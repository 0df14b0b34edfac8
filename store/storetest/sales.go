package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// testLedgerSales: the ledger's sales per quarter-hour are confirmed units
// (by confirm, or committed at reserve), less refunds before shipment,
// plus direct shipments; holds, releases, receipts and fulfilments are not
// sales, nor are other SKUs' entries or those outside the span.
func testLedgerSales(t *testing.T, h *Harness) {
	h.SKU("a")
	h.SKU("b")
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "s", Deduction: stockd.DeductionAtShipment}}})
	for _, sku := range []string{"a", "b", "s"} {
		h.Receive(sku, "default", 100)
	}
	start := h.Clock.Now().Truncate(stockd.SalesBucketWidth)
	held := h.Reserve(line("a", 3)).Reservation
	h.Reserve(line("a", 4)) // never confirmed: not a sale
	h.Clock.Advance(time.Minute)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: held.ID}})
	h.Reserve(line("b", 9)) // another SKU
	h.Clock.Advance(20 * time.Minute)
	paid := h.committed("a", 5)
	h.MustDo(returnCmd(paid.ID, false, returnLine("a", 2))) // refunded before shipment
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: held.ID}})
	h.Clock.Advance(time.Hour)
	h.MustDo(stockd.Command{Op: &stockd.Shipment{Lines: []stockd.ShipmentLine{{SKU: "s", Quantity: 6}}}})

	got, err := h.Store.LedgerSales(ctx, "a", start, start.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []stockd.SalesBucket{{Start: start, Quantity: 3}, {Start: start.Add(15 * time.Minute), Quantity: 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("sales of a = %+v, want %+v", got, want)
	}
	if got, err := h.Store.LedgerSales(ctx, "a", start.Add(15*time.Minute), start.Add(30*time.Minute)); err != nil || len(got) != 1 || got[0].Quantity != 3 {
		t.Fatalf("sales of a in the second quarter-hour = %+v, %v, want one bucket of 3", got, err)
	}
	shipped, err := h.Store.LedgerSales(ctx, "s", start, start.Add(24*time.Hour))
	if err != nil || len(shipped) != 1 || shipped[0].Quantity != 6 || !shipped[0].Start.Equal(start.Add(75*time.Minute)) {
		t.Fatalf("sales of s = %+v, %v, want 6 shipped in the quarter-hour 81 minutes on", shipped, err)
	}
	if _, err := h.Store.LedgerSales(ctx, "a", start, start.Add(400*24*time.Hour)); err == nil {
		t.Fatal("a sales read over 400 days was accepted")
	}
}
