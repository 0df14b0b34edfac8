package httpapi

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/replenish"
)

// TestReplenishmentByLocation: a SKU selling 10 a day at one location and
// 2 at another gets d̄ 10 and 2 there, each with the safety stock and
// reorder point replenish.Compute gives for that location's own history
// and stock; the SKU-wide answer carries both; the deployment defaults
// refuse the setting; a SKU that did not opt in, or a location without a
// position, is 422.
func TestReplenishmentByLocation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		now := h.clock.Now().UTC()
		h.clock.Advance(time.Date(now.Year(), now.Month(), now.Day()+1, 1, 0, 0, 0, time.UTC).Sub(now))
		day0 := h.clock.Now().UTC()
		asOf := day0.AddDate(0, 0, 29).Format(time.DateOnly)

		h.must("POST", "/v1/locations", "rl-loc", `{"location":"east","priority":1}`, http.StatusCreated, nil)
		h.seed(0, "RL", "RW")
		for _, loc := range []string{"default", "east"} {
			h.must("POST", "/v1/receipts", "rl-rcv-"+loc, `{"sku":"RL","location":"`+loc+`","quantity":1000}`, http.StatusOK, nil)
		}
		h.must("POST", "/v1/receipts", "rw-rcv", `{"sku":"RW","quantity":100}`, http.StatusOK, nil)

		p := h.must("PATCH", "/v1/settings/replenishment", "rl-defaults", `{"demand_by_location":true}`, http.StatusBadRequest, nil).problem(t)
		if p.Code != stockd.CodeInvalidInput || p.Field != "demand_by_location" {
			t.Fatalf("defaults with demand_by_location: %s %s, want invalid_input demand_by_location", p.Code, p.Field)
		}
		var sku SKU
		h.must("PATCH", "/v1/skus/RL", "rl-settings", `{"demand_by_location":true,"lead_time_days":7}`, http.StatusOK, &sku)
		if sku.Replenishment == nil || sku.Replenishment.DemandByLocation == nil || !*sku.Replenishment.DemandByLocation {
			t.Fatalf("settings answer = %+v", sku.Replenishment)
		}

		// 9, 11, 9, … at default (d̄ 10, σ 1) and 1, 3, 1, … at east (d̄ 2,
		// σ 1: a slow mover there, whatever the SKU sells as a whole).
		histories := map[string][]int64{"default": make([]int64, 30), "east": make([]int64, 30)}
		for i := range 30 {
			k := int64(1 - 2*(i%2)) // +1, −1, …
			histories["default"][i], histories["east"][i] = 10-k, 2-k
			body := fmt.Sprintf(`{"lines":[{"sku":"RL","location":"default","quantity":%d},{"sku":"RL","location":"east","quantity":%d}],"commit":true}`,
				histories["default"][i], histories["east"][i])
			h.must("POST", "/v1/reservations", fmt.Sprintf("rl-sale-%d", i), body, http.StatusCreated, nil)
			h.clock.Advance(24 * time.Hour)
		}

		for loc, mean := range map[string]float64{"default": 10, "east": 2} {
			r := h.replenishment("RL", "?location="+loc+"&as_of="+asOf)
			available := 1000 - 30*int64(mean)
			want, err := replenish.Compute(replenish.Input{
				DemandDaily: histories[loc], LeadTimeDays: 7, ServiceLevel: replenish.ServiceLevelDefault,
				ReviewDays: 1, CoverDays: 30, OrderMultiple: 1, SlowMovingDays: 90, Available: available,
				ColdStart: replenish.ColdStart{Default: replenish.Estimate{MeanDaily: 1, StddevDaily: 1}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Location != loc || r.MeanDaily != mean || r.StddevDaily != 1 || r.Available != available || r.HistoryDays != 30 || r.Source != "history" {
				t.Errorf("%s: location %q, d̄ %v, σ %v, available %d, %d days from %s; want d̄ %v, σ 1, available %d",
					loc, r.Location, r.MeanDaily, r.StddevDaily, r.Available, r.HistoryDays, r.Source, mean, available)
			}
			if r.SafetyStock != want.SafetyStock || r.ReorderPoint != want.ReorderPoint || r.SuggestedQuantity != want.SuggestedQuantity || r.Level != string(want.Level) {
				t.Errorf("%s: SS %d, ROP %d, Q %d, %s; want %d, %d, %d, %s", loc, r.SafetyStock, r.ReorderPoint, r.SuggestedQuantity, r.Level,
					want.SafetyStock, want.ReorderPoint, want.SuggestedQuantity, want.Level)
			}
			if r.SafetyStock != 5 || len(r.Locations) != 0 {
				t.Errorf("%s: SS %d (want ⌈1.645·√7·1⌉ = 5), %d nested locations", loc, r.SafetyStock, len(r.Locations))
			}
		}
		// The slow location's reorder point is held at its Poisson-gamma
		// quantile, above the normal 14 + 4.35.
		if r := h.replenishment("RL", "?location=east&as_of="+asOf); r.ReorderPoint <= 19 {
			t.Errorf("east ROP %d, want above the normal 19", r.ReorderPoint)
		}

		whole := h.replenishment("RL", "?as_of="+asOf)
		if whole.MeanDaily != 12 || whole.Location != "" || len(whole.Locations) != 2 || whole.Locations[0].Location != "default" ||
			whole.Locations[0].MeanDaily != 10 || whole.Locations[1].Location != "east" || whole.Locations[1].MeanDaily != 2 || !whole.Settings.DemandByLocation {
			t.Errorf("SKU-wide: d̄ %v, locations %+v", whole.MeanDaily, whole.Locations)
		}
		var list ReplenishmentList
		h.must("GET", "/v1/replenishment?as_of="+asOf, "", "", http.StatusOK, &list)
		for _, r := range list.SKUs {
			if want := map[string]int{"RL": 2}[r.SKU]; len(r.Locations) != want {
				t.Errorf("list: %s has %d locations, want %d", r.SKU, len(r.Locations), want)
			}
		}

		for _, q := range []string{"RW?location=default", "RL?location=nowhere"} {
			if p := h.must("GET", "/v1/replenishment/"+q, "", "", http.StatusUnprocessableEntity, nil).problem(t); p.Code != stockd.CodeUnprocessable {
				t.Errorf("%s: %s, want unprocessable", q, p.Code)
			}
		}
		if p := h.must("GET", "/v1/replenishment/RL?location=a%20b", "", "", http.StatusBadRequest, nil).problem(t); p.Field != "location" {
			t.Errorf("bad location: field %q", p.Field)
		}

		// The client reads the same.
		c := NewClient(h.url)
		if r, err := c.GetReplenishmentAt(t.Context(), "RL", "east", asOf); err != nil || r.MeanDaily != 2 || r.Location != "east" {
			t.Errorf("client: %+v, %v", r, err)
		}
	})
}
