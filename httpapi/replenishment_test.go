package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// seedHistory is 30 days beginning with seed 003 §4.2's [12, 15, 9, 20,
// 18, 11, 14, 16, 13, 17, ...]: mean 14.5, population deviation 3.603.
var seedHistory = []int64{12, 15, 9, 20, 18, 11, 14, 16, 13, 17, 21, 11, 13, 8, 19, 14, 16, 14, 17, 14, 9, 10, 16, 8, 18, 14, 18, 13, 17, 20}

func TestReplenishment(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		exerciseReplenishment(newHarness(t, b))
	})
}

func (h *harness) replenishment(sku, query string) Replenishment {
	h.t.Helper()
	var out Replenishment
	h.must("GET", "/v1/replenishment/"+sku+query, "", "", http.StatusOK, &out)
	return out
}

// wantSeedFigures checks the seed's worked example: SS 16, ROP 118 (not the
// Python sketch's 117), 60 available, nothing in transit, Q 400.
func wantSeedFigures(t *testing.T, r Replenishment, source string) {
	t.Helper()
	if r.Source != source || r.MeanDaily != 14.5 || math.Abs(r.StddevDaily-3.6) > 0.005 || r.LeadTimeDays != 7 || r.ServiceLevel != 0.95 {
		t.Fatalf("inputs: %+v", r)
	}
	if r.SafetyStock != 16 || r.ReorderPoint != 118 || r.Available != 60 || r.InventoryPosition != 60 || r.SuggestedQuantity != 400 || r.Level != "critical" {
		t.Fatalf("figures: SS %d, ROP %d, available %d, IP %d, Q %d, level %s; want 16, 118, 60, 60, 400, critical",
			r.SafetyStock, r.ReorderPoint, r.Available, r.InventoryPosition, r.SuggestedQuantity, r.Level)
	}
	if r.DaysOfCover == nil || math.Abs(*r.DaysOfCover-60/14.5) > 1e-9 {
		t.Fatalf("days of cover %v, want 60/14.5", r.DaysOfCover)
	}
}

