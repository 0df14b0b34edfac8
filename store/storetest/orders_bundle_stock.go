package storetest

import (
	"testing"

	"github.com/stockd/stockd"
)

// testOrderBundleHoldsNoStock: a bundle's stock is its components'. Stock
// cannot come into a bundle SKU (receipt, increase, purchase order), and a
// SKU holding stock of its own cannot become a bundle: either way units
// would sit where no reservation takes them. Decreases stay possible.
func testOrderBundleHoldsNoStock(t *testing.T, h *Harness) {
	for _, s := range []string{"kit", "x", "held"} {
		h.SKU(s)
	}
	h.Receive("x", "default", 5)
	h.Receive("held", "default", 2)
	h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "x", Quantity: 1}))

	kit := stockd.PositionKey{SKU: "kit", Location: "default"}
	WantCode(t, h.Do(stockd.Command{Kind: stockd.KindReceive, Receive: &stockd.Receive{Position: kit, Quantity: 1}}), stockd.CodeUnprocessable)
	WantCode(t, h.Do(stockd.Command{Kind: stockd.KindAdjust, Adjust: &stockd.Adjust{
		Position: kit, Reason: stockd.ReasonFound, Delta: 1,
	}}), stockd.CodeUnprocessable)
	WantCode(t, h.Do(poCmd("PO-kit", stockd.POLineRequest{SKU: "kit", Location: "default", Quantity: 3})), stockd.CodeUnprocessable)
	WantCode(t, h.Do(defineBundle("held", stockd.BundleComponent{SKU: "x", Quantity: 1})), stockd.CodeUnprocessable)

	// Nothing of the refusals reached the books; components still serve.
	if c := h.Counters("kit", "default"); c != (stockd.Counters{}) {
		t.Fatalf("bundle SKU counters = %+v, want none", c)
	}
	wantLines(t, h.Reserve(line("kit", 2)), stockd.ReservationLine{SKU: "x", Quantity: 2, Location: "default", Pool: stockd.PoolDefault, Bundle: "kit"})
	h.Verify()
}
