package replenish

import (
	"errors"
	"fmt"
	"math"
)

// Input is everything one computation sees about one SKU. Days are business
// days; quantities are units of the SKU's base unit.
type Input struct {
	// DemandDaily is the demand of each business day in the window, oldest
	// first, days without sales included as zeros. Its length is the
	// history the SKU has: a SKU created 5 days ago passes 5 days, not a
	// window padded with zeros it never had the chance to sell in.
	DemandDaily []int64

	LeadTimeDays       float64
	LeadTimeStddevDays float64
	ServiceLevel       float64
	ReviewDays         int
	CoverDays          int
	OrderMultiple      int64
	MinOrderQuantity   int64
	RedLine            int64
	SlowMovingDays     int

	Available int64
	InTransit int64
	// Incoming is the open quantity of purchase orders.
	Incoming int64

	// ColdStart supplies d̄ and σ_d when DemandDaily is shorter than
	// MinHistoryDays.
	ColdStart ColdStart
	// OrderRule picks the order-up-to target; the zero value is
	// OrderRuleDefault.
	OrderRule OrderRule
	// Estimator picks the reorder point's reading of the window; the zero
	// value is EstimatorDefault.
	Estimator Estimator
}

// Estimate is a demand estimate: mean and standard deviation of daily
// demand, in units per day.
type Estimate struct {
	MeanDaily   float64
	StddevDaily float64
}

// usable reports whether a cold-start estimate may stand in for a SKU's
// own: one with no deviation is skipped, because σ = 0 would zero the
// safety stock of a SKU nobody knows yet (seed 003 §4.2: "不要用 0 顶替").
// The zero Estimate (no peers to average) is therefore never used either.
func (e Estimate) usable() bool { return e.StddevDaily > 0 }

// ColdStart holds the fallbacks tried in order for a SKU with less than
// MinHistoryDays of history. Peers.ColdStart builds the first two from the
// SKUs that have history; leave one zero when there are no such peers.
type ColdStart struct {
	CategoryPriceBand Estimate
	Category          Estimate
	// Default is the deployment's, the last resort; its StddevDaily must
	// be positive.
	Default Estimate
}

// FieldError names the input a limit refused, by its settings name.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func fieldError(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks every limit and returns each violation as a *FieldError
// (joined; errors.As finds the first), or nil.
func (in Input) Validate() error {
	var errs []error
	check := func(ok bool, field, format string, args ...any) {
		if !ok {
			errs = append(errs, fieldError(field, format, args...))
		}
	}
	check(len(in.DemandDaily) <= DemandWindowDaysMax, "demand_window_days", "at most %d days of history, got %d", DemandWindowDaysMax, len(in.DemandDaily))
	for i, q := range in.DemandDaily {
		if q < 0 || q > QuantityMax {
			check(false, "demand", "day %d: %d units is outside 0 to %d", i, q, QuantityMax)
			break
		}
	}
	check(inRange(in.LeadTimeDays, 0, LeadTimeDaysMax), "lead_time_days", "must be from 0 to %d days", LeadTimeDaysMax)
	check(inRange(in.LeadTimeStddevDays, 0, LeadTimeDaysMax), "lead_time_stddev_days", "must be from 0 to %d days", LeadTimeDaysMax)
	check(inRange(in.ServiceLevel, ServiceLevelMin, ServiceLevelMax), "service_level", "must be from %g to %g", ServiceLevelMin, ServiceLevelMax)
	check(in.ReviewDays >= 1 && in.ReviewDays <= ReviewDaysMax, "review_days", "must be from 1 to %d", ReviewDaysMax)
	check(in.CoverDays >= 1 && in.CoverDays <= CoverDaysMax, "cover_days", "must be from 1 to %d", CoverDaysMax)
	check(in.SlowMovingDays >= 1 && in.SlowMovingDays <= SlowMovingDaysMax, "slow_moving_days", "must be from 1 to %d", SlowMovingDaysMax)
	check(in.OrderMultiple >= 1 && in.OrderMultiple <= QuantityMax, "order_multiple", "must be from 1 to %d", QuantityMax)
	for _, q := range []struct {
		field string
		units int64
	}{
		{"min_order_quantity", in.MinOrderQuantity},
		{"red_line", in.RedLine},
		{"available", in.Available},
		{"in_transit", in.InTransit},
		{"incoming", in.Incoming},
	} {
		check(q.units >= 0 && q.units <= QuantityMax, q.field, "must be from 0 to %d units", QuantityMax)
	}
	for _, e := range []struct {
		field    string
		estimate Estimate
	}{
		{"cold_start.category_price_band", in.ColdStart.CategoryPriceBand},
		{"cold_start.category", in.ColdStart.Category},
		{"cold_start.default", in.ColdStart.Default},
	} {
		check(inRange(e.estimate.MeanDaily, 0, float64(QuantityMax)) && inRange(e.estimate.StddevDaily, 0, float64(QuantityMax)),
			e.field, "mean and standard deviation must be from 0 to %d units a day", QuantityMax)
	}
	check(in.ColdStart.Default.usable(), "cold_start.default", "standard deviation must be positive: cold start never uses σ = 0")
	check(in.OrderRule.valid(), "order_rule", "must be one of %q", OrderRules)
	check(in.Estimator.valid(), "estimator", "must be one of %q", Estimators)
	return errors.Join(errs...)
}

// inRange is false for NaN, which every comparison refuses.
func inRange(x, lo, hi float64) bool { return x >= lo && x <= hi && !math.IsInf(x, 0) }
