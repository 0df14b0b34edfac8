package storetest

// SKUGet and LocationList: the catalogue the engine reads without locks.

import (
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
)

func testCatalogue(t *testing.T, h *flowtest.Harness) {
	h.SKU("apple")
	got, err := h.Store.SKUGet(ctx, "apple")
	if err != nil || got.ID != "apple" || got.Unit != "piece" {
		t.Fatalf("SKUGet = %+v, %v; want apple in pieces", got, err)
	}
	if _, err := h.Store.SKUGet(ctx, "pear"); !isNotFound(err) {
		t.Fatalf("SKUGet(unknown) error = %v, want ErrNotFound", err)
	}
	flowtest.WantCode(t, h.Do(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "apple"}}}), stockd.CodeAlreadyExists)
	h.Location("w2", 5)
	h.Location("w1", 5)
	locs, err := h.Store.LocationList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 3 || locs[0].ID != "default" {
		t.Fatalf("locations = %+v, want default, w1, w2", locs)
	}
}
