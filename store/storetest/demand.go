package storetest

// DemandHistoryPut and DemandHistoryList: imported demand.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func demandPut(h *flowtest.Harness, rows ...stockd.DemandDay) error {
	return h.Store.DemandHistoryPut(ctx, store.DemandHistoryPutParams{Rows: rows, At: time.Now()})
}

func demandList(t *testing.T, h *flowtest.Harness, sku, from, to string) []stockd.DemandDay {
	t.Helper()
	days, err := h.Store.DemandHistoryList(ctx, store.DemandHistoryListParams{SKU: sku, From: from, To: to})
	if err != nil {
		t.Fatalf("list %s %s..%s: %v", sku, from, to, err)
	}
	return days
}

func testDemandHistory(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	day := func(sku, date string, q int64) stockd.DemandDay {
		return stockd.DemandDay{SKU: sku, Date: date, Quantity: q}
	}
	if err := demandPut(h, day("a", "2026-01-02", 5), day("a", "2025-12-31", 3), day("b", "2026-01-02", 9), day("a", "2026-01-05", 0)); err != nil {
		t.Fatal(err)
	}
	want := []stockd.DemandDay{day("a", "2025-12-31", 3), day("a", "2026-01-02", 5), day("a", "2026-01-05", 0)}
	if got := demandList(t, h, "a", "2025-12-01", "2026-01-31"); !slices.Equal(got, want) {
		t.Fatalf("a = %v, want %v", got, want)
	}
	if got := demandList(t, h, "a", "2026-01-01", "2026-01-02"); !slices.Equal(got, want[1:2]) {
		t.Fatalf("a bounded, both ends inclusive = %v", got)
	}

	// The same day again replaces the row; a new day is added.
	if err := demandPut(h, day("a", "2026-01-02", 7), day("a", "2026-01-03", 1)); err != nil {
		t.Fatal(err)
	}
	want = []stockd.DemandDay{day("a", "2025-12-31", 3), day("a", "2026-01-02", 7), day("a", "2026-01-03", 1), day("a", "2026-01-05", 0)}
	if got := demandList(t, h, "a", "2025-12-01", "2026-01-31"); !slices.Equal(got, want) {
		t.Fatalf("after replace a = %v, want %v", got, want)
	}

	// A write naming an unknown SKU writes nothing, the good rows included.
	if err := demandPut(h, day("a", "2026-01-04", 4), day("nope", "2026-01-04", 4)); !errors.Is(err, store.ErrRejected) {
		t.Fatalf("unknown sku: %v, want ErrRejected", err)
	}
	if got := demandList(t, h, "a", "2026-01-04", "2026-01-04"); len(got) != 0 {
		t.Fatalf("a refused write left %v", got)
	}

	// Bounds, refused before the database.
	tooMany := make([]stockd.DemandDay, stockd.DemandHistoryRowsMax+1)
	for i := range tooMany {
		tooMany[i] = day("a", time.Date(2020, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(stockd.DateLayout), 1)
	}
	for name, rows := range map[string][]stockd.DemandDay{
		"none":            nil,
		"too many":        tooMany,
		"twice":           {day("a", "2026-02-01", 1), day("a", "2026-02-01", 2)},
		"bad date":        {day("a", "2026-02-30", 1)},
		"negative":        {day("a", "2026-02-01", -1)},
		"bad sku":         {day("", "2026-02-01", 1)},
		"not zero-padded": {day("a", "2026-2-01", 1)},
	} {
		if err := demandPut(h, rows...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, span := range [][2]string{{"2026-01-02", "2026-01-01"}, {"2025-01-01", "2026-01-02"}, {"x", "2026-01-01"}} {
		if _, err := h.Store.DemandHistoryList(ctx, store.DemandHistoryListParams{SKU: "a", From: span[0], To: span[1]}); err == nil {
			t.Errorf("span %v accepted", span)
		}
	}
}
