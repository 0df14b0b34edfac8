package replenish

import (
	"fmt"
	"math"
)

// OrderRule is the inventory position an order brings the SKU up to.
type OrderRule string

const (
	// OrderRuleCover is the seed's: Q = cover_days·d̄ − IP. When the
	// reorder point exceeds cover_days of demand (long, uncertain lead
	// times, slow movers whose buffer is many days of demand), the alert
	// fires while Q is still 0: a warning nobody can act on, and the SKU is
	// in effect reordered at cover_days·d̄, below its own reorder point.
	OrderRuleCover OrderRule = "cover"
	// OrderRuleCoverAboveAlert is the seed's rule with a floor: order up to
	// cover_days of demand, and always past the alert line,
	// Q = max(cover_days·d̄, alert + 1) − IP. Every alert is answered by an
	// order, and the buffer the reorder point promises is kept. It is the
	// seed's rule wherever cover_days·d̄ exceeds the alert line, as in the
	// worked example (Q 400).
	OrderRuleCoverAboveAlert OrderRule = "cover_above_alert"
	// OrderRuleCoverPlusSafety adds the safety stock on top of the cycle:
	// Q = max(cover_days·d̄ + SS, alert + 1) − IP (the example still gives
	// 400). Measured and not adopted: it holds a third more stock than the
	// fixed rule for a point fewer stockout-days (docs/design.md).
	OrderRuleCoverPlusSafety OrderRule = "cover_plus_safety"

	// OrderRuleDefault is the rule the backtest justified (docs/design.md,
	// "Replenishment").
	OrderRuleDefault = OrderRuleCoverAboveAlert
)

// OrderRules lists every rule, the default first.
var OrderRules = []OrderRule{OrderRuleCoverAboveAlert, OrderRuleCover, OrderRuleCoverPlusSafety}

func (r OrderRule) valid() bool {
	if r == "" {
		return true
	}
	for _, known := range OrderRules {
		if r == known {
			return true
		}
	}
	return false
}

// Figures is the answer of one computation: every figure a person needs to
// act on it, and where the demand estimate came from.
type Figures struct {
	Source Source
	// HistoryDays is the length of the history handed in.
	HistoryDays int
	// Demand is d̄ and σ_d as used, the SKU's own or borrowed (Source).
	Demand             Estimate
	LeadTimeDays       float64
	LeadTimeStddevDays float64
	ServiceLevel       float64
	Z                  float64
	// OrderRule is the rule OrderUpTo followed.
	OrderRule OrderRule
	// Estimator is the reading of the window ReorderPoint followed.
	Estimator Estimator
	// Trend is the window's damped trend; its LevelDaily is the demand a
	// day the reorder point expected (d̄ when the estimator has no trend or
	// the figures are borrowed).
	Trend Trend
	// PoissonGammaUnits is the slow mover's quantile of lead-time demand
	// the reorder point was held at or above, 0 when none applied.
	PoissonGammaUnits int64

	SafetyStock       int64
	ReorderPoint      int64
	AlertLine         int64
	InventoryPosition int64
	// OrderUpTo is the inventory position an order placed now aims for.
	OrderUpTo int64
	// SuggestedQuantity is what to order now: positive only when the
	// inventory position is at or below the alert line. (The seed's formula
	// also gives a positive number above it; ordering then would make the
	// reorder point meaningless.)
	SuggestedQuantity int64
	// Suppressed is true while open purchase orders cover the suggestion:
	// some are open and nothing more needs ordering. Alerts then go to the
	// digest only (seed 003 §4.3).
	Suppressed bool

	// DaysOfCover is available / d̄: 0 with nothing available, +Inf when
	// stock sits with no demand (a wire format must map the infinity,
	// JSON has none).
	DaysOfCover float64
	Level       Level
	// LevelReason says which condition of the level rule held, with its
	// numbers, for the alert text.
	LevelReason string
}

