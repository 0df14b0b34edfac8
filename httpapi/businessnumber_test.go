package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// exerciseBusinessNumbers: an order_id holds one reservation, and a
// reference is booked once per SKU for each business type, whatever
// Idempotency-Key carries them; the 409 names what holds the number.
func exerciseBusinessNumbers(h *harness) {
	h.t.Helper()
	h.seed(20, "BN")
	h.must("POST", "/v1/skus", "bn-sku-ship", `{"sku":"BN-S","deduction":"at_shipment"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/receipts", "bn-receipt-ship", `{"sku":"BN-S","quantity":5}`, http.StatusOK, nil)

	order := `{"order_id":"SO-1001","lines":[{"sku":"BN","quantity":2}]}`
	var first Reservation
	h.must("POST", "/v1/reservations", "bn-order-1", order, http.StatusCreated, &first)
	if first.OrderID != "SO-1001" {
		h.t.Fatalf("reservation order_id = %q, want SO-1001", first.OrderID)
	}
	if a := h.must("POST", "/v1/reservations", "bn-order-1", order, http.StatusCreated, nil); a.header.Get(headerReplayed) != "true" {
		h.t.Fatal("a retry under the first key was not a replay")
	}
	h.wantDuplicate("POST", "/v1/reservations", "bn-order-2", order, stockd.CodeDuplicateOrder, first.ID)
	h.wantDuplicate("POST", "/v1/reservations", "bn-order-3", `{"order_id":"SO-1001","lines":[{"sku":"BN","quantity":3}]}`, stockd.CodeDuplicateOrder, first.ID)
	var got Reservation
	h.must("GET", "/v1/reservations/"+first.ID, "", "", http.StatusOK, &got)
	if got.OrderID != "SO-1001" {
		h.t.Fatalf("read order_id = %q", got.OrderID)
	}
	h.must("POST", "/v1/reservations/"+first.ID+"/release", "bn-release", `{"reason":"cancelled"}`, http.StatusOK, nil)
	h.must("POST", "/v1/reservations", "bn-order-4", order, http.StatusCreated, nil)

	receipt := `{"sku":"BN","quantity":5,"reference":"PO-777"}`
	h.must("POST", "/v1/receipts", "bn-dn-1", receipt, http.StatusOK, nil)
	h.wantDuplicate("POST", "/v1/receipts", "bn-dn-2", receipt, stockd.CodeDuplicateReference, "bn-dn-1")
	adjust := `{"sku":"BN","reason":"damage","delta":-1,"reference":"CS-1"}`
	h.must("POST", "/v1/adjustments", "bn-cs-1", adjust, http.StatusOK, nil)
	h.wantDuplicate("POST", "/v1/adjustments", "bn-cs-2", adjust, stockd.CodeDuplicateReference, "bn-cs-1")
	ship := `{"lines":[{"sku":"BN-S","quantity":1}],"reference":"WB-1"}`
	var shipment Shipment
	h.must("POST", "/v1/shipments", "bn-wb-1", ship, http.StatusCreated, &shipment)
	h.wantDuplicate("POST", "/v1/shipments", "bn-wb-2", ship, stockd.CodeDuplicateReference, shipment.ID)
	var stock Stock
	h.must("GET", "/v1/stock/BN", "", "", http.StatusOK, &stock)
	if stock.Totals.OnHand != 24 || stock.Totals.Reserved != 2 {
		h.t.Fatalf("stock of BN = %+v, want on_hand 24 (20 + 5 - 1), reserved 2", stock.Totals)
	}
}

// wantDuplicate sends a request that must be refused code, naming
// existing.
func (h *harness) wantDuplicate(method, path, key, body, code, existing string) {
	h.t.Helper()
	p := h.must(method, path, key, body, http.StatusConflict, nil).problem(h.t)
	if p.Code != code || p.ExistingID != existing {
		h.t.Fatalf("%s %s %s: %s naming %q, want %s naming %q", method, path, body, p.Code, p.ExistingID, code, existing)
	}
}

// TestClientDuplicateOrder: the client carries order_id, and the refusal
// comes back as the domain error with the reservation it names.
func TestClientDuplicateOrder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(5, "A")
		c := NewClient(h.url, fastRetries)
		ctx := context.Background()
		p := ReserveParams{OrderID: "SO-7", Lines: []ReserveLine{{SKU: "A", Quantity: 1}}}
		first, err := c.Reserve(ctx, p)
		if err != nil || first.OrderID != "SO-7" {
			t.Fatalf("reserve = %+v, %v", first, err)
		}
		_, err = c.Reserve(ctx, p)
		var e *stockd.Error
		if !errors.As(err, &e) || e.Code != stockd.CodeDuplicateOrder || e.ExistingID != first.ID {
			t.Fatalf("second reserve for SO-7: %v, want duplicate_order naming %s", err, first.ID)
		}
		page, err := c.ListReservations(ctx, ListReservationsParams{OrderID: "SO-7", Status: "pending", SKU: "A", Limit: 1, CreatedBefore: time.Now().Add(time.Hour)})
		if err != nil || len(page.Reservations) != 1 || page.Reservations[0].ID != first.ID || page.NextAfter != first.ID {
			t.Fatalf("ListReservations = %+v, %v; want %s and a cursor past it", page, err, first.ID)
		}
		page, err = c.ListReservations(ctx, ListReservationsParams{OrderID: "SO-7", After: page.NextAfter})
		if err != nil || len(page.Reservations) != 0 || page.NextAfter != "" {
			t.Fatalf("the page after = %+v, %v; want none", page, err)
		}
	})
}

// exerciseReservationList: GET /v1/reservations pages and filters, on
// the reservations exerciseBusinessNumbers made.
func exerciseReservationList(h *harness) {
	h.t.Helper()
	list := func(query string) ReservationList {
		h.t.Helper()
		var out ReservationList
		h.must("GET", "/v1/reservations?"+query, "", "", http.StatusOK, &out)
		return out
	}
	byOrder := list("order_id=SO-1001")
	if len(byOrder.Reservations) != 2 || byOrder.NextAfter != "" {
		h.t.Fatalf("reservations of SO-1001 = %+v, want the released one and the new one", byOrder)
	}
	if held := list("order_id=SO-1001&status=pending&sku=BN"); len(held.Reservations) != 1 || held.Reservations[0].OrderID != "SO-1001" {
		h.t.Fatalf("the pending reservation of SO-1001 = %+v", held)
	}
	if none := list("order_id=SO-1001&sku=NOPE"); len(none.Reservations) != 0 {
		h.t.Fatalf("SO-1001 with a line of NOPE = %+v", none)
	}
	future := h.clock.Now().Add(time.Hour).Format(time.RFC3339)
	seen := map[string]bool{}
	after := ""
	for pages := 0; ; pages++ {
		query := "limit=2&created_before=" + url.QueryEscape(future)
		if after != "" {
			query += "&after=" + after
		}
		page := list(query)
		for _, r := range page.Reservations {
			if seen[r.ID] || r.ID <= after {
				h.t.Fatalf("page after %q repeats or goes back: %s", after, r.ID)
			}
			seen[r.ID] = true
		}
		if page.NextAfter == "" {
			break
		}
		if pages > 100 {
			h.t.Fatal("the pages do not end")
		}
		after = page.NextAfter
	}
	if !seen[byOrder.Reservations[0].ID] || !seen[byOrder.Reservations[1].ID] {
		h.t.Fatal("paging through every reservation missed those of SO-1001")
	}
	if old := list("created_before=2000-01-01T00:00:00Z"); len(old.Reservations) != 0 {
		h.t.Fatalf("reservations before 2000 = %+v", old)
	}
}
