package stockd

import "testing"

func TestEffectiveSettingsLayers(t *testing.T) {
	ptr := func(v float64) *float64 { return &v }
	days := func(v int) *int { return &v }
	tea := "tea"
	sku := ReplenishmentSettings{LeadTimeDays: ptr(3), Category: &tea}
	deployment := ReplenishmentDefaults{
		ReplenishmentSettings: ReplenishmentSettings{LeadTimeDays: ptr(10), CoverDays: days(14), Category: &tea},
		ColdStartStddevDaily:  ptr(2),
	}
	e := EffectiveSettings(sku, deployment)
	want := Effective{
		LeadTimeDays: 3, ServiceLevel: 0.95, ReviewDays: 1, CoverDays: 14, OrderMultiple: 1, Category: "tea",
		DemandWindowDays: 30, SlowMovingDays: 90, ColdStartMeanDaily: 1, ColdStartStddevDaily: 2,
	}
	if e != want {
		t.Errorf("got %+v\nwant %+v", e, want)
	}
	// A deployment's category is never a SKU's.
	if e := EffectiveSettings(ReplenishmentSettings{}, deployment); e.Category != "" || e.LeadTimeDays != 10 {
		t.Errorf("deployment only: %+v", e)
	}
	if e := EffectiveSettings(ReplenishmentSettings{}, ReplenishmentDefaults{}); e.LeadTimeDays != LeadTimeDaysDefault || e.ColdStartStddevDaily != ColdStartStddevDailyDefault {
		t.Errorf("built-in: %+v", e)
	}
}

func TestSKUUpdateReplenishmentBounds(t *testing.T) {
	bad := func(f func(*ReplenishmentSettings)) *SKUUpdate {
		u := &SKUUpdate{ID: "a"}
		f(&u.Replenishment)
		return u
	}
	level, negative, zero, long := 0.4999, -0.1, 0, string(make([]byte, ReplenishmentLabelLengthMax+1))
	for name, u := range map[string]*SKUUpdate{
		"service_level":    bad(func(r *ReplenishmentSettings) { r.ServiceLevel = &level }),
		"lead_time_days":   bad(func(r *ReplenishmentSettings) { r.LeadTimeDays = &negative }),
		"review_days":      bad(func(r *ReplenishmentSettings) { r.ReviewDays = &zero }),
		"category":         bad(func(r *ReplenishmentSettings) { r.Category = &long }),
		"slow_moving_days": bad(func(r *ReplenishmentSettings) { r.SlowMovingDays = &zero }),
	} {
		if err := u.normalize(); err == nil || err.Code != CodeInvalidInput || err.Field != name {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := (&ReplenishmentDefaultsUpdate{}).normalize(); err == nil || err.Code != CodeUnprocessable {
		t.Errorf("empty defaults: %v", err)
	}
}
