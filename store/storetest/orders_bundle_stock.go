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

// testOrderBundlesDoNotNest: a SKU is a bundle or a component, never both,
// whichever definition comes first.
func testOrderBundlesDoNotNest(t *testing.T, h *Harness) {
	for _, s := range []string{"kit", "part", "box", "other"} {
		h.SKU(s)
	}
	h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "part", Quantity: 2}))
	// part is a component: it cannot become a bundle.
	WantCode(t, h.Do(defineBundle("part", stockd.BundleComponent{SKU: "other", Quantity: 1})), stockd.CodeInvalidInput)
	// kit is a bundle: it cannot become a component.
	WantCode(t, h.Do(defineBundle("box", stockd.BundleComponent{SKU: "kit", Quantity: 1})), stockd.CodeInvalidInput)
	// part may be a component of several bundles.
	h.MustDo(defineBundle("box", stockd.BundleComponent{SKU: "part", Quantity: 1}, stockd.BundleComponent{SKU: "other", Quantity: 1}))
	d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocBundleParents, ID: "part"})
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(d.Body, `{"sku":"part","bundles":["kit","box"]}`) {
		t.Fatalf("parents of part = %s", d.Body)
	}
}
