package replenish

import (
	"math"
	"testing"
)

// seedHistory is 30 days beginning with the seed's [12, 15, 9, 20, 18, 11,
// 14, 16, 13, 17, ...]: mean 14.5, population deviation 3.603 (≈ 3.6).
var seedHistory = []int64{12, 15, 9, 20, 18, 11, 14, 16, 13, 17, 21, 11, 13, 8, 19, 14, 16, 14, 17, 14, 9, 10, 16, 8, 18, 14, 18, 13, 17, 20}

// seedInput is seed 003 §4.2's worked example: L 7, 95 %, cover 30,
// available 60, nothing in transit, multiples of 50.
func seedInput() Input {
	return Input{
		DemandDaily:    seedHistory,
		LeadTimeDays:   7,
		ServiceLevel:   0.95,
		ReviewDays:     1,
		CoverDays:      30,
		OrderMultiple:  50,
		SlowMovingDays: 90,
		Available:      60,
		ColdStart:      ColdStart{Default: Estimate{MeanDaily: 1, StddevDaily: 1}},
	}
}

func mustCompute(t *testing.T, in Input) Figures {
	t.Helper()
	f, err := Compute(in)
	if err != nil {
		t.Fatalf("compute: %v", err)
	}
	return f
}

// TestSeedWorkedExample: SS 16, ROP 118 (not the Python sketch's 117),
// Q 400, under both order rules, from a real history and from the seed's
// d̄ 14.5, σ_d 3.6 exactly.
func TestSeedWorkedExample(t *testing.T) {
	exact := seedInput()
	exact.DemandDaily = nil
	exact.ColdStart.Default = Estimate{MeanDaily: 14.5, StddevDaily: 3.6}
	for _, tc := range []struct {
		name   string
		in     Input
		source Source
	}{
		{"history", seedInput(), SourceHistory},
		{"exact d̄ and σ_d", exact, SourceDefault},
	} {
		for _, pair := range rulesAndEstimators() {
			rule := pair.rule
			in := tc.in
			in.OrderRule, in.Estimator = pair.rule, pair.estimator
			f := mustCompute(t, in)
			if f.Source != tc.source || f.Demand.MeanDaily != 14.5 || math.Abs(f.Demand.StddevDaily-3.6) > 0.005 {
				t.Errorf("%s: source %s, d̄ %v, σ_d %v", tc.name, f.Source, f.Demand.MeanDaily, f.Demand.StddevDaily)
			}
			if f.SafetyStock != 16 || f.ReorderPoint != 118 || f.SuggestedQuantity != 400 || f.AlertLine != 118 || f.InventoryPosition != 60 {
				t.Errorf("%s, rule %s, estimator %s: SS %d, ROP %d, alert %d, IP %d, Q %d; want 16, 118, 118, 60, 400",
					tc.name, rule, pair.estimator, f.SafetyStock, f.ReorderPoint, f.AlertLine, f.InventoryPosition, f.SuggestedQuantity)
			}
			if math.Abs(f.Z-1.6449) > 0.0001 {
				t.Errorf("Z = %v, want 1.6449", f.Z)
			}
			// 60 / 14.5 = 4.1 days of cover, less than the 7-day lead time.
			if f.Level != LevelCritical {
				t.Errorf("%s: level %s (%s), want critical", tc.name, f.Level, f.LevelReason)
			}
		}
	}
}

type ruleAndEstimator struct {
	rule      OrderRule
	estimator Estimator
}

func rulesAndEstimators() []ruleAndEstimator {
	var all []ruleAndEstimator
	for _, r := range OrderRules {
		for _, e := range Estimators {
			all = append(all, ruleAndEstimator{r, e})
		}
	}
	return all
}

func TestCeilUnits(t *testing.T) {
	// Computed at run time: Go folds constant expressions exactly.
	sum, days, leadTime := 18.0, 14.0, 21.0
	boundary := sum / days * leadTime
	if boundary <= 27 {
		t.Fatalf("18/14·21 = %.17g no longer lands above 27; pick another case", boundary)
	}
	for _, tc := range []struct {
		name string
		x    float64
		want int64
	}{
		{"zero", 0, 0},
		{"negative rounds to zero", -0.5, 0},
		{"tiny noise above zero", 1e-12, 0},
		{"a real fraction rounds up", 0.2, 1},
		{"exact integer", 117, 117},
		{"the seed's ROP sum", 14.5*7 + 15.67, 118},
		{"the seed's SS", 15.7, 16},
		{"the seed's rounded ROP", 117.5, 118},
		{"18/14·21 lands a hair above 27", boundary, 27},
		{"a real excess of 10^-6", 117.000001, 118},
		{"just below an integer", 116.99999999, 117},
	} {
		if got := ceilUnits(tc.x); got != tc.want {
			t.Errorf("%s: ceilUnits(%.17g) = %d, want %d", tc.name, tc.x, got, tc.want)
		}
	}
}

func TestOrderQuantity(t *testing.T) {
	for _, tc := range []struct {
		need                    float64
		multiple, minimum, want int64
	}{
		{375, 50, 0, 400}, // the seed's
		{400, 50, 0, 400},
		{400.0000000001, 50, 0, 400},
		{401, 50, 0, 450},
		{0, 50, 0, 0},
		{-5, 50, 100, 0}, // nothing needed: the minimum does not apply
		{0.2, 1, 0, 1},
		{3, 1, 10, 10},
		{3, 50, 120, 150}, // the minimum, then the multiple
		{130, 50, 120, 150},
	} {
		if got := OrderQuantity(tc.need, tc.multiple, tc.minimum); got != tc.want {
			t.Errorf("OrderQuantity(%v, %d, %d) = %d, want %d", tc.need, tc.multiple, tc.minimum, got, tc.want)
		}
	}
}

