package replenish

import (
	"testing"

	"pgregory.net/rapid"
)

// drawInput draws a valid input whose demand is an alternating history
// (m−k, m+k, …), so that its mean is m and its population deviation
// exactly k: raising k raises σ_d and nothing else.
func drawInput(t *rapid.T, deviation int64) Input {
	mean := rapid.Int64Range(deviation, deviation+200).Draw(t, "mean")
	days := 2 * rapid.IntRange(MinHistoryDays/2, DemandWindowDaysMax/2).Draw(t, "half_days")
	history := make([]int64, days)
	for i := range history {
		history[i] = mean - deviation
		if i%2 == 1 {
			history[i] = mean + deviation
		}
	}
	return Input{
		DemandDaily:        history,
		LeadTimeDays:       rapid.Float64Range(0, 60).Draw(t, "lead_time_days"),
		LeadTimeStddevDays: rapid.Float64Range(0, 20).Draw(t, "lead_time_stddev_days"),
		ServiceLevel:       rapid.Float64Range(ServiceLevelMin, ServiceLevelMax).Draw(t, "service_level"),
		ReviewDays:         rapid.IntRange(1, 14).Draw(t, "review_days"),
		CoverDays:          rapid.IntRange(1, 120).Draw(t, "cover_days"),
		OrderMultiple:      rapid.Int64Range(1, 100).Draw(t, "order_multiple"),
		MinOrderQuantity:   rapid.Int64Range(0, 500).Draw(t, "min_order_quantity"),
		RedLine:            rapid.Int64Range(0, 100).Draw(t, "red_line"),
		SlowMovingDays:     rapid.IntRange(1, 365).Draw(t, "slow_moving_days"),
		Available:          rapid.Int64Range(0, 20_000).Draw(t, "available"),
		InTransit:          rapid.Int64Range(0, 1000).Draw(t, "in_transit"),
		Incoming:           rapid.Int64Range(0, 5000).Draw(t, "incoming"),
		ColdStart:          ColdStart{Default: Estimate{MeanDaily: 1, StddevDaily: 1}},
		OrderRule:          rapid.SampledFrom(OrderRules).Draw(t, "order_rule"),
		Estimator:          rapid.SampledFrom(Estimators).Draw(t, "estimator"),
	}
}

// TestFiguresAreMonotone: more uncertainty (σ_d, σ_L), a longer lead time
// or a higher service level never lowers the safety stock, the reorder
// point, the alert line or the suggested quantity, under every order rule
// and estimator.
func TestFiguresAreMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		deviation := rapid.Int64Range(0, 50).Draw(t, "deviation")
		low := drawInput(t, deviation)
		high := low
		switch rapid.SampledFrom([]string{"stddev", "lead_time", "lead_time_stddev", "service_level", "cold_start_stddev"}).Draw(t, "raise") {
		case "stddev":
			more := deviation + rapid.Int64Range(1, 50).Draw(t, "more")
			high.DemandDaily = make([]int64, len(low.DemandDaily))
			mean := low.DemandDaily[0] + deviation
			for i := range high.DemandDaily {
				high.DemandDaily[i] = mean - more
				if i%2 == 1 {
					high.DemandDaily[i] = mean + more
				}
			}
			// A negative day is no demand; keep the mean by lifting both.
			if mean < more {
				for i := range high.DemandDaily {
					high.DemandDaily[i] += more - mean
					low.DemandDaily[i] += more - mean
				}
			}
		case "lead_time":
			high.LeadTimeDays += rapid.Float64Range(0, 30).Draw(t, "more")
		case "lead_time_stddev":
			high.LeadTimeStddevDays += rapid.Float64Range(0, 10).Draw(t, "more")
		case "service_level":
			high.ServiceLevel = rapid.Float64Range(low.ServiceLevel, ServiceLevelMax).Draw(t, "higher")
		case "cold_start_stddev":
			low.DemandDaily = low.DemandDaily[:rapid.IntRange(0, MinHistoryDays-1).Draw(t, "cold_days")]
			high.DemandDaily = low.DemandDaily
			low.ColdStart.Default = Estimate{MeanDaily: rapid.Float64Range(0, 100).Draw(t, "cold_mean"), StddevDaily: rapid.Float64Range(0.01, 30).Draw(t, "cold_stddev")}
			high.ColdStart.Default = low.ColdStart.Default
			high.ColdStart.Default.StddevDaily += rapid.Float64Range(0, 30).Draw(t, "more")
		}
		lo, err := Compute(low)
		if err != nil {
			t.Fatalf("low: %v", err)
		}
		hi, err := Compute(high)
		if err != nil {
			t.Fatalf("high: %v", err)
		}
		for _, c := range []struct {
			name     string
			low, top int64
		}{
			{"safety stock", lo.SafetyStock, hi.SafetyStock},
			{"reorder point", lo.ReorderPoint, hi.ReorderPoint},
			{"alert line", lo.AlertLine, hi.AlertLine},
			{"suggested quantity", lo.SuggestedQuantity, hi.SuggestedQuantity},
		} {
			if c.top < c.low {
				t.Fatalf("%s fell from %d to %d:\nlow  %+v\nhigh %+v", c.name, c.low, c.top, lo, hi)
			}
		}
	})
}