// Compute is the one computation behind the API, the alert job and the
// backtest. It validates in first and computes nothing from a bad input.
func Compute(in Input) (Figures, error) {
	if err := in.Validate(); err != nil {
		return Figures{}, fmt.Errorf("replenishment input: %w", err)
	}
	demand, source := estimateDemand(in)
	f := Figures{
		Source:             source,
		HistoryDays:        len(in.DemandDaily),
		Demand:             demand,
		LeadTimeDays:       in.LeadTimeDays,
		LeadTimeStddevDays: in.LeadTimeStddevDays,
		ServiceLevel:       in.ServiceLevel,
		Z:                  NormalQuantile(in.ServiceLevel),
		InventoryPosition:  in.Available + in.InTransit + in.Incoming,
		OrderRule:          in.OrderRule,
	}
	if f.OrderRule == "" {
		f.OrderRule = OrderRuleDefault
	}
	f.Estimator = in.Estimator
	if f.Estimator == "" {
		f.Estimator = EstimatorDefault
	}
	// A SKU reviewed every R days may miss its moment by up to R−1 days, so
	// the buffer covers L+R−1 days of demand; daily review (R = 1) is the
	// seed's L.
	protectionDays := in.LeadTimeDays + float64(in.ReviewDays-1)
	d, sd := demand.MeanDaily, demand.StddevDaily
	buffer := f.Z * math.Sqrt(protectionDays*sd*sd+d*d*in.LeadTimeStddevDays*in.LeadTimeStddevDays)
	f.SafetyStock = ceilUnits(buffer)
	// The reorder point expects the trend's level where the estimator
	// follows one; the buffer, the order-up-to level and the cover keep
	// the mean, so a trend moves when to order, not how much is held.
	// Borrowed figures have no window of their own to fit.
	f.Trend = Trend{LevelDaily: d}
	if source == SourceHistory && f.Estimator.trend() {
		f.Trend = TrendOf(in.DemandDaily)
	}
	// The reorder point rounds the exact sum once: 101.5 + 15.67 → 118,
	// never a sum of two rounded parts.
	f.ReorderPoint = ceilUnits(f.Trend.LevelDaily*protectionDays + buffer)
	if source == SourceHistory && f.Estimator.poissonGamma() && d <= SlowMeanDailyMax {
		if q, ok := PoissonGammaQuantile(in.DemandDaily, protectionDays, in.LeadTimeStddevDays, in.ServiceLevel); ok {
			f.PoissonGammaUnits = q
			f.ReorderPoint = max(f.ReorderPoint, q)
		}
	}
	f.AlertLine = max(f.ReorderPoint, f.SafetyStock, in.RedLine)

	// Rounding the cycle target up before subtracting the (whole) position
	// is the same as rounding the seed's cover_days·d̄ − IP up.
	cycle := float64(in.CoverDays) * d
	switch f.OrderRule {
	case OrderRuleCover:
		f.OrderUpTo = ceilUnits(cycle)
	case OrderRuleCoverPlusSafety:
		f.OrderUpTo = max(ceilUnits(cycle)+f.SafetyStock, f.AlertLine+1)
	case OrderRuleCoverAboveAlert:
		f.OrderUpTo = max(ceilUnits(cycle), f.AlertLine+1)
	}
	if f.InventoryPosition <= f.AlertLine {
		f.SuggestedQuantity = OrderQuantity(float64(f.OrderUpTo-f.InventoryPosition), in.OrderMultiple, in.MinOrderQuantity)
	}
	f.Suppressed = in.Incoming > 0 && f.SuggestedQuantity == 0

	switch {
	case in.Available <= 0:
		f.DaysOfCover = 0
	case d == 0:
		f.DaysOfCover = math.Inf(1)
	default:
		f.DaysOfCover = float64(in.Available) / d
	}
	f.Level, f.LevelReason = levelOf(in, f)
	return f, nil
}
