package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

// exerciseShipment is exerciseFlow's step of shipments.
func exerciseShipment(h *harness) {
	h.t.Helper()
	var shipment Shipment
	h.must("POST", "/v1/shipments", "flow-ship-1", `{"lines":[{"sku":"S","quantity":2},{"sku":"S","quantity":1}],"reference":"PKG-1"}`, http.StatusCreated, &shipment)
	if len(shipment.Lines) != 1 || shipment.Lines[0].Quantity != 3 || shipment.Positions[0].OnHand != 2 {
		h.t.Fatalf("shipment: %+v", shipment)
	}
	h.refuse("POST", "/v1/shipments", "flow-ship-short", `{"lines":[{"sku":"S","quantity":3}]}`, http.StatusConflict, stockd.CodeInsufficientStock)
	h.refuse("POST", "/v1/shipments", "flow-ship-timing", `{"lines":[{"sku":"F","quantity":1}]}`, http.StatusConflict, stockd.CodeDeductionTiming)
	h.refuse("POST", "/v1/shipments", "flow-ship-unknown-sku", `{"lines":[{"sku":"NOPE","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/shipments", "flow-ship-unknown-location", `{"lines":[{"sku":"S","location":"nowhere","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownLocation)
}
