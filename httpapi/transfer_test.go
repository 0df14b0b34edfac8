package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

// exerciseTransfer is exerciseFlow's step of transfers. It returns the
// first transfer, still open with 3 units on their way to flow-L1.
func exerciseTransfer(h *harness) Transfer {
	h.t.Helper()
	var tr Transfer
	h.must("POST", "/v1/transfers", "flow-transfer-1", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":5,"reference":"TO-1"}`, http.StatusCreated, &tr)
	if tr.Status != "open" || tr.Outstanding != 5 {
		h.t.Fatalf("transfer: %+v", tr)
	}
	h.refuse("POST", "/v1/transfers", "flow-transfer-short", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":100}`, http.StatusConflict, stockd.CodeInsufficientStock)
	h.refuse("POST", "/v1/transfers", "flow-transfer-closed", `{"sku":"F","from_location":"default","to_location":"flow-closed","quantity":1}`, http.StatusConflict, stockd.CodeLocationInactive)
	h.refuse("POST", "/v1/transfers", "flow-transfer-unknown-sku", `{"sku":"NOPE","from_location":"default","to_location":"flow-L1","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/transfers", "flow-transfer-unknown-pool", `{"sku":"F","from_location":"default","to_location":"flow-L1","pool":"never-created","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownPool)
	h.refuse("POST", "/v1/transfers", "flow-transfer-unknown-location", `{"sku":"F","from_location":"default","to_location":"nowhere","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	h.refuse("POST", "/v1/transfers", "flow-transfer-same", `{"sku":"F","from_location":"flow-L1","to_location":"flow-L1","quantity":1}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	receipts := "/v1/transfers/" + tr.ID + "/receipts"
	h.must("POST", receipts, "flow-transfer-receipt-1", `{"quantity":2}`, http.StatusOK, &tr)
	h.must("POST", receipts, "flow-transfer-receipt-1", `{"quantity":2}`, http.StatusOK, &tr)
	if tr.Received != 2 || tr.Outstanding != 3 || tr.Receipts != 1 {
		h.t.Fatalf("after one receipt and its retry: %+v", tr)
	}
	h.refuse("POST", receipts, "flow-transfer-receipt-too-many", `{"quantity":4}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/transfers/nope/receipts", "flow-transfer-receipt-unknown", `{"quantity":1}`, http.StatusNotFound, stockd.CodeNotFound)
	var l1 Stock
	h.must("GET", "/v1/stock/F", "", "", http.StatusOK, &l1)
	for _, p := range l1.Positions {
		if p.Location == "flow-L1" && (p.InTransit != 3 || p.OnHand != 2 || p.Available != 2) {
			h.t.Fatalf("L1 during the transfer: %+v, want 3 in transit, 2 on hand and available", p)
		}
	}
	var moving, arrived Transfer
	h.must("POST", "/v1/transfers", "flow-transfer-2", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":1}`, http.StatusCreated, &moving)
	h.must("POST", "/v1/transfers/"+moving.ID+"/cancel", "flow-transfer-2-cancel", "", http.StatusOK, &moving)
	h.must("POST", "/v1/transfers/"+moving.ID+"/cancel", "flow-transfer-2-cancel-again", "{}", http.StatusOK, nil)
	if moving.Status != "cancelled" || moving.Cancelled != 1 || moving.Outstanding != 0 {
		h.t.Fatalf("cancelled transfer: %+v", moving)
	}
	h.refuse("POST", "/v1/transfers/"+moving.ID+"/receipts", "flow-transfer-2-receipt", `{"quantity":1}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/transfers/nope/cancel", "flow-transfer-cancel-unknown", "", http.StatusNotFound, stockd.CodeNotFound)
	h.must("POST", "/v1/transfers", "flow-transfer-3", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":1}`, http.StatusCreated, &arrived)
	h.must("POST", "/v1/transfers/"+arrived.ID+"/receipts", "flow-transfer-3-receipt", `{"quantity":1}`, http.StatusOK, nil)
	h.refuse("POST", "/v1/transfers/"+arrived.ID+"/cancel", "flow-transfer-3-cancel", "", http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.must("GET", "/v1/transfers/"+tr.ID, "", "", http.StatusOK, nil)
	h.refuse("GET", "/v1/transfers/nope", "", "", http.StatusNotFound, stockd.CodeNotFound)
	h.refuse("GET", "/v1/transfers/a%3Bb", "", "", http.StatusBadRequest, stockd.CodeInvalidInput)
	return tr
}
