package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
)

// hourPass runs the reconciliation's hour pass on the harness's store.
func (h *harness) hourPass(unshippedAge time.Duration) reconcile.Result {
	h.t.Helper()
	res, err := reconcile.New(reconcile.Config{Store: h.store, Now: h.clock.Now, Logger: discard(), UnshippedAge: unshippedAge}).Hour(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// lineOf returns the reservation's line of sku.
func lineOf(t *testing.T, r Reservation, sku string) ReservationLine {
	t.Helper()
	for _, l := range r.Lines {
		if l.SKU == sku {
			return l
		}
	}
	t.Fatalf("reservation %s has no line of %s: %+v", r.ID, sku, r.Lines)
	return ReservationLine{}
}

// exercisePartialFulfil ships a confirmed reservation in parts: each
// shipment books its own fulfil entries and counts shipped; over-shipping,
// a line the reservation lacks and an empty list are refused and write
// nothing; a refund gives back only unshipped units; the hour pass and the
// audit count what shipped; a fulfil without lines ships the rest.
func exercisePartialFulfil(h *harness) {
	t := h.t
	t.Helper()
	h.seed(10, "PF-A", "PF-B")
	var res Reservation
	h.must("POST", "/v1/reservations", "pf-order", `{"lines":[{"sku":"PF-A","quantity":5},{"sku":"PF-B","quantity":2}],"commit":true}`, http.StatusCreated, &res)
	fulfil := "/v1/reservations/" + res.ID + "/fulfil"

	before := h.books("PF-A", "PF-B")
	h.refuse("POST", fulfil, "pf-over", `{"lines":[{"sku":"PF-A","quantity":6}]}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", fulfil, "pf-over-summed", `{"lines":[{"sku":"PF-B","quantity":1},{"sku":"PF-B","quantity":2}]}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", fulfil, "pf-no-line", `{"lines":[{"sku":"PF-C","quantity":1}]}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.refuse("POST", fulfil, "pf-empty", `{"lines":[]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	h.refuse("POST", fulfil, "pf-zero", `{"lines":[{"sku":"PF-A","quantity":0}]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	h.refuse("POST", fulfil, "pf-no-quantity", `{"lines":[{"sku":"PF-A"}]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	h.refuse("POST", fulfil, "pf-unknown-field", `{"lines":[{"sku":"PF-A","quantity":1,"qty":1}]}`, http.StatusBadRequest, stockd.CodeInvalidJSON)
	h.requireUnchanged(before, "PF-A", "PF-B")

	var first Reservation
	h.must("POST", fulfil, "pf-ship-1", `{"lines":[{"sku":"PF-A","quantity":2}],"reference":"DN-1"}`, http.StatusOK, &first)
	if first.Status != string(stockd.StatusConfirmed) || lineOf(t, first, "PF-A").Shipped != 2 || lineOf(t, first, "PF-B").Shipped != 0 {
		t.Fatalf("after shipping 2 of PF-A: %+v, want confirmed with 2 shipped", first)
	}
	var again Reservation
	if a := h.must("POST", fulfil, "pf-ship-1", `{"lines":[{"sku":"PF-A","quantity":2}],"reference":"DN-1"}`, http.StatusOK, &again); a.header.Get(headerReplayed) != "true" ||
		lineOf(t, again, "PF-A").Shipped != 2 {
		t.Fatalf("retry of the shipment: %+v, want the first answer replayed", again)
	}
	// The same delivery note under a new key is the same shipment: refused,
	// not shipped twice. A reference without lines means nothing.
	shipped := h.books("PF-A", "PF-B")
	h.refuse("POST", fulfil, "pf-ship-1-new-key", `{"lines":[{"sku":"PF-A","quantity":2}],"reference":"DN-1"}`, http.StatusConflict, stockd.CodeDuplicateReference)
	h.refuse("POST", fulfil, "pf-ref-no-lines", `{"reference":"DN-9"}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	h.requireUnchanged(shipped, "PF-A", "PF-B")
	var second Reservation
	h.must("POST", fulfil, "pf-ship-2", `{"lines":[{"sku":"PF-A","quantity":1},{"sku":"PF-A","location":"default","pool":"normal","quantity":1},{"sku":"PF-B","quantity":1}]}`,
		http.StatusOK, &second)
	if second.Status != string(stockd.StatusConfirmed) || lineOf(t, second, "PF-A").Shipped != 4 || lineOf(t, second, "PF-B").Shipped != 1 {
		t.Fatalf("after the second shipment: %+v, want confirmed, 4 and 1 shipped", second)
	}
	if p := h.position("PF-A"); p.OnHand != 6 || p.Committed != 1 || p.Available != 5 {
		t.Fatalf("PF-A = %+v, want on_hand 6 (4 shipped), committed 1", p)
	}
	var ledger LedgerPage
	h.must("GET", "/v1/ledger?reservation_id="+res.ID+"&type=fulfil", "", "", http.StatusOK, &ledger)
	if len(ledger.Entries) != 3 {
		t.Fatalf("fulfil entries = %+v, want 3: one per shipment and position", ledger.Entries)
	}
	shipments := map[string]int64{}
	for _, e := range ledger.Entries {
		if e.BusinessID == res.ID || e.Delta.OnHand != e.Delta.Committed {
			t.Fatalf("entry %+v: want its shipment's own id, on_hand and committed down together", e)
		}
		shipments[e.BusinessID] -= e.Delta.OnHand
	}
	if len(shipments) != 2 {
		t.Fatalf("shipments by id = %v, want 2 shipments", shipments)
	}

	// A refund gives back only what did not ship: 1 of PF-A.
	refund := func(quantity int64) string {
		return fmt.Sprintf(`{"reservation_id":%q,"lines":[{"sku":"PF-A","quantity":%d}]}`, res.ID, quantity)
	}
	h.refuse("POST", "/v1/returns", "pf-refund-shipped", refund(2), http.StatusConflict, stockd.CodeQuantityExceeded)
	var receipt ReturnReceipt
	h.must("POST", "/v1/returns", "pf-refund", refund(1), http.StatusCreated, &receipt)
	if receipt.Type != stockd.ReturnTypeRefund || receipt.Reservation.Status != string(stockd.StatusConfirmed) {
		t.Fatalf("refund = %+v, want a refund leaving the reservation confirmed (1 of PF-B to ship)", receipt)
	}

	// The hour pass sees the one unit left to ship, and the books agree.
	h.clock.Advance(2 * time.Hour)
	found := false
	for _, f := range h.hourPass(time.Hour).Findings {
		if f.Kind == stockd.DiscrepancyUnshipped && f.Subject == res.ID {
			found = true
			if f.Actual.Committed != 1 {
				t.Fatalf("unshipped finding %+v, want 1 unit not shipped", f)
			}
		}
	}
	if !found {
		t.Fatalf("hour pass found no unshipped reservation %s", res.ID)
	}
	h.verifyClean()

	// Without lines, the rest ships and the reservation is fulfilled.
	var done Reservation
	h.must("POST", fulfil, "pf-ship-rest", "", http.StatusOK, &done)
	if done.Status != string(stockd.StatusFulfilled) || lineOf(t, done, "PF-B").Shipped != 2 || lineOf(t, done, "PF-A").Shipped != 4 || lineOf(t, done, "PF-A").Refunded != 1 {
		t.Fatalf("after shipping the rest: %+v, want fulfilled, PF-A 4 shipped and 1 refunded, PF-B 2 shipped", done)
	}
	h.must("POST", fulfil, "pf-ship-rest-again", "{}", http.StatusOK, nil)
	h.refuse("POST", fulfil, "pf-ship-fulfilled", `{"lines":[{"sku":"PF-B","quantity":1}]}`, http.StatusConflict, stockd.CodeInvalidTransition)
	// After shipment, a return takes back what shipped.
	h.must("POST", "/v1/returns", "pf-return", fmt.Sprintf(`{"reservation_id":%q,"lines":[{"sku":"PF-A","quantity":4}],"restock":true}`, res.ID), http.StatusCreated, &receipt)
	if receipt.Type != stockd.ReturnTypeReturn {
		t.Fatalf("return = %+v, want a return after shipment", receipt)
	}

	// Part shipped, the rest refunded: fulfilled.
	var small Reservation
	h.must("POST", "/v1/reservations", "pf-small", `{"lines":[{"sku":"PF-B","quantity":2}],"commit":true}`, http.StatusCreated, &small)
	h.must("POST", "/v1/reservations/"+small.ID+"/fulfil", "pf-small-ship", `{"lines":[{"sku":"PF-B","quantity":1}]}`, http.StatusOK, nil)
	h.must("POST", "/v1/returns", "pf-small-refund", fmt.Sprintf(`{"reservation_id":%q,"lines":[{"sku":"PF-B","quantity":1}]}`, small.ID), http.StatusCreated, &receipt)
	if receipt.Reservation.Status != string(stockd.StatusFulfilled) {
		t.Fatalf("reservation after shipping 1 and refunding 1 of 2: %+v, want fulfilled", receipt.Reservation)
	}
	h.verifyClean()
}

// TestPartialFulfil: partial shipments over HTTP and through the typed
// client, on both databases.
func TestPartialFulfil(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exercisePartialFulfil(h)

		ctx := context.Background()
		c := NewClient(h.url, fastRetries)
		res, err := c.Reserve(ctx, ReserveParams{Lines: []ReserveLine{{SKU: "PF-A", Quantity: 3}}, Commit: true})
		if err != nil {
			t.Fatal(err)
		}
		part, err := c.Fulfil(ctx, FulfilParams{ID: res.ID, Lines: []FulfilLine{{SKU: "PF-A", Quantity: 2}}})
		if err != nil || part.Status != string(stockd.StatusConfirmed) || part.Lines[0].Shipped != 2 {
			t.Fatalf("partial Fulfil = %+v, %v, want confirmed with 2 shipped", part, err)
		}
		if _, err := c.Fulfil(ctx, FulfilParams{ID: res.ID, Lines: []FulfilLine{{SKU: "PF-A", Quantity: 2}}}); stockd.ErrorCode(err) != stockd.CodeQuantityExceeded {
			t.Fatalf("over-shipping Fulfil: %v, want quantity_exceeded", err)
		}
		rest, err := c.Fulfil(ctx, FulfilParams{ID: res.ID})
		if err != nil || rest.Status != string(stockd.StatusFulfilled) || rest.Lines[0].Shipped != 3 {
			t.Fatalf("Fulfil of the rest = %+v, %v, want fulfilled with 3 shipped", rest, err)
		}
		h.verifyClean()
	})
}
