package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

// exercisePurchaseOrder is exerciseFlow's step of purchase orders. It
// leaves PO-1 cancelled.
func exercisePurchaseOrder(h *harness) {
	h.t.Helper()
	order := `{"id":"PO-1","supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","quantity":10},{"sku":"S","location":"flow-L1","quantity":3}]}`
	var po PurchaseOrder
	h.must("POST", "/v1/purchase-orders", "flow-po-1", order, http.StatusCreated, &po)
	if po.Status != "open" || len(po.Lines) != 2 || po.Lines[0].Open != 10 {
		h.t.Fatalf("purchase order: %+v", po)
	}
	h.refuse("POST", "/v1/purchase-orders", "flow-po-again", order, http.StatusConflict, stockd.CodeAlreadyExists)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-closed", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","location":"flow-closed","quantity":1}]}`, http.StatusConflict, stockd.CodeLocationInactive)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-unknown-sku", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"NOPE","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-unknown-location", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","location":"nowhere","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-no-date", `{"supplier":"Acme","lines":[{"sku":"F","quantity":1}]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	poReceipts := "/v1/purchase-orders/PO-1/receipts"
	h.must("POST", poReceipts, "flow-po-receipt-1", `{"lines":[{"sku":"F","quantity":4}],"reference":"DN-9"}`, http.StatusOK, &po)
	if po.Lines[0].Received != 4 || po.Lines[0].Open != 6 || po.Receipts != 1 {
		h.t.Fatalf("after a receipt: %+v", po)
	}
	h.refuse("POST", poReceipts, "flow-po-receipt-too-many", `{"lines":[{"sku":"F","quantity":7}]}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", poReceipts, "flow-po-receipt-other", `{"lines":[{"sku":"S","quantity":1}]}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.refuse("POST", "/v1/purchase-orders/nope/receipts", "flow-po-receipt-unknown", `{"lines":[{"sku":"F","quantity":1}]}`, http.StatusNotFound, stockd.CodeNotFound)
	h.must("GET", "/v1/purchase-orders/PO-1", "", "", http.StatusOK, nil)
	h.refuse("GET", "/v1/purchase-orders/nope", "", "", http.StatusNotFound, stockd.CodeNotFound)
	h.refuse("GET", "/v1/purchase-orders/a%3Bb", "", "", http.StatusBadRequest, stockd.CodeInvalidInput)
	h.must("POST", "/v1/purchase-orders/PO-1/cancel", "flow-po-cancel", "", http.StatusOK, &po)
	h.must("POST", "/v1/purchase-orders/PO-1/cancel", "flow-po-cancel-again", "{}", http.StatusOK, nil)
	if po.Status != "cancelled" || po.Lines[0].Open != 0 {
		h.t.Fatalf("cancelled: %+v", po)
	}
	h.refuse("POST", poReceipts, "flow-po-receipt-cancelled", `{"lines":[{"sku":"F","quantity":1}]}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/purchase-orders/nope/cancel", "flow-po-cancel-unknown", "", http.StatusNotFound, stockd.CodeNotFound)
	h.must("POST", "/v1/purchase-orders", "flow-po-2", `{"id":"PO-2","supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"S","quantity":1}]}`, http.StatusCreated, nil)
	h.must("POST", "/v1/purchase-orders/PO-2/receipts", "flow-po-2-receipt", `{"lines":[{"sku":"S","quantity":1}]}`, http.StatusOK, &po)
	if po.Status != "received" {
		h.t.Fatalf("fully received: %+v", po)
	}
	h.refuse("POST", "/v1/purchase-orders/PO-2/cancel", "flow-po-2-cancel", "", http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
}
