package flowtest

import (
	"encoding/json"
	"testing"

	"github.com/stockd/stockd"
)

// BundleSKU creates a bundle SKU, which holds no stock of its own.
func (h *Harness) BundleSKU(id string) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: id, Bundle: true}}})
}

func defineBundle(bundle string, comps ...stockd.BundleComponent) stockd.Command {
	return stockd.Command{Op: &stockd.BundleCreate{Bundle: bundle, Components: comps}}
}

// testOrderBundles: a bundle is defined once over existing, non-bundle
// SKUs; reserving it reserves its components, summed with other lines of
// the order on the same position; releasing gives all of it back.
func testOrderBundles(t *testing.T, h *Harness) {
	h.BundleSKU("kit")
	h.BundleSKU("box")
	h.SKU("x")
	h.SKU("y")
	WantCode(t, h.Do(defineBundle("kit", stockd.BundleComponent{SKU: "ghost", Quantity: 1})), stockd.CodeUnknownSKU)
	res := h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "y", Quantity: 1}, stockd.BundleComponent{SKU: "x", Quantity: 2}))
	var b stockd.Bundle
	if err := json.Unmarshal(res.Object, &b); err != nil || !res.Created || len(b.Components) != 2 || b.Components[0].SKU != "x" {
		t.Fatalf("bundle = %s (%v), want created, components sorted", res.Object, err)
	}
	WantCode(t, h.Do(defineBundle("kit", stockd.BundleComponent{SKU: "x", Quantity: 1})), stockd.CodeAlreadyExists)
	WantCode(t, h.Do(defineBundle("box", stockd.BundleComponent{SKU: "kit", Quantity: 1})), stockd.CodeInvalidInput)
	doc, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocBundle, ID: "kit"})
	if err != nil || doc.Version != 1 {
		t.Fatalf("stored bundle = %+v, %v", doc, err)
	}

	h.Receive("x", "default", 5)
	h.Receive("y", "default", 3)
	r := wantLines(t, h.Reserve(line("kit", 2), line("x", 1)),
		stockd.ReservationLine{SKU: "x", Location: "default", Pool: "normal", Quantity: 5},
		stockd.ReservationLine{SKU: "y", Location: "default", Pool: "normal", Quantity: 2, Bundle: "kit"})
	if c := h.Counters("x", "default"); c.Reserved != 5 {
		t.Fatalf("x = %+v, want 5 reserved", c)
	}
	if c := h.Counters("kit", "default"); c != (stockd.Counters{}) {
		t.Fatalf("bundle SKU holds %+v, want nothing", c)
	}
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: r.ID}})
	WantCode(t, h.Reserve(line("kit", 3)), stockd.CodeInsufficientStock)
	wantLines(t, h.Reserve(line("kit", 1)),
		stockd.ReservationLine{SKU: "x", Location: "default", Pool: "normal", Quantity: 2, Bundle: "kit"},
		stockd.ReservationLine{SKU: "y", Location: "default", Pool: "normal", Quantity: 1, Bundle: "kit"})
	h.Verify()
}

// testOrderBundleRace: bundles and their component reserved concurrently,
// in separate transactions, never oversell the component, and refuse only
// what could not be served.
func testOrderBundleRace(t *testing.T, h *Harness) {
	h.BundleSKU("kit")
	h.SKU("c")
	h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "c", Quantity: 2}))
	h.Receive("c", "default", 10)
	const workers = 12
	need := func(i int) int64 { return 2 - int64(i%2) } // kit:1 needs 2 of c, c:1 needs 1
	results := h.race(workers, func(i int) *stockd.Reserve {
		sku := "kit"
		if i%2 == 1 {
			sku = "c"
		}
		return &stockd.Reserve{Lines: []stockd.LineRequest{line(sku, 1)}}
	})
	var held int64
	var refused []int
	for i, res := range results {
		switch {
		case res.Err == nil:
			for _, l := range res.Reservation.Lines {
				held += l.Quantity
			}
		case res.Err.Code == stockd.CodeInsufficientStock:
			refused = append(refused, i)
		default:
			t.Fatalf("reserve %d: %v", i, res.Err)
		}
	}
	c := h.Counters("c", "default")
	if held > 10 || c.Reserved != held || c.Available() != 10-held {
		t.Fatalf("held %d by answers, counters %+v: oversold or lost", held, c)
	}
	// Available only falls, so a refusal means it was short then and is now.
	for _, i := range refused {
		if c.Available() >= need(i) {
			t.Fatalf("reserve %d of %d refused, yet %d is still available", i, need(i), c.Available())
		}
	}
	h.Verify()
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
