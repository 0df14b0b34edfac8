package flowtest

import (
	"testing"

	"github.com/stockd/stockd"
)

// testFlowShipment: a SKU that deducts at shipment ships out of on_hand
// with no hold, refused when available is short; other SKUs ship through
// fulfil.
func testFlowShipment(t *testing.T, h *Harness) {
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "s", Deduction: stockd.DeductionAtShipment}}})
	h.SKU("o")
	h.Receive("s", "default", 5)
	h.Receive("o", "default", 5)
	ship := func(sku string, q int64) stockd.Command {
		return stockd.Command{Op: &stockd.Shipment{Lines: []stockd.ShipmentLine{{SKU: sku, Quantity: q}}}}
	}
	first := h.doKey("ship-1", ship("s", 3))
	receipt := object[stockd.ShipmentReceipt](t, first)
	if len(receipt.Positions) != 1 || receipt.Positions[0].OnHand != 2 || len(receipt.Shipped) != 1 {
		t.Fatalf("shipment: %+v", receipt)
	}
	if again := h.doKey("ship-1", ship("s", 3)); !again.Replayed {
		t.Fatal("retry of a shipment was not a replay")
	}
	h.wantCounters("s", "default", stockd.Counters{OnHand: 2})
	res := h.Do(ship("s", 3))
	WantCode(t, res, stockd.CodeInsufficientStock)
	if len(res.Err.Lines) != 1 || res.Err.Lines[0].Available != 2 {
		t.Fatalf("shortfall %+v", res.Err.Lines)
	}
	WantCode(t, h.Do(ship("o", 1)), stockd.CodeDeductionTiming)
	h.wantCounters("o", "default", stockd.Counters{OnHand: 5})
	if entries := h.ledgerOf("s", stockd.BusinessShipment); len(entries) != 1 || entries[0].BusinessID != receipt.ID {
		t.Fatalf("shipment entries = %+v", entries)
	}
	h.Verify()
}
