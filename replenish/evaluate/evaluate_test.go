package evaluate_test

import (
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
