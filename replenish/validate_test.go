package replenish

import (
	"errors"
	"math"
	"testing"
)

func namesField(err error, field string) bool {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return false
	}
	for _, e := range flatten(err) {
		if errors.As(e, &fe) && fe.Field == field {
			return true
		}
	}
	return false
}

func flatten(err error) []error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var all []error
		for _, e := range joined.Unwrap() {
			all = append(all, flatten(e)...)
		}
		return all
	}
	if inner := errors.Unwrap(err); inner != nil {
		return flatten(inner)
	}
	return []error{err}
}

func TestValidateNamesEveryLimit(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Input)
	}{
		{"demand_window_days", func(in *Input) { in.DemandDaily = make([]int64, DemandWindowDaysMax+1) }},
		{"demand", func(in *Input) { in.DemandDaily = []int64{1, -1} }},
		{"demand", func(in *Input) { in.DemandDaily = []int64{QuantityMax + 1} }},
		{"lead_time_days", func(in *Input) { in.LeadTimeDays = -1 }},
		{"lead_time_days", func(in *Input) { in.LeadTimeDays = LeadTimeDaysMax + 1 }},
		{"lead_time_days", func(in *Input) { in.LeadTimeDays = math.NaN() }},
		{"lead_time_stddev_days", func(in *Input) { in.LeadTimeStddevDays = math.Inf(1) }},
		{"service_level", func(in *Input) { in.ServiceLevel = 0.49 }},
		{"service_level", func(in *Input) { in.ServiceLevel = 0.9991 }},
		{"service_level", func(in *Input) { in.ServiceLevel = math.NaN() }},
		{"review_days", func(in *Input) { in.ReviewDays = 0 }},
		{"cover_days", func(in *Input) { in.CoverDays = 0 }},
		{"cover_days", func(in *Input) { in.CoverDays = CoverDaysMax + 1 }},
		{"slow_moving_days", func(in *Input) { in.SlowMovingDays = 0 }},
		{"order_multiple", func(in *Input) { in.OrderMultiple = 0 }},
		{"min_order_quantity", func(in *Input) { in.MinOrderQuantity = -1 }},
		{"red_line", func(in *Input) { in.RedLine = QuantityMax + 1 }},
		{"available", func(in *Input) { in.Available = -1 }},
		{"in_transit", func(in *Input) { in.InTransit = -1 }},
		{"incoming", func(in *Input) { in.Incoming = -1 }},
		{"cold_start.category", func(in *Input) { in.ColdStart.Category.MeanDaily = -1 }},
		{"cold_start.category_price_band", func(in *Input) { in.ColdStart.CategoryPriceBand.StddevDaily = math.NaN() }},
		{"cold_start.default", func(in *Input) { in.ColdStart.Default = Estimate{} }},
		{"order_rule", func(in *Input) { in.OrderRule = "eoq" }},
	} {
		in := seedInput()
		tc.edit(&in)
		err := in.Validate()
		if !namesField(err, tc.field) {
			t.Errorf("%s: got %v", tc.field, err)
		}
		if _, cerr := Compute(in); cerr == nil {
			t.Errorf("%s: Compute accepted an invalid input", tc.field)
		}
	}
	if err := seedInput().Validate(); err != nil {
		t.Errorf("the seed's input: %v", err)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	in := seedInput()
	in.ServiceLevel = 2
	in.CoverDays = -1
	err := in.Validate()
	if !namesField(err, "service_level") || !namesField(err, "cover_days") {
		t.Errorf("got %v", err)
	}
}
