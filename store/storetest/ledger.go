package storetest

// LedgerList, LedgerSales and the ledger entries Tx.Write appends.

import (
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func testLedgerList(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	for range 3 {
		h.Receive("a", "default", 1)
		h.Receive("b", "default", 1)
	}
	// Six receipts, and after the first of each SKU its back-in-stock
	// events (position and pool).
	all, err := h.Store.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(all) != 10 {
		t.Fatalf("ledger = %d entries, %v; want 10", len(all), err)
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
	if err != nil || len(entries) != 3 || entries[1].BusinessType != stockd.EventStockBackInStock {
		t.Fatalf("ledger = %v, %v; want the receipt and its back-in-stock events", entries, err)
	}
	// The change, and a derived event: each is once per business event
	// (an event once per crossing).
	for _, dup := range entries[:2] {
		tx, err := h.Store.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Write(ctx, &stockd.BatchWrites{Ledger: []stockd.LedgerEntry{dup}}); err == nil {
			if err := tx.Commit(ctx); err == nil {
				t.Fatalf("a second ledger entry %s %q was accepted", dup.BusinessType, dup.BusinessID)
			}
		}
		tx.Rollback(ctx)
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
	// Events are not sales: a notice at a's positions, and b sold out
	// (a derived event) within the window.
	h.MustDo(stockd.NoticeCommand(stockd.Notice{Type: stockd.NoticeAlertRaised, Subject: "1", SKU: "a"}, ""))
	h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("b", 91)}, Commit: true}})
	if sold, err := h.Store.LedgerList(ctx, store.LedgerListParams{SKU: "b", Type: stockd.EventStockSoldOut}); err != nil || len(sold) != 1 {
		t.Fatalf("stock_sold_out of b = %+v, %v; want one", sold, err)
	}

	got, err := h.Store.LedgerSales(ctx, "a", "", start, start.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []stockd.SalesBucket{{Start: start, Quantity: 3}, {Start: start.Add(15 * time.Minute), Quantity: 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("sales of a = %+v, want %+v", got, want)
	}
	if got, err := h.Store.LedgerSales(ctx, "a", "", start.Add(15*time.Minute), start.Add(30*time.Minute)); err != nil || len(got) != 1 || got[0].Quantity != 3 {
		t.Fatalf("sales of a in the second quarter-hour = %+v, %v, want one bucket of 3", got, err)
	}
	if soldB, err := h.Store.LedgerSales(ctx, "b", "", start, start.Add(24*time.Hour)); err != nil || len(soldB) != 1 || soldB[0].Quantity != 91 {
		t.Fatalf("sales of b = %+v, %v; want the 91 confirmed, its sold-out event not counted", soldB, err)
	}
	shipped, err := h.Store.LedgerSales(ctx, "s", "", start, start.Add(24*time.Hour))
	if err != nil || len(shipped) != 1 || shipped[0].Quantity != 6 || !shipped[0].Start.Equal(start.Add(75*time.Minute)) {
		t.Fatalf("sales of s = %+v, %v, want 6 shipped in the quarter-hour 81 minutes on", shipped, err)
	}
	if _, err := h.Store.LedgerSales(ctx, "a", "", start, start.Add(400*24*time.Hour)); err == nil {
		t.Fatal("a sales read over 400 days was accepted")
	}

	// By location: a's sales above were all at default; 7 more at north
	// count for north and the SKU, not for default.
	h.Location("north", 5)
	h.Receive("a", "north", 50)
	h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Location: "north", Quantity: 7}}, Commit: true}})
	sumOf := func(location string) int64 {
		t.Helper()
		buckets, err := h.Store.LedgerSales(ctx, "a", location, start, start.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var units int64
		for _, b := range buckets {
			units += b.Quantity
		}
		return units
	}
	for location, want := range map[string]int64{"": 13, "default": 6, "north": 7, "south": 0} {
		if got := sumOf(location); got != want {
			t.Errorf("sales of a at %q = %d, want %d", location, got, want)
		}
	}
}

func testLedgerFilters(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	h.Location("east", 1)
	h.Receive("a", "default", 5)
	h.Clock.Advance(time.Hour)
	middle := h.Clock.Now()
	h.Receive("b", "east", 5)
	res := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 2}, {SKU: "b", Quantity: 1}}}}).Reservation
	h.Clock.Advance(5 * time.Minute)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: res.ID}})
	// The changes (events filtered out below: their rows are tested by
	// "event type").
	entries, err := h.Store.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(entries) != 10 {
		t.Fatalf("ledger = %d entries, %v; want 6 changes and 4 back-in-stock events", len(entries), err)
	}
	var all, backIn []stockd.LedgerEntry
	for _, e := range entries {
		switch {
		case e.BusinessType == stockd.EventStockBackInStock:
			backIn = append(backIn, e)
		case !stockd.EventOnly(e.BusinessType):
			all = append(all, e)
		}
	}
	firstReceipt := all[0].BusinessID
	tests := []struct {
		name string
		p    store.LedgerListParams
		want []int64 // seqs, from all
	}{
		{"type", store.LedgerListParams{Type: stockd.BusinessReceipt}, []int64{all[0].Seq, all[1].Seq}},
		{"type and sku", store.LedgerListParams{Type: stockd.BusinessConfirm, SKU: "b"}, []int64{all[5].Seq}},
		{"business id", store.LedgerListParams{BusinessID: firstReceipt}, []int64{all[0].Seq}},
		{"reservation", store.LedgerListParams{ReservationID: res.ID}, []int64{all[2].Seq, all[3].Seq, all[4].Seq, all[5].Seq}},
		{"reservation and type, paged", store.LedgerListParams{ReservationID: res.ID, Type: stockd.BusinessReserve, After: all[2].Seq}, []int64{all[3].Seq}},
		{"location", store.LedgerListParams{Location: "east"}, []int64{all[1].Seq, all[3].Seq, all[5].Seq}},
		{"from", store.LedgerListParams{From: middle}, []int64{all[1].Seq, all[2].Seq, all[3].Seq, all[4].Seq, all[5].Seq}},
		{"to, excluded", store.LedgerListParams{To: middle}, []int64{all[0].Seq}},
		{"window and sku", store.LedgerListParams{SKU: "a", From: middle, To: middle.Add(time.Minute)}, []int64{all[2].Seq}},
		// The receipt at east, its two events, the reserve.
		{"limit", store.LedgerListParams{Location: "east", Limit: 4}, []int64{all[1].Seq, all[3].Seq}},
		{"nothing matches", store.LedgerListParams{BusinessID: firstReceipt, Type: stockd.BusinessConfirm}, nil},
		{"event type", store.LedgerListParams{Type: stockd.EventStockBackInStock}, []int64{backIn[0].Seq, backIn[1].Seq}},
	}
	for _, tt := range tests {
		got, err := h.Store.LedgerList(ctx, tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var seqs []int64
		for _, e := range got {
			if tt.p.Type == "" && stockd.EventOnly(e.BusinessType) {
				continue
			}
			seqs = append(seqs, e.Seq)
		}
		if !slices.Equal(seqs, tt.want) {
			t.Errorf("%s: seqs %v, want %v", tt.name, seqs, tt.want)
		}
	}
}
