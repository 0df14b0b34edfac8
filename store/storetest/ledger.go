package storetest

// LedgerList, LedgerSales and the ledger entries Tx.Write appends.

import (
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
)

func testLedgerList(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	for range 3 {
		h.Receive("a", "default", 1)
		h.Receive("b", "default", 1)
	}
	all, err := h.Store.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(all) != 6 {
		t.Fatalf("ledger = %d entries, %v; want 6", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("seq not increasing: %d then %d", all[i-1].Seq, all[i].Seq)
		}
	}
	page, err := h.Store.LedgerList(ctx, storeLedger("b", all[1].Seq, 1))
	if err != nil || len(page) != 1 || page[0].Position.SKU != "b" || page[0].Seq <= all[1].Seq {
		t.Fatalf("page = %+v, %v", page, err)
	}
	e := all[0]
	if e.BusinessType != stockd.BusinessReceipt || e.Delta.OnHand != 1 || e.After.OnHand != 1 || e.BusinessID == "" || e.CreatedAt.IsZero() {
		t.Fatalf("entry = %+v", e)
	}
}

func testLedgerUnique(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 1)
	entries, err := h.Store.LedgerList(ctx, storeLedger("a", 0, 10))
	if err != nil || len(entries) != 1 {
		t.Fatalf("ledger = %v, %v", entries, err)
	}
	dup := entries[0]
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if err := tx.Write(ctx, &stockd.BatchWrites{Ledger: []stockd.LedgerEntry{dup}}); err == nil {
		if err := tx.Commit(ctx); err == nil {
			t.Fatal("a second ledger entry for the same business event was accepted")
		}
	}
}

// testLedgerSales: the ledger's sales per quarter-hour are confirmed units
// (by confirm, or committed at reserve), less refunds before shipment,
// plus direct shipments; holds, releases, receipts and fulfilments are not
// sales, nor are other SKUs' entries or those outside the span.
func testLedgerSales(t *testing.T, h *flowtest.Harness) {
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
	h.Transition(stockd.KindConfirm, held.ID)
	h.Reserve(line("b", 9)) // another SKU
	h.Clock.Advance(20 * time.Minute)
	paid := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 5)}, Commit: true}}).Reservation
	h.MustDo(stockd.Command{Op: &stockd.Return{ReservationID: paid.ID, Lines: []stockd.ReturnLine{{SKU: "a", Quantity: 2}}}}) // refunded before shipment
	h.Transition(stockd.KindFulfil, held.ID)
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
