package httpapi

import (
	"fmt"
	"net/http"

	"github.com/stockd/stockd"
)

// returnOf is the body of a return of q units of F, the flow fixture's
// SKU, from the reservation id, with more fields after the lines.
func returnOf(id string, q int64, more string) string {
	return fmt.Sprintf(`{"reservation_id":%q,"lines":[{"sku":"F","quantity":%d}]%s}`, id, q, more)
}

// exerciseReturns is exerciseFlow's step of returns, and of the
// quarantine and moves that deal with what came back.
func exerciseReturns(h *harness, f flowFixture) {
	h.t.Helper()
	var refund ReturnReceipt
	h.must("POST", "/v1/returns", "flow-refund-1", returnOf(f.confirmed.ID, 2, `,"reference":"RMA-1"`), http.StatusCreated, &refund)
	if a := h.must("POST", "/v1/returns", "flow-refund-1", returnOf(f.confirmed.ID, 2, `,"reference":"RMA-1"`), http.StatusCreated, nil); a.header.Get(headerReplayed) != "true" {
		h.t.Fatal("retry of a refund was not a replay")
	}
	if refund.Type != "refund" || refund.Reservation.Lines[0].Refunded != 2 || refund.Lines[0].Quantity != 2 {
		h.t.Fatalf("refund: %+v", refund)
	}
	h.refuse("POST", "/v1/returns", "flow-refund-too-many", returnOf(f.confirmed.ID, 4, ""), http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/returns", "flow-refund-pending", returnOf(f.pending.ID, 1, ""), http.StatusConflict, stockd.CodeInvalidTransition)
	h.refuse("POST", "/v1/returns", "flow-refund-unknown", returnOf("nope", 1, ""), http.StatusNotFound, stockd.CodeNotFound)
	h.refuse("POST", "/v1/returns", "flow-refund-other-sku", `{"reservation_id":"`+f.confirmed.ID+`","lines":[{"sku":"S","quantity":1}]}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.refuse("POST", "/v1/returns", "flow-refund-no-quantity", `{"reservation_id":"`+f.confirmed.ID+`","lines":[{"sku":"F"}]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	var ret ReturnReceipt
	h.must("POST", "/v1/returns", "flow-return-1", returnOf(f.fulfilled.ID, 3, ""), http.StatusCreated, &ret)
	h.must("POST", "/v1/returns", "flow-return-2", returnOf(f.fulfilled.ID, 1, `,"restock":true`), http.StatusCreated, nil)
	if ret.Type != "return" || ret.Reservation.Lines[0].Returned != 3 {
		h.t.Fatalf("return: %+v", ret)
	}
	var stock Stock
	h.must("GET", "/v1/stock/F", "", "", http.StatusOK, &stock)
	// 20 received, 4 shipped, 4 back (3 into quarantine); 3 committed, 1 reserved.
	if want := (Balance{OnHand: 20, Committed: 3, Reserved: 1, Quarantined: 3, Available: 13}); stock.Totals != want {
		h.t.Fatalf("stock of F after returns = %+v, want %+v", stock.Totals, want)
	}

	// Quarantine and moves.
	h.must("POST", "/v1/quarantine/release", "flow-q-release", `{"sku":"F","quantity":1}`, http.StatusOK, nil)
	var scrapped Position
	h.must("POST", "/v1/quarantine/scrap", "flow-q-scrap", `{"sku":"F","location":"default","quantity":1,"reference":"QC-7"}`, http.StatusOK, &scrapped)
	if scrapped.OnHand != 19 || scrapped.Quarantined != 1 || scrapped.Available != 14 {
		h.t.Fatalf("after scrap: %+v", scrapped)
	}
	for _, verb := range []string{"release", "scrap"} {
		path := "/v1/quarantine/" + verb
		h.refuse("POST", path, verb+"-too-many", `{"sku":"F","quantity":2}`, http.StatusConflict, stockd.CodeQuantityExceeded)
		h.refuse("POST", path, verb+"-unknown-sku", `{"sku":"NOPE","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownSKU)
		h.refuse("POST", path, verb+"-unknown-location", `{"sku":"F","location":"nowhere","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	}
	h.refuse("POST", "/v1/quarantine/release", "flow-release-reason", `{"sku":"F","quantity":1,"reason":"damage"}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	var moved Position
	h.must("POST", "/v1/moves", "flow-move-1", `{"sku":"F","from":"available","to":"quarantined","quantity":4}`, http.StatusOK, &moved)
	if moved.Quarantined != 5 || moved.Available != 10 {
		h.t.Fatalf("after move: %+v", moved)
	}
	h.must("POST", "/v1/moves", "flow-move-2", `{"sku":"F","from":"quarantined","to":"available","quantity":2}`, http.StatusOK, nil)
	h.refuse("POST", "/v1/moves", "flow-move-short", `{"sku":"F","from":"available","to":"quarantined","quantity":100}`, http.StatusConflict, stockd.CodeInsufficientStock)
	h.refuse("POST", "/v1/moves", "flow-move-too-many", `{"sku":"F","from":"quarantined","to":"available","quantity":100}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/moves", "flow-move-unknown-sku", `{"sku":"NOPE","from":"quarantined","to":"available","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/moves", "flow-move-unknown-location", `{"sku":"F","location":"nowhere","from":"quarantined","to":"available","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	h.refuse("POST", "/v1/moves", "flow-move-same", `{"sku":"F","from":"available","to":"available","quantity":1}`, http.StatusBadRequest, stockd.CodeInvalidInput)
}
