package replenish

import (
	"math"
	"testing"
)

func TestTrendOf(t *testing.T) {
	flat := make([]int64, 30)
	rising := make([]int64, 30)
	for i := range flat {
		flat[i] = 10
		rising[i] = int64(10 + i) // a clean line: 10 … 39
	}
	for _, tc := range []struct {
		name                 string
		window               []int64
		levelMin, levelMax   float64
		weightMin, weightMax float64
	}{
		{"flat: no slope, the mean", flat, 10, 10, 0, 0},
		{"too short to fit: the mean", flat[:MinHistoryDays-1], 10, 10, 0, 0},
		{"empty", nil, 0, 0, 0, 0},
		// A perfect line is believed whole: 24.5 + 1·(30 − 14.5) = 40,
		// the day after the window's 39.
		{"rising line: today's level", rising, 40, 40, 1, 1},
		// The seed's window drifts up by 0.036 a day at t = 0.46: damped
		// to under a tenth, it moves the level by under 0.06 a day.
		{"the seed's window: damped", seedHistory, 14.5, 14.56, 0.05, 0.1},
	} {
		tr := TrendOf(tc.window)
		if tr.LevelDaily < tc.levelMin-1e-9 || tr.LevelDaily > tc.levelMax+1e-9 || tr.Weight < tc.weightMin || tr.Weight > tc.weightMax {
			t.Errorf("%s: level %v (want %v to %v), weight %v (want %v to %v), %+v",
				tc.name, tr.LevelDaily, tc.levelMin, tc.levelMax, tr.Weight, tc.weightMin, tc.weightMax, tr)
		}
	}

	// A falling window never expects negative demand.
	falling := make([]int64, 30)
	for i := range falling {
		falling[i] = int64(max(0, 29-2*i))
	}
	if tr := TrendOf(falling); tr.LevelDaily != 0 || tr.SlopeDaily >= 0 {
		t.Errorf("falling: %+v, want a negative slope and level 0", tr)
	}
}

func TestPoissonGammaQuantile(t *testing.T) {
	nine := make([]int64, 30) // 9 sales in 30 days
	for i := range 9 {
		nine[3*i] = 1
	}
	for _, tc := range []struct {
		name           string
		window         []int64
		protectionDays float64
		leadTimeStddev float64
		level          float64
		want           int64
		ok             bool
	}{
		// r = 1 + 9, p = 30/37: the references are sums of the
		// negative binomial's terms computed apart (lgamma in Python).
		{"9 sales, 7 days, 95 %", nine, 7, 0, 0.95, 5, true},
		{"9 sales, 7 days, median", nine, 7, 0, 0.5, 2, true},
		{"9 sales, 10 days, 95 %", nine, 10, 0, 0.95, 7, true},
		// σ_L 3 widens the Gamma to the moments of λ·ℓ.
		{"9 sales, 10 ± 3 days, 95 %", nine, 10, 3, 0.95, 8, true},
		{"no sale: no rate to guess", make([]int64, 30), 7, 0, 0.95, 0, false},
		{"no window", nil, 7, 0, 0.95, 0, false},
		{"no protection period", nine, 0, 0, 0.95, 0, false},
	} {
		got, ok := PoissonGammaQuantile(tc.window, tc.protectionDays, tc.leadTimeStddev, tc.level)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A long window of three a day over the longest protection period
	// stays finite and near its mean.
	busy := make([]int64, DemandWindowDaysMax)
	for i := range busy {
		busy[i] = 3
	}
	if got, ok := PoissonGammaQuantile(busy, 2*LeadTimeDaysMax, 100, ServiceLevelMax); !ok || got < 3*2*LeadTimeDaysMax || got > 4*3*2*LeadTimeDaysMax {
		t.Errorf("busy window: %d, %v", got, ok)
	}
}

// TestEstimatorsMoveOnlyTheReorderPoint: on a rising window the trend
// raises the reorder point and nothing else; on a slow mover the Poisson-
// gamma quantile is a floor under it; a fast mover ignores it.
func TestEstimatorsMoveOnlyTheReorderPoint(t *testing.T) {
	in := seedInput()
	in.DemandDaily = make([]int64, 30)
	for i := range in.DemandDaily {
		in.DemandDaily[i] = int64(10 + i)
	}
	in.Estimator = EstimatorMean
	mean := mustCompute(t, in)
	in.Estimator = EstimatorTrend
	trend := mustCompute(t, in)
	if trend.ReorderPoint <= mean.ReorderPoint || trend.SafetyStock != mean.SafetyStock || trend.OrderUpTo != max(mean.OrderUpTo, trend.AlertLine+1) || trend.DaysOfCover != mean.DaysOfCover {
		t.Errorf("trend: %+v\nmean: %+v", trend, mean)
	}
	// 40 a day over 7 days plus the same buffer.
	if want := ceilUnits(40*7 + trend.Z*math.Sqrt(7)*trend.Demand.StddevDaily); trend.ReorderPoint != want {
		t.Errorf("trend ROP %d, want %d", trend.ReorderPoint, want)
	}

	slow := seedInput()
	slow.DemandDaily = make([]int64, 30)
	for i := range 9 {
		slow.DemandDaily[3*i] = 1
	}
	slow.LeadTimeDays = 10
	slow.LeadTimeStddevDays = 3
	slow.Estimator = EstimatorMean
	normal := mustCompute(t, slow)
	slow.Estimator = EstimatorPoissonGamma
	pg := mustCompute(t, slow)
	if normal.ReorderPoint >= 8 || pg.PoissonGammaUnits != 8 || pg.ReorderPoint != 8 || pg.SafetyStock != normal.SafetyStock {
		t.Errorf("slow mover: normal %+v\npoisson-gamma %+v", normal, pg)
	}
	fast := seedInput()
	fast.Estimator = EstimatorPoissonGamma
	if f := mustCompute(t, fast); f.PoissonGammaUnits != 0 {
		t.Errorf("d̄ 14.5 is no slow mover: %+v", f)
	}
}