// TestReorderPointBoundary: 14 days summing to 18 give d̄ = 18/14; over a
// 21-day lead time that is 27 units, which floating point computes as
// 27.000000000000004. With Z = 0 (service level 0.5) the reorder point is
// exactly that demand: 27, not 28. The same holds for the order target.
func TestReorderPointBoundary(t *testing.T) {
	history := make([]int64, 14)
	for i := range 9 {
		history[i] = 2
	}
	in := seedInput()
	in.DemandDaily = history
	in.LeadTimeDays = 21
	in.ServiceLevel = 0.5
	in.CoverDays = 21
	in.OrderMultiple = 1
	in.Available = 0
	in.OrderRule = OrderRuleCover
	// The rounding of the mean's sum: this window falls (a trend) and
	// sells under 3 a day (a slow mover), which the other estimators read.
	in.Estimator = EstimatorMean
	f := mustCompute(t, in)
	if f.SafetyStock != 0 || f.ReorderPoint != 27 || f.SuggestedQuantity != 27 {
		t.Errorf("SS %d, ROP %d, Q %d; want 0, 27, 27", f.SafetyStock, f.ReorderPoint, f.SuggestedQuantity)
	}
	in.LeadTimeDays = 7 // 18/14·7 = 9 exactly; plus a buffer it must round up
	in.ServiceLevel = 0.95
	f = mustCompute(t, in)
	if want := int64(math.Ceil(9 + f.Z*math.Sqrt(7)*f.Demand.StddevDaily)); f.ReorderPoint != want {
		t.Errorf("ROP %d, want %d", f.ReorderPoint, want)
	}
}

func TestOrderRules(t *testing.T) {
	in := seedInput()
	in.Available = 200 // above the alert line of 118: nothing to order yet
	for _, rule := range OrderRules {
		in.OrderRule = rule
		if f := mustCompute(t, in); f.SuggestedQuantity != 0 || f.Level != LevelOK {
			t.Errorf("%s: above the alert line Q = %d, level %s", rule, f.SuggestedQuantity, f.Level)
		}
	}

	// A 30-day lead time with 30 days of cover: the reorder point (30·14.5
	// + SS) is above cover_days of demand. The seed's rule warns and
	// suggests nothing; the adopted one orders past the alert line.
	in = seedInput()
	in.LeadTimeDays = 30
	in.Available = 440 // 30.3 days of cover: not critical
	in.OrderRule = OrderRuleCover
	f := mustCompute(t, in)
	if f.Level != LevelWarning || f.SuggestedQuantity != 0 {
		t.Errorf("seed rule: level %s, Q %d; want warning with nothing suggested", f.Level, f.SuggestedQuantity)
	}
	in.OrderRule = OrderRuleCoverAboveAlert
	f = mustCompute(t, in)
	if want := (f.AlertLine + 1 - in.Available + 49) / 50 * 50; f.OrderUpTo != f.AlertLine+1 || f.SuggestedQuantity != want {
		t.Errorf("adopted rule: target %d, alert %d, Q %d; want target alert+1, Q %d", f.OrderUpTo, f.AlertLine, f.SuggestedQuantity, want)
	}

	// Where cover_days of demand is above the alert line the adopted rule is
	// the seed's; the rejected one adds the safety stock.
	in = seedInput()
	for rule, want := range map[OrderRule]int64{OrderRuleCover: 435, OrderRuleCoverAboveAlert: 435, OrderRuleCoverPlusSafety: 451} {
		in.OrderRule = rule
		if f := mustCompute(t, in); f.OrderUpTo != want {
			t.Errorf("%s: target %d, want %d", rule, f.OrderUpTo, want)
		}
	}

	in = seedInput()
	in.Incoming = 400
	f = mustCompute(t, in)
	if f.InventoryPosition != 460 || f.SuggestedQuantity != 0 || !f.Suppressed {
		t.Errorf("an open PO of 400: IP %d, Q %d, suppressed %v", f.InventoryPosition, f.SuggestedQuantity, f.Suppressed)
	}
}

func TestRedLineAndSafetyStockBoundTheAlertLine(t *testing.T) {
	in := seedInput()
	in.RedLine = 150
	if f := mustCompute(t, in); f.AlertLine != 150 {
		t.Errorf("alert line %d, want the red line 150", f.AlertLine)
	}
	// With no lead time the reorder point is the safety stock alone.
	in = seedInput()
	in.LeadTimeDays = 0
	in.LeadTimeStddevDays = 2
	f := mustCompute(t, in)
	if f.ReorderPoint != f.SafetyStock || f.AlertLine != f.SafetyStock || f.SafetyStock == 0 {
		t.Errorf("L 0: SS %d, ROP %d, alert %d", f.SafetyStock, f.ReorderPoint, f.AlertLine)
	}
}

func TestReviewDaysWidenTheBuffer(t *testing.T) {
	in := seedInput()
	daily := mustCompute(t, in)
	in.ReviewDays = 7
	weekly := mustCompute(t, in)
	in.ReviewDays = 1
	in.LeadTimeDays = 13
	longer := mustCompute(t, in)
	if weekly.SafetyStock != longer.SafetyStock || weekly.ReorderPoint != longer.ReorderPoint || weekly.SafetyStock <= daily.SafetyStock {
		t.Errorf("review 7 days over L 7 should equal L 13 reviewed daily: %+v vs %+v", weekly, longer)
	}
}