// exerciseReplenishment drives settings, the figures, cold start, import
// and observed lead times. It moves the clock 35 days forward.
func exerciseReplenishment(h *harness) {
	t := h.t
	t.Helper()
	// Start an hour into a UTC business day, so that each day's sales
	// fall in the day they are made on.
	now := h.clock.Now().UTC()
	h.clock.Advance(time.Date(now.Year(), now.Month(), now.Day()+1, 1, 0, 0, 0, time.UTC).Sub(now))
	day0 := h.clock.Now().UTC()
	date := func(i int) string { return day0.AddDate(0, 0, i).Format(time.DateOnly) }

	// Settings: the seed's SKU, lead time 7, multiples of 50.
	h.seed(495, "RS")
	var sku SKU
	h.must("PATCH", "/v1/skus/RS", "rs-settings", `{"lead_time_days":7,"order_multiple":50,"category":"tea","price_band":"cheap"}`, http.StatusOK, &sku)
	if sku.Replenishment == nil || *sku.Replenishment.LeadTimeDays != 7 || *sku.Replenishment.OrderMultiple != 50 || *sku.Replenishment.Category != "tea" || sku.Replenishment.ServiceLevel != nil {
		t.Fatalf("settings answer = %+v", sku.Replenishment)
	}
	for _, bad := range []struct{ body, field string }{
		{`{"service_level":0.3}`, "service_level"},
		{`{"service_level":0.9991}`, "service_level"},
		{`{"lead_time_days":-1}`, "lead_time_days"},
		{`{"lead_time_stddev_days":366}`, "lead_time_stddev_days"},
		{`{"review_days":0}`, "review_days"},
		{`{"cover_days":731}`, "cover_days"},
		{`{"order_multiple":0}`, "order_multiple"},
		{`{"min_order_quantity":-1}`, "min_order_quantity"},
		{`{"red_line":1000000000001}`, "red_line"},
		{`{"demand_window_days":366}`, "demand_window_days"},
		{`{"slow_moving_days":0}`, "slow_moving_days"},
		{`{"category":"` + strings.Repeat("c", stockd.ReplenishmentLabelLengthMax+1) + `"}`, "category"},
		{`{"price_band":"a\u0000"}`, "price_band"},
		{`{"lead_time_days":3,"cover_days":0}`, "cover_days"}, // nothing of a bad PATCH is written
		{`{"review_days":1.5}`, "review_days"},
	} {
		p := h.must("PATCH", "/v1/skus/RS", "rs-bad-"+bad.body, bad.body, http.StatusBadRequest, nil).problem(t)
		if p.Code != stockd.CodeInvalidInput || p.Field != bad.field {
			t.Errorf("%s: %s %s, want invalid_input %s", bad.body, p.Code, p.Field, bad.field)
		}
	}
	h.must("GET", "/v1/skus/RS", "", "", http.StatusOK, &sku)
	if *sku.Replenishment.LeadTimeDays != 7 || sku.Replenishment.CoverDays != nil {
		t.Fatalf("a refused PATCH wrote: %+v", sku.Replenishment)
	}

	// Thirty days of sales through the ledger, the seed's, leaving 60.
	for i, q := range seedHistory {
		h.must("POST", "/v1/reservations", fmt.Sprintf("rs-sale-%d", i), fmt.Sprintf(`{"lines":[{"sku":"RS","quantity":%d}],"commit":true}`, q), http.StatusCreated, nil)
		h.clock.Advance(24 * time.Hour)
	}
	r := h.replenishment("RS", "?as_of="+date(29))
	wantSeedFigures(t, r, "history")
	if r.HistoryDays != 30 || r.AsOf != date(29) || r.LeadTimeSource != "settings" || r.Settings.CoverDays != 30 || r.Settings.OrderMultiple != 50 {
		t.Fatalf("RS = %+v", r)
	}
	// as_of bounds the history: a day earlier, the first 29 days.
	if r := h.replenishment("RS", "?as_of="+date(28)); r.HistoryDays != 29 {
		t.Fatalf("as_of day 28: %d days", r.HistoryDays)
	}
	// Today (day 30, no sales yet) is the default as_of: day 0 left the
	// window, a zero day entered.
	if r := h.replenishment("RS", ""); r.AsOf != date(30) || r.HistoryDays != 30 || r.MeanDaily != (435.0-12)/30 {
		t.Fatalf("default as_of: %s, %d days, d̄ %v", r.AsOf, r.HistoryDays, r.MeanDaily)
	}

	// The seed's exact d̄ and σ_d, as the deployment's cold-start default
	// for a SKU without history or peers.
	var defaults ReplenishmentDefaults
	h.must("GET", "/v1/settings/replenishment", "", "", http.StatusOK, &defaults)
	if defaults.ServiceLevel != 0.95 || defaults.CoverDays != 30 || defaults.LeadTimeDays != 7 || defaults.ColdStartStddevDaily != 1 {
		t.Fatalf("built-in defaults = %+v", defaults)
	}
	h.must("PATCH", "/v1/settings/replenishment", "rx-defaults", `{"cold_start_mean_daily":14.5,"cold_start_stddev_daily":3.6,"order_multiple":50}`, http.StatusOK, &defaults)
	if defaults.ColdStartMeanDaily != 14.5 || defaults.OrderMultiple != 50 || defaults.ServiceLevel != 0.95 {
		t.Fatalf("defaults after = %+v", defaults)
	}
	h.must("PATCH", "/v1/settings/replenishment", "rx-defaults", `{"cold_start_mean_daily":14.5,"cold_start_stddev_daily":3.6,"order_multiple":50}`, http.StatusOK, nil)
	h.must("PATCH", "/v1/settings/replenishment", "rx-defaults", `{"cold_start_mean_daily":1}`, http.StatusUnprocessableEntity, nil)
	h.must("PATCH", "/v1/settings/replenishment", "rx-defaults-empty", `{}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	for _, bad := range []struct{ body, field string }{
		{`{"cold_start_stddev_daily":0}`, "cold_start_stddev_daily"},
		{`{"category":"tea"}`, "category"},
		{`{"service_level":1}`, "service_level"},
	} {
		if p := h.must("PATCH", "/v1/settings/replenishment", "rx-bad-"+bad.body, bad.body, http.StatusBadRequest, nil).problem(t); p.Field != bad.field {
			t.Errorf("defaults %s: field %q", bad.body, p.Field)
		}
	}
	h.seed(60, "RX")
	wantSeedFigures(t, h.replenishment("RX", ""), "default")

	// Cold start from peers: RS has history in tea/cheap.
	h.seed(60, "RB", "RC")
	h.must("PATCH", "/v1/skus/RB", "rb-settings", `{"category":"tea","price_band":"cheap"}`, http.StatusOK, nil)
	h.must("PATCH", "/v1/skus/RC", "rc-settings", `{"category":"tea","price_band":"dear"}`, http.StatusOK, nil)
	rs := h.replenishment("RS", "")
	for sku, source := range map[string]string{"RB": "category_price_band", "RC": "category"} {
		r := h.replenishment(sku, "")
		if r.Source != source || r.HistoryDays != 1 || r.MeanDaily != rs.MeanDaily || r.StddevDaily != rs.StddevDaily || r.SafetyStock == 0 {
			t.Errorf("%s: source %s, %d days, d̄ %v σ %v SS %d; want %s with RS's d̄ %v σ %v", sku, r.Source, r.HistoryDays, r.MeanDaily, r.StddevDaily, r.SafetyStock, source, rs.MeanDaily, rs.StddevDaily)
		}
	}

	exerciseDemandHistory(h, date)
	exerciseReplenishmentList(h, date)
	exerciseObservedLeadTime(h)
	exerciseDaysOfCover(h, date)

	// Refusals and failures of the reads.
	for _, path := range []string{
		"/v1/replenishment/RS?as_of=2026-13-01", "/v1/replenishment/RS?as_of=yesterday", "/v1/replenishment/RS?since=1",
		"/v1/replenishment?status=bogus", "/v1/replenishment?limit=0", "/v1/replenishment?limit=101", "/v1/replenishment?after=a%20b",
	} {
		h.must("GET", path, "", "", http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	}
	h.must("GET", "/v1/replenishment/nowhere", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeUnknownSKU)
	h.must("POST", "/v1/skus", "r-kit", `{"sku":"RKIT","bundle":true}`, http.StatusCreated, nil)
	h.must("GET", "/v1/replenishment/RKIT", "", "", http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	for _, path := range []string{"/v1/replenishment/RS", "/v1/replenishment", "/v1/settings/replenishment"} {
		h.expect("GET", path, "", http.StatusInternalServerError, map[string]string{headerTestFault: faultInternal})
		h.expect("GET", path, "", http.StatusServiceUnavailable, map[string]string{headerTestFault: faultDown})
	}
	for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultDown: http.StatusServiceUnavailable} {
		h.expect("PATCH", "/v1/settings/replenishment", `{"review_days":2}`, status, map[string]string{headerIdempotencyKey: "defaults-" + fault, headerTestFault: fault})
		h.expect("POST", "/v1/demand-history", `{"rows":[{"sku":"RS","date":"2020-01-01","quantity":1}]}`, status, map[string]string{headerTestFault: fault})
	}
	h.must("PATCH", "/v1/settings/replenishment", "defaults-large", `{"cover_days":1,"x":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	h.must("PATCH", "/v1/settings/replenishment", "", `{"cover_days":1}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeIdempotencyKeyMissing)
}

// exerciseDemandHistory imports history for a SKU the ledger has just
// met: imported days count from the first one, and add to the ledger's.
func exerciseDemandHistory(h *harness, date func(int) string) {
	t := h.t
	t.Helper()
	h.seed(100, "RI")
	rows := make([]string, 20)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"sku":"RI","date":"%s","quantity":5}`, date(11+i))
	}
	body := `{"rows":[` + strings.Join(rows, ",") + `]}`
	var imported DemandHistoryImported
	h.must("POST", "/v1/demand-history", "", body, http.StatusOK, &imported)
	h.must("POST", "/v1/demand-history", "", body, http.StatusOK, nil) // idempotent
	if imported.Rows != 20 {
		t.Fatalf("imported = %+v", imported)
	}
	// Today's (day 30) ledger sale of 5 adds to the imported 5.
	h.must("POST", "/v1/reservations", "ri-sale", `{"lines":[{"sku":"RI","quantity":5}],"commit":true}`, http.StatusCreated, nil)
	r := h.replenishment("RI", "")
	if r.Source != "history" || r.HistoryDays != 20 || r.MeanDaily != 5.25 {
		t.Fatalf("RI: source %s, %d days, d̄ %v; want history, 20 days (11 to 30), 5.25", r.Source, r.HistoryDays, r.MeanDaily)
	}
	// A row of the same day replaces the imported one, never the ledger's.
	h.must("POST", "/v1/demand-history", "", `{"rows":[{"sku":"RI","date":"`+date(30)+`","quantity":7}]}`, http.StatusOK, nil)
	if r := h.replenishment("RI", ""); r.MeanDaily != (19*5+7+5)/20.0 {
		t.Fatalf("RI after a replaced day: d̄ %v", r.MeanDaily)
	}

	// Nothing of a bad request is written.
	for _, bad := range []struct {
		body, code, field string
		status            int
	}{
		{`{"rows":[{"sku":"RI","date":"2020-01-01","quantity":9},{"sku":"RI","date":"2020-02-30","quantity":1}]}`, stockd.CodeInvalidInput, "rows[1].date", http.StatusBadRequest},
		{`{"rows":[{"sku":"RI","date":"2020-01-01","quantity":9},{"sku":"RI","date":"2020-01-01","quantity":1}]}`, stockd.CodeInvalidInput, "rows[1]", http.StatusBadRequest},
		{`{"rows":[{"sku":"RI","date":"2020-01-01","quantity":-9}]}`, stockd.CodeInvalidInput, "rows[0].quantity", http.StatusBadRequest},
		{`{"rows":[]}`, stockd.CodeInvalidInput, "rows", http.StatusBadRequest},
		{`{"rows":[{"sku":"RI","date":"2020-01-01","quantity":9}],"x":1}`, stockd.CodeInvalidJSON, "", http.StatusBadRequest},
		{`{"rows":[{"sku":"RI","date":"2020-01-01","quantity":9},{"sku":"nowhere","date":"2020-01-01","quantity":1}]}`, stockd.CodeUnknownSKU, "", http.StatusNotFound},
		{`{"rows":[{"sku":"RI","date":"2020-01-01","quantity":9}],"pad":"` + strings.Repeat("p", stockd.BodySizeMax) + `"}`, stockd.CodeBodyTooLarge, "", http.StatusRequestEntityTooLarge},
	} {
		p := h.must("POST", "/v1/demand-history", "", bad.body, bad.status, nil).problem(t)
		if p.Code != bad.code || p.Field != bad.field {
			t.Errorf("%.80s: %s %q, want %s %q", bad.body, p.Code, p.Field, bad.code, bad.field)
		}
	}
	tooMany := make([]string, stockd.DemandHistoryRowsMax+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf(`{"sku":"RI","date":"%s","quantity":1}`, time.Date(2000, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
	}
	h.must("POST", "/v1/demand-history", "", `{"rows":[`+strings.Join(tooMany, ",")+`]}`, http.StatusBadRequest, nil)
	days, err := h.store.DemandHistoryList(t.Context(), demandSpan("RI", "2019-06-01", "2020-05-31"))
	if err != nil || len(days) != 0 {
		t.Fatalf("refused imports wrote %v, %v", days, err)
	}
}

// exerciseReplenishmentList pages through the SKUs by level.
func exerciseReplenishmentList(h *harness, date func(int) string) {
	t := h.t
	t.Helper()
	var page ReplenishmentList
	h.must("GET", "/v1/replenishment?as_of="+date(29)+"&limit=100", "", "", http.StatusOK, &page)
	found := map[string]Replenishment{}
	for _, r := range page.SKUs {
		found[r.SKU] = r
	}
	if r, ok := found["RS"]; !ok || r.ReorderPoint != 118 || r.SuggestedQuantity != 400 {
		t.Fatalf("list as of day 29: RS %+v (found %v)", r, ok)
	}
	// Paging with a filter: one critical SKU a page, each page resuming
	// after the last SKU looked at.
	var critical []string
	after := ""
	for range 100 {
		query := "/v1/replenishment?status=critical&limit=1"
		if after != "" {
			query += "&after=" + after
		}
		var p ReplenishmentList
		h.must("GET", query, "", "", http.StatusOK, &p)
		for _, r := range p.SKUs {
			if r.Level != "critical" {
				t.Fatalf("status=critical listed %s at %s", r.SKU, r.Level)
			}
			critical = append(critical, r.SKU)
		}
		if p.NextAfter == "" {
			break
		}
		after = p.NextAfter
	}
	if len(critical) == 0 || len(critical) > len(page.SKUs) {
		t.Fatalf("critical pages: %v of %d SKUs", critical, len(page.SKUs))
	}
}

// exerciseObservedLeadTime: five purchase orders received in full
// override the settings' lead time.
func exerciseObservedLeadTime(h *harness) {
	t := h.t
	t.Helper()
	h.seed(0, "RL")
	h.must("PATCH", "/v1/skus/RL", "rl-settings", `{"lead_time_days":20,"lead_time_stddev_days":2}`, http.StatusOK, nil)
	expected := h.clock.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	for i := range 6 {
		h.must("POST", "/v1/purchase-orders", fmt.Sprintf("rl-po-%d", i),
			fmt.Sprintf(`{"id":"RL-PO-%d","supplier":"S","expected_at":"%s","lines":[{"sku":"RL","quantity":10}]}`, i, expected), http.StatusCreated, nil)
	}
	h.clock.Advance(3 * 24 * time.Hour)
	for i := range 4 {
		h.must("POST", fmt.Sprintf("/v1/purchase-orders/RL-PO-%d/receipts", i), fmt.Sprintf("rl-in-%d", i), `{"lines":[{"sku":"RL","quantity":10}]}`, http.StatusOK, nil)
	}
	// A partial receipt is not a sample.
	h.must("POST", "/v1/purchase-orders/RL-PO-5/receipts", "rl-in-5", `{"lines":[{"sku":"RL","quantity":4}]}`, http.StatusOK, nil)
	r := h.replenishment("RL", "")
	if r.LeadTimeSource != "settings" || r.LeadTimeSamples != 4 || r.LeadTimeDays != 20 || r.Incoming != 16 {
		t.Fatalf("4 samples: %s, %d, L %v, incoming %d", r.LeadTimeSource, r.LeadTimeSamples, r.LeadTimeDays, r.Incoming)
	}
	h.clock.Advance(2 * 24 * time.Hour)
	h.must("POST", "/v1/purchase-orders/RL-PO-4/receipts", "rl-in-4", `{"lines":[{"sku":"RL","quantity":10}]}`, http.StatusOK, nil)
	r = h.replenishment("RL", "")
	// Samples 3, 3, 3, 3, 5 days: mean 3.4, population deviation 0.8.
	if r.LeadTimeSource != "observed" || r.LeadTimeSamples != 5 || math.Abs(r.LeadTimeDays-3.4) > 1e-4 || math.Abs(r.LeadTimeStddevDays-0.8) > 1e-4 {
		t.Fatalf("5 samples: %s, %d, L %v ± %v", r.LeadTimeSource, r.LeadTimeSamples, r.LeadTimeDays, r.LeadTimeStddevDays)
	}
	if r.Settings.LeadTimeDays != 20 {
		t.Fatalf("the settings shown changed: %+v", r.Settings)
	}
}

// exerciseDaysOfCover: 0 with nothing available, null (infinite) with
// stock and no demand at all, which is slow moving.
func exerciseDaysOfCover(h *harness, date func(int) string) {
	t := h.t
	t.Helper()
	h.seed(0, "RZ")
	h.seed(5, "RN")
	rows := make([]string, 14)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"sku":"RN","date":"%s","quantity":0}`, date(10+i))
	}
	h.must("POST", "/v1/demand-history", "", `{"rows":[`+strings.Join(rows, ",")+`]}`, http.StatusOK, nil)
	for sku, want := range map[string]string{"RZ": "0", "RN": "null"} {
		var raw map[string]json.RawMessage
		h.must("GET", "/v1/replenishment/"+sku, "", "", http.StatusOK, &raw)
		if string(raw["days_of_cover"]) != want {
			t.Errorf("%s: days_of_cover %s, want %s", sku, raw["days_of_cover"], want)
		}
	}
	if r := h.replenishment("RN", ""); r.Level != "slow_moving" || r.Source != "history" || r.SafetyStock != 0 {
		t.Errorf("RN: %s from %s, SS %d", r.Level, r.Source, r.SafetyStock)
	}
	if r := h.replenishment("RZ", ""); r.Level != "stockout" {
		t.Errorf("RZ: %s", r.Level)
	}
}

func demandSpan(sku, from, to string) store.DemandHistoryListParams {
	return store.DemandHistoryListParams{SKU: sku, From: from, To: to}
}
