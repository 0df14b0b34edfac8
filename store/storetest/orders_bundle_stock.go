package storetest

import (
	"testing"

	"github.com/stockd/stockd"
)

// BundleSKU creates a bundle SKU, which holds no stock of its own.
func (h *Harness) BundleSKU(id string) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: id, Bundle: true}}})
}

// testOrderBundleHoldsNoStock: a bundle's stock is its components'. Stock
// cannot come into a bundle SKU (receipt, increase, purchase order, an
// approved increase), only a SKU created as a bundle can be defined as
// one, and a bundle cannot be a component: either way units would sit
// where no reservation takes them.
func testOrderBundleHoldsNoStock(t *testing.T, h *Harness) {
	h.SKU("x")
	h.SKU("plain")
	h.BundleSKU("kit")
	h.BundleSKU("box")
	h.Receive("x", "default", 5)

	kit := stockd.PositionKey{SKU: "kit", Location: "default"}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("kit", 1)}}}), stockd.CodeUnprocessable)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{Position: kit, Quantity: 1}}), stockd.CodeUnprocessable)
	for _, delta := range []int64{1, 500} { // 500 is above the approval threshold
		WantCode(t, h.Do(stockd.Command{Op: &stockd.Adjust{
			Position: kit, Reason: stockd.ReasonFound, Delta: delta,
		}}), stockd.CodeUnprocessable)
	}
	WantCode(t, h.Do(poCmd("PO-kit", stockd.POLineRequest{SKU: "kit", Location: "default", Quantity: 3})), stockd.CodeUnprocessable)
	WantCode(t, h.Do(defineBundle("plain", stockd.BundleComponent{SKU: "x", Quantity: 1})), stockd.CodeUnprocessable)

	h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "x", Quantity: 1}))
	WantCode(t, h.Do(defineBundle("box", stockd.BundleComponent{SKU: "kit", Quantity: 1})), stockd.CodeInvalidInput)

	// Nothing of the refusals reached the books; components still serve.
	if c := h.Counters("kit", "default"); c != (stockd.Counters{}) {
		t.Fatalf("bundle SKU counters = %+v, want none", c)
	}
	wantLines(t, h.Reserve(line("kit", 2)), stockd.ReservationLine{SKU: "x", Quantity: 2, Location: "default", Pool: stockd.PoolDefault, Bundle: "kit"})
	h.Verify()
}
