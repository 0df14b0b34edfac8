package evaluate_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/replenish/evaluate"
	"github.com/stockd/stockd/store"
)

// TestBusinessTimeZoneDecidesTheDay: a sale at 17:30 UTC is on the same
// day in UTC and on the next one in Shanghai (UTC+8); in New York
// (UTC−5 in winter) a sale at 02:00 UTC belongs to the day before.
func TestBusinessTimeZoneDecidesTheDay(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := flowtest.NewHarness(t, b.New(t))
		h.Clock.Set(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
		h.SKU("a")
		h.Receive("a", "default", 100)
		sell := func(at time.Time, q int64) {
			h.Clock.Set(at)
			h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: q}}, Commit: true}})
		}
		sell(time.Date(2026, 12, 1, 17, 30, 0, 0, time.UTC), 3)
		sell(time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC), 5)
		if err := h.Store.DemandHistoryPut(t.Context(), store.DemandHistoryPutParams{
			Rows: []stockd.DemandDay{{SKU: "a", Date: "2026-11-30", Quantity: 7}, {SKU: "a", Date: "2026-12-02", Quantity: 1}}, At: h.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			zone *time.Location
			asOf string
			// want is the history, oldest first: the imported day of
			// 30 November opens it.
			want []int64
		}{
			{time.UTC, "2026-12-03", []int64{7, 3, 1, 5}},
			{shanghai, "2026-12-03", []int64{7, 0, 3 + 1, 5}},
			{newYork, "2026-12-03", []int64{7, 3, 1 + 5, 0}},
			{time.UTC, "2026-12-01", []int64{7, 3}},
		} {
			ev := &evaluate.Evaluator{Store: h.Store, Zone: tc.zone}
			days, err := ev.History(t.Context(), "a", tc.asOf)
			if err != nil || !slices.Equal(days, tc.want) {
				t.Errorf("%s as of %s: history %v, %v; want %v", tc.zone, tc.asOf, days, err, tc.want)
			}
			got, err := ev.SKU(t.Context(), "a", tc.asOf)
			if err != nil {
				t.Fatal(err)
			}
			// Under 14 days: the deployment's default estimate, never σ 0.
			if got.Figures.HistoryDays != len(tc.want) || got.Figures.Source != "default" || got.AsOf != tc.asOf || got.Available != 92 || got.Figures.SafetyStock == 0 {
				t.Errorf("%s as of %s: %+v", tc.zone, tc.asOf, got)
			}
		}
	})
}

// TestImportedDemandSplitByLocation: imported days carry no location, so
// each location gets its share of the window's ledger sales (3 of 4 and 1
// of 4 here), rounded on the running total so that the shares add up to
// what was imported; the SKU-wide history is untouched.
func TestImportedDemandSplitByLocation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := flowtest.NewHarness(t, b.New(t))
		h.Clock.Set(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
		h.SKU("a")
		h.Location("north", 5)
		h.Receive("a", "default", 100)
		h.Receive("a", "north", 100)
		on := true
		h.MustDo(stockd.Command{Op: &stockd.SKUUpdate{ID: "a", Replenishment: stockd.ReplenishmentSettings{DemandByLocation: &on}}})
		h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Location: "default", Quantity: 3}, {SKU: "a", Location: "north", Quantity: 1}}, Commit: true}})
		if err := h.Store.DemandHistoryPut(t.Context(), store.DemandHistoryPutParams{
			Rows: []stockd.DemandDay{{SKU: "a", Date: "2026-11-30", Quantity: 7}, {SKU: "a", Date: "2026-12-02", Quantity: 2}}, At: h.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		ev := &evaluate.Evaluator{Store: h.Store}
		for location, want := range map[string][]int64{
			"":        {7, 4, 2},
			"default": {5, 3, 2}, // 7·¾ = 5.25 → 5; 9·¾ = 6.75 → 7, so 2 more
			"north":   {2, 1, 0}, // 7·¼ = 1.75 → 2; 9·¼ = 2.25 → 2, so 0 more
		} {
			days, err := ev.HistoryAt(t.Context(), "a", location, "2026-12-02")
			if err != nil || !slices.Equal(days, want) {
				t.Errorf("location %q: history %v, %v; want %v", location, days, err, want)
			}
		}
		whole, err := ev.SKU(t.Context(), "a", "2026-12-02")
		if err != nil {
			t.Fatal(err)
		}
		if len(whole.Locations) != 2 || whole.Locations[0].Location != "default" || whole.Locations[0].Available != 97 || whole.Locations[1].Available != 99 || whole.Available != 196 {
			t.Errorf("SKU-wide: available %d, locations %+v", whole.Available, whole.Locations)
		}
		if _, err := ev.SKUAt(t.Context(), "a", "south", "2026-12-02"); !errors.Is(err, evaluate.ErrNotByLocation) {
			t.Errorf("a location without a position: %v", err)
		}
	})
}
