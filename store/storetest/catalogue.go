package storetest

// SKUGet, SKUList and LocationList: the catalogue the engine reads
// without locks.

import (
	"strings"
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

// testSKUList: pages by id, from after, at most limit; an empty page past
// the last.
func testSKUList(t *testing.T, h *flowtest.Harness) {
	for _, id := range []string{"c", "a", "b"} {
		h.SKU(id)
	}
	ids := func(after string, limit int) []string {
		skus, err := h.Store.SKUList(ctx, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, s := range skus {
			out = append(out, s.ID)
		}
		return out
	}
	for _, c := range []struct {
		after string
		limit int
		want  string
	}{
		{"", 2, "a b"}, {"b", 2, "c"}, {"c", 2, ""}, {"", 100, "a b c"},
	} {
		if got := strings.Join(ids(c.after, c.limit), " "); got != c.want {
			t.Errorf("SKUList(%q, %d) = %q, want %q", c.after, c.limit, got, c.want)
		}
	}
}
